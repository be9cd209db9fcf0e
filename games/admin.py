"""Hands in the admin: read-only. A hand changes only through the services (validated by the
engine, versioned and audited), which the API's correct and void actions call."""
from django.contrib import admin

from tournaments.admin import ReadOnlyAdmin

from .models import Hand, HandVersion


class HandVersionInline(admin.TabularInline):
    model = HandVersion
    extra = 0
    can_delete = False
    fields = ["version", "voided", "reason", "created_by", "created_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = ["session", "number", "dealer", "version", "voided", "updated_at"]
    list_filter = ["voided", "session__table__round__event"]
    inlines = [HandVersionInline]
