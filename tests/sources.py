"""Parse the project's source files for the tests that read code (error codes, views deciding
nothing).

``ast.parse`` runs in a Python process of its own: inside a test worker, CPython 3.11 (before
3.11.9) fails now and then with "AST constructor recursion depth mismatch", its AST conversion
having counted its recursion against a limit that changed meanwhile (the worker's other threads:
live servers, Hypothesis, the depth-limit tests). A fresh interpreter has nothing else running.
The tree comes back pickled (AST nodes are picklable).
"""
from __future__ import annotations

import ast
import pickle
import subprocess
import sys

_PARSE = "import ast, pickle, sys; sys.stdout.buffer.write(pickle.dumps(ast.parse(sys.stdin.read())))"


def parse(source: str) -> ast.Module:
    result = subprocess.run([sys.executable, "-c", _PARSE], input=source.encode(), capture_output=True, check=True,
                            timeout=60)
    return pickle.loads(result.stdout)
