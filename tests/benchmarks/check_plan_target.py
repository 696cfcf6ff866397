"""``ltrbv plan``'s price of a model checked at the size it is for: one model's first trees fitted at full size.

    python tests/benchmarks/check_plan_target.py --configfile config/paper.yaml config/catalog.yaml \\
        config/catalog-paper.yaml --sizes yahoo=Yahoo-set1 --calibration results/calibration/f0.0025 \\
        results/calibration/f0.01 results/calibration/f0.04 [--learners mslr10k:rf-list yahoo:lambdamart-rand ...] \\
        [--boosting-rounds 5 25] [--forest-trees 1 3] [--one-fit-above 30] [--json FILE]

The calibration runs (``calibrate_costs.py``) measure the workflow at 0.25-4% of a data set's training queries and
check the fitted cost models on a held-out 16%; a plan prices the papers' data at 100%, 6x further out.  This
script measures there.  For each ``DATASET:LEARNER[:RULE[:trial|:SETTING]]`` (default: each data set of the run
with lambdamart-rand, lambdamart, rf-list, rf-hybrid-l6 and rf-point, where the config has them, as
``train_model``; each bag of a forest or boosting, as its training rule, ``bag_submodel`` for one trained a
sub-model a job (``jobs: submodel``) and ``train_bag`` for one trained a run a job, also of a trial run where the
variance trials run it; each built-in learner of the variance trials, as ``train_trial``; each run of the
bias-variance study of a built-in learner, as ``train_biasvar_<scheme>`` at its setting) it

* prices the rule's job (``plan.model_job``: a ``train_model`` job of one model on the data set's first fold, a
  bag's sub-model or run (all its sub-models) of a seed run or, with ``:trial``, of a variance trial's run, a
  variance trial, a study run at SETTING (default ``base``), which fits the scheme's B or 2J models; RULE defaults
  to a bag's training rule, ``train_model`` otherwise)
  exactly as ``ltrbv plan`` does (``job_key``, ``job_features`` and the cost models fitted on ``--calibration``),
  at the published sizes (``--sizes``, or the data set's own files' sizes);
* draws synthetic training and validation splits of that fold's published sizes, shaped like the data set (the
  calibration runs' generator, ``calibrate_costs.synthetic_entry``: features, documents per query, label shares),
  and fits the model as the job does (``make_learner``, ``fit_predict``, one thread, the config's parameters; a
  sub-model by ``Bag.fit_submodel`` on its ``sample_fraction`` of the queries (of the trial's share of them in a
  trial run), a trial on its share of them, ``training_sets.trial_queries``, a study run's first model on its
  replicate's training set, ``training_sets.training_set``) with its trees cut, at two tree
  counts (``--boosting-rounds``, ``--forest-trees``): the cost a tree is the difference, the rest the model's
  fixed cost (making the DMatrix, the forest's column copies and binning, scoring; an MSLR-WEB10K RF-point fit
  0.8 CPU-s of fixed cost beside 2.3 a tree, so one fit would overstate its trees by a third).  A forest whose
  first fit takes more than ``--one-fit-above`` CPU-s a tree (RF-list) is fitted once: its fixed cost, counted
  with its trees, is then a few per cent of a tree;
* projects the measured CPU time to the learner's ``n_estimators`` (times a bag run's sub-models or a study run's
  models: a bag run's fit is its sub-model 0, by ``Bag.fit_submodel``) and prints it beside the plan's price:
  error = planned / measured - 1.  A boosting model that stops early fits fewer rounds than ``n_estimators``:
  the plan prices the cap, and so does the projection;
* checks the anchors leave-one-out: each model priced with the factor (projected / planned work) of the other
  measured learners of its rule and family on its data set, as ``ltrbv plan --anchors FILE`` prices them.

``--json FILE`` is what ``ltrbv plan --anchors`` reads (its rows' ``dataset``, ``learner``, ``rule``, ``run``,
``setting`` (a study run's), ``projected_s``).

The fits run in this process after a warm-up fit on small data (numba's kernels loaded, untimed); CPU time by
``time.process_time``; the load is printed beside each fit.  Memory: the synthetic splits as float32 (Yahoo set
1's training split ~1.3 GB) plus the learner's own copies.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate_costs import TRAIN_SHARE, synthetic_entry  # noqa: E402
from timing import load_average  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

DEFAULT_LEARNERS = ("lambdamart-rand", "lambdamart", "rf-list", "rf-hybrid-l6", "rf-point")
BOOSTING = ("xgboost", "lightgbm")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configfile", nargs="+", required=True, help="the config files of the plan (merged in order)")
    parser.add_argument("--calibration", nargs="+", required=True, help="calibration run folders (as ltrbv plan's)")
    parser.add_argument("--sizes", nargs="+", default=[], metavar="DATASET=NAME",
                        help="absent data sets' published sizes (as ltrbv plan --sizes)")
    parser.add_argument("--learners", nargs="+", metavar="DATASET:LEARNER[:RULE[:trial|:SETTING]]",
                        help="the models to check (default: each run data set with " + ", ".join(DEFAULT_LEARNERS) +
                        " (train_model), the bags trained a sub-model a job (bag_submodel, of a seed run and of a "
                        "trial run where the variance trials run them), the variance trials' built-in learners "
                        "(train_trial) and the study's runs of built-in learners (train_biasvar_<scheme>)); RULE: "
                        "train_model (default), train_trial, train_biasvar_bootstrap or train_biasvar_twofold "
                        "(SETTING: the run's, default base, e.g. subsample=0.5), or for a bag its rule, bag_submodel or "
                        "train_bag (default: the one its jobs option plans), with :trial for its job in a trial run")
    parser.add_argument("--boosting-rounds", nargs=2, type=int, default=[5, 25], metavar=("A", "B"),
                        help="a boosting model's two round counts (A < B; default 5 25)")
    parser.add_argument("--forest-trees", nargs=2, type=int, default=[1, 3], metavar=("A", "B"),
                        help="a forest's two tree counts (A < B; default 1 3)")
    parser.add_argument("--one-fit-above", type=float, default=30.0, metavar="SECONDS",
                        help="fit a forest once when its first fit takes more than this many CPU-s a tree (default 30)")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args(argv)
    a, b = args.boosting_rounds
    if not 1 <= a < b:
        parser.error(f"--boosting-rounds: two round counts 1 <= A < B, got {a} {b}")
    a, b = args.forest_trees
    if not 1 <= a < b:
        parser.error(f"--forest-trees: two tree counts 1 <= A < B, got {a} {b}")
    if not args.one_fit_above > 0:
        parser.error(f"--one-fit-above: a positive number of seconds, got {args.one_fit_above}")
    for item in args.learners or ():
        parts = item.split(":")
        if len(parts) not in (2, 3, 4) or not all(parts) or (len(parts) == 4 and not (
                parts[2:] in (["bag_submodel", "trial"], ["train_bag", "trial"]) or parts[2].startswith("train_biasvar_"))):
            parser.error(f"--learners: DATASET:LEARNER, DATASET:LEARNER:RULE, DATASET:BAG:bag_submodel:trial, "
                         f"DATASET:BAG:train_bag:trial or DATASET:LEARNER:train_biasvar_SCHEME:SETTING, got {item!r}")
    from ltrbv.workflow.sizes import size_mapping

    try:
        args.mapping = size_mapping(args.sizes)
    except ValueError as error:
        parser.error(str(error))
    for folder in args.calibration:
        if not (Path(folder) / "config.yaml").is_file():
            parser.error(f"--calibration: {folder} is not a calibration run folder (no config.yaml)")
    if args.json is not None and args.json.exists() and args.json.is_dir():
        parser.error(f"--json: {args.json} is a folder")
    return args


def fitted_kind(config: dict, name: str) -> str:
    """The kind of the model a learner's job fits: a bag's base's."""
    entry = config["learners"][name]
    return config["learners"][entry["params"]["base"]]["kind"] if entry["kind"] == "bag" else entry["kind"]


