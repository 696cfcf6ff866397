"""``ltrbv compare``: two or more systems' score files on one LETOR test file (registered by ltrbv.cli).

The input step (:func:`_systems_from_score_files`) yields per-query metric values per system; another
input form (e.g. TREC qrels and runs) only needs its own step producing the same mapping for
:func:`ltrbv.compare.compare_per_query`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _names(paths: list[str], names: str | None) -> list[str]:
    if names is not None:
        given = [name.strip() for name in names.split(",")]
        if len(given) != len(paths) or not all(given):
            raise ValueError(f"--names: expected {len(paths)} comma-separated non-empty names (one per "
                             f"--scores file), got {names!r}")
        if len(set(given)) != len(given):
            raise ValueError(f"--names: names must be unique, got {names!r}")
        return given
    stems = [Path(p).stem for p in paths]
    return stems if len(set(stems)) == len(stems) else list(paths)


def _baseline(args: argparse.Namespace, names: list[str]) -> str:
    if args.baseline is None:
        return names[0]
    for name, path in zip(names, _files(args)):
        if args.baseline in (name, path):
            return name
    raise ValueError(f"--baseline {args.baseline!r} is neither a system name {names} nor one of the --scores files")


def _check_outputs(args: argparse.Namespace) -> None:
    from ..io import check_output_path

    outputs = {option: getattr(args, option.lstrip("-")) for option in ("--csv", "--latex", "--plot")}
    outputs = {option: path for option, path in outputs.items() if path}
    for option, path in outputs.items():
        check_output_path(path, *[p for p in (args.data, args.qrels) if p], *_files(args), option=option)
    resolved = {}
    for option, path in outputs.items():
        key = Path(path).resolve()
        if key in resolved:
            raise ValueError(f"{option} {path}: also given to {resolved[key]}; each output needs its own file")
        resolved[key] = option


def _files(args: argparse.Namespace) -> list[str]:
    """The systems' files: --scores, or --run."""
    return list(args.scores or args.run or [])


def _check_numbers(args: argparse.Namespace) -> None:
    if len(_files(args)) < 2:
        raise ValueError(f"{'--run' if args.run else '--scores'} needs at least 2 score files (one per system); "
                         f"got {len(_files(args))}")
    if args.resamples < 1:
        raise ValueError(f"--resamples must be >= 1, got {args.resamples}")
    if args.permutations < 1:
        raise ValueError(f"--permutations must be >= 1, got {args.permutations}")
    if not 0.0 < args.level < 1.0:
        raise ValueError(f"--level must be in (0, 1), got {args.level}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")


def _systems(args: argparse.Namespace, metrics: list[str], names: list[str]):
    """(qids, {system: {metric: per-query values}}, a note on unretrieved documents or None) of score files
    on a LETOR file, or of TREC runs (top-k runs as trec_eval scores them)."""
    from ..data.scored import check_relevant, read_scored_inputs
    from ..metrics import evaluate

    inputs = read_scored_inputs(args.data, args.scores, args.qrels, args.run, convention=args.convention)
    data = inputs.data
    check_relevant(data, metrics, args.convention, args.data or args.qrels,
                   "every system would score the same on every query, and no test can tell them apart")
    retrieved = [None] * len(names) if inputs.retrieved is None else inputs.retrieved
    per_query = {name: evaluate(scores, data.labels, data.query_offsets, metrics, convention=args.convention,
                                ties=args.ties, docids=inputs.docids, retrieved=ranked)
                 for name, scores, ranked in zip(names, inputs.scores, retrieved)}
    return data.qids, per_query, inputs.unretrieved_note()


