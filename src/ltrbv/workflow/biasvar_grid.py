"""The job grid of the bias-variance study (Ibrahim 2021, §5.2 and §6): training sets, sweep, reducers.

Config section ``biasvar`` (schema: ``config/schema/biasvar.schema.yaml``, which fills in defaults)::

    biasvar:
      enabled: true
      folds: [Fold1]                       # folds studied (default: the dataset's first fold)
      bootstrap: {replicates: 10, fraction: 0.63}   # B sets of 63% of the training queries, w/o replacement
      twofold: {repetitions: 5}            # J repetitions of two disjoint halves
      sweep:                               # a learner parameter varied over values (first: per-tree p)
        learners: [rf-point]
        param: subsample                   # p: fraction of the ORIGINAL training queries per tree
        values: [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.63]
        schemes: [bootstrap, twofold]
      compare:                             # Table 5: learners at their configured parameters
        learners: [rf-point, lambdamart]
        schemes: [twofold]
      metrics: [ndcg, ndcg@10, map]
      convention: standard

Wildcards of the study's files:

* ``scheme``: ``bootstrap`` or ``twofold``;
* ``replicate``: ``1`` .. ``B`` (bootstrap) or ``1a``, ``1b`` .. ``Ja``, ``Jb`` (two-fold, the two halves);
* ``setting``: ``base`` (the learner as configured) or ``<param>=<value>`` for a sweep point.

A sweep point of ``subsample`` larger than a scheme's training set (p > 0.63 for bootstrap, p > 0.5
for two-fold) is skipped, so the two-fold curves stop at 0.5 (Ibrahim 2021, footnote 19).
"""

from __future__ import annotations

from ..biasvar.listwise import check_listwise_metric
from ..learners import LEARNER_KINDS
from ..learners.bag import BAG_KIND, bag_spec
from . import paths
from .core_grid import bag_learners
from .datasets import covered_datasets, enabled_section
from .validation import sweep_problems

SCHEMES = ("bootstrap", "twofold")
BASE_SETTING = "base"
TWOFOLD_FRACTION = 0.5


def settings(config: dict) -> dict | None:
    """The study's settings, or None when the section is absent or ``enabled: false``."""
    return enabled_section(config, "biasvar")


def study_datasets(config: dict) -> list[str]:
    """Datasets of the run the study covers (``biasvar.datasets``; empty: all of them)."""
    return covered_datasets(config, settings(config))


def study_folds(config: dict, dataset: str) -> list[str]:
    section = settings(config)
    folds = section.get("folds") or config["datasets"][dataset]["folds"][:1]
    return list(folds)


def replicates(config: dict, scheme: str) -> list[str]:
    """Replicate names of a scheme: ``1..B`` or ``1a 1b .. Ja Jb`` (the order the reducers expect)."""
    section = settings(config)
    if scheme == "bootstrap":
        return [str(i) for i in range(1, int(section["bootstrap"]["replicates"]) + 1)]
    if scheme == "twofold":
        return [f"{j}{half}" for j in range(1, int(section["twofold"]["repetitions"]) + 1) for half in "ab"]
    raise ValueError(f"unknown scheme {scheme!r}; known: {SCHEMES}")


def scheme_fraction(config: dict, scheme: str) -> float:
    """Share of the fold's training queries in one training set of a scheme."""
    return float(settings(config)["bootstrap"]["fraction"]) if scheme == "bootstrap" else TWOFOLD_FRACTION


def format_value(value) -> str:
    """A sweep value as it appears in a file name: ``0.05`` -> ``0.05``, ``8`` -> ``8``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def setting_name(param: str, value) -> str:
    return f"{param}={format_value(value)}"


def sweep_points(config: dict, scheme: str) -> list[tuple[str, object]]:
    """(setting, value) of the sweep points that fit in the scheme's training sets."""
    sweep = settings(config)["sweep"]
    if scheme not in sweep.get("schemes", SCHEMES):
        return []
    points = []
    for value in sweep["values"]:
        if sweep["param"] == "subsample" and float(value) > scheme_fraction(config, scheme) + 1e-9:
            continue  # larger than the training set: skipped (the two-fold curves stop at 0.5)
        points.append((setting_name(sweep["param"], value), value))
    return points


def study_runs(config: dict, dataset: str) -> list[tuple[str, str, str, str]]:
    """Every (learner, fold, setting, scheme) the study reduces: sweep points and comparison entries."""
    section = settings(config)
    runs = []
    for fold in study_folds(config, dataset):
        for learner in section["sweep"]["learners"]:
            for scheme in SCHEMES:
                runs += [(learner, fold, setting, scheme) for setting, _ in sweep_points(config, scheme)]
        for learner in section["compare"]["learners"]:
            runs += [(learner, fold, BASE_SETTING, scheme) for scheme in section["compare"]["schemes"]]
    seen, unique = set(), []
    for run in runs:
        if run not in seen:
            seen.add(run)
            unique.append(run)
    return unique


