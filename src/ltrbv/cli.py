"""The ltrbv command line.

Scoring: evaluate (metrics of a score file, instead of the LETOR Perl scripts), compare (two or more
systems with paired tests and corrected p-values), biasvar (bias and variance of several models'
scores, Ibrahim 2021), sampling-distribution (active evaluation, Sawade et al. 2013), export-trec
(a score file as a TREC run). Data: synthetic (LETOR folds to try things on), data verify (a copy of a
known data set checked against the SHA-256 manifests shipped with ltrbv). Workflow: plan (jobs
and core-hours of a config), check-config (the workflow's whole check of a config, one line per problem).
Each command's --help says more."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path


def _evaluate(args: argparse.Namespace) -> int:
    from .data.scored import read_scored_inputs
    from .evaluation import per_query_table
    from .io import atomic_path, check_output_path
    from .metrics import canonical_metrics, default_metrics, get_convention, parse_measure, resolve_ties

    convention = get_convention(args.convention)
    ties = resolve_ties(convention, args.ties)
    try:
        # "" is a given value (refused: it names no metric), not the default
        metrics = canonical_metrics(args.metrics if args.metrics is not None else default_metrics(convention),
                                    convention)
    except ValueError as error:
        raise ValueError(f"--metrics: {error}") from None
    if (args.data_file is None) != (args.scores_file is None):
        raise ValueError("give a data file and a score file (or --qrels with --run)")
    inputs = [p for p in (args.data_file, args.scores_file, args.qrels, args.run) if p]
    if args.per_query:
        check_output_path(args.per_query, *inputs, option="--per-query")
    inputs = read_scored_inputs(args.data_file, [args.scores_file] if args.scores_file else [], args.qrels,
                                [args.run] if args.run else [], data_option="DATA_FILE", scores_option="SCORES_FILE",
                                convention=convention)
    data = inputs.data
    retrieved = None if inputs.retrieved is None else inputs.retrieved[0]
    table = per_query_table(data, inputs.scores[0], metrics, [convention.name], ties=ties, docids=inputs.docids,
                            retrieved=retrieved)
    if args.per_query:
        wide = table.pivot(index="qid", columns="metric", values="value").reindex(data.qids)[metrics]
        with atomic_path(args.per_query) as tmp:
            wide.to_csv(tmp, float_format="%.10g")
    means = table.groupby("metric", sort=False)["value"].mean()
    result = {metric: float(means[metric]) for metric in metrics}
    result["queries"] = data.n_queries
    result["convention"] = convention.name
    result["ties"] = ties
    result["definitions"] = {metric: parse_measure(metric, convention).describe(convention) for metric in metrics}
    if inputs.unretrieved_note():
        result["unretrieved"] = inputs.unretrieved_note()
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _export_trec(args: argparse.Namespace) -> int:
    import numpy as np

    from .data.cache import is_cache_file
    from .data.scored import check_label_range, read_data_file
    from .data.trec import read_docids, write_qrels, write_run
    from .io import check_output_path, read_scores

    if not args.tag or any(c.isspace() for c in args.tag):
        raise ValueError(f"--tag {args.tag!r}: a run's tag is one field, non-empty and without spaces")
    outputs = [p for p in (args.run, args.qrels) if p]
    for option, path in (("--run", args.run), ("--qrels", args.qrels)):
        if path:
            check_output_path(path, args.data_file, args.scores_file, option=option)
    if args.qrels and Path(args.qrels).resolve() == Path(args.run).resolve():
        raise ValueError(f"--qrels {args.qrels}: the same file as --run")
    data = read_data_file(args.data_file)
    if args.qrels:  # qrels hold relevance grades; 2^label - 1 must fit an int64
        top = 62 if args.qrels_gain == "exp2" else 127
        check_label_range(data, args.data_file, 0, top, f"the labels 0..{top} of qrels with --qrels-gain "
                          f"{args.qrels_gain}")
    scores = data.from_file_order(read_scores(args.scores_file, n_expected=data.n_docs))
    if Path(args.data_file).suffix == ".npz" or is_cache_file(args.data_file):
        docids = np.char.add("L", data.line_numbers.astype(str))  # a cache keeps no comments: line numbers
    else:
        docids = data.from_file_order(read_docids(args.data_file))
    write_run(args.run, data, scores, docids, tag=args.tag, source=args.data_file)
    if args.qrels:
        write_qrels(args.qrels, data, docids, gain=args.qrels_gain, source=args.data_file)
    print(f"wrote {' and '.join(outputs)}: {data.n_queries} queries, {data.n_docs} documents", file=sys.stderr)
    return 0


def _synthetic(args: argparse.Namespace) -> int:
    from .data.synthetic import MSLR_SHAPED, SyntheticSpec, write_letor_folds

    _check_synthetic_args(args)
    spec = MSLR_SHAPED if args.preset == "mslr" else SyntheticSpec()
    if args.seed is not None:
        spec = SyntheticSpec.from_dict({**spec.to_dict(), "seed": args.seed})
    if args.queries is not None:
        spec = SyntheticSpec.from_dict({**spec.to_dict(), "n_queries": args.queries})
    written = write_letor_folds(args.out_dir, spec, sparse=args.sparse)
    print(f"wrote {len(written)} files under {args.out_dir}", file=sys.stderr)
    return 0


def _check_synthetic_args(args: argparse.Namespace) -> None:
    """Refuse, before anything is generated or written: too few queries, a negative seed, an out_dir that is
    not a folder, and (without --overwrite) any Fold*/{train,vali,test}.txt that exists already."""
    from .data.synthetic import N_PARTITIONS
    from .io import check_output_path

    if args.queries is not None and args.queries < N_PARTITIONS:
        raise ValueError(f"--queries {args.queries}: need at least {N_PARTITIONS} (one query in each partition "
                         "S1..S5 of the five folds)")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed {args.seed}: a seed is a non-negative integer")
    out = Path(args.out_dir)
    targets = [out / f"Fold{fold}" / f"{split}.txt" for fold in range(1, N_PARTITIONS + 1)
               for split in ("train", "vali", "test")]
    for folder in [out] + sorted({target.parent for target in targets}):
        if os.path.lexists(folder) and not folder.is_dir():
            raise ValueError(f"{folder}: exists and is not a folder; OUT_DIR is the folder to write Fold1..Fold5 into")
    for target in targets:
        check_output_path(target, option="OUT_DIR")  # not a symbolic link, FIFO or device
    existing = [str(t) for t in targets if os.path.lexists(t)]
    if existing and not args.overwrite:
        raise ValueError(f"{existing[0]}: exists ({len(existing)} of the {len(targets)} files to write exist); "
                         "refusing to overwrite a data set: choose a new folder, or give --overwrite")


def _sizes(values: list[str] | None) -> dict:
    """``--sizes yahoo=Yahoo-set1 ...`` (:func:`ltrbv.workflow.sizes.size_mapping`)."""
    from .workflow.sizes import size_mapping

    return size_mapping(values)


def _check_config_files(paths) -> None:
    from .input_files import check_regular_file
    from .workflow.validation import config_file_problems

    for path in paths:  # a FIFO would block the YAML reader, a device never end
        check_regular_file(path, "a config file")
    problems = [problem for path in paths for problem in config_file_problems(path)]
    if problems:
        raise ValueError("invalid config file:\n  " + "\n  ".join(problems))


def _check_config(args: argparse.Namespace) -> int:
    from .workflow.config_checks import ConfigError, check_config
    from .workflow.plan import merged_config

    _check_config_files(args.configfile)
    try:  # what the Snakefile runs at parse time, on the files merged as snakemake --configfile merges them
        config = check_config(merged_config(args.configfile), args.configfile)
    except ConfigError as error:
        raise ValueError(str(error)) from None
    print(f"{len(args.configfile)} config file(s): valid ({', '.join(config['run']['datasets'])}; "
          f"{len(config['run']['learners'])} learner(s)), the check snakemake runs before any job")
    return 0


def _plan(args: argparse.Namespace) -> int:
    from .workflow.costs import FEATURES, fit_models
    from .workflow.plan import (MODEL_RULES, SizeTable, calibration_costs, dry_run, estimate, expanded_config,
                                merged_config, read_anchors)

    _check_config_files(args.configfile)
    if args.sizes and not args.calibration:
        raise ValueError("--sizes gives the data sets' sizes for pricing with --calibration; give --calibration too")
    if args.anchors and not args.calibration:
        raise ValueError("--anchors scales a calibration's prices to full-size measurements; give --calibration too")
    mapping = _sizes(args.sizes)
    costs = calibration_costs(args.calibration) if args.calibration else None  # checked before the dry run
    jobs, counts, _ = dry_run(args.configfile, placeholders=args.placeholders)
    print(f"{counts.get('total', len(jobs))} jobs (snakemake --dry-run" + (", placeholder folds" if args.placeholders
                                                                           else "") + "):")
    for rule, count in counts.items():
        if rule != "total":
            print(f"  {rule:<24} {count:>6}")
    if costs is None:
        return 0
    models = fit_models(costs, training_rules=MODEL_RULES)
    config = expanded_config(merged_config(args.configfile))
    sizes = SizeTable(config, results=Path("results"), mapping=mapping)
    if args.anchors:
        models.anchors, spread, models.own_anchors = read_anchors(args.anchors, config, sizes, models)
        print("\nanchored at full size (a training job's work x the measured / the calibrated price of a model):")
        for (dataset, rule, family, variant), factor in sorted(models.anchors.items()):
            label = variant or ("(seed runs)" if family.startswith("bag-") else "(every variant)")
            print(f"  {dataset:<12} {rule:<23} {family:<16} {label:<18} x{factor:.2f}")
        print("  (a training rule of a family without its own measurement takes the family's train_model factor)")
        print(f"  {len(models.own_anchors)} measured learners (a study run: at its setting) are priced by their own "
              "factor, their group's factor prices the others ('measured' and 'anchored' in the table's source)")
        models.anchor_own_sd = spread.repeat_sd
        if spread.repeat_sd is not None:
            print(f"  band of a measured learner's job: log-sd {spread.repeat_sd:.2f} (between repeated measurements "
                  f"of a learner, {spread.repeat_checks} repeats)")
        if spread.transfer_sd is None:
            print("  band: the calibration's (no rule and family with two measured learners to check a transfer on)")
        else:
            models.anchor_sd, models.anchor_rule_sd = spread.transfer_sd, spread.rule_sd
            print(f"  band: an anchored job's log-sd {spread.transfer_sd:.2f} in place of the extrapolation's (the root "
                  f"mean square of {spread.transfer_checks} leave-one-out errors: a factor carried to a learner it was "
                  "not measured on), beside the calibration's residual; a job borrowing train_model's factor adds "
                  + (f"{spread.rule_sd:.2f} (how far {spread.rule_checks} measured rules' factors lie from it)"
                     if spread.rule_sd is not None else "nothing: it keeps the extrapolation's (no other rule measured)"))
    table = estimate(jobs, config, sizes, models)
    _print_models(models, costs, FEATURES)
    _print_sizes(sizes)
    show = table.sort_values("core_hours", ascending=False, kind="stable")
    print(f"\nestimated core-hours ({len(costs)} calibration jobs in {len(args.calibration)} run(s); low/high: one "
          "log-sd of each model's uncertainty):")
    print(show.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    by_rule = table.groupby("rule")[["jobs", "core_hours", "low", "high"]].sum().sort_values("core_hours", kind="stable",
                                                                                             ascending=False)
    print("\nper rule:\n" + by_rule.to_string(float_format=lambda v: f"{v:.2f}"))
    per_dataset = table.groupby("dataset")["core_hours"].sum()
    print("\n" + "; ".join(f"{name or '(no dataset)'}: {hours:.1f}" for name, hours in per_dataset.items()))
    sources = table.groupby("source")["jobs"].sum()
    print("jobs priced by: " + "; ".join(f"{source} {int(n)}" for source, n in sources.items()))
    print(f"total: {table['core_hours'].sum():.1f} core-hours (low {table['low'].sum():.1f}, high "
          f"{table['high'].sum():.1f}) for {int(table['jobs'].sum())} jobs")
    return 0


def _print_models(models, costs, features) -> None:
    print("\ncost models (work = exp(a) * prod x^e per rule and learner family; * = fitted, else assumed; "
          "sd: the exponent's, from a held-out size or a prior):")
    for (rule, family), model in sorted(models.groups.items()):
        exponents = " ".join(f"{f}^{model.exponents[f]:.2f}{'*' if f in model.fitted else ''}" for f in features
                             if f in model.fitted or model.exponents[f] != 0)
        print(f"  {rule:<24} {family or '-':<16} {model.jobs:>4} jobs {len(model.intercepts):>3} keys "
              f"{model.sizes} sizes  {exponents}  (docs sd {model.exponent_sd['docs']:.2f} "
              f"{model.exponent_sd_source}; residual {model.residual_sd:.2f})")


def _print_sizes(sizes) -> None:
    print("\ndata sizes (queries / documents):")
    for (dataset, fold, split), size in sorted(sizes._cache.items()):
        print(f"  {dataset} {fold} {split}: {size.queries:,} / {size.docs:,} ({size.source})")


class _Version(argparse.Action):
    """``--version``: the version, commit and dirty flag of the running code (read from git when asked)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from .provenance import code_revision

        print(f"ltrbv {code_revision().describe()}")
        parser.exit()


