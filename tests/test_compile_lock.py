"""Concurrent jobs on a fresh checkout compile a kernel family once (ltrbv.compile_lock).

Two processes parse a LETOR file at the same moment with an empty numba cache folder: with the lock, one
compiles the parser and the other waits and loads it, so the second's CPU time is a small fraction of the
first's; without it both would compile (each ~9 CPU-s).  Once cached, no process takes the lock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO

CHILD = """
import json, sys, time
from ltrbv.data.letor import read_letor
from ltrbv.data import _letor_kernels as K
from ltrbv.compile_lock import _cached_on_disk
cached_before = _cached_on_disk(K.parse_chunk)
started = time.process_time()
data = read_letor(sys.argv[1], n_features=3)
print(json.dumps({"cpu": time.process_time() - started, "cached_before": cached_before, "docs": data.n_docs}))
"""


def run_pair(letor, cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(REPO / "src")}
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(letor)], stdout=subprocess.PIPE, text=True, env=env)
                for _ in range(2)]
    results = [json.loads(child.communicate(timeout=600)[0]) for child in children]
    assert all(child.returncode == 0 for child in children)
    return sorted(results, key=lambda r: r["cpu"])


def test_two_jobs_on_a_cold_cache_compile_the_parser_once(tmp_path):
    letor = tmp_path / "tiny.txt"
    letor.write_text("".join(f"{q % 3} qid:{q // 4} 1:{q} 2:0.5 3:{q % 7}\n" for q in range(40)))
    fast, slow = run_pair(letor, tmp_path / "numba-cache")
    assert fast["docs"] == slow["docs"] == 40
    assert not fast["cached_before"] and not slow["cached_before"]  # both started cold
    assert slow["cpu"] > 2.0, slow  # the compiling one
    assert fast["cpu"] < 0.3 * slow["cpu"], (fast, slow)  # the other loaded the cache it wrote
    again = run_pair(letor, tmp_path / "numba-cache")
    assert all(r["cached_before"] for r in again) and all(r["cpu"] < 0.3 * slow["cpu"] for r in again), again
