"""``python -m games.rules FILE...``: validate record files, print each answer or error as JSON.

A file holds one record, or a Maumau series (an object with ``records``). Each line is
``{"file", "ok": true, "result"}``, ``{"file", "ok": false, "error": {code, message, path}}`` (a code of
``games.rules.Code``) or, for a file that is not UTF-8 JSON, ``{"file", "ok": false, "unreadable": reason}``.
Exit status 1 if any file was rejected, 2 if a file could not be read as JSON.
"""
from __future__ import annotations

import argparse
import json
import sys

from . import RecordError, validate, validate_series


def judge(document) -> dict:
    if isinstance(document, dict) and "records" in document and "game" not in document:
        return validate_series(document)
    return validate(document)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.rules", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    status = 0
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, ValueError) as exc:
            # Not a record the engine judged, so no error code of games.rules.Code: the reason only.
            print(json.dumps({"file": name, "ok": False, "unreadable": str(exc)}, ensure_ascii=False))
            status = max(status, 2)
            continue
        try:
            result = judge(document)
        except RecordError as exc:
            print(json.dumps({"file": name, "ok": False, "error": exc.as_dict()}, ensure_ascii=False))
            status = max(status, 1)
        else:
            print(json.dumps({"file": name, "ok": True, "result": result}, ensure_ascii=False))
    return status


if __name__ == "__main__":
    sys.exit(main())