def default_models(config: dict) -> list[tuple[str, str, str, bool, str | None]]:
    """(data set, learner, rule, trial run, study setting) of each run data set with :data:`DEFAULT_LEARNERS`
    (train_model), the bags of forests or boosting (their training rule, ``plan.measured_rule``; also of a trial run
    where the variance trials run the bag), the variance trials' built-in learners (train_trial) and each run of the
    bias-variance study of a built-in learner on its first study fold (train_biasvar_<scheme>, at its setting)."""
    from ltrbv.sections.bagging.grid import variance_settings
    from ltrbv.sections.biasvar.grid import settings, study_datasets, study_folds, study_runs
    from ltrbv.workflow.plan import measured_rule

    out = []
    for dataset in config["run"]["datasets"]:
        trials = (variance_settings(config, dataset) or {}).get("learners", ())
        out += [(dataset, name, "train_model", False, None) for name in DEFAULT_LEARNERS if name in config["learners"]]
        for name, entry in config["learners"].items():
            if entry["kind"] == "bag" and fitted_kind(config, name) in ("random_forest", *BOOSTING):
                rule = measured_rule(config, name)
                out += [(dataset, name, rule, False, None)] + ([(dataset, name, rule, True, None)]
                                                              if name in trials else [])
        out += [(dataset, name, "train_trial", False, None) for name in trials
                if config["learners"][name]["kind"] in ("random_forest", *BOOSTING)]
        if settings(config) is not None and dataset in study_datasets(config):
            fold = study_folds(config, dataset)[0]
            out += [(dataset, name, f"train_biasvar_{scheme}", False, setting)
                    for name, run_fold, setting, scheme in study_runs(config, dataset)
                    if run_fold == fold and config["learners"][name]["kind"] in ("random_forest", *BOOSTING)]
    return out


