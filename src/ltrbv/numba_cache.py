"""numba's on-disk cache of ltrbv's kernels, keyed on every module a kernel can call, in a folder that can be written.

numba stamps a kernel's cache with the modification time and size of the one file that defines it.  A
kernel that calls kernels of other modules (``build_tree`` calls ``_frontier``, ``_listwise``, ``_err``,
``_splitter``, ``_criteria`` ...) compiles their code into its own, so after one of those modules is edited
numba still loads the old machine code: the results are those of code that no longer exists.

:func:`njit` is numba's ``njit``; with ``cache=True`` the dispatcher's cache is stamped instead with the
SHA-256 of the source of the defining module and of every ltrbv module it imports, directly or through
another (:func:`family`).  A kernel can only call, or fold in as a constant, what its module's namespace
holds, and that comes from those imports, so editing any module of the family recompiles the family's
kernels on their next call (and no other kernel).  The stamp is of the files' contents, so a checkout that
only touches their modification times keeps the cache.

The cache folder is chosen as numba chooses it: ``NUMBA_CACHE_DIR`` if set, else the ``__pycache__`` folder
beside the module, else the user's cache folder (``~/.cache/numba``).  Where none of them can be written (a
shared read-only install run by a user without a writable home), numba would refuse with "cannot cache
function ... no locator available"; here the kernels go to a folder of this user's under the temp folder,
with a warning (:data:`FALLBACK_WARNING`), and if even that cannot be made safely, they are compiled in
memory only.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

import numba
from numba.core import caching
from numba.core.dispatcher import Dispatcher

PACKAGE = Path(__file__).resolve().parent


# -- start-up: numba's BLAS check without importing scipy.linalg ---------------------------------------------------

def _blas_available() -> None:
    """numba's ``ensure_blas`` without the import: scipy present means its BLAS is (numba's C helpers import
    ``scipy.linalg.cython_blas`` themselves when a kernel calls BLAS, as before)."""
    import importlib.util

    if importlib.util.find_spec("scipy") is None:
        raise ImportError("scipy 0.16+ is required for linear algebra")


def _lazy_blas_check() -> bool:
    """When numba's CPU target initialises (on the first kernel a process loads) it checks that a BLAS exists by
    importing ``scipy.linalg`` (``numba.np.old_arraymath._HAVE_BLAS``): 0.2-0.3 CPU-s in every job, for kernels
    that never call BLAS.  Checked here by finding scipy instead; only before the target has initialised, and
    only where numba still has that check (else nothing changes).  Returns whether the check was replaced."""
    import sys

    if "numba.np.old_arraymath" in sys.modules:
        return False
    try:
        from numba.np import linalg
    except ImportError:
        return False
    if not callable(getattr(linalg, "ensure_blas", None)):
        return False
    linalg.ensure_blas = _blas_available
    return True


_lazy_blas_check()
FALLBACK_WARNING = ("ltrbv: numba cannot cache compiled kernels beside the package ({package}) or in the user's "
                    "cache folder; caching them in {folder} instead.  Set NUMBA_CACHE_DIR to a writable folder "
                    "to keep them elsewhere.")


# -- the family: a module and the ltrbv modules it imports, transitively ----------------------------------------

def _module_file(parts: list[str]) -> Path | None:
    """The source file of ltrbv module ``parts`` (below the package), or None."""
    base = PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


# an import statement: "from <module> import <names>" (names may be parenthesised over lines) or "import <modules>"
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)"
                     r"|import[ \t]+([^\n]*))", re.M)


def _names(text: str) -> list[str]:
    """The imported names of an import statement's tail (``as`` aliases and comments dropped)."""
    text = re.sub(r"#[^\n]*", "", text).replace("\\\n", " ").strip().strip("()")
    return [name.split(" as ")[0].strip() for name in text.split(",") if name.strip()]


@lru_cache(maxsize=None)
def _imported_files(path: Path) -> frozenset[Path]:
    """The files of the ltrbv modules that ``path`` imports (absolute or relative, anywhere in the file).

    Read with a regular expression, not ``ast`` (5x faster, and this runs in every process that defines a
    kernel); an import-like line in a docstring counts too, which only widens the family.
    ``tests/test_numba_cache.py`` checks that it finds what ``ast`` finds in every module of the package."""
    package_parts = list(path.relative_to(PACKAGE).parent.parts)
    found = set()
    for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
        module, names, modules = match.groups()
        if modules is not None:  # import ltrbv.x.y
            targets = [(name.split(".")[1:], []) for name in _names(modules) if name.split(".")[0] == "ltrbv"]
        else:
            level = len(module) - len(module.lstrip("."))
            module = module.lstrip(".")
            if level == 0:
                if module.split(".")[0] != "ltrbv":
                    continue
                base = module.split(".")[1:]
            elif level - 1 > len(package_parts):
                continue
            else:
                base = package_parts[:len(package_parts) - (level - 1)] + (module.split(".") if module else [])
            targets = [(base, _names(names))]
        for parts, imported in targets:
            submodules = [_module_file(parts + [name]) for name in imported]  # from package import submodule
            found.update(file for file in submodules if file is not None)
            if parts and (not imported or None in submodules) and (file := _module_file(parts)) is not None:
                found.add(file)  # import module, or from module import a name it defines
    found.discard(path)
    return frozenset(found)


