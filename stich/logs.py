"""Filters of the service's log (settings.LOGGING).

``RefusalsOnOneLine``: Django logs a ``PermissionDenied`` raised by a view (the console's 403: a
page the policy does not allow) as "Forbidden (Permission denied): /path" with the exception's
whole traceback. A refusal is no fault of the service: one line says it (status, path, the
refusal's reason), and tracebacks stay for the errors that need them (500s).

This module imports nothing of the project: the logging configuration loads it before the apps.
"""
from __future__ import annotations

import logging


class RefusalsOnOneLine(logging.Filter):
    """A 403 of ``django.request`` without its traceback; the refusal's text joins the line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403 and record.exc_info:
            error = record.exc_info[1]
            reason = str(error) if error is not None else ""
            if reason:
                record.msg = f"{record.msg} ({reason.replace('%', '%%')})"
            record.exc_info = None
            record.exc_text = None
        return True
