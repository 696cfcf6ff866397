"""numba's cache of ltrbv's kernels (ltrbv.numba_cache): keyed on every module a kernel can call, and never
"no locator available".

On a copy of the package (never this tree), a process fits a small RF-rand forest and reports whether
``build_tree`` came from the on-disk cache and a hash of the predictions.  After an edit of ``_rng.py`` (a
callee: ``build_tree`` lives in ``_builder.py``, which the edit leaves alone) the kernel must be compiled again
and give the edited code's predictions; numba's own stamp (the defining file's mtime and size) would load
the stale kernel and the old predictions.  Touching a family file without changing it, or editing a module
outside the family, keeps the cache.

A user who cannot write to the package's folder nor to a cache folder in their home (a shared read-only
install) gets a warning and a private cache folder under the temp folder, not numba's RuntimeError.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO
from ltrbv import numba_cache

FIT = """
import hashlib, json
import numpy as np
from ltrbv.data.synthetic import SyntheticSpec, generate_queries
from ltrbv.data.from_arrays import ranking_data
from ltrbv.forest import RankingForest
from ltrbv.forest._builder import build_tree
from ltrbv.compile_lock import _cached_on_disk
fresh = _cached_on_disk(build_tree)  # the compile lock is taken when not
q = generate_queries(SyntheticSpec(n_queries=30, docs_per_query=10, n_features=8, n_informative=4, n_query_level=1))
data = ranking_data(np.repeat(np.arange(30), q.query_sizes), q.labels, q.X)
scores = RankingForest(splitting="rand", n_estimators=2, random_state=1).fit(data).predict(data)
print(json.dumps({"pred": hashlib.sha256(scores.tobytes()).hexdigest()[:16], "fresh": fresh,
                  "hits": sum(build_tree.stats.cache_hits.values()), "misses": sum(build_tree.stats.cache_misses.values()),
                  "cache": type(build_tree._cache).__name__, "folder": build_tree._cache.cache_path}))
