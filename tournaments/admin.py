from django.contrib import admin

from .models import Club, Event, Membership, Player, Round, Seat, Session, Table


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
    list_display = ["event", "number", "results_held"]
    list_filter = ["results_held", "event"]


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
