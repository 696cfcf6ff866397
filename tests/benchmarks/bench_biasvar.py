"""Benchmark: the listwise bias-variance reducer (ltrbv.biasvar) vs pytrec_eval + numpy, same run.

For B random score vectors (B models, ``method="bootstrap"``) on a test set, Ibrahim's (2021)
eq. 14-15 need the per-query NDCG of the ranking by the mean score (``fbar``) and of each model:
SRE = mean_q (1 - NDCG(fbar)),  VRE = mean_q 1/(B-1) sum_i max(0, NDCG(fbar) - NDCG(f_i)).

Sides, timed alternately (in a new random order every repeat), ``--repeats`` times each (on small data each
measurement is several back-to-back calls, ``--min-time``, and the time per call is reported):

* **ltrbv listwise**: ``ltrbv.biasvar.listwise_terms(scores, labels, offsets, "bootstrap",
  ("ndcg",))`` and the means of its terms (no confidence interval; it also computes the rejected
  VRE variants and the ranking error).
* **peer**: the straightforward way without ltrbv: pytrec_eval ``RelevanceEvaluator(qrels,
  {"ndcg"})`` evaluates B + 1 runs (the mean scores and each model's scores; each run dict is
  built from the score row inside the timing), then numpy computes SRE and VRE over the queries
  with a relevant document.  The qrels dict and the evaluator are built once, untimed in the main
  figure (their cost is reported as "peer setup").
* **ltrbv decompose**: the full ``decompose(data, scores, "bootstrap", n_resamples=1000)``
  (pointwise bias²/variance, all listwise terms, percentile intervals from 1,000 query resamples)
  and the same with ``n_resamples=1`` (≈ without the CI), so the difference is the CI cost.  For
  reference the peer's CI is timed as a user would write it: 1,000 numpy resamples of the
  per-query SRE/VRE values (``rng.integers`` index matrix, ``np.percentile``).

Gains: ltrbv's NDCG uses the exponential gain 2**l - 1 in every convention; trec_eval's ``ndcg``
uses the qrels relevance itself as the gain (linear).  The timed peer is therefore given qrels
relevance = 2**l - 1 (an integer), which makes the two NDCGs identical; the script asserts that
SRE, VRE and every per-query NDCG agree within 1e-9.  It also reports (untimed) how far the peer
with the raw labels as qrels (linear gain, what a user gets by default) is from ltrbv, and checks
agreement on binarised labels (0/1, where 2**l - 1 == l).  Random float64 scores make ties
(which trec_eval breaks by docno, ltrbv by row order) practically impossible.

Data: ``generate_queries(MSLR_SHAPED)`` with ``--queries`` queries (default 2,000, ~120 docs
per query, labels 0-4; only labels and query sizes are used) and, if present, the MQ2008 Fold1
test file (``--mq2008``, read with ``read_letor``).  Scores: ``rng.standard_normal((B, n_docs))``
in the data's internal row order.

    python tests/benchmarks/bench_biasvar.py                       # MSLR-shaped 2,000 q + MQ2008
    python tests/benchmarks/bench_biasvar.py --repeats 7 --models 10 --queries 2000

Results are written to ``results/benchmarks/biasvar.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))  # run from a checkout without installing

from ltrbv.biasvar import decompose, listwise_terms  # noqa: E402
from ltrbv.data.ranking_data import RankingData  # noqa: E402
from ltrbv.data.synthetic import MSLR_SHAPED, SyntheticSpec, generate_queries  # noqa: E402
from timing import load_average, median, timed  # noqa: E402

DEFAULT_OUT = REPO / "results" / "benchmarks" / "biasvar.json"
DEFAULT_MQ2008 = REPO.parent / "shared" / "data" / "MQ2008" / "Fold1"
TOLERANCE = 1e-9


# -- small utilities ---------------------------------------------------------------------------------


def ranking_data(labels, sizes, source="") -> RankingData:
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n = int(offsets[-1])
    return RankingData(
        X=np.zeros((n, 1), dtype=np.float32), labels=np.asarray(labels, dtype=np.int8),
        query_offsets=offsets, qids=np.arange(sizes.size).astype(str),
        line_numbers=np.arange(1, n + 1, dtype=np.int64), source=source,
    )


def load_datasets(args) -> dict[str, RankingData]:
    out = {}
    spec = dataclasses.replace(MSLR_SHAPED, n_queries=args.queries)
    q = generate_queries(spec)
    out[f"MSLR-shaped {args.queries} q"] = ranking_data(q.labels, q.query_sizes,
                                                        source=f"MSLR_SHAPED(n_queries={args.queries})")
    test = args.mq2008 / "test.txt"
    if test.exists():
        from ltrbv.data.letor import read_letor

        out["MQ2008 Fold1 test"] = read_letor(test)
    else:
        print(f"MQ2008 not found at {test}; skipped", flush=True)
    return out


def describe(data: RankingData) -> dict:
    labels = np.asarray(data.labels)
    offsets = np.asarray(data.query_offsets)
    has_rel = np.add.reduceat(labels > 0, offsets[:-1]) > 0
    return {"docs": int(data.n_docs), "queries": int(data.n_queries),
            "queries_with_relevant": int(has_rel.sum()),
            "label_counts": {int(v): int(c) for v, c in zip(*np.unique(labels, return_counts=True))}}


# -- the two sides -----------------------------------------------------------------------------------


def ltrbv_listwise(scores, data) -> dict:
    terms = listwise_terms(scores, data.labels, data.query_offsets, "bootstrap", ("ndcg",))["ndcg"]
    means = terms.means()
    return {"sre": means["sre"], "vre": means["vre"], "terms": terms}


class Peer:
    """pytrec_eval NDCG per query for the mean scores and each model, then numpy SRE/VRE."""

    def __init__(self, data: RankingData, gains: np.ndarray):
        import pytrec_eval

        offsets = np.asarray(data.query_offsets)
        self.offsets = offsets
        self.qids = [f"q{i}" for i in range(offsets.size - 1)]
        self.docids = [[f"d{r}" for r in range(offsets[i], offsets[i + 1])] for i in range(offsets.size - 1)]
        gains = np.asarray(gains).astype(int).tolist()
        qrels = {qid: dict(zip(docs, gains[offsets[i]:offsets[i + 1]]))
                 for i, (qid, docs) in enumerate(zip(self.qids, self.docids))}
        self.evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"})
        self.has_relevant = np.add.reduceat(np.asarray(gains) > 0, offsets[:-1]) > 0

    def run(self, row: np.ndarray) -> dict:
        values = row.tolist()
        off = self.offsets
        return {qid: dict(zip(docs, values[off[i]:off[i + 1]]))
                for i, (qid, docs) in enumerate(zip(self.qids, self.docids))}

    def ndcg(self, row: np.ndarray) -> np.ndarray:
        result = self.evaluator.evaluate(self.run(row))
        return np.array([result[q]["ndcg"] if q in result else np.nan for q in self.qids])

    def __call__(self, scores: np.ndarray) -> dict:
        n_models = scores.shape[0]
        ndcg_bar = self.ndcg(scores.mean(axis=0))
        ndcg_models = np.stack([self.ndcg(row) for row in scores])
        keep = self.has_relevant
        sre_q = 1.0 - ndcg_bar[keep]
        vre_q = np.maximum(ndcg_bar[keep] - ndcg_models[:, keep], 0.0).sum(axis=0) / (n_models - 1)
        return {"sre": float(sre_q.mean()), "vre": float(vre_q.mean()), "sre_q": sre_q, "vre_q": vre_q,
                "ndcg_bar": ndcg_bar, "ndcg_models": ndcg_models}


def numpy_bootstrap_ci(per_query: list[np.ndarray], n_resamples: int, level: float, seed: int):
    """What a user writes: resample queries with replacement, mean, percentiles."""
    rng = np.random.default_rng(seed)
    n = per_query[0].size
    index = rng.integers(0, n, size=(n_resamples, n))
    q = [50 * (1 - level), 50 * (1 + level)]
    return [tuple(np.percentile(v[index].mean(axis=1), q)) for v in per_query]


# -- checks (untimed) --------------------------------------------------------------------------------


def agreement(ours: dict, peer: dict, peer_side: "Peer") -> dict:
    terms = ours["terms"]
    inc = terms.included
    assert np.array_equal(inc, peer_side.has_relevant), "included queries differ"
    d_bar = np.abs(terms.systematic_metric[0][inc] - peer["ndcg_bar"][inc]).max()
    d_mod = np.abs(terms.model_metric[0][:, inc] - peer["ndcg_models"][:, inc]).max()
    return {"max_abs_diff_ndcg_per_query": float(max(d_bar, d_mod)),
            "abs_diff_sre": abs(ours["sre"] - peer["sre"]), "abs_diff_vre": abs(ours["vre"] - peer["vre"])}


def check_agreement(data: RankingData, scores: np.ndarray, peer_exp: Peer) -> dict:
    ours = ltrbv_listwise(scores, data)
    out = {"exp_gain_qrels": agreement(ours, peer_exp(scores), peer_exp)}
    for key in ("abs_diff_sre", "abs_diff_vre", "max_abs_diff_ndcg_per_query"):
        assert out["exp_gain_qrels"][key] <= TOLERANCE, (key, out["exp_gain_qrels"])
    # binarised labels: 2**l - 1 == l, so the peer's default (qrels = labels) matches ltrbv
    binary = dataclasses.replace(data, labels=(np.asarray(data.labels) > 0).astype(np.int8))
    ours_b = ltrbv_listwise(scores, binary)
    peer_b = Peer(binary, binary.labels)
    out["binary_labels"] = agreement(ours_b, peer_b(scores), peer_b)
    for key in ("abs_diff_sre", "abs_diff_vre", "max_abs_diff_ndcg_per_query"):
        assert out["binary_labels"][key] <= TOLERANCE, (key, out["binary_labels"])
    # raw graded labels as qrels (linear gain): a different NDCG, report the gap
    lin = Peer(data, data.labels)(scores)
    out["linear_gain_qrels"] = {"peer_sre": lin["sre"], "peer_vre": lin["vre"], "ltrbv_sre": ours["sre"],
                                "ltrbv_vre": ours["vre"], "diff_sre": lin["sre"] - ours["sre"],
                                "diff_vre": lin["vre"] - ours["vre"]}
    return out


# -- one dataset ---------------------------------------------------------------------------------------


def bench_dataset(name: str, data: RankingData, args) -> dict:
    rng = np.random.default_rng(args.seed)
    scores = rng.standard_normal((args.models, data.n_docs))
    labels = np.asarray(data.labels)
    exp_gains = (2 ** labels.astype(np.int64)) - 1
    t_setup, peer = timed(Peer, data, exp_gains)
    print(f"\n== {name}: {describe(data)}; peer setup (qrels dict + evaluator) {t_setup:.3f}s", flush=True)

    checks = check_agreement(data, scores, peer)
    print(f"  agreement (exp-gain qrels): {checks['exp_gain_qrels']}", flush=True)
    print(f"  agreement (binary labels):  {checks['binary_labels']}", flush=True)
    lg = checks["linear_gain_qrels"]
    print(f"  linear-gain qrels (raw labels): SRE {lg['peer_sre']:.6f} vs ltrbv {lg['ltrbv_sre']:.6f} "
          f"(diff {lg['diff_sre']:+.2e}), VRE {lg['peer_vre']:.6f} vs {lg['ltrbv_vre']:.6f} "
          f"(diff {lg['diff_vre']:+.2e})", flush=True)

    sides = {
        "ltrbv_listwise": lambda: ltrbv_listwise(scores, data),
        "peer_pytrec_numpy": lambda: peer(scores),
        "ltrbv_decompose_1000": lambda: decompose(data, scores, "bootstrap", n_resamples=args.resamples),
        "ltrbv_decompose_1": lambda: decompose(data, scores, "bootstrap", n_resamples=1),
    }
    per_query = peer(scores)
    sides["peer_numpy_ci_only"] = lambda: numpy_bootstrap_ci([per_query["sre_q"], per_query["vre_q"]],
                                                             args.resamples, 0.95, args.seed)
    # calls per timed measurement: enough that one measurement of the peer lasts >= --min-time
    t_once = min(timed(sides["peer_pytrec_numpy"])[0] for _ in range(2))
    inner = max(1, int(np.ceil(args.min_time / t_once)))
    print(f"  {inner} call(s) per measurement; times below are per call", flush=True)

    def per_call(fn):
        cpu, start = time.process_time(), time.perf_counter()
        for _ in range(inner):
            fn()
        return (time.perf_counter() - start) / inner, (time.process_time() - cpu) / inner

    times = {k: [] for k in sides}
    cpu_times = {k: [] for k in sides}
    orders = []
    order_rng = np.random.default_rng(args.seed + 1)
    load_before = load_average()
    for rep in range(args.repeats):
        # a new random order every repeat: whatever runs right after the slow peer call was seen to be
        # ~0.1 s slower on this loaded machine, so no side may always (or never) hold that position
        order = [list(sides)[i] for i in order_rng.permutation(len(sides))]
        orders.append(order)
        for key in order:
            gc.collect()
            wall, cpu = per_call(sides[key])
            times[key].append(wall)
            cpu_times[key].append(cpu)
        print(f"  rep {rep + 1}/{args.repeats}: " + ", ".join(f"{k} {v[-1]:.3f}s" for k, v in times.items()),
              flush=True)
    med = {k: median(v) for k, v in times.items()}
    med_cpu = {k: median(v) for k, v in cpu_times.items()}
    return {
        "data": describe(data), "source": data.source, "models": args.models, "repeats": args.repeats,
        "calls_per_measurement": inner,
        "resamples": args.resamples, "times_s": times, "median_s": med,
        "cpu_times_s": cpu_times, "median_cpu_s": med_cpu, "orders": orders,
        "ratio_listwise_ltrbv_over_peer_cpu": med_cpu["ltrbv_listwise"] / med_cpu["peer_pytrec_numpy"],
        "peer_setup_s": t_setup,
        "ratio_listwise_ltrbv_over_peer": med["ltrbv_listwise"] / med["peer_pytrec_numpy"],
        "ratio_decompose1000_over_peer": med["ltrbv_decompose_1000"] / med["peer_pytrec_numpy"],
        "ratio_decompose1000_over_peer_plus_numpy_ci":
            med["ltrbv_decompose_1000"] / (med["peer_pytrec_numpy"] + med["peer_numpy_ci_only"]),
        "ltrbv_ci_cost_s": med["ltrbv_decompose_1000"] - med["ltrbv_decompose_1"],
        "agreement": checks, "sre": per_query["sre"], "vre": per_query["vre"],
        "load_before": load_before, "load_after": load_average(),
    }


def print_summary(results: dict) -> None:
    rows = []
    for name, r in results.items():
        m = r["median_s"]
        rows.append((name, "listwise SRE/VRE, no CI", f"{m['ltrbv_listwise']:.3f}",
                     f"{m['peer_pytrec_numpy']:.3f}", f"{r['ratio_listwise_ltrbv_over_peer']:.3f}"))
        c = r["median_cpu_s"]
        rows.append(("", "  same, process CPU time", f"{c['ltrbv_listwise']:.3f}", f"{c['peer_pytrec_numpy']:.3f}",
                     f"{r['ratio_listwise_ltrbv_over_peer_cpu']:.3f}"))
        rows.append(("", f"decompose, {r['resamples']} resamples (full)", f"{m['ltrbv_decompose_1000']:.3f}",
                     f"{m['peer_pytrec_numpy'] + m['peer_numpy_ci_only']:.3f} (+np CI)",
                     f"{r['ratio_decompose1000_over_peer_plus_numpy_ci']:.3f}"))
        rows.append(("", "decompose, 1 resample", f"{m['ltrbv_decompose_1']:.3f}", "", ""))
        rows.append(("", "CI cost (decompose 1000 - 1) / numpy CI", f"{r['ltrbv_ci_cost_s']:.3f}",
                     f"{m['peer_numpy_ci_only']:.4f}", ""))
        rows.append(("", "peer setup (qrels + evaluator), once", "", f"{r['peer_setup_s']:.3f}", ""))
    header = ("data", "measurement (median s)", "ltrbv", "peer", "ratio ltrbv/peer")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(5)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    print("\n" + line + "\n" + "-" * len(line))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    for name, r in results.items():
        print(f"[{name}] load average before {r['load_before']} after {r['load_after']}")


def meta() -> dict:
    import numba

    def git(*cmd):
        try:
            return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True).stdout.strip()
        except OSError:
            return None

    from importlib.metadata import PackageNotFoundError, version

    pytrec_version = None
    for dist in ("pytrec_eval-terrier", "pytrec_eval"):  # the PyPI wheels are published as -terrier
        try:
            pytrec_version = f"{dist} {version(dist)}"
            break
        except PackageNotFoundError:
            continue
    return {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "pytrec_eval": pytrec_version, "cpus": os.cpu_count(), "machine": platform.machine(),
            "git_commit": git("rev-parse", "HEAD"),
            "biasvar_sources_modified": git("status", "--porcelain", "src/ltrbv/biasvar", "src/ltrbv/metrics")}


def warm_up() -> float:
    """Load (or compile) the numba kernels of ltrbv.metrics / biasvar on a tiny problem."""
    q = generate_queries(SyntheticSpec(n_queries=20, docs_per_query=15, seed=1))
    data = ranking_data(q.labels, q.query_sizes)
    scores = np.random.default_rng(0).standard_normal((3, data.n_docs))
    start = time.perf_counter()
    decompose(data, scores, "bootstrap", n_resamples=10)
    return time.perf_counter() - start


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=2000, help="MSLR-shaped queries (default 2000)")
    parser.add_argument("--models", type=int, default=10, help="B, the number of score vectors (default 10)")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls of each side (default 7)")
    parser.add_argument("--resamples", type=int, default=1000, help="query resamples of the full decompose")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="repeat each call within one measurement until the peer's measurement would "
                             "last >= this many seconds (small data such as MQ2008; default 0.2)")
    parser.add_argument("--mq2008", type=Path, default=DEFAULT_MQ2008, help="folder with test.txt")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    print(f"load average {load_average()}; cpus {os.cpu_count()}", flush=True)
    t_data, datasets = timed(load_datasets, args)
    print(f"data loaded/generated in {t_data:.1f}s", flush=True)
    print(f"warm-up (numba cache load / compile, untimed): {warm_up():.1f}s", flush=True)
    results = {name: bench_dataset(name, data, args) for name, data in datasets.items()}
    print_summary(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"benchmarks": results, "meta": meta(),
                                    "finished": time.strftime("%Y-%m-%dT%H:%M:%S")}, indent=1, default=float))
    print(f"\nwritten: {args.out}")
    return results


if __name__ == "__main__":
    main()
