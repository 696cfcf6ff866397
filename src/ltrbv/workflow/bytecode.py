"""Whether the rule jobs will compile their libraries' Python sources again, job after job.

The quick start installs with ``pip install --no-compile`` (pip's byte-code of every module is ~170 MB) and
leaves it to Python to write the byte-code of the modules a job imports, once.  Where
``PYTHONDONTWRITEBYTECODE`` is set (some container images set it), Python never writes it, so every job
compiles numpy's, pandas' and numba's sources again: about a second of CPU per job, a third more for the
demo.  The workflow says so when it starts (``bytecode_warning``), with what to do.
"""

from __future__ import annotations

import importlib.util
import os
import sys

#: the libraries most jobs import, whose source compilation costs most
LIBRARIES = ("numpy", "pandas", "numba", "scipy")


def libraries_without_bytecode(names=LIBRARIES) -> list[str]:
    """The installed ``names`` whose package ``__init__`` has no byte-code file where Python looks for it."""
    missing = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        if not os.path.exists(importlib.util.cache_from_source(spec.origin)):
            missing.append(name)
    return missing


def bytecode_warning() -> str | None:
    """A warning when byte-code is never written and the main libraries have none; else None."""
    if not sys.flags.dont_write_bytecode:
        return None
    missing = libraries_without_bytecode()
    if not missing:
        return None
    return (f"PYTHONDONTWRITEBYTECODE is set and {', '.join(missing)} have no byte-code (installed with "
            "--no-compile?): every job compiles their sources again, about 1 s of CPU each. Run once without "
            "PYTHONDONTWRITEBYTECODE (Python then writes the byte-code of what the jobs import), or byte-compile "
            f"them: {sys.executable} -m compileall -q " + " ".join(
                os.path.dirname(importlib.util.find_spec(name).origin) for name in missing))
