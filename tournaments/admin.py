from django.contrib import admin, messages

from .models import AuditEntry, Club, Event, Membership, Player, Round, Seat, Session, Table, Transfer


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ["position", "player"]
    autocomplete_fields = ["player"]


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "city"]
    search_fields = ["name", "city"]
    filter_horizontal = ["organisers"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "initials_only", "anonymised", "user"]
    search_fields = ["name"]
    list_filter = ["initials_only", "anonymised", "clubs"]
    inlines = [MembershipInline]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["name", "club", "game", "starts_on", "published"]
    list_filter = ["game", "published", "club"]
    search_fields = ["name"]
    filter_horizontal = ["organisers"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["event", "number", "results_held", "drawn"]
    list_filter = ["results_held", "event"]
    readonly_fields = ["draft", "byes"]
    actions = ["draw_preview", "draw_publish"]

    @admin.display(boolean=True, description="drawn")
    def drawn(self, round_):
        return bool(round_.draft)

    @admin.action(description="Draw the seating (preview; the previous round's players)")
    def draw_preview(self, request, queryset):
        from .draws import draw_preview

        self._each(request, queryset, lambda r: draw_preview(r, by_user=request.user),
                   lambda draft: f"{len(draft['tables'])} tables, quality {draft['quality']}")

    @admin.action(description="Publish the previewed draw as tables")
    def draw_publish(self, request, queryset):
        from .draws import draw_publish

        self._each(request, queryset, lambda r: draw_publish(r, by_user=request.user),
                   lambda tables: f"{len(tables)} tables published")

    def _each(self, request, rounds, call, describe) -> None:
        from .draws import DrawError

        for round_ in rounds:
            try:
                self.message_user(request, f"{round_}: {describe(call(round_))}")
            except DrawError as error:
                self.message_user(request, f"{round_}: {error.message}", level=messages.ERROR)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["round", "number"]
    list_filter = ["round__event"]
    readonly_fields = ["scorer_token"]
    inlines = [SeatInline]


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["table", "number", "status", "finished_at"]
    list_filter = ["status", "table__round__event"]


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only the services write (money settled by the rules, the audit trail): shown,
    never edited by hand, so that history and totals cannot drift apart."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ["session", "payer", "payee", "cents", "paid", "paid_at"]
    list_filter = ["paid", "session__table__round__event"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "actor", "action", "event", "object_type", "object_id"]
    list_filter = ["action", "event"]
