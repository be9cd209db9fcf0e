"""DRF permission policy: reads are open (querysets hide what is unpublished); writes need a user
whom the view's ``may_change(user, obj)`` allows."""
from rest_framework.permissions import SAFE_METHODS, BasePermission


class ReadPublishedWriteOwned(BasePermission):
    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return view.may_change(request.user, obj)
