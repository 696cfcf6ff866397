"""Compile each family of numba kernels once per machine, not once per concurrent job.

The kernels are compiled on their first call and cached on disk (``cache=True``), so every later
process loads them in a fraction of a second.  But on a fresh checkout the workflow starts two (or
``--cores``) jobs at once, and each compiles the same kernels (the forest's take ~25 CPU-seconds, the
parser's ~9, the metrics' ~6).  :func:`first_call` makes a process hold an exclusive file lock around
its first call into a kernel family while that family has no cache on disk yet: the first process
compiles and writes the cache, the others wait (using no CPU) and then load it.  Once the cache exists
no process takes the lock, so jobs never wait for each other's work, only for a first compilation.

"No cache yet" includes a stale one (a module of the family edited, :mod:`ltrbv.numba_cache`).  The lock
file sits in the folder of the family's cache (by default the ``__pycache__`` folder beside the kernels'
module); where that folder cannot be written, or the platform has no ``fcntl``, nothing is locked.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

_called: set[str] = set()


def _cached_on_disk(kernel) -> bool:
    """Whether numba has a fresh cache index for ``kernel`` (a dispatcher with ``cache=True``): one whose
    stamp is that of the sources now (numba reads an index of another stamp as empty)."""
    try:
        return bool(kernel._cache._cache_file._load_index())
    except AttributeError:  # not cached on disk, or another numba's internals: assume not, and lock
        return False


def _lock_folder(module, kernel) -> Path:
    """The folder of ``kernel``'s cache, else the ``__pycache__`` folder beside ``module``."""
    folder = getattr(getattr(kernel, "_cache", None), "cache_path", None)
    return Path(folder) if folder else Path(module.__file__).parent / "__pycache__"


@contextlib.contextmanager
def first_call(module, kernel):
    """Hold ``module``'s compile lock around this process's first call into its kernels, if ``kernel`` (the
    family's main kernel) is not cached on disk yet."""
    name = module.__name__
    if name in _called or fcntl is None or _cached_on_disk(kernel):
        _called.add(name)
        yield
        return
    try:
        folder = _lock_folder(module, kernel)
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / f"{name.rpartition('.')[2]}.compile.lock", "a")
    except OSError:  # a read-only install: compile without the lock
        _called.add(name)
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:  # a file system without locks (some network mounts)
            pass
        try:
            yield
        finally:
            _called.add(name)  # closing the handle releases the lock
