"""Benchmark: ltrbv.data.letor.read_letor vs sklearn's load_svmlight_file (Cython).

Writes an MSLR-WEB10K-shaped file (136 dense raw-valued features, labels 0-4,
~120 documents per query) into a temporary directory, then times

* ``read_letor(path)``   (feature count inferred, like sklearn), and
* ``sklearn.datasets.load_svmlight_file(path, query_id=True, dtype=np.float32)``

alternately, ``--repeats`` times each, after one untimed warm-up call of
``read_letor`` on a small file (numba JIT compilation or cache load).  Reports
medians, the speed ratio sklearn / ltrbv (goal >= 1.0) and the tracemalloc peak
during one ``read_letor`` call divided by ``X.nbytes`` (goal <= 2.0).

    python tests/benchmarks/bench_parser.py --lines 200000 --repeats 5 --out results/benchmarks/parser.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))  # run from a checkout without installing

from ltrbv.data.letor import read_letor  # noqa: E402
from ltrbv.data.synthetic import write_mslr_like_file  # noqa: E402
from timing import timed  # noqa: E402


def write_input(path: Path, n_lines: int) -> str:
    write_mslr_like_file(path, n_lines, seed=0)
    return "ltrbv.data.synthetic.write_mslr_like_file"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=200_000, help="lines in the MSLR-shaped file")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls of each parser")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "benchmarks" / "parser.json")
    args = parser.parse_args(argv)

    from sklearn import __version__ as sklearn_version
    from sklearn.datasets import load_svmlight_file

    import numba

    with tempfile.TemporaryDirectory(prefix="ltrbv-bench-") as tmp:
        path = Path(tmp) / "mslr_like.txt"
        t_write, generator = timed(write_input, path, args.lines)
        size_mb = path.stat().st_size / 1e6
        print(f"input: {path.name}, {size_mb:.1f} MB, written by {generator} in {t_write:.1f}s")

        # warm-up: JIT compilation (or loading numba's on-disk cache), not timed
        small = Path(tmp) / "warmup.txt"
        with open(path, "rb") as src, open(small, "wb") as dst:
            dst.writelines(line for _, line in zip(range(500), src))
        t_warm, _ = timed(read_letor, small)
        print(f"numba warm-up (compile or cache load) on a 500-line file: {t_warm:.2f}s (not timed below)")

        ltrbv_times, sklearn_times = [], []
        for r in range(args.repeats):
            t, data = timed(read_letor, path)
            ltrbv_times.append(t)
            t, (X_sk, y_sk, qid_sk) = timed(load_svmlight_file, str(path), query_id=True, dtype=np.float32)
            sklearn_times.append(t)
            print(f"  repeat {r + 1}/{args.repeats}: ltrbv {ltrbv_times[-1]:.3f}s  sklearn {sklearn_times[-1]:.3f}s")

        identical = bool(
            np.array_equal(data.X[data.file_order], X_sk.toarray())
            and np.array_equal(data.labels[data.file_order], y_sk.astype(np.int8))
            and np.array_equal(data.qids[data.query_index][data.file_order].astype(np.int64), qid_sk)
        )
        del X_sk, y_sk, qid_sk

        known_width = [timed(read_letor, path, n_features=136)[0] for _ in range(max(1, args.repeats // 2))]

        n_docs, n_features, n_queries, x_bytes = data.n_docs, data.n_features, data.n_queries, data.X.nbytes
        del data
        tracemalloc.start()
        data = read_letor(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del data

    ltrbv_median = statistics.median(ltrbv_times)
    sklearn_median = statistics.median(sklearn_times)
    report = {
        "input": {
            "lines_requested": args.lines,
            "documents": n_docs,
            "queries": n_queries,
            "features": n_features,
            "megabytes": round(size_mb, 1),
            "generator": generator,
        },
        "repeats": args.repeats,
        "warmup_seconds": round(t_warm, 3),
        "ltrbv_seconds": [round(t, 4) for t in ltrbv_times],
        "sklearn_seconds": [round(t, 4) for t in sklearn_times],
        "ltrbv_median_seconds": round(ltrbv_median, 4),
        "sklearn_median_seconds": round(sklearn_median, 4),
        "speed_ratio_sklearn_over_ltrbv": round(sklearn_median / ltrbv_median, 2),
        "speed_goal_met": sklearn_median / ltrbv_median >= 1.0,
        "ltrbv_known_width_median_seconds": round(statistics.median(known_width), 4),
        "tracemalloc_peak_bytes": int(peak),
        "X_nbytes": int(x_bytes),
        "memory_ratio_peak_over_X": round(peak / x_bytes, 3),
        "memory_goal_met": peak / x_bytes <= 2.0,
        "results_identical_to_sklearn": identical,
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "sklearn": sklearn_version,
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
        },
    }
    print()
    print(f"documents {n_docs}, queries {n_queries}, features {n_features}, file {size_mb:.1f} MB")
    print(f"read_letor           median {ltrbv_median:.3f}s  (n_features=136 given: {report['ltrbv_known_width_median_seconds']:.3f}s)")
    print(f"load_svmlight_file   median {sklearn_median:.3f}s")
    print(f"speed ratio sklearn/ltrbv = {report['speed_ratio_sklearn_over_ltrbv']:.2f}  (goal >= 1.0)")
    print(f"tracemalloc peak {peak / 1e6:.1f} MB / X {x_bytes / 1e6:.1f} MB = {report['memory_ratio_peak_over_X']:.2f}  (goal <= 2.0)")
    print(f"identical to sklearn: {identical}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return report


if __name__ == "__main__":
    main()
