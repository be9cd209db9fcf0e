"""The code's structure as the project promises it (README, "Where things are"): no import loop in
``games``, ``tournaments``, ``ratings`` and ``stich``, counting the imports inside functions; imports
of project modules inside functions only where a comment says why (Django's app loading), 20 at
most; at most 12 modules at the top of ``tournaments/`` (the rest lives in subpackages whose names
say what they hold). The layering between and inside the apps is import-linter's (``.importlinter``,
run by ``scripts/test.sh``); import-linter ignores imports inside functions, this test does not.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("games", "tournaments", "ratings", "stich")
MAX_IMPORTS_IN_FUNCTIONS = 20
MAX_TOP_MODULES = 12


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package), migrations left out (Django loads them by name)."""
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if "migrations" in parts:
                continue
            package = parts[-1] == "__init__"
            if package:
                parts = parts[:-1]
            found[".".join(parts)] = (path, package)
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module that ``name`` (a module or a name in one) is, if any."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


def _imports(module: str):
    """(imported project module, line, inside a function, the source line and the one above) of
    every import statement of ``module``, at any depth."""
    path, package = MODULES[module]
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    base = module.split(".") if package else module.split(".")[:-1]

    def targets(node) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        if node.level:
            prefix = ".".join(base[:len(base) - (node.level - 1)] + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        return [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]

    def walk(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found = {_resolve(name) for name in targets(child)} - {None, module}
                # ``from . import x``: the package itself is only a step to ``x``
                if len(found) > 1:
                    found -= {name for name in found if any(other.startswith(name + ".") for other in found)}
                context = " ".join(lines[max(0, child.lineno - 2):child.lineno])
                for target in sorted(found):
                    yield target, child.lineno, in_function, context
            yield from walk(child, inside)

    yield from walk(ast.parse(source), False)


def _graph() -> dict[str, set[str]]:
    return {module: {target for target, *_ in _imports(module)} for module in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_loop_anywhere():
    assert _cycles(_graph()) == []


def test_imports_inside_functions_are_few_and_say_why():
    inside = sorted({(module, line, context) for module in MODULES
                     for _, line, in_function, context in _imports(module) if in_function})
    assert len(inside) <= MAX_IMPORTS_IN_FUNCTIONS, inside
    unexplained = [(module, line) for module, line, context in inside if "#" not in context]
    assert unexplained == []


def test_tournaments_has_few_modules_at_its_top():
    top = sorted(path.name for path in (ROOT / "tournaments").glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
