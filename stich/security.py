"""What every response says about itself: the Content-Security-Policy and compression.

The pages load scripts and styles from the site only and run no inline script (their data travels
in ``data-`` attributes and ``<script type="application/json">``, which is never executed), so a name
an organiser typed can never run as code, and no injected script could send the sheet's scorer
token (in its URL) to another site. The tools that are not ours to write (the admin, DRF's browsable API, Swagger UI and
Redoc) keep the site-only sources but may use inline script and style.

Pages (HTML) are compressed only for requests that carry no credentials (no session cookie, no
``Authorization``, no scorer token header): such an answer holds nothing the requester could not
fetch anyway, so a BREACH-style guess (a secret and a reflected guess in one compressed answer)
has no secret to find. The CSRF tokens of anonymous forms are masked per response by Django, and
Django's GZipMiddleware pads its output by a random length as well. Statics come compressed from
whitenoise.
"""
from __future__ import annotations

from csp.constants import SELF, UNSAFE_INLINE
from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.middleware.gzip import GZipMiddleware

# Pages of the tools we do not write; their templates carry inline script and style (the guide:
# MkDocs' theme).
TOOL_PREFIXES = ("/admin/", "/api/", "/api-auth/", "/guide/")
TOOL_ALLOWANCES = {
    "script-src": [SELF, UNSAFE_INLINE],
    "style-src": [SELF, UNSAFE_INLINE],
    "img-src": [SELF, "data:"],  # Swagger UI's icons
    "worker-src": [SELF, "blob:"],  # Redoc's worker
}


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware with the tools' allowances on their own paths, for their pages only:
    the API's JSON answers under ``/api/`` run no script and keep the site's own policy (and hand
    submission, the most frequent request, builds no merged policy)."""

    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if (not report_only and parts.replace is None and request.path_info.startswith(TOOL_PREFIXES)
                and response.get("Content-Type", "").startswith("text/html")):
            parts.replace = TOOL_ALLOWANCES
        return parts


CREDENTIAL_HEADERS = ("HTTP_AUTHORIZATION", "HTTP_X_SCORER_TOKEN")


def carries_credentials(request) -> bool:
    return settings.SESSION_COOKIE_NAME in request.COOKIES or any(request.META.get(h) for h in CREDENTIAL_HEADERS)


class AnonymousGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware for pages (HTML) to requests without credentials only (see the
    module's docstring). The API's JSON is left as it is: its answers are small and paginated."""

    def process_response(self, request, response):
        if carries_credentials(request) or not response.get("Content-Type", "").startswith("text/html"):
            return response
        return super().process_response(request, response)
