"""The Django admin, for staff. It writes through the services like every other caller, so the
admin cannot bypass a rule the API enforces: edits are service calls (audited with ``via="admin"``),
seats change only through the tables' service, results and the audit trail are read-only, and
deleting a player anonymises him. It asks the policy the permission names the API and the console
ask (Django's own: ``add_event``, ``change_event`` ..., ``view_*`` for its pages), an edit on the
``policy.Change`` of the form's changed fields."""
from __future__ import annotations

from django.contrib import admin, messages

from . import policy, services
from .draws import services as draws
from .errors import DomainError
from .models import (
    AuditEntry,
    Club,
    Event,
    Hand,
    HandVersion,
    Membership,
    Player,
    Round,
    Seat,
    Session,
    Table,
    Transfer,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only the services write (hands, money settled by the rules, the audit trail):
    shown, never edited by hand, so that history and totals cannot drift apart."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        # Viewing is all there is to ask (Django would fall back to ``change_<model>``).
        return policy.may(request.user, f"view_{self.opts.model_name}", obj)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ServiceAdmin(admin.ModelAdmin):
    """Saves and deletes through the services (the form only builds the unsaved object); a refusal
    is shown as an error message and nothing is saved. An object's page and a save ask the policy
    (``add_<model>``, ``change_<model>``, ``delete_<model>``) on the object, a save on the
    ``policy.Change`` it would write."""

    def permission(self, act: str) -> str:
        """The policy's name of ``act`` (add, change, delete) on this admin's model."""
        return f"{act}_{self.opts.model_name}"

    def may(self, request, act: str, subject) -> bool:
        return policy.may(request.user, self.permission(act), subject)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request) if obj is None else self.may(request, "change", obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request) if obj is None else self.may(request, "delete", obj)

    def service_save(self, request, obj, form, change):
        raise NotImplementedError

    def service_delete(self, request, obj):
        raise NotImplementedError

    def save_model(self, request, obj, form, change):
        subject = policy.Change(self.model.objects.get(pk=obj.pk), _changed(form)) if change else \
            policy.Change(None, dict(form.cleaned_data))
        if not self.may(request, "change" if change else "add", subject):
            self.message_user(request, "Not saved: you may not make this change.", level=messages.ERROR)
            return
        try:
            saved = self.service_save(request, obj, form, change)
        except DomainError as error:
            self.message_user(request, f"Not saved: {error.message}", level=messages.ERROR)
            return
        if saved is not None and saved.pk:
            obj.pk = saved.pk

    def save_related(self, request, form, formsets, change):
        # Relations (organisers, memberships) are set by the service in save_model.
        pass

    def delete_model(self, request, obj):
        if not self.may(request, "delete", obj):
            self.message_user(request, f"{obj}: you may not delete this.", level=messages.ERROR)
            return
        try:
            self.service_delete(request, obj)
        except DomainError as error:
            self.message_user(request, error.message, level=messages.ERROR)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)


class MembershipInline(ReadOnlyInline):
    model = Membership
    fields = ["club", "joined_at"]
    readonly_fields = fields


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ["position", "player"]
    readonly_fields = fields


def _changed(form) -> dict:
    return {name: form.cleaned_data[name] for name in form.changed_data if name in form.cleaned_data}


@admin.register(Club)
class ClubAdmin(ServiceAdmin):
    list_display = ["name", "city", "slug"]
    search_fields = ["name", "city"]
    filter_horizontal = ["organisers"]
    readonly_fields = ["slug"]

    def service_save(self, request, obj, form, change):
        data = _changed(form)
        organisers = data.pop("organisers", None)
        if change:
            return services.club_update(club=Club.objects.get(pk=obj.pk), by_user=request.user, via="admin",
                                        organisers=organisers, **data)
        return services.club_create(by_user=request.user, via="admin", name=obj.name, city=obj.city,
                                    organisers=organisers or [])

    def service_delete(self, request, obj):
        services.club_delete(club=obj, by_user=request.user, via="admin")


@admin.register(Player)
class PlayerAdmin(ServiceAdmin):
    list_display = ["name", "initials_only", "anonymised", "user"]
    search_fields = ["name"]
    list_filter = ["initials_only", "anonymised", "clubs"]
    fields = ["name", "distinction", "initials_only", "user"]
    inlines = [MembershipInline]
    actions = ["anonymise"]

    def service_save(self, request, obj, form, change):
        data = _changed(form)
        if change:
            return services.player_update(player=Player.objects.get(pk=obj.pk), by_user=request.user, via="admin",
                                          **data)
        raise DomainError("create players in a club through the API or the console: a player needs a club")

    def has_add_permission(self, request):
        return False

    def service_delete(self, request, obj):
        # Deleting a player anonymises him: the person goes, the results stay.
        services.player_anonymise(player=obj, by_user=request.user, via="admin")

    def get_deleted_objects(self, objs, request):
        # Nothing is deleted (so nothing protected stands in the way): the players are anonymised.
        return [f"{player} (anonymised: the name goes, the results stay)" for player in objs], {}, set(), []

    @admin.action(description="Delete (anonymise) the selected players")
    def anonymise(self, request, queryset):
        for player in queryset:
            if not self.may(request, "delete", player):
                self.message_user(request, f"{player}: you may not delete this player.", level=messages.ERROR)
                continue
            services.player_anonymise(player=player, by_user=request.user, via="admin")


