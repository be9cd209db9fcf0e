"""The guide (docs/, built by MkDocs into ``settings.GUIDE_DIR``) served under ``/guide/``: static
files, as ``scripts/serve.sh`` builds them for a club's own machine. Nothing is served when the
guide is not built (404 saying how to build it)."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import Http404
from django.http import HttpResponseNotFound
from django.views.static import serve


def guide(request, path: str = ""):
    root = Path(settings.GUIDE_DIR)
    if not (root / "index.html").is_file():
        return HttpResponseNotFound("The guide is not built: python -m mkdocs build (or bash scripts/serve.sh).\n",
                                    content_type="text/plain; charset=utf-8")
    if path == "" or path.endswith("/"):
        path += "index.html"
    try:
        return serve(request, path, document_root=str(root))
    except SuspiciousFileOperation:  # a path out of the guide ("../"): nothing there
        raise Http404("no such page of the guide") from None