class HelpWithExample(argparse.HelpFormatter):
    """argparse's help, with an epilog that starts with ``Example:`` kept as written (its command lines unwrapped);
    the descriptions are wrapped as usual."""

    def _fill_text(self, text, width, indent):
        if text.startswith("Example:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class RawWithExample(argparse.RawDescriptionHelpFormatter):
    """The top-level help: its description (this module's docstring) as written."""


def example(command: str) -> str:
    """The epilog of a command's --help: one example (the line, or lines, of a shell command)."""
    return "Example:\n  " + command.strip().replace("\n", "\n  ")


def _every_parser(parser: argparse.ArgumentParser):
    """The parser and every sub-command's parser below it, depth first."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _every_parser(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ltrbv", description=__doc__, formatter_class=RawWithExample,
                                     epilog=example("ltrbv evaluate ../shared/data/MQ2008/Fold1/test.txt my.scores "
                                                    "--metrics nDCG@10,AP"))
    parser.add_argument("--version", action=_Version,
                        help="print the version and the commit of the running code (and whether it is dirty)")
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="mean metrics of a score file on a LETOR data file, as JSON",
                        description="Mean metrics of one score file over the queries of a LETOR data file, as "
                        "JSON (the LETOR Perl scripts' job); or of a TREC run with --qrels/--run.",
                        epilog=example("ltrbv evaluate ../shared/data/MQ2008/Fold1/test.txt my.scores --metrics nDCG@10,AP,P@10 "
                                       "--per-query per_query.csv"))
    ev.add_argument("data_file", nargs="?", help="LETOR/SVMlight text file (or a parsed .npz cache)")
    ev.add_argument("scores_file", nargs="?", help="one score per line, in the data file's line order")
    ev.add_argument("--qrels", metavar="QRELS", help="TREC qrels, with --run instead of DATA_FILE SCORES_FILE")
    ev.add_argument("--run", metavar="RUN", help="a TREC run (top-k runs are scored as trec_eval scores them)")
    ev.add_argument("--convention", default="trec_eval", help="trec_eval (default: trec_eval's and ir_measures' "
                    "names and definitions), or an LTR convention: letor4, letor4-mslr, standard, yahoo")
    ev.add_argument("--metrics", default=None, help="comma-separated names of the convention "
                    "(docs/metrics.md#names): trec_eval: nDCG@10,AP,P@10,RR,R@100,ERR@10,\"nDCG(dcg='exp-log2')@10\" "
                    "(default nDCG@10,AP); LTR conventions: ndcg@10,ndcg,err@10,map,p@5,rr,r@10 (default ndcg@10,map)")
    ev.add_argument("--ties", default=None, choices=["input-order", "expected", "docid"],
                    help="order of documents with equal scores (default: the convention's): docid (trec_eval's, by "
                    "document id descending; the trec_eval convention's only order), input-order (the LETOR "
                    "scripts') or expected (the mean over all orders of tied documents, Ibrahim & Carman 2016 "
                    "eq. 11-13)")
    ev.add_argument("--per-query", metavar="OUT.csv", help="also write per-query values")
    ev.set_defaults(func=_evaluate)

    ex = sub.add_parser("export-trec", help="write a score file as a TREC run (and the labels as qrels)",
                        description="Document ids come from the data file's '#docid = ...' comments, or are "
                        "L<line number> where a line has none (always for a .npz cache).",
                        epilog=example("ltrbv export-trec ../shared/data/MQ2008/Fold1/test.txt m1.scores --run m1.run --qrels test.qrels"))
    ex.add_argument("data_file", help="LETOR/SVMlight text file (or a parsed .npz cache)")
    ex.add_argument("scores_file", help="one score per line, in the data file's line order")
    ex.add_argument("--run", required=True, metavar="OUT.run", help="the run: qid Q0 docid rank score tag")
    ex.add_argument("--qrels", metavar="OUT.qrels", help="also write the labels as qrels: qid 0 docid label")
    ex.add_argument("--qrels-gain", default="label", choices=["label", "exp2"],
                    help="qrels values: the labels (default), or 2^label - 1 so that trec_eval's linear-gain "
                    "nDCG equals the standard convention's")
    ex.add_argument("--tag", default="ltrbv", help="the run's tag column (default ltrbv)")
    ex.set_defaults(func=_export_trec)

    syn = sub.add_parser("synthetic", help="write synthetic LETOR folds (Fold1..Fold5/{train,vali,test}.txt)",
                         description="Write a synthetic LETOR data set in the LETOR 4.0 five-fold layout "
                         "(the demo's generator; --preset mslr gives MSLR-WEB10K-shaped data: 136 raw features, "
                         "labels 0-4).",
                         epilog=example("ltrbv synthetic data/mslr-shaped --preset mslr --queries 300 --seed 7"))
    syn.add_argument("out_dir", help="folder to write Fold1..Fold5 into")
    syn.add_argument("--preset", choices=["demo", "mslr"], default="demo", help="demo (default) or mslr")
    syn.add_argument("--queries", type=int, help="number of queries (default: the preset's)")
    syn.add_argument("--seed", type=int, help="generator seed (default: the preset's)")
    syn.add_argument("--sparse", action="store_true", help="omit zero-valued features (Yahoo-style)")
    syn.add_argument("--overwrite", action="store_true",
                     help="replace existing Fold*/{train,vali,test}.txt files (default: refuse to write over them)")
    syn.set_defaults(func=_synthetic)

    plan = sub.add_parser("plan", help="job count of a config (dry run) and its core-hours from calibration runs",
                          description="List a config's jobs per rule by a Snakemake dry run; with --calibration, "
                          "price every job with cost models fitted on calibration runs made by "
                          "tests/benchmarks/calibrate_costs.py, with their uncertainty "
                          "(docs/cluster.md#planning-the-full-reproduction-jobs-and-core-hours).",
                          epilog=example("ltrbv plan --configfile config/paper.yaml --placeholders"))
    plan.add_argument("--configfile", nargs="+", default=[], help="config files, merged in order as snakemake --configfile merges them (none: the demo, config/demo.yaml)")
    plan.add_argument("--placeholders", action="store_true",
                      help="point absent real datasets at tiny placeholder folds (to list a paper-scale grid)")
    plan.add_argument("--calibration", nargs="+", metavar="RUN_DIR",
                      help="calibration run folders (tests/benchmarks/calibrate_costs.py): price every job with cost "
                      "models fitted on them (two or more data sizes)")
    plan.add_argument("--sizes", nargs="+", metavar="DATASET=NAME",
                      help="price an absent data set at a published data set's sizes, e.g. yahoo=Yahoo-set1 (a data "
                      "set named by a manifest alias, e.g. mslr10k, needs none)")
    plan.add_argument("--anchors", nargs="+", metavar="JSON",
                      help="full-size measurements (tests/benchmarks/check_plan_target.py --json): each measured "
                      "rule's jobs of a learner family on that data set priced at the measured / calibrated ratio "
                      "(train_model's for the family's training rules not measured themselves)")
    plan.set_defaults(func=_plan)

    check = sub.add_parser("check-config", description="Check config files as the workflow does before any job: "
                           "YAML errors and keys given twice (with file and line), the schemas (one line per "
                           "problem, with its key and a did-you-mean), the learners' parameters, the sections' "
                           "cross-checks and the raw data. Run it where snakemake would run (relative paths).",
                           help="check config files as the workflow does before any job, one line per problem",
                           epilog=example("ltrbv check-config config/mq2008.yaml config/active-mq2008.yaml"))
    check.add_argument("configfile", nargs="+", help="config files, as given to snakemake --configfile")
    check.set_defaults(func=_check_config)

    from .active.cli import add_parsers as add_active_parsers
    from .biasvar.cli import add_parsers as add_biasvar_parsers
    from .compare.cli import add_parsers as add_compare_parsers

    add_biasvar_parsers(sub)
    add_compare_parsers(sub)
    add_active_parsers(sub)

    from .data.cli import add_parsers as add_data_parsers  # ltrbv data verify

    add_data_parsers(sub)
    for each in _every_parser(parser):  # every sub-command's help ends with its example, unwrapped
        if each is not parser:
            each.formatter_class = HelpWithExample
    return parser


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader of standard output went away (``ltrbv evaluate ... | head``): stop quietly
        _silence_stdout()
        return 128 + signal.SIGPIPE  # as a command killed by SIGPIPE exits in a shell (141)
    except (ValueError, OSError) as error:  # OSError: missing file, a directory, no permission (names the file)
        print(f"ltrbv {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