@admin.register(Event)
class EventAdmin(ServiceAdmin):
    list_display = ["name", "club", "game", "starts_on", "published"]
    list_filter = ["game", "published", "club"]
    search_fields = ["name"]
    filter_horizontal = ["organisers"]

    def get_readonly_fields(self, request, obj=None):
        # The game of an event with tables is fixed (the service refuses it too).
        if obj is not None and Table.objects.filter(round__event=obj).exists():
            return ["game", "club"]
        return []

    def service_save(self, request, obj, form, change):
        data = _changed(form)
        organisers = data.pop("organisers", None)
        club = data.pop("club", None)
        if change:
            return services.event_update(event=Event.objects.get(pk=obj.pk), by_user=request.user, via="admin",
                                         club=club, organisers=organisers, **data)
        options = {name: getattr(obj, name) for name in services.EVENT_FIELDS}
        return services.event_create(by_user=request.user, via="admin", club=obj.club, organisers=organisers or [],
                                     **options)

    def service_delete(self, request, obj):
        services.event_delete(event=obj, by_user=request.user, via="admin")


@admin.register(Round)
class RoundAdmin(ServiceAdmin):
    list_display = ["event", "number", "results_held", "drawn"]
    list_filter = ["results_held", "event"]
    fields = ["event", "number", "results_held", "draft", "byes"]
    readonly_fields = ["draft", "byes"]
    actions = ["draw_preview", "draw_publish", "hold_results", "release_results"]

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, "event", "number"] if obj is not None else self.readonly_fields

    @admin.display(boolean=True, description="drawn")
    def drawn(self, round_):
        return bool(round_.draft)

    def service_save(self, request, obj, form, change):
        if change:
            return services.round_set_results_held(round_=Round.objects.get(pk=obj.pk), held=obj.results_held,
                                                   by_user=request.user, via="admin")
        round_ = services.round_create(event=obj.event, number=obj.number, by_user=request.user, via="admin")
        if obj.results_held:
            services.round_set_results_held(round_=round_, held=True, by_user=request.user, via="admin")
        return round_

    def service_delete(self, request, obj):
        services.round_delete(round_=obj, by_user=request.user, via="admin")

    @admin.action(description="Draw the seating (preview; the players checked in)")
    def draw_preview(self, request, queryset):
        self._each(request, queryset, lambda r: draws.draw_preview(r, by_user=request.user, via="admin"),
                   lambda draft: f"{len(draft['tables'])} tables, quality {draft['quality']}")

    @admin.action(description="Publish the previewed draw as tables")
    def draw_publish(self, request, queryset):
        self._each(request, queryset, lambda r: draws.draw_publish(r, by_user=request.user, via="admin"),
                   lambda tables: f"{len(tables)} tables published")

    @admin.action(description="Hold the results back from the public")
    def hold_results(self, request, queryset):
        self._each(request, queryset, lambda r: services.round_set_results_held(
            round_=r, held=True, by_user=request.user, via="admin"), lambda r: "results held back")

    @admin.action(description="Release the results")
    def release_results(self, request, queryset):
        self._each(request, queryset, lambda r: services.round_set_results_held(
            round_=r, held=False, by_user=request.user, via="admin"), lambda r: "results released")

    def _each(self, request, rounds, call, describe) -> None:
        for round_ in rounds:
            if not self.may(request, "change", round_):
                self.message_user(request, f"{round_}: you may not change this round.", level=messages.ERROR)
                continue
            try:
                self.message_user(request, f"{round_}: {describe(call(round_))}")
            except DomainError as error:
                self.message_user(request, f"{round_}: {error.message}", level=messages.ERROR)


@admin.register(Table)
class TableAdmin(ServiceAdmin):
    """Tables are seated through the API, the draw or the console (the seating rules live in the
    tables' service); here they are shown, renumbered, deleted while empty, and get new links."""

    list_display = ["round", "number"]
    list_filter = ["round__event"]
    fields = ["round", "number", "first_dealer", "scorer_token"]
    readonly_fields = ["round", "first_dealer", "scorer_token"]
    inlines = [SeatInline]
    actions = ["rotate_scorer_link"]

    def has_add_permission(self, request):
        return False

    def service_save(self, request, obj, form, change):
        return services.table_update(table=Table.objects.get(pk=obj.pk), number=obj.number, by_user=request.user,
                                     via="admin")

    def service_delete(self, request, obj):
        services.table_delete(table=obj, by_user=request.user, via="admin")

    @admin.action(description="New scorer link (the old one stops working)")
    def rotate_scorer_link(self, request, queryset):
        for table in queryset:
            if not self.may(request, "change", table):
                self.message_user(request, f"{table}: you may not change this table.", level=messages.ERROR)
                continue
            services.table_rotate_scorer_token(table=table, by_user=request.user, via="admin")


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
    list_display = ["table", "number", "status", "finished_at"]
    list_filter = ["status", "table__round__event"]


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ["session", "payer", "payee", "cents", "paid", "paid_at"]
    list_filter = ["paid", "session__table__round__event"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "actor", "via", "action", "event", "object_type", "object_id"]
    list_filter = ["action", "via"]


class HandVersionInline(ReadOnlyInline):
    model = HandVersion
    fields = ["version", "dealer", "voided", "reason", "created_by", "created_at"]
    readonly_fields = fields


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    """Hands change only through the services (validated by the engine, versioned and audited),
    which the API's correct and void actions call."""

    list_display = ["session", "number", "dealer", "version", "voided", "updated_at"]
    list_filter = ["voided", "session__table__round__event"]
    inlines = [HandVersionInline]
