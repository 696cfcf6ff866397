"""The package's layers (docs/layout.md): a module imports only from its own layer or the layers below, and no
modules import each other in a circle, function-local imports included.

The library (data, metrics, forest, learners, biasvar, active, compare) is below the workflow's kernel
(``workflow``: paths, datasets, validation, logs ...), which is below the sections (``sections/<name>/``: one
folder per section), which are below the registry of the sections and what asks every section (the config
check, the planner), which is below the command line.  A section imports only itself, the core run's section
and the layers below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ltrbv"

#: bottom to top; a module's layer is that of the longest dotted prefix listed (``workflow.sections`` before
#: ``workflow``)
LAYERS = [
    {"io", "input_files", "seeding", "checks", "provenance", "compile_lock", "exact_math", "rounded", "numba_cache"},
    {"data", "metrics", "estimator"},
    {"forest", "evaluation", "tables", "plotting"},
    {"learners"},
    {"biasvar", "active", "compare"},
    {"workflow"},
    {"sections"},
    {"workflow.sections", "workflow.config_checks", "workflow.plan"},
    {"cli", "__init__", "__main__"},
]
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "egg-info" not in str(p))


def module_name(path: Path) -> str:
    """``ltrbv/sections/core/grid.py`` -> ``sections.core.grid``; a package by its folder."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(module: str) -> tuple[str, int] | None:
    """(the listed name, its layer) of a module; every command line (``cli.py``) is the top."""
    if module.split(".")[-1] == "cli":
        return "cli", LAYER["cli"]
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        if name in LAYER:
            return name, LAYER[name]
    return None


KNOWN = {module_name(p) for p in MODULES}


def _resolve(name: str) -> str | None:
    """The module of this package an import names (``sections.core.grid``), or its package when the name is an
    attribute of a module (``workflow.paths.fill`` -> ``workflow.paths``)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        candidate = ".".join(parts[:i])
        if candidate in KNOWN:
            return candidate
    return None


def imported_modules(path: Path) -> set[str]:
    """Every module of this package ``path`` imports, anywhere in it (function-local imports included)."""
    tree = ast.parse(path.read_text())
    own = module_name(path)
    package = own.split(".") if path.name == "__init__.py" else own.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if not node.module or node.module.split(".")[0] != "ltrbv":
                    continue
                base = node.module.split(".")[1:]
            else:
                up = node.level - 1
                if up > len(package):
                    continue
                base = package[:len(package) - up] + (node.module.split(".") if node.module else [])
            for alias in node.names:  # ``from . import grid`` imports a module; ``from .x import f`` imports x
                target = _resolve(".".join([*base, alias.name])) or _resolve(".".join(base))
                if target:
                    found.add(target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "ltrbv" and "." in alias.name:
                    target = _resolve(alias.name.split(".", 1)[1])
                    if target:
                        found.add(target)
    found.discard(own)
    return found


GRAPH = {module_name(p): imported_modules(p) for p in MODULES}


@pytest.mark.parametrize("module", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_imports_from_a_layer_above_it(module):
    own = module_name(module)
    placed = layer_of(own)
    assert placed is not None, f"{own} has no layer: add it to LAYERS"
    above = sorted(name for name in GRAPH[own] if (layer_of(name) or ("?", -1))[1] > placed[1])
    assert not above, f"{module.relative_to(PACKAGE)} ({placed[0]}) imports {above} from a layer above it"


@pytest.mark.parametrize("module", [p for p in MODULES if module_name(p).startswith("sections.")],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_section_imports_only_itself_and_the_core_run(module):
    own = module_name(module)
    section = ".".join(own.split(".")[:2])
    others = sorted(name for name in GRAPH[own] if name.startswith("sections.")
                    and not name.startswith(section) and not name.startswith("sections.core")
                    and name != "sections")
    assert not others, f"{own} imports another section: {others}"


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of size > 1 (circles of imports)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_no_circle_of_imports_function_local_imports_included():
    # a package's __init__ that only hands names on is not a module of its own here: drop the edges to a package
    # from its own modules (``from . import grid`` in sections/core/__init__ and back is one module, not a circle)
    graph = {m: {t for t in targets if not m.startswith(t + ".")} for m, targets in GRAPH.items()}
    assert strongly_connected(graph) == []


def test_the_circle_finder_finds_a_circle_through_a_lazy_import():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []
    source = "def f():\n    from .b import g\n"
    tree = ast.parse(source)
    assert any(isinstance(n, ast.ImportFrom) and n.module == "b" for n in ast.walk(tree))
