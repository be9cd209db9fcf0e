"""The API's one permission mechanism: each view set names the policy's permission of each action,
``permissions = {"update": "update_event", "draw": "change_round", ...}``; ``PolicyPermission``
asks the policy (``tournaments/policy.py``) and nothing else.

Reads are open (the querysets come from ``policy.Visibility``) unless the view names a permission
for them; a write needs a logged-in user (401 otherwise) whom the policy allows on the object. A
create or update is asked on what it would write (``policy.Change``: the object and the validated
data; ``PolicyViewSet`` asks it once the data is valid). An action without an entry is refused: a
new write endpoint is closed until someone says who owns it.
"""
from rest_framework.permissions import SAFE_METHODS, BasePermission

from .. import policy


def permission_of(view) -> str | None:
    return getattr(view, "permissions", {}).get(getattr(view, "action", None))


class PolicyPermission(BasePermission):
    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS and permission_of(view) is None:
            return True
        return bool(request.user and request.user.is_authenticated) and permission_of(view) is not None

    def has_object_permission(self, request, view, obj) -> bool:
        permission = permission_of(view)
        if permission is None:
            return request.method in SAFE_METHODS
        return policy.may(request.user, permission, obj)