def chosen_models(config: dict, learners) -> list[tuple[str, str, str, bool, str | None]]:
    """(data set, learner, rule, trial run, study setting) to check; an unknown name is refused with the config's
    names, a job no planned job stands for (as ``ltrbv plan --anchors`` refuses its row,
    ``plan.measurement_problem``) before any fit."""
    from ltrbv.workflow.plan import STUDY_TRAINING_RULES, measured_rule, measurement_problem

    if not learners:
        return default_models(config)
    chosen = []
    for item in learners:
        dataset, name, *rule = item.split(":")
        trial_run = rule[1:] == ["trial"]
        if dataset not in config["datasets"]:
            raise SystemExit(f"--learners: no data set {dataset!r} in the config ({', '.join(sorted(config['datasets']))})")
        if name not in config["learners"]:
            raise SystemExit(f"--learners: no learner {name!r} in the config")
        setting = rule[1] if len(rule) == 2 and not trial_run else None
        rule = rule[0] if rule else measured_rule(config, name)
        if rule in STUDY_TRAINING_RULES and setting is None:
            setting = "base"
        problem = measurement_problem(config, dataset, name, rule, trial_run, setting)
        if problem:
            raise SystemExit(f"--learners {item}: {problem}")
        if fitted_kind(config, name) not in ("random_forest", *BOOSTING):
            raise SystemExit(f"--learners: {name} fits a {fitted_kind(config, name)}: only forests and boosting "
                             "are fitted here")
        chosen.append((dataset, name, rule, trial_run, setting))
    return chosen


def synthetic_split(entry: dict, size, seed: int, mapping: dict, name: str):
    """A RankingData of ``size.queries`` synthetic queries shaped like the data set (the calibration runs' shape)."""
    from ltrbv.data.ranking_data import RankingData
    from ltrbv.data.synthetic import SyntheticSpec, generate_queries

    spec = synthetic_entry(name, entry, size, TRAIN_SHARE, mapping, seed)["synthetic"]
    drawn = generate_queries(SyntheticSpec(**{**spec, "label_probs": tuple(spec["label_probs"])}))
    offsets = np.zeros(drawn.query_sizes.size + 1, dtype=np.int64)
    np.cumsum(drawn.query_sizes, out=offsets[1:])
    return RankingData(X=np.ascontiguousarray(drawn.X, dtype=np.float32), labels=drawn.labels.astype(np.int8),
                       query_offsets=offsets, qids=np.arange(drawn.query_sizes.size).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1, dtype=np.int64), source=f"synthetic {name}")


def timed_fit(kind: str, params: dict, trees: int, train, vali, job=None, config=None) -> float:
    """CPU seconds of one fit of ``trees`` trees as ``job``'s rule fits it (one thread): ``train_model``
    ``fit_predict`` on the training split, ``bag_submodel`` (and ``train_bag``, whose run's sub-models cost alike)
    sub-model 0 on its sample of the queries (``Bag.fit_submodel``; of trial 1's share of them in a trial run),
    ``train_trial`` on trial 1's share of them, a study rule's first replicate on its training set (a swept ``subsample`` relative to the original queries
    turned into the forest's share of the set, as the rule does); the samples drawn inside the timing, as the job
    draws them."""
    from ltrbv.learners import make_learner
    from ltrbv.workflow.plan import STUDY_TRAINING_RULES

    params = {**params, "n_estimators": trees}
    rule = job.rule if job is not None else "train_model"
    start = time.process_time()
    if rule in ("bag_submodel", "train_bag"):  # a bag's run: its sub-models one after another, each as sub-model 0
        from ltrbv.learners.bag import Bag
        from ltrbv.sections.core.grid import bag_spec
        from ltrbv.workflow.paths import run_seed_keys, run_trial

        bag = Bag.from_spec({**bag_spec(config, job.get("learner")), "params": params})
        trial = run_trial(job.get("run"))
        queries = None if trial is None else trial_sample(config, job, train.n_queries, trial)
        bag.fit_submodel(0, train, vali, (vali,), [config["seed"], job.get("dataset"), job.get("fold"),
                                                   job.get("learner"), *run_seed_keys(job.get("run"))],
                         queries=queries, n_threads=1)
    else:
        if rule == "train_trial":
            train = train.subset_queries(trial_sample(config, job, train.n_queries, job.get("trial")))
        elif rule in STUDY_TRAINING_RULES:
            train, params = study_replicate(config, job, train, params)
        learner = make_learner(kind, params, random_state=1, n_threads=1)
        learner.fit_predict(train, vali, (vali,))
    return time.process_time() - start