def _compare(args: argparse.Namespace) -> int:
    from ..io import atomic_path, write_text
    from ..metrics import canonical_metrics, default_metrics, get_convention, parse_measure, resolve_ties
    from .corrections import CORRECTIONS
    from .formats import latex, markdown
    from .systems import compare_per_query

    _check_numbers(args)
    convention = get_convention(args.convention)
    resolve_ties(convention, args.ties)
    try:
        # "" is a given value (refused: it names no metric), not the default
        metrics = canonical_metrics(args.metrics if args.metrics is not None else default_metrics(convention),
                                    convention)
    except ValueError as error:
        raise ValueError(f"--metrics: {error}") from None
    if args.correction not in CORRECTIONS:  # argparse's choices already refuse it; kept for callers of _compare
        raise ValueError(f"--correction {args.correction!r}: known {', '.join(CORRECTIONS)}")
    names = _names(_files(args), args.names)
    baseline = _baseline(args, names)
    _check_outputs(args)
    if args.plot:  # checked before any work
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("the per-query difference plot needs matplotlib: pip install 'ltrbv[plots]'") from None
    qids, per_query, unretrieved = _systems(args, metrics, names)
    definitions = {metric: parse_measure(metric, convention).describe(convention) for metric in metrics}
    comparison = compare_per_query(per_query, qids=qids, baseline=baseline, correction=args.correction,
                                   level=args.level, n_resamples=args.resamples, n_permutations=args.permutations,
                                   seed=args.seed, convention=convention.name,
                                   notes=(*definitions.values(), *([unretrieved] if unretrieved else [])))
    if args.csv:
        with atomic_path(args.csv) as tmp:
            comparison.table.assign(correction=args.correction, convention=convention.name,
                                    definition=comparison.table["metric"].map(definitions)).to_csv(
                tmp, index=False, float_format="%.6g")
    if args.latex:
        write_text(args.latex, latex(comparison, args.test))
    if args.plot:
        from .figures import difference_plot

        difference_plot(comparison, args.plot)  # matplotlib checked before any work
    if args.json:
        json.dump(comparison.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(markdown(comparison, args.test))
    return 0


def add_parsers(sub) -> None:
    """Add ``compare`` to the ``ltrbv`` argument parser's sub-parsers."""
    from .corrections import CORRECTIONS

    cmp = sub.add_parser(
        "compare", help="compare systems' score files: means, paired tests against a baseline, corrected p-values",
        description="Per-metric means with bootstrap intervals over queries; per system against the baseline: "
        "the paired difference with its interval, two-sided paired t-test and randomisation test, p-values "
        "corrected over the comparisons of each metric, Cohen's d and wins/ties/losses over queries.",
        epilog="Example:\n  ltrbv compare --data ../shared/data/MQ2008/Fold1/test.txt --scores linear.scores bm25.scores \\\n"
               "      --names linear,bm25 --metrics nDCG@10,AP --latex table.tex")
    cmp.add_argument("--data", metavar="TEST_FILE", help="LETOR/SVMlight test file (or a parsed .npz), with --scores")
    cmp.add_argument("--scores", nargs="+", metavar="SCORES",
                     help="one score file per system, one score per line in the data file's line order")
    cmp.add_argument("--qrels", metavar="QRELS", help="TREC qrels, with --run instead of --data/--scores")
    cmp.add_argument("--run", nargs="+", metavar="RUN", help="one TREC run per system (top-k runs are scored as "
                     "trec_eval scores them)")
    cmp.add_argument("--names", metavar="A,B,...", help="system names (default: the score files' names)")
    cmp.add_argument("--baseline", metavar="NAME", help="system (name or score file) the others are compared "
                     "with (default: the first)")
    cmp.add_argument("--metrics", default=None, help="comma-separated names of the convention, e.g. "
                     "nDCG@10,P@10,AP,RR,R@100,ERR@10 (trec_eval, default nDCG@10,AP) or ndcg@10,map,p@10 (the "
                     "LTR conventions, default ndcg@10,map); see docs/metrics.md#names")
    cmp.add_argument("--convention", default="trec_eval", help="trec_eval (default: trec_eval's and ir_measures' "
                     "names and definitions), or an LTR convention: letor4, letor4-mslr, standard, yahoo")
    cmp.add_argument("--ties", default=None, choices=["input-order", "expected", "docid"],
                    help="order of documents with equal scores (default: the convention's): docid (trec_eval's, the "
                    "trec_eval convention's only order), input-order (the LETOR scripts') or expected (the mean over "
                    "all orders of tied documents, Ibrahim & Carman 2016 eq. 11-13)")
    cmp.add_argument("--correction", default="holm", choices=list(CORRECTIONS),
                     help="over the comparisons of each metric: holm (default), bh (Benjamini-Hochberg) or none")
    cmp.add_argument("--test", default="t", choices=["t", "randomisation"],
                     help="the test whose adjusted p-values give the table's markers (default t)")
    cmp.add_argument("--json", action="store_true", help="print JSON instead of the table")
    cmp.add_argument("--csv", metavar="OUT.csv", help="also write one row per (system, metric)")
    cmp.add_argument("--latex", metavar="OUT.tex", help="also write a LaTeX table (booktabs)")
    cmp.add_argument("--plot", metavar="OUT.png", help="also write the per-query difference plot")
    cmp.add_argument("--permutations", type=int, default=10000, help="sign flips of the randomisation test")
    cmp.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the queries")
    cmp.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals")
    cmp.add_argument("--seed", type=int, default=0, help="seed of the resampling and the randomisation test")
    cmp.set_defaults(func=_compare)