"""


def package_copy(root: Path, with_cache: bool = False) -> Path:
    """A copy of src/ltrbv under root: the folder to put on PYTHONPATH.  ``with_cache``: with the tree's
    ``__pycache__`` folders (numba's cache, if the kernels ran here before: the family stamp is of the
    sources, not their paths, so the copy loads it and the test compiles the forest once, not twice)."""
    ignore = None if with_cache else shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "src" / "ltrbv", root / "ltrbv", ignore=ignore)
    return root


def run(code: str, src: Path, preexec=None, **env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    environment.update(PYTHONPATH=str(src), **env)
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=1200,
                          preexec_fn=preexec, cwd=src)


def fit(src: Path) -> dict:
    done = run(FIT, src)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_family_of_build_tree_is_the_forest_kernels():
    members = {p.relative_to(numba_cache.PACKAGE).as_posix()
               for p in numba_cache.family(numba_cache.PACKAGE / "forest" / "_builder.py")}
    assert {"forest/_builder.py", "forest/_frontier.py", "forest/_listwise.py", "forest/_err.py", "forest/_ndcg.py",
            "forest/_levels.py", "forest/_splitter.py", "forest/_criteria.py", "forest/_mse.py", "forest/_entropy.py",
            "forest/_rng.py"} <= members
    assert "forest/forest.py" not in members and "metrics/ranking.py" not in members  # callers and strangers


def ast_imported_files(path: Path) -> frozenset[Path]:
    """The oracle of numba_cache._imported_files: the same resolution from ``ast``'s import nodes."""
    import ast

    package = numba_cache.PACKAGE
    package_parts = list(path.relative_to(package).parent.parts)
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [(a.name.split(".")[1:], []) for a in node.names if a.name.split(".")[0] == "ltrbv"]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if not node.module or node.module.split(".")[0] != "ltrbv":
                    continue
                base = node.module.split(".")[1:]
            else:
                base = package_parts[:len(package_parts) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            targets = [(base, [a.name for a in node.names])]
        else:
            continue
        for parts, names in targets:
            submodules = [numba_cache._module_file(parts + [name]) for name in names]
            found.update(f for f in submodules if f is not None)
            if parts and (not names or None in submodules) and (f := numba_cache._module_file(parts)) is not None:
                found.add(f)
    found.discard(path)
    return frozenset(found)


def test_imports_read_as_ast_reads_them():
    for path in sorted(numba_cache.PACKAGE.rglob("*.py")):
        assert numba_cache._imported_files(path) == ast_imported_files(path), path


def test_every_kernel_is_cached_by_its_family():
    """No ltrbv module takes numba's njit (or jit) directly: each cached kernel gets the family stamp.  And no
    kernel is compiled with fastmath (or parallel=True): both let LLVM reorder float sums by the CPU's vector
    width, and a sum decides a split."""
    import ast

    direct = []
    reordering = []
    for path in sorted((REPO / "src" / "ltrbv").rglob("*.py")):
        if path.name == "numba_cache.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "numba" and \
                    {a.name for a in node.names} & {"njit", "jit", "generated_jit", "vectorize", "guvectorize"}:
                direct.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "numba" \
                    and node.attr in ("njit", "jit"):
                direct.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("njit", "jit"):
                reordering += [f"{path.name}:{node.lineno} {k.arg}" for k in node.keywords
                               if k.arg in ("fastmath", "parallel") and not (isinstance(k.value, ast.Constant)
                                                                            and k.value.value is False)]
    assert direct == []
    assert reordering == []


@pytest.mark.slow
def test_editing_a_callee_module_recompiles_the_kernel(tmp_path):
    src = package_copy(tmp_path / "src", with_cache=True)
    forest = src / "ltrbv" / "forest"
    cold = fit(src)  # compiled, or loaded from the copied cache
    assert cold["cache"] == "FamilyFunctionCache" and cold["misses"] + cold["hits"] > 0, cold
    assert Path(cold["folder"]) == forest / "__pycache__"
    # a touched family file (content unchanged) and an edited module outside the family keep the cache
    os.utime(forest / "_rng.py")
    (src / "ltrbv" / "metrics" / "ranking.py").write_text((src / "ltrbv" / "metrics" / "ranking.py").read_text() + "\n# x\n")
    warm = fit(src)
    assert warm["fresh"] and warm["hits"] > 0 and warm["misses"] == 0 and warm["pred"] == cold["pred"], warm
    # a callee edited (another xoshiro output multiplier: every random split changes), _builder.py untouched
    rng = forest / "_rng.py"
    text = rng.read_text()
    assert text.count("* uint64(9)") == 1
    builder_stat = (forest / "_builder.py").stat()
    rng.write_text(text.replace("* uint64(9)", "* uint64(11)"))
    edited = fit(src)
    assert (forest / "_builder.py").stat().st_mtime_ns == builder_stat.st_mtime_ns
    assert not edited["fresh"] and edited["misses"] > 0 and edited["hits"] == 0, edited  # compiled again ...
    assert edited["pred"] != cold["pred"], edited  # ... from the edited source
    assert fit(src)["pred"] == edited["pred"]  # and cached again


READ_ONLY_CHILD = """
import json, sys, warnings
import numpy as np
warnings.simplefilter("always")
from ltrbv.metrics import ranking
keys, offsets = np.array([0.3, 0.2, 0.9, 0.1, 0.5]), np.array([0, 2, 5])
order = ranking._descending_order_kernel(keys, offsets)
kernel = ranking._descending_order_kernel
print(json.dumps({"order": order.tolist(), "folder": kernel._cache.cache_path,
                  "hits": sum(kernel.stats.cache_hits.values())}))
"""


def run_read_only(src: Path, read_only: Path, **env) -> subprocess.CompletedProcess:
    """Run READ_ONLY_CHILD with ``read_only`` (holding the package and the home) unwritable: by permissions
    for a normal user; for root (whom permissions do not stop) as a read-only bind mount in a private mount
    namespace."""
    if os.geteuid() != 0:
        return run(READ_ONLY_CHILD, src, **env)
    script = (f'mount --bind "{read_only}" "{read_only}" && mount -o remount,bind,ro "{read_only}" && '
              f'exec "{sys.executable}" -c "$CHILD"')
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    environment.update(PYTHONPATH=str(src), CHILD=READ_ONLY_CHILD, **env)
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], env=environment,
                          capture_output=True, text=True, timeout=600, cwd=src)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_read_only_install_falls_back_to_a_private_cache_with_a_warning(tmp_path):
    read_only = tmp_path / "install"
    src = package_copy(read_only / "src")
    home = read_only / "home"
    home.mkdir()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    if os.geteuid() == 0:
        probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip(f"root without a private mount namespace (unshare: {probe.stderr.decode().strip()})")
    else:
        for path in [read_only, *read_only.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
    env = dict(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), TMPDIR=str(scratch))
    try:
        first = run_read_only(src, read_only, **env)
        assert first.returncode == 0, first.stderr[-3000:]
        assert "no locator available" not in first.stderr
        assert "numba cannot cache compiled kernels beside the package" in first.stderr, first.stderr[-2000:]
        assert "ranking.py" in first.stderr  # the warning names the first kernel's module
        result = json.loads(first.stdout)
        assert result["order"] == [0, 1, 2, 4, 3]
        assert Path(result["folder"]).is_relative_to(scratch) and Path(result["folder"]).is_dir(), result
        assert not list(read_only.rglob("*.nbi"))  # nothing written into the install or the home
        again = run_read_only(src, read_only, **env)
        assert again.returncode == 0, again.stderr[-3000:]
        assert json.loads(again.stdout)["hits"] > 0  # the fallback folder is a cache
    finally:
        for path in [read_only, *read_only.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)  # let pytest remove it


_START_UP = r"""
import sys
import numpy as np
from ltrbv.data.ranking_data import RankingData
from ltrbv.forest import RankingForest

X = np.random.default_rng(0).random((20, 3)).astype(np.float32)
data = RankingData(X=X, labels=np.array([0, 1] * 10, dtype=np.int8), query_offsets=np.array([0, 10, 20]),
                   qids=np.array(["1", "2"]), line_numbers=np.arange(1, 21), source="tiny")
RankingForest(n_estimators=2, random_state=0).fit(data)
print("scipy.linalg" in sys.modules)

import numba
a = np.random.default_rng(1).random((4, 5))
b = np.random.default_rng(2).random((5, 3))
product = numba.njit(lambda x, y: np.dot(x, y))(a, b)  # a kernel that calls BLAS still gets it
print(np.allclose(product, a @ b, rtol=1e-12, atol=0))
"""