def study_replicate(config: dict, job, train, params: dict) -> tuple:
    """A study job's first model: (its training set, its parameters), as rules biasvar_sample and train_biasvar_<scheme>
    make them (the swept ``subsample`` of a forest, relative to the original queries, as the forest's share of the
    set)."""
    from ltrbv.learners.training_sets import per_tree_subsample, training_set
    from ltrbv.sections.biasvar.grid import learner_spec, replicates, scheme_fraction

    scheme = job.rule.removeprefix("train_biasvar_")
    queries = training_set(scheme, replicates(config, scheme)[0], train.n_queries, scheme_fraction(config, scheme),
                           config["seed"], job.get("dataset"), job.get("fold"))
    subset = train.subset_queries(np.asarray(queries, dtype=np.int64))
    sweep = learner_spec(config, job.get("learner"), job.get("setting"))["sweep"]
    if sweep and sweep["relative_to_original"]:
        params = {**params, "subsample": per_tree_subsample(float(sweep["value"]), train.n_queries, subset.n_queries)}
    return subset, params


def trial_sample(config: dict, job, n_queries: int, trial) -> np.ndarray:
    """Trial ``trial``'s query numbers of ``job``'s fold, as rule trial_queries draws them."""
    from ltrbv.learners.training_sets import trial_queries
    from ltrbv.sections.bagging.grid import variance_settings

    fraction = variance_settings(config, job.get("dataset"))["fraction"]
    return trial_queries(n_queries, fraction, config["seed"], job.get("dataset"), job.get("fold"), trial)


def leave_one_out(rows: list[dict]) -> list[dict]:
    """Each row priced with the anchor factor (projected / planned work, geometric mean) of the other rows of its data
    set and family, as ``ltrbv plan --anchors`` would price it without its own measurement."""
    out = []
    for row in rows:
        group = ("dataset", "rule", "family", "variant")
        others: dict = {}  # the other measured learners' log ratios (a study run at another setting is another model)
        for r in rows:
            if (r["learner"], r.get("setting")) != (row["learner"], row.get("setting")) \
                    and all(r.get(k, "") == row.get(k, "") for k in group):
                others.setdefault((r["learner"], r.get("setting")), []).append(math.log(r["projected_s"] /
                                                                                         r["planned_work_s"]))
        if not others:
            continue
        # the mean of the other learners' own means, each learner once: ltrbv plan's group factor
        factor = math.exp(sum(sum(logs) / len(logs) for logs in others.values()) / len(others))
        anchored = row["planned_work_s"] * factor
        out.append({"dataset": row["dataset"], "learner": row["learner"], "rule": row["rule"],
                    **({"setting": row["setting"]} if row.get("setting") else {}),
                    "variant": row.get("variant", ""), "family": row["family"],
                    "factor": factor,
                    "anchored_s": anchored, "projected_s": row["projected_s"], "error": anchored / row["projected_s"] - 1})
    return out


