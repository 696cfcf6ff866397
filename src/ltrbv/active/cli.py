"""Command-line sub-commands of this package (registered by ltrbv.cli).

``ltrbv sampling-distribution``: the sampling distribution of Corollary 1 (Sawade et al. 2013)
for one ranking function (eq. 16) or the comparison of two (eq. 17, with ``--scores-b``),
written as CSV ``qid,q``.
"""

from __future__ import annotations

import argparse
import os
import sys


def _sampling_distribution(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from ..data.scored import read_data_file
    from ..io import atomic_path, check_output_path, read_scores
    from .label_probs_file import read_label_probs
    from .rankings import ranks_from_scores
    from .sampling import compare_distribution, estimate_distribution, query_costs

    if args.scores_b and os.path.realpath(args.scores_b) == os.path.realpath(args.scores):
        raise ValueError(f"--scores-b {args.scores_b}: the same file as --scores; compare two ranking functions")
    if args.out:
        check_output_path(args.out, args.data, args.label_probs, args.scores,
                          *([args.scores_b] if args.scores_b else []), option="--out")
    data = read_data_file(args.data)
    probs = data.from_file_order(read_label_probs(args.label_probs, n_expected=data.n_docs))
    rankings = [ranks_from_scores(data.from_file_order(read_scores(f, n_expected=data.n_docs)), data.query_offsets)
                for f in [args.scores] + ([args.scores_b] if args.scores_b else [])]
    if args.cost == "uniform":
        costs = np.ones(data.n_queries)
    else:
        costs = query_costs(data.query_offsets)
    if len(rankings) == 1:
        q = estimate_distribution(probs, rankings[0], data.query_offsets, args.measure, costs)
    else:
        q = compare_distribution(probs, rankings[0], rankings[1], data.query_offsets, args.measure, costs)
    table = pd.DataFrame({"qid": data.qids, "q": q})
    if args.out:
        with atomic_path(args.out) as tmp:
            table.to_csv(tmp, index=False, float_format="%.10g")
    else:
        table.to_csv(sys.stdout, index=False, float_format="%.10g")
    return 0


def add_parsers(sub) -> None:
    """Add this package's sub-commands to the ``ltrbv`` argument parser's sub-parsers."""
    sd = sub.add_parser(
        "sampling-distribution",
        help="cost-optimal query sampling distribution for active evaluation (Sawade et al. 2013, eq. 16/17)",
        description="Write qid,q as CSV: the distribution of Corollary 1 for estimating the DCG or ERR of the "
                    "ranking in --scores (eq. 16), or for comparing it with --scores-b (eq. 17).",
        epilog="Example:\n  ltrbv sampling-distribution --data pool.txt --label-probs probs.txt --scores r1.scores "
               "--scores-b r2.scores --measure err --out q.csv",
    )
    sd.add_argument("--data", required=True, help="LETOR/SVMlight file (or a parsed .npz cache): the query pool")
    sd.add_argument("--label-probs", required=True,
                    help="one line per document of --data: |Y| probabilities p(y=0..|Y|-1), summing to 1")
    sd.add_argument("--scores", required=True, help="one score per line of --data: the ranking function r (or r1)")
    sd.add_argument("--scores-b", help="scores of a second ranking function r2: compare r1 with r2 (eq. 17)")
    sd.add_argument("--measure", required=True, choices=["dcg", "err"],
                    help="the performance measure to estimate: dcg or err")
    sd.add_argument("--cost", default="ndocs", choices=["uniform", "ndocs"],
                    help="labeling cost of a query: uniform, or its number of documents (default), mean 1")
    sd.add_argument("--out", help="write the CSV here instead of standard output")
    sd.set_defaults(func=_sampling_distribution)