def replicate_files(config: dict, template: str, scheme: str) -> list[str]:
    """``template`` filled with each replicate of a scheme, in replicate order; its other wildcards kept."""
    return [paths.fill(template, replicate=r, scheme=scheme) for r in replicates(config, scheme)]


def named_replicate_files(config: dict, template: str, scheme: str, name: str) -> dict[str, str]:
    """``{name_<replicate>: file}`` for each replicate of a scheme: a job's per-model inputs or outputs, by name."""
    return {paths.model_file_name(name, r): file for r, file in zip(replicates(config, scheme),
                                                                     replicate_files(config, template, scheme))}


def replicate_score_files(config: dict, dataset: str, learner: str, fold: str, setting: str, scheme: str) -> list[str]:
    """The test prediction files of one run's models, in replicate order (1..B, or 1a 1b .. Ja Jb)."""
    template = paths.fill(paths.STUDY_PREDICTION, dataset=dataset, learner=learner, fold=fold, setting=setting,
                          file="test.scores")
    return replicate_files(config, template, scheme)


def reduced_file(dataset: str, learner: str, fold: str, setting: str, scheme: str, suffix: str = "json") -> str:
    return paths.STUDY_REDUCED.format(dataset=dataset, learner=learner, fold=fold, setting=setting, scheme=scheme,
                                      ext=suffix)


def reduced_files(config: dict, dataset: str, suffix: str = "json") -> list[str]:
    return [reduced_file(dataset, *run, suffix=suffix) for run in study_runs(config, dataset)]


def sweep_value(config: dict, setting: str):
    """The swept value of a setting (None for ``base``): the config's number, never re-read from the file name."""
    if setting == BASE_SETTING:
        return None
    text = setting.partition("=")[2]
    return next(v for v in settings(config)["sweep"]["values"] if format_value(v) == text)


def reduced_runs(config: dict, dataset: str) -> list[dict]:
    """Every reduced run of the study with its keys, its swept value and its two files (rule biasvar_tables)."""
    return [{"learner": learner, "fold": fold, "setting": setting, "scheme": scheme,
             "value": sweep_value(config, setting),
             "summary": reduced_file(dataset, learner, fold, setting, scheme, "json"),
             "per_query": reduced_file(dataset, learner, fold, setting, scheme, "csv")}
            for learner, fold, setting, scheme in study_runs(config, dataset)]


def learner_spec(config: dict, learner: str, setting: str) -> dict:
    """The learner entry a training job uses: the configured one, with the sweep value set for a sweep point.

    The parameter keys are sorted: Snakemake compares params by repr, so reordering a config entry
    is not a change.
    """
    entry = config["learners"][learner]
    params = dict(entry.get("params", {}))
    spec = {"name": learner, "kind": entry["kind"], "setting": setting, "sweep": None}
    if setting != BASE_SETTING:
        param = setting.partition("=")[0]
        sweep = settings(config)["sweep"]
        value = sweep_value(config, setting)
        spec["sweep"] = {"param": param, "value": value,
                         "relative_to_original": param == "subsample" and sweep.get("relative_to", "original") == "original"}
        params[param] = value
    if entry["kind"] == BAG_KIND:
        bag = bag_spec(config, learner)
        spec["bag"] = {key: bag[key] for key in ("base", "kind", "params", "n_models", "sample_fraction", "combine")}
    spec["params"] = {key: params[key] for key in sorted(params)}
    return spec


def trained_here(config: dict) -> list[str]:
    """Learners that the rules ``train_biasvar_<scheme>`` train (an ``external`` learner brings its own rule)."""
    return [name for name in config["learners"] if trainable(config, name)]


def trainable(config: dict, learner: str) -> bool:
    kind = config["learners"][learner]["kind"]
    return kind in LEARNER_KINDS or kind == BAG_KIND


def figure_names() -> list[str]:
    return ["biasvar_pointwise", "biasvar_listwise", "biasvar_ranking_error", "zhang_bias_variance"]


def targets(config: dict) -> list[str]:
    """Everything the study makes for every dataset of the run (empty when the study is off)."""
    if settings(config) is None:
        return []
    files = []
    for dataset in study_datasets(config):
        files += reduced_files(config, dataset)
        files += [paths.table(name, ext, dataset) for name, ext in TABLES]
        files += [paths.SUMMARY.format(dataset=dataset)]
        files += [path for name in figure_names() for path in paths.figures(name, dataset)]
    return files


#: the study's tables (name, extension)
TABLES = (("biasvar_sweep", "csv"), ("biasvar_trends", "csv"), ("biasvar_comparison", "csv"),
          ("biasvar_comparison", "md"), ("zhang", "csv"), ("zhang", "md"), ("significance", "csv"),
          ("significance", "md"))