@lru_cache(maxsize=None)
def family(path: Path) -> tuple[Path, ...]:
    """``path`` and every ltrbv module file it imports, directly or through another, sorted."""
    seen = {path}
    todo = [path]
    while todo:
        for file in _imported_files(todo.pop()):
            if file not in seen:
                seen.add(file)
                todo.append(file)
    return tuple(sorted(seen))


@lru_cache(maxsize=None)
def _file_digest(path: Path, mtime_ns: int, size: int) -> str:  # the stat is part of the key: re-read an edited file
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_stamp(py_file: str | os.PathLike) -> str:
    """SHA-256 over the family of ``py_file``: each member's path below the package and content."""
    h = hashlib.sha256()
    for file in family(Path(py_file).resolve()):
        st = file.stat()
        h.update(f"{file.relative_to(PACKAGE).as_posix()}\0{_file_digest(file, st.st_mtime_ns, st.st_size)}\0".encode())
    return h.hexdigest()


# -- where: numba's locators with the family stamp, then a private folder under the temp dir ----------------------

class _FamilyStamp:
    def get_source_stamp(self):
        return source_stamp(self._py_file)


class _UserProvidedLocator(_FamilyStamp, caching._UserProvidedCacheLocator):
    pass


class _InTreeLocator(_FamilyStamp, caching._InTreeCacheLocator):
    pass


class _UserWideLocator(_FamilyStamp, caching._UserWideCacheLocator):
    pass


def _private_folder(root: Path) -> Path | None:
    """``root``/ltrbv-numba-cache-<uid>, created 0700, or None unless it is a real folder of ours that nobody
    else can write (its cache files are loaded as code)."""
    folder = root / f"ltrbv-numba-cache-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o022:
        return None
    return folder


_warned: set[str] = set()


def _warn_once(what: str, message: str, py_func) -> None:
    """A RuntimeWarning at the definition of the first kernel it concerns, once per process."""
    if what not in _warned:
        _warned.add(what)
        warnings.warn_explicit(message, RuntimeWarning, py_func.__code__.co_filename, py_func.__code__.co_firstlineno)


class _TempFolderLocator(_FamilyStamp, caching._UserWideCacheLocator):
    """The last resort: a folder of this user's under the temp folder, with a warning (once per process)."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._root = _private_folder(Path(tempfile.gettempdir()))
        self._cache_path = str(self._root / self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if _private_folder(Path(tempfile.gettempdir())) is None:
            return None
        self = super().from_function(py_func, py_file)
        if self is not None:
            _warn_once("fallback", FALLBACK_WARNING.format(package=PACKAGE, folder=self._root), py_func)
        return self


class _FamilyCacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_UserProvidedLocator, _InTreeLocator, _UserWideLocator, _TempFolderLocator]


class _IndexFile(caching.IndexDataCacheFile):
    """numba's index file, read as stale when it cannot be unpickled (and its data files, as absent).

    numba unpickles an index before comparing its stamp, and the index lists each compiled signature with
    its argument types: an index written by an older ltrbv whose types lived in another module (a moved
    class) raised AttributeError in every process that loaded the kernel, until someone deleted the cache.
    An index that does not load is an obsolete one: the kernel is compiled again and the index rewritten."""

    def _load_index(self):
        try:
            return super()._load_index()
        except OSError:  # a file that cannot be read is not stale: numba's error
            raise
        except Exception:  # noqa: BLE001 -- any unpickling failure (a missing module or class, a truncated file)
            return {}

    def _load_data(self, name):
        """A data file that does not unpickle is read as absent (compiled again and overwritten), as the index."""
        try:
            return super()._load_data(name)
        except OSError:
            raise
        except Exception:  # noqa: BLE001
            return None


class FamilyFunctionCache(caching.FunctionCache):
    """numba's function cache, stamped with the family's sources (:func:`source_stamp`); an index that cannot
    be read counts as stale (:class:`_IndexFile`)."""

    _impl_class = _FamilyCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _IndexFile(cache_path=self._cache_path, filename_base=self._impl.filename_base,
                                      source_stamp=self._cache_file._source_stamp)


def _cache_for(dispatcher):
    try:
        return FamilyFunctionCache(dispatcher.py_func)
    except RuntimeError:  # no folder at all can be written: compile in memory, in every process
        _warn_once("memory", "ltrbv: no writable folder for numba's cache; the kernels are compiled in memory only, "
                   "in every process (set NUMBA_CACHE_DIR to a writable folder)", dispatcher.py_func)
        return caching.NullCache()


def njit(*args, **options):
    """``numba.njit``; with ``cache=True`` the kernel is cached by :class:`FamilyFunctionCache`
    (``@njit(cache=True, ...)``: compiled lazily, on the first call)."""
    cache = options.pop("cache", False)
    if args:
        if cache:
            raise TypeError("ltrbv.numba_cache.njit(cache=True) takes keyword options only, no signature")
        return numba.njit(*args, **options)
    decorate = numba.njit(**options)
    if not cache:
        return decorate

    def wrapper(function):
        dispatcher = decorate(function)
        if isinstance(dispatcher, Dispatcher):  # not the plain function of NUMBA_DISABLE_JIT
            dispatcher._cache = _cache_for(dispatcher)
        return dispatcher

    return wrapper
