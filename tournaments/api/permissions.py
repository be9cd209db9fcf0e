"""The API's one permission mechanism: each view names the policy's permission of what a request
does, and ``PolicyPermission`` asks the policy (``tournaments/policy.py``) and nothing else. The
names are the policy's one vocabulary, the same the console and the admin ask.

- A view set (``PolicyViewSet``) names them per action:
  ``permissions = {"update": "change_event", "draw": "change_round", ...}``.
- A plain view (``PolicyAPIView``) names them per HTTP method:
  ``permissions = {"GET": "view_own_account"}`` (``HEAD`` is asked as ``GET``).

Reads are open (the querysets come from ``policy.Visibility``) unless the view names a permission
for them; a write needs a logged-in user (401 otherwise) whom the policy allows on the object. An
add or change is asked on what it would write (``policy.Change``: the object and the validated
data; ``PolicyViewSet`` asks it once the data is valid). A write without an entry is refused: a new
write endpoint is closed until someone says who owns it.
"""
from rest_framework.permissions import SAFE_METHODS, BasePermission

from .. import policy


def permission_of(request, view) -> str | None:
    """The permission ``view`` names for ``request`` (None: none)."""
    named = getattr(view, "permission_for", None)
    return named(request) if named is not None else None


class PolicyPermission(BasePermission):
    def has_permission(self, request, view) -> bool:
        permission = permission_of(request, view)
        if request.method in SAFE_METHODS and permission is None:
            return True
        return bool(request.user and request.user.is_authenticated) and permission is not None

    def has_object_permission(self, request, view, obj) -> bool:
        permission = permission_of(request, view)
        if permission is None:
            return request.method in SAFE_METHODS
        return policy.may(request.user, permission, obj)