def zhang_inputs(config: dict, dataset: str) -> dict:
    """``{"scores": {learner: {fold: test prediction file}}, "data": {fold: parsed test split}}`` of rule zhang_table
    (the run's learners, its first seed)."""
    run = paths.seed_run(config["run"]["seeds"][0])
    folds = config["datasets"][dataset]["folds"]
    return {"scores": {learner: {fold: paths.prediction(dataset, learner, fold, run) for fold in folds}
                       for learner in config["run"]["learners"]},
            "data": {fold: paths.parsed(dataset, fold, "test") for fold in folds}}


def problems(config: dict) -> list[str]:
    """Problems the schema cannot see (names of learners and folds that do not exist, ...)."""
    section = settings(config)
    if section is None:
        return []
    found = []
    for name in section.get("datasets") or []:
        if name not in config["datasets"]:
            found.append(f"biasvar.datasets names {name!r}, which is not under datasets: {sorted(config['datasets'])}")
    if not study_datasets(config):
        return found  # the study covers none of this run's datasets
    baseline = section["significance"].get("baseline")
    if baseline is not None and baseline not in config["run"]["learners"]:
        found.append(f"biasvar.significance.baseline {baseline!r} is not among run.learners "
                     f"{config['run']['learners']}")
    for pair in section["significance"].get("pairs", []):
        for name in pair:
            if name not in config["run"]["learners"]:
                found.append(f"biasvar.significance.pairs names {name!r}, which is not among run.learners")
    known = config["learners"]
    for key in ("sweep", "compare"):
        for name in section[key]["learners"]:
            if name not in known:
                found.append(f"biasvar.{key}.learners names {name!r}, which is not under learners: {sorted(known)}")
            elif not trainable(config, name) and known[name]["kind"] != "external":
                found.append(f"biasvar.{key}.learners: {name!r} is of kind {known[name]['kind']!r}, which the "
                             "study cannot train on a sample of queries (built-in learners, bags, or an "
                             "external learner with its own rule)")
    sweep = section["sweep"]
    for name in sweep["learners"]:
        if name in known and name in bag_learners(config):
            found.append(f"biasvar.sweep.learners: {name!r} is a bag; sweep its base learner instead")
        elif name in known and sweep["param"] == "subsample" and known[name]["kind"] != "random_forest":
            found.append(f"biasvar.sweep.learners: {name!r} has no per-tree subsample (param 'subsample' is a "
                         "random-forest parameter)")
    for dataset in study_datasets(config):
        if dataset not in config["datasets"]:
            continue
        for fold in section.get("folds") or []:
            if fold not in config["datasets"][dataset]["folds"]:
                found.append(f"biasvar.folds: {fold!r} is not among datasets.{dataset}.folds")
    significance = section["significance"]
    if "metrics" in config and not set(significance["metrics"]) & set(config["metrics"]):
        found.append(f"biasvar.significance.metrics {significance['metrics']}: none is among metrics "
                     f"{config['metrics']} (the significance table is read from the per-query metrics files)")
    for dataset in study_datasets(config):
        conventions = config["datasets"].get(dataset, {}).get("conventions", [])
        if significance.get("convention") and conventions and significance["convention"] not in conventions:
            found.append(f"biasvar.significance.convention {significance['convention']!r} is not among "
                         f"datasets.{dataset}.conventions {conventions}")
    for metric in section["metrics"]:
        try:
            check_listwise_metric(metric)
        except ValueError as error:
            found.append(f"biasvar.metrics: {error}")
    found += sweep_problems(config, [name for name in sweep["learners"] if name in known], sweep["param"],
                            sweep["values"])
    return found + trend_problems(config)


def trend_problems(config: dict) -> list[str]:
    """The study's trend table compares the last swept value with the first (a sweep learner with 2 points or more
    in a scheme) and two-fold with bootstrap (a run in both schemes); its summary, figures and report page are
    read from that table.  A study that would give it no row (one sweep value, or only ``compare`` in one scheme)
    is refused here, with the key, instead of failing three jobs after the training."""
    sweep = settings(config)["sweep"]
    counts = {scheme: len(sweep_points(config, scheme)) for scheme in SCHEMES}
    if sweep["learners"] and not any(counts.values()):
        return ["biasvar.sweep.values: no value fits in any scheme's training sets"]
    if any(count >= 2 for count in counts.values()) and sweep["learners"]:
        return []
    for dataset in study_datasets(config):
        schemes = {}
        for learner, fold, setting, scheme in study_runs(config, dataset):
            schemes.setdefault((learner, fold, setting), set()).add(scheme)
        if any(len(found) == len(SCHEMES) for found in schemes.values()):
            return []
    given = (f"biasvar.sweep.values {sweep['values']} give at most 1 sweep point per scheme "
             f"({', '.join(f'{s}: {n}' for s, n in counts.items())})" if sweep["learners"]
             else "biasvar.sweep.learners is empty")
    return [f"{given} and no learner of biasvar.compare runs in both schemes (biasvar.compare.schemes: "
            f"{settings(config)['compare']['schemes']}): the study would have no trend to report (last minus first "
            "swept value, or two-fold minus bootstrap); give the sweep at least 2 values, or compare in both schemes"]
