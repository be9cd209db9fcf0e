"""``python -m games.rules FILE...``: validate record files, print each answer or error as JSON.

A file holds one record, or a Maumau series (an object with ``records``). Exit status 1 if any file
was rejected, 2 if a file could not be read as JSON.
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
            print(json.dumps({"file": name, "ok": False, "error": {"code": "unreadable", "message": str(exc), "path": ""}}))
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