def main(argv=None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.plan import (MODEL_RULES, SizeTable, _model_spec, _trees, anchor_variant, calibration_costs,
                                     expanded_config, merged_config, model_job_price)
    from ltrbv.workflow.sizes import published_name

    mapping = args.mapping
    config = expanded_config(merged_config([str(Path(p).resolve()) for p in args.configfile]))
    pairs = chosen_models(config, args.learners)
    models = fit_models(calibration_costs(args.calibration), training_rules=MODEL_RULES)
    sizes = SizeTable(config, results=Path("results"), mapping=mapping)
    rows, warmed, splits = [], set(), {}
    for dataset, name, rule, trial_run, setting in pairs:
        job, key, price, work = model_job_price(config, sizes, models, dataset, name, rule, trial_run, setting)
        fold = job.get("fold")
        kind, params, n_models = _model_spec(job, config)  # n_models: a bag run's sub-models, a study run's B or 2J
        n_trees = int(_trees(kind, params))
        entry = config["datasets"][dataset]
        train_size, vali_size = sizes(dataset, fold, "train"), sizes(dataset, fold, "vali")
        what = rule + (", trial run" if trial_run else "") + (f", {setting}, {n_models:g} models" if setting else "")
        print(f"{dataset} {name} ({what}): {train_size.docs:,} training documents ({train_size.queries:,} queries, "
              f"{published_name(dataset, mapping) or 'own files'}), {n_trees} trees planned at "
              f"{price['seconds']:.4g} CPU-s", flush=True)
        if splits.get("key") != (dataset, fold):  # the same draw for every model of a fold: drawn once
            splits.clear()
            splits.update(key=(dataset, fold), train=synthetic_split(entry, train_size, 20261128, mapping, dataset),
                          vali=synthetic_split(entry, vali_size, 20261129, mapping, dataset))
        train, vali = splits["train"], splits["vali"]
        if (kind, key["family"]) not in warmed:  # numba's kernels (or XGBoost's first call) outside the timing
            small = type(train_size)(queries=30, docs=int(30 * train_size.list_length))
            warm = synthetic_split(entry, small, 1, mapping, dataset)
            timed_fit(kind, params, 1, warm, warm)
            warmed.add((kind, key["family"]))
        counts = list(args.boosting_rounds if kind in BOOSTING else args.forest_trees)
        seconds, loads = [], []
        for trees in counts:
            loads.append(load_average()[0])
            seconds.append(timed_fit(kind, params, trees, train, vali, job, config))
            print(f"  {trees} trees: {seconds[-1]:.2f} CPU-s (load {loads[-1]:.2f})", flush=True)
            if kind not in BOOSTING and seconds[-1] / trees > args.one_fit_above:
                counts = counts[:1]  # a tree of minutes: the fixed cost is noise beside it
                break
        if len(counts) == 2:
            per_tree = (seconds[1] - seconds[0]) / (counts[1] - counts[0])
            fixed = max(seconds[0] - per_tree * counts[0], 0.0)
        else:
            per_tree, fixed = seconds[0] / counts[0], 0.0
        projected = n_models * (fixed + per_tree * n_trees)  # a study run fits its models one after another
        row = {"dataset": dataset, "learner": name, "rule": rule, "run": "trial" if trial_run else "seed",
               **({"setting": setting} if setting else {}), "models": n_models,
               "family": key["family"], "variant": anchor_variant(job, config), "train_docs": train_size.docs,
               "train_queries": train_size.queries, "trees": n_trees, "fits": dict(zip(map(str, counts), seconds)),
               "measured_per_tree_s": per_tree, "measured_fixed_s": fixed, "projected_s": projected,
               "planned_s": price["seconds"], "planned_low_s": price["low"], "planned_high_s": price["high"],
               "planned_work_s": work,
               "error": price["seconds"] / projected - 1, "load": loads}
        rows.append(row)
        print(f"  projected {projected:.4g} CPU-s ({per_tree:.3g} a tree + {fixed:.3g}); planned {price['seconds']:.4g}"
              f" ({row['error']:+.1%})", flush=True)
        del train, vali
    print("\n| data set | learner | rule | training documents | trees | measured CPU-s a tree | fixed | projected model "
          "CPU-s | planned | error | planned low-high |\n|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        inside = r["planned_low_s"] <= r["projected_s"] <= r["planned_high_s"]
        rule = r["rule"] + (" (trial run)" if r["run"] == "trial" else "") + (f" {r['setting']}" if r.get("setting") else "")
        print(f"| {r['dataset']} | {r['learner']} | {rule} | {r['train_docs']:,} | {r['trees']} | {r['measured_per_tree_s']:.3g} | "
              f"{r['measured_fixed_s']:.3g} | {r['projected_s']:.4g} | {r['planned_s']:.4g} | {r['error']:+.1%} | "
              f"{r['planned_low_s']:.3g}-{r['planned_high_s']:.3g} ({'inside' if inside else 'outside'}) |")
    loo = leave_one_out(rows)
    if loo:
        print("\nanchors checked leave-one-out (ltrbv plan --anchors: a rule and family's factor on a data set from its "
              "other measured learners, applied to this one's planned work):\n\n| data set | learner | rule | factor of "
              "the others | anchored price | projected | error |\n|---|---|---|---|---|---|---|")
        for r in loo:
            print(f"| {r['dataset']} | {r['learner']} | {r['rule']} {r.get('setting', '')} {r['variant']} | x{r['factor']:.2f} | {r['anchored_s']:.4g} | {r['projected_s']:.4g} | "
                  f"{r['error']:+.1%} |")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"configfile": args.configfile, "calibration": args.calibration,
                                         "rows": rows, "leave_one_out": loo}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
