"""Parse the project's source files for the tests that read code (error codes, views deciding
nothing).

``ast.parse`` runs in a thread of its own: CPython 3.11 (before 3.11.9) can leave a thread's
C-level recursion counter off after a RecursionError (the suite's depth-limit tests send
3,000-deep JSON), and a later ``ast.parse`` in that thread then fails with "AST constructor
recursion depth mismatch". A new thread starts with a fresh counter.
"""
from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor


def parse(source: str) -> ast.Module:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ast.parse, source).result()
