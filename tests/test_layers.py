"""The package's layers (README, "Layout"): a module imports only from its own layer or the layers below.

forest/ does not import learners (the progressive-strength driver lives in study/), the job grids live
under workflow/ (not in the engine packages), and the figures in figures/.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ltrbv"

#: bottom to top
LAYERS = [
    {"io", "input_files", "seeding", "checks", "provenance", "compile_lock", "exact_math", "numba_cache"},
    {"data", "metrics"},
    {"forest", "bagging", "evaluation", "tables"},
    {"learners"},
    {"biasvar", "active", "compare"},
    {"study"},
    {"figures"},
    {"workflow"},
    {"cli", "__init__", "__main__"},
]
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "egg-info" not in str(p))


def top_name(path: Path) -> str:
    """A module's layer name: its top-level package or module; every command line (``cli.py``) is the top."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return "cli" if parts[-1] == "cli" else parts[0]


def imported_top_names(path: Path) -> set[str]:
    """The ltrbv top-level names a module imports (absolute or relative)."""
    tree = ast.parse(path.read_text())
    depth = len(path.relative_to(PACKAGE).parts) - 1  # folders below ltrbv/
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and node.module.split(".")[0] == "ltrbv":
                parts = node.module.split(".")[1:]
            elif node.level > 0:
                if node.level - 1 > depth:
                    continue
                base = list(path.relative_to(PACKAGE).parts[:depth - (node.level - 1)])
                parts = base + (node.module.split(".") if node.module else [])
                if not parts:  # from . import x (in ltrbv/__init__)
                    parts = [alias.name for alias in node.names][:1]
            else:
                continue
            if parts:
                names.add(parts[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "ltrbv" and len(alias.name.split(".")) > 1:
                    names.add(alias.name.split(".")[1])
    return names


@pytest.mark.parametrize("module", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_imports_from_a_layer_above_it(module):
    own = top_name(module)
    assert own in LAYER, f"{own} has no layer: add it to LAYERS"
    above = sorted(name for name in imported_top_names(module) if name in LAYER and LAYER[name] > LAYER[own])
    assert not above, f"{module.relative_to(PACKAGE)} ({own}) imports {above} from a layer above it"
