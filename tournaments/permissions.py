"""The API's permission class: it asks the policy (``tournaments/policy.py``), nothing else.

Reads are open (the querysets come from ``policy.Visibility``); a write needs a logged-in user
(401 otherwise) whom the policy allows on the object: each view names the permission of each
action in ``object_permissions`` (``{"update": "change_event", ...}``). An action without an
entry is refused: a new write endpoint is closed until someone says who owns it.
"""
from rest_framework.permissions import SAFE_METHODS, BasePermission

from . import policy

DEFAULT_ACTIONS = {"update": "change", "partial_update": "change", "destroy": "delete"}


def object_permission(view, action: str | None) -> str | None:
    named = getattr(view, "object_permissions", {})
    if action in named:
        return named[action]
    if action in DEFAULT_ACTIONS and getattr(view, "queryset_model", None):
        return f"{DEFAULT_ACTIONS[action]}_{view.queryset_model._meta.model_name}"
    return None


class PolicyPermission(BasePermission):
    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        permission = object_permission(view, getattr(view, "action", None))
        return permission is not None and policy.may(request.user, permission, obj)
