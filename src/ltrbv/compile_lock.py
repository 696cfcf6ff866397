"""Compile each family of numba kernels once per machine, not once per concurrent job.

The kernels are compiled on their first call and cached on disk (``cache=True``), so every later
process loads them in a fraction of a second.  But on a fresh checkout the workflow starts two (or
``--cores``) jobs at once, and each compiles the same kernels (the forest's take ~25 CPU-seconds, the
parser's ~9, the metrics' ~6).  :func:`first_call` makes a process hold an exclusive file lock around
its first call into a kernel family while that family has no cache on disk yet: the first process
compiles and writes the cache, the others wait (using no CPU) and then load it.  Once the cache exists
no process takes the lock, so jobs never wait for each other's work, only for a first compilation.

The lock file sits in the ``__pycache__`` folder beside the kernels' module, where numba keeps its
cache; where that folder cannot be written, or the platform has no ``fcntl``, nothing is locked.
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
    """Whether numba has a cache index for ``kernel`` (a compiled dispatcher with ``cache=True``)."""
    try:
        return Path(kernel._cache._cache_file._index_path).exists()
    except AttributeError:  # another numba's internals: assume not, and lock
        return False


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
        folder = Path(module.__file__).parent / "__pycache__"
        folder.mkdir(exist_ok=True)
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
