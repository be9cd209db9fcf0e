"""Parse the project's source files for the tests that read code (error codes, views deciding
nothing).

``ast.parse`` runs in a Python process of its own: inside a test worker, CPython 3.11 (before
3.11.9) fails now and then with "AST constructor recursion depth mismatch", its AST conversion
having counted its recursion against a limit that changed meanwhile (the worker's other threads:
live servers, Hypothesis, the depth-limit tests). A fresh interpreter has nothing else running.
The trees come back pickled (AST nodes are picklable). One process parses every source asked for
at once, and a test process keeps the trees it got (by the source's text): one interpreter per
source file cost the tests that walk every module about 40 s each.
"""
from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

_PARSE = ("import ast, pickle, sys; sources = pickle.load(sys.stdin.buffer); "
          "sys.stdout.buffer.write(pickle.dumps([ast.parse(source) for source in sources]))")
_TREES: dict[str, ast.Module] = {}


def _parse_new(sources: list[str]) -> None:
    new = list(dict.fromkeys(source for source in sources if source not in _TREES))
    if not new:
        return
    result = subprocess.run([sys.executable, "-c", _PARSE], input=pickle.dumps(new), capture_output=True,
                            check=True, timeout=120)
    _TREES.update(zip(new, pickle.loads(result.stdout)))


def parse(source: str) -> ast.Module:
    _parse_new([source])
    return _TREES[source]


def parse_files(paths: list[Path]) -> dict[Path, ast.Module]:
    """Each path's tree, the files not parsed before in one process."""
    texts = {path: path.read_text() for path in paths}
    _parse_new(list(texts.values()))
    return {path: _TREES[text] for path, text in texts.items()}
