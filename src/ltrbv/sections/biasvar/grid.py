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

from ...biasvar.listwise import check_listwise_metric
from ...learners import LEARNER_KINDS
from ...learners.bag import BAG_KIND
from ...workflow import paths
from ...workflow.datasets import covered_datasets, enabled_section
from ...workflow.paths import DATASET, format_value
from ...workflow.section import Page
from ...workflow.validation import sweep_problems, unknown_name
from ..core.grid import bag_learners, bag_spec

# -- the study's files ----------------------------------------------------------------------------------------
#: one training set of a fold's queries (rule biasvar_sample)
STUDY_SAMPLE = DATASET + "/biasvar/samples/{fold}/{scheme}/rep{replicate}.json"
#: one model's files of a run (learner, fold, setting, scheme) (rules train_biasvar_<scheme>)
STUDY_PREDICTION = DATASET + "/biasvar/predictions/{learner}/{fold}/{setting}/{scheme}/rep{replicate}/{file}"
#: one run's reduction: summary (json) and per-query values (csv) (rule reduce_biasvar)
STUDY_REDUCED = DATASET + "/biasvar/reduced/{learner}/{fold}/{setting}/{scheme}.{ext}"
#: each paper claim next to what the run measured (rule biasvar_summary)
SUMMARY = DATASET + "/summary.md"

#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = "biasvar"
ORDER = 20

JOBS = {
    "biasvar_sample": "biasvar_sample/{fold}/{scheme}/rep{replicate}",
    "train_biasvar_bootstrap": "train_biasvar_bootstrap/{learner}/{fold}/{setting}",
    "train_biasvar_twofold": "train_biasvar_twofold/{learner}/{fold}/{setting}",
    "reduce_biasvar": "reduce_biasvar/{learner}/{fold}/{setting}/{scheme}",
    "biasvar_tables": "biasvar_tables",
    "plot_biasvar": "plot_biasvar",
    "zhang_table": "zhang_table",
    "significance_table": "significance_table",
    "biasvar_summary": "biasvar_summary",
}
#: the report's menu entries: the summary first, the significance table with the performance, the rest together
SUMMARY_CATEGORY = "1. Summary"
PERFORMANCE_CATEGORY = "2. Performance"
CATEGORY = "3. Bias and variance"
PAGES = {
    "summary": Page(SUMMARY, SUMMARY_CATEGORY, "Summary",
                    "Each claim of Ibrahim (2021), Ibrahim & Carman (2016) and Zhang et al. (2013) next to what "
                    "this run measured, with confidence intervals over test queries."),
    "significance": Page(paths.table("significance", "md"), PERFORMANCE_CATEGORY, "Significance",
                         "Performance of every learner (mean ± std over folds) with two-sided paired t-tests and "
                         "randomisation tests over the pooled test queries against the baseline: * p < 0.05, "
                         "** p < 0.01, † significantly worse."),
    "biasvar_comparison": Page(paths.table("biasvar_comparison", "md"), CATEGORY, "Bias and variance per learner",
                               "Table 5 analogue (Ibrahim 2021): systematic ranking error (SRE), variability (VRE) and "
                               "ranking error of the compared learners at their configured parameters, with "
                               "confidence intervals over test queries."),
    "biasvar_sweep": Page(paths.table("biasvar_sweep", "csv"), CATEGORY, "Sweep",
                          "Bias-variance estimates of every run of the study (Ibrahim 2021, eq. 5-8 and 14-17): one "
                          "row per learner, fold, setting of the swept parameter, scheme, quantity and metric, "
                          "with a confidence interval over test queries (the numbers of Figs. 5-7)."),
    "biasvar_trends": Page(paths.table("biasvar_trends", "csv"), CATEGORY, "Paired trend tests",
                           "Largest minus smallest sweep value, and two-fold minus bootstrap, on the same test "
                           "queries, with 95% intervals over queries."),
    "zhang": Page(paths.table("zhang", "md"), CATEGORY, "Zhang et al. (2013)",
                  "Zhang et al. (2013): for the run's learners on the same test queries, squared bias of the "
                  "metric (eq. 1), its variance across queries (eq. 2) and bias² + variance (eq. 3); targets: the "
                  "perfect ranking, the per-query best learner, or a named learner."),
}


def model_file_name(name: str, replicate: str) -> str:
    """The name of one model's input or output in a study training job (``test_1``, ``queries_2b``): the job
    fits a run's models and names each model's files, so a script reads them by name, not by position."""
    return f"{name}_{replicate}"


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
    return {model_file_name(name, r): file for r, file in zip(replicates(config, scheme),
                                                                     replicate_files(config, template, scheme))}


def replicate_score_files(config: dict, dataset: str, learner: str, fold: str, setting: str, scheme: str) -> list[str]:
    """The test prediction files of one run's models, in replicate order (1..B, or 1a 1b .. Ja Jb)."""
    template = paths.fill(STUDY_PREDICTION, dataset=dataset, learner=learner, fold=fold, setting=setting,
                          file="test.scores")
    return replicate_files(config, template, scheme)


def reduced_file(dataset: str, learner: str, fold: str, setting: str, scheme: str, suffix: str = "json") -> str:
    return STUDY_REDUCED.format(dataset=dataset, learner=learner, fold=fold, setting=setting, scheme=scheme,
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
        files += [SUMMARY.format(dataset=dataset)]
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


def problems(config: dict, sections=None) -> list[str]:
    """Problems the schema cannot see (names of learners and folds that do not exist, ...)."""
    section = settings(config)
    if section is None:
        return []
    found = []
    for name in section.get("datasets") or []:
        if name not in config["datasets"]:
            found.append(unknown_name("biasvar.datasets", name, config["datasets"], "datasets"))
    if not study_datasets(config):
        return found  # the study covers none of this run's datasets
    baseline = section["significance"].get("baseline")
    if baseline is not None and baseline not in config["run"]["learners"]:
        found.append(f"biasvar.significance.baseline {baseline!r} is not among run.learners "
                     f"{config['run']['learners']}")
    for pair in section["significance"].get("pairs", []):
        for name in pair:
            if name not in config["run"]["learners"]:
                found.append(unknown_name("biasvar.significance.pairs", name, config["run"]["learners"], "run.learners",
                                          "among"))
    known = config["learners"]
    for key in ("sweep", "compare"):
        for name in section[key]["learners"]:
            if name not in known:
                found.append(unknown_name(f"biasvar.{key}.learners", name, known, "learners"))
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
