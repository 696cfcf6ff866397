"""Command-line sub-commands of this package (registered by ltrbv.cli): ``ltrbv biasvar``."""

from __future__ import annotations

import argparse
import json
import sys



def _metric_list(values: list[str] | None, convention) -> list[str]:
    """The canonical names (trec_eval: ``ndcg_cut_10`` -> ``nDCG@10``) of the repeatable, comma-separated
    ``--metric``, read in ``convention``'s namespace; default the untruncated NDCG (``nDCG`` or ``ndcg``)."""
    from ..metrics import canonical_metrics, get_convention

    default = "nDCG" if get_convention(convention).names == "trec_eval" else "ndcg"
    names = [m for value in (values or [default]) for m in value.split(",") if m.strip()] or [default]
    try:
        return canonical_metrics(names, convention)
    except ValueError as error:
        raise ValueError(f"--metric: {error}") from None


def _check_numbers(args: argparse.Namespace) -> None:
    if args.resamples < 1:
        raise ValueError(f"--resamples must be >= 1, got {args.resamples}")
    if not 0.0 < args.level < 1.0:
        raise ValueError(f"--level must be in (0, 1), got {args.level}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")


def _biasvar(args: argparse.Namespace) -> int:
    from ..data.scored import check_relevant, read_scored_inputs
    from ..io import atomic_path, check_output_path
    from ..metrics import get_convention, parse_measure, resolve_ties
    from .decomposition import decompose
    from .listwise import check_listwise_metric

    convention = get_convention(args.convention)
    ties = resolve_ties(convention, args.ties)
    metrics = [check_listwise_metric(m, convention) for m in _metric_list(args.metric, convention)]
    _check_numbers(args)
    files = args.scores or args.run or []
    n_files = len(files)
    if n_files < 2:
        raise ValueError(f"{'--run' if args.run else '--scores'} needs at least 2 score files (one per model); got {n_files}")
    if args.method == "twofold" and n_files % 2:
        raise ValueError(
            f"--method twofold needs an even number of score files (pairs 1a 1b 2a 2b ...); got {n_files}"
        )
    if args.per_query:
        inputs = [p for p in (args.data, args.qrels) if p] + files
        check_output_path(args.per_query, *inputs, option="--per-query")
    inputs = read_scored_inputs(args.data, args.scores, args.qrels, args.run, convention=convention,
                                same_documents="bias and variance compare each document's scores across models, "
                                "so every run must score the same documents of every query")
    data, scores = inputs.data, inputs.scores
    check_relevant(data, metrics, convention, args.data or args.qrels,
                   "SRE, VRE and the ranking error 1 - m need queries with a relevant document")
    result = decompose(data, scores, args.method, metrics=metrics, convention=convention,
                       n_resamples=args.resamples, level=args.level, seed=args.seed, ties=ties,
                       empty_queries=args.empty_queries, docids=inputs.docids)
    summary = result.summary
    first = summary["metrics"][metrics[0]]
    report = {"metric": metrics[0]}
    for name in ("sre", "vre", "ranking_error"):
        report[name] = first[name]
        report[f"{name}_ci"] = first[f"{name}_ci"]
    report.update(summary)
    # n_queries (all test queries) gives bias2/variance; the listwise numbers use only the queries kept by
    # --empty-queries (by default those with a relevant document)
    report["listwise_n_queries"] = first["n_queries"]
    report["convention"] = convention.name
    report["ties"] = ties
    report["definitions"] = {metric: parse_measure(metric, convention).describe(convention) for metric in metrics}
    report["data"] = str(args.data or args.qrels)
    if args.per_query:
        with atomic_path(args.per_query) as tmp:
            result.per_query.to_csv(tmp, index=False, float_format="%.10g")
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def add_parsers(sub) -> None:
    """Add this package's sub-commands to the ``ltrbv`` argument parser's sub-parsers."""
    bv = sub.add_parser(
        "biasvar",
        help="pointwise and listwise bias-variance (Ibrahim 2021) of several models' scores, as JSON",
        description="Squared bias and variance of the scores (eq. 5-8), SRE/VRE and ranking error "
        "(eq. 11, 14-17) with percentile bootstrap intervals over test queries.",
        epilog="Example:\n  ltrbv biasvar --data ../shared/data/MQ2008/Fold1/test.txt --method twofold \\\n"
               "      --scores m1a.scores m1b.scores m2a.scores m2b.scores --metric nDCG,nDCG@10",
    )
    bv.add_argument("--data", metavar="TEST_FILE",
                    help="LETOR/SVMlight test file (or a parsed .npz cache), with --scores")
    bv.add_argument("--method", required=True, choices=["bootstrap", "twofold"],
                    help="how the models' training sets were drawn: bootstrap (eq. 5-6, 14-15) or repeated "
                    "two-fold (eq. 7-8, 16-17; files in pairs 1a 1b 2a 2b ...)")
    bv.add_argument("--qrels", metavar="QRELS", help="TREC qrels, with --run instead of --data/--scores")
    bv.add_argument("--run", nargs="+", metavar="RUN", help="one TREC run per model (same order as --scores); "
                    "every run must rank the same documents of every query (no top-k runs)")
    bv.add_argument("--scores", nargs="+", metavar="SCORES",
                    help="one score file per model, one score per line in the data file's line "
                    "order; for twofold the pairs in order 1a 1b 2a 2b ...")
    bv.add_argument("--metric", action="append", metavar="METRIC",
                    help="names of the convention: nDCG (untruncated, default), nDCG@k, AP (trec_eval; also "
                    "ndcg_cut_10, map) or ndcg, ndcg@k, map (the LTR conventions); repeatable or comma-separated; "
                    "the first one gives the top-level sre/vre/ranking_error")
    bv.add_argument("--convention", default="trec_eval", help="trec_eval (default: trec_eval's and ir_measures' "
                    "names and definitions), or an LTR convention: letor4, letor4-mslr, standard, yahoo")
    bv.add_argument("--ties", default=None, choices=["input-order", "expected", "docid"],
                    help="order of documents with equal scores (default: the convention's): docid (trec_eval's, the "
                    "trec_eval convention's only order), input-order (the LETOR scripts') or expected (the mean over "
                    "all orders of tied documents, Ibrahim & Carman 2016 eq. 11-13)")
    bv.add_argument("--empty-queries", default="exclude", choices=["exclude", "keep"],
                    help="queries without relevant documents: exclude from listwise means (default) "
                    "or keep them with the convention's metric value")
    bv.add_argument("--per-query", metavar="OUT.csv", help="also write one row per (qid, metric)")
    bv.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of test queries")
    bv.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals")
    bv.add_argument("--seed", type=int, default=0, help="seed of the query resampling")
    bv.set_defaults(func=_biasvar)