def test_a_forest_job_does_not_import_scipy_linalg_and_blas_still_works(tmp_path):
    """numba's CPU target checks for a BLAS by importing scipy.linalg (0.2-0.3 CPU-s of every job's start-up);
    ltrbv.numba_cache finds scipy instead.  A fit loads the kernels without scipy.linalg, and a kernel that calls
    np.dot (BLAS) still compiles and gives numpy's product."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    result = subprocess.run([sys.executable, "-c", _START_UP], capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["False", "True"], result.stdout


#: the rules of most of a run's jobs (an MQ2008 catalog run: 933 bag_submodel, 302 train_model, 52 combine_bag of 1,818)
MANY_JOB_SCRIPTS = ["core/bag_submodels.py", "core/train_model.py", "core/combine_bag.py"]


@pytest.mark.parametrize("script", MANY_JOB_SCRIPTS)
def test_the_most_numerous_jobs_start_without_scipy(script):
    """Importing scipy.sparse costs ~0.15 CPU-s (scipy's array-API layer imports numpy.f2py); ltrbv.estimator
    imported it only to refuse sparse input.  The top-level imports of the scripts that make most of a run's jobs
    import no scipy, and sparse input is still refused, with scipy's own issparse."""
    import ast

    tree = ast.parse((REPO / "src" / "scripts" / script).read_text())
    imports = "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)))
    code = imports + "\nimport sys\nprint(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "[]"


def test_sparse_input_is_still_refused():
    from scipy import sparse

    from ltrbv.learners import LambdaMART

    X = sparse.csr_matrix(np.eye(6, dtype=np.float32))
    with pytest.raises(TypeError, match="sparse input is not supported"):
        LambdaMART(n_estimators=2).fit(X, np.array([0, 1, 0, 1, 0, 1]), qid=np.array([0, 0, 0, 1, 1, 1]))


STALE_CHILD = """
import json
import numpy as np
from ltrbv.metrics import ranking
kernel = ranking._descending_order_kernel
order = kernel(np.array([0.3, 0.2, 0.9, 0.1, 0.5]), np.array([0, 2, 5]))
print(json.dumps({"order": order.tolist(), "hits": sum(kernel.stats.cache_hits.values()),
                  "misses": sum(kernel.stats.cache_misses.values()), "folder": kernel._cache.cache_path,
                  "index": kernel._cache._cache_file._index_path}))
"""


@pytest.mark.parametrize("stale", ["moved class", "truncated", "truncated data"])
def test_an_index_left_by_an_older_version_is_stale_not_an_error(tmp_path, stale):
    """An index written by an older ltrbv can name argument types that have since moved to another module:
    numba unpickles it before comparing the stamp, so every process loading the kernel raised AttributeError
    ("Can't get attribute 'ListwiseData' on <module 'ltrbv.forest._listwise'>", seen after a pull).  Such an
    index, or a truncated one, is read as stale (a truncated data file as absent): the kernel compiles again, its
    files are rewritten, the next process loads them."""
    import pickle

    import numba

    src = package_copy(tmp_path / "src")
    cache = tmp_path / "cache"
    first = json.loads(run(STALE_CHILD, src, NUMBA_CACHE_DIR=str(cache)).stdout)
    assert first["order"] == [0, 1, 2, 4, 3] and first["misses"] == 1, first
    index = Path(first["index"])
    assert index.is_file() and Path(first["folder"]).is_relative_to(cache)
    if stale == "truncated data":  # the index is fresh; the machine code it names is cut short
        data = next(index.parent.glob(index.stem + ".*.nbc"))
        body = data.read_bytes()[:40]
        data.write_bytes(body)
    else:
        if stale == "moved class":  # the stamp and an overload keyed on a class that ltrbv no longer has
            body = b"(S'old stamp'\n(dcltrbv.metrics.ranking\nNoLongerHere\nS'x.1.nbc'\nst."
        else:
            body = index.read_bytes()[len(pickle.dumps(numba.__version__)):][:20]
        index.write_bytes(pickle.dumps(numba.__version__) + body)
    with pytest.raises((AttributeError, pickle.UnpicklingError)):  # numba's own reading fails on it
        pickle.loads(body)
    done = run(STALE_CHILD, src, NUMBA_CACHE_DIR=str(cache))
    assert done.returncode == 0, done.stderr[-2000:]
    again = json.loads(done.stdout)
    assert again["order"] == first["order"] and again["misses"] == 1 and again["hits"] == 0, again  # compiled
    warm = json.loads(run(STALE_CHILD, src, NUMBA_CACHE_DIR=str(cache)).stdout)
    assert warm["hits"] == 1 and warm["misses"] == 0, warm  # and the rewritten index loads
