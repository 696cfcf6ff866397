"""The job grid of the reproduction catalog: every table and figure of the papers, one entry each.

Config section ``catalog`` (schema: ``config/schema/catalog.schema.yaml``; off when absent); the
shipped entries are in ``config/catalog.yaml``.  An entry is of one of these kinds:

* ``compare``  learners trained on every fold with the entry's seeds (rule ``train_model``), then one
  ``catalog_compare`` job: mean ± std over folds, paired tests against the baseline (pooled and per
  fold), seconds per model, optionally a random ranking's expected metric;
* ``sweep``    one learner parameter over values: each (learner, value) is a *generated* learner
  (:func:`variant_name`, e.g. ``rf-point+min_samples_leaf-5``) trained like any other; one
  ``catalog_sweep`` job writes the table (metric and seconds per tree against the value) and figure;
* ``curve``    boosted learners trained like a compare entry's; one ``catalog_curve`` job draws their
  per-round training and validation metric (``meta.json``'s ``fit_info.eval_history``), mean over runs;
* ``grid``     a grid search (Ganjisaffar et al. 2011, Table 2): one learner over every combination of the
  values of several parameters, each a generated learner (:func:`combination_name`); one ``catalog_grid``
  job ranks the combinations by validation metric (Table 3) and gives the expected validation and test
  metric of the best of k combinations drawn at random, for each k of ``sizes`` (Fig. 1);
* ``scores``   the validation scores of two (or more) sub-models of a bag, each trained on its own sample of
  the training queries (rule ``bag_submodel``), on the first fold: one ``catalog_scores`` job writes their
  distributions and a two-sample Kolmogorov-Smirnov test (table and figure);
* ``target``   a file another section makes (e.g. ``tables/bagging_performance.md``).

Every job of an entry with a table also writes its claims' tests (``catalog/<entry>.claims.csv``,
:mod:`ltrbv.sections.catalog.claims`).  One ``catalog_page`` job per dataset writes
``results/{dataset}/catalog.md``: each entry's claims, this run's numbers, the verdict of the claim engine
(:mod:`ltrbv.compare.claims`; every tested claim of the page is one family, :func:`policy`) and the CPU
time of the jobs behind it.

Generated learners are added to ``learners:`` by :func:`expand` (called once by ``check_config``),
so that the core run's rules, resources and checks treat them as any learner of the config; a
value equal to the base learner's own gives the base learner itself (its files are shared).
"""

from __future__ import annotations

import copy
import itertools

from ...learners import LEARNER_KINDS, checked_learner
from ...learners.bag import BAG_KIND
from ...workflow import paths
from ...workflow.datasets import covered_datasets, enabled_section
from ...workflow.paths import DATASET, format_value
from ...workflow.section import Page
from ...workflow.validation import unknown_name
from ..core import grid as core_grid
from ..core.grid import sorted_dict, trainable
from .tables import QUANTITIES, RANDOM_RANKING, SECONDS_PER_TREE

#: one page per dataset: every catalog entry's claims, numbers, verdict and CPU time (rule catalog_page)
CATALOG = DATASET + "/catalog.md"
#: an entry's table (csv, md), its claims' tests (claims.csv) and figure (png, svg)
CATALOG_FILE = DATASET + "/catalog/{entry}.{ext}"

COMPARE, SWEEP, CURVE, GRID, SCORES, TARGET = "compare", "sweep", "curve", "grid", "scores", "target"
CLAIMS_EXT = "claims.csv"  # an entry's claims' tests: catalog/<entry>.claims.csv
FIRST_FOLD = "first"  # an entry's ``folds: first``: each dataset's first fold
TRAINED = (COMPARE, SWEEP, CURVE, GRID)
GENERATING = (SWEEP, GRID)  # kinds whose values are generated learners
#: a curve entry's learners: boosted ones, whose meta.json keeps the per-round metric (fit_info.eval_history)
CURVE_KINDS = ("xgboost", "lightgbm")

JOBS = {**{f"catalog_{kind}": f"catalog_{kind}/{{entry}}" for kind in (*TRAINED, SCORES)},
        "catalog_page": "catalog_page"}
CATEGORY = "7. Reproduction catalog"
PAGES = {
    "catalog": Page(CATALOG, CATEGORY, "Reproduction catalog",
                    "Every table and figure of the papers in the catalog: the paper's claim and numbers, this run's "
                    "numbers, a verdict, the file that has them and the CPU time behind them."),
}


def catalog_file(entry: str, ext: str, dataset: str = "{dataset}") -> str:
    return CATALOG_FILE.format(dataset=dataset, entry=entry, ext=ext)


def settings(config: dict) -> dict | None:
    return enabled_section(config, "catalog")


def datasets(config: dict) -> list[str]:
    """Datasets of the run the catalog covers (``catalog.datasets``; empty or null: all of them)."""
    return covered_datasets(config, settings(config))


def entries(config: dict) -> dict:
    return settings(config)["entries"]


def variant_name(base: str, param: str, value) -> str:
    """A sweep's generated learner: ``rf-point+min_samples_leaf-5``."""
    return combination_name(base, {param: value})


def combination_name(base: str, params: dict) -> str:
    """A generated learner: ``lambdamart-rand+learning_rate-0.1+max_leaves-4`` (a grid's parameters in name order,
    so that the name does not depend on the order of the config's keys)."""
    return base + "".join(f"+{param}-{format_value(params[param])}" for param in sorted(params))


def _same(a, b) -> bool:
    try:
        return float(a) == float(b) and type(a) is not bool and type(b) is not bool
    except (TypeError, ValueError):
        return a == b


def generated_entry(config: dict, base: str, params: dict) -> dict:
    """The config entry of ``base`` with ``params`` set."""
    generated = copy.deepcopy(config["learners"][base])
    generated["params"] = {**generated.get("params", {}), **params}
    return generated


def _default(kind: str, param: str):
    """A built-in learner class's default for ``param`` (a dataclass field), or a sentinel when it has none."""
    import dataclasses

    cls = LEARNER_KINDS.get(kind) if kind in LEARNER_KINDS else None
    if cls is not None and dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if f.name == param and f.default is not dataclasses.MISSING:
                return f.default
    return _NO_DEFAULT


_NO_DEFAULT = object()


def _trains_like(a: dict, b: dict) -> bool:
    """Two learner entries that fit the same models (kind and parameters; threads and resources aside)."""
    return a.get("kind") == b.get("kind") and dict(a.get("params", {})) == dict(b.get("params", {}))


def sweep_learners(config: dict, entry: dict) -> dict:
    """``{learner: {value: trained learner}}`` of a sweep entry.  A value gives the base learner itself at its
    own value (given, or its class's default), an identical learner of the config when there is one (e.g.
    ``rf-hybrid-l4`` for ``listwise_levels: 4`` of ``rf-hybrid-l6``), and a generated learner otherwise:
    their files are shared."""
    return {base: {value: learner_for(config, base, {entry["param"]: value}) for value in entry["values"]}
            for base in entry["learners"]}


def learner_for(config: dict, base: str, params: dict) -> str:
    """The learner that trains ``base`` with ``params`` set: ``base`` itself when each is its own value (given,
    or its class's default), an identical learner of the config when there is one, else the generated one."""
    learners = config["learners"]
    generated_name = combination_name(base, params)
    if base not in learners:
        return generated_name
    own_params = learners[base].get("params", {})
    own = {param: own_params[param] if param in own_params else _default(learners[base]["kind"], param)
           for param in params}
    if all(own[param] is not _NO_DEFAULT and _same(own[param], value) for param, value in params.items()):
        return base
    generated = generated_entry(config, base, params)
    same = [name for name, other in learners.items() if name != generated_name and _trains_like(other, generated)]
    return same[0] if same else generated_name


def grid_combinations(entry: dict) -> list[dict]:
    """Every combination of a grid entry's values, ``{param: value}``, in the grid's order (last param fastest)."""
    grid = entry["grid"]
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


def grid_learners(config: dict, entry: dict) -> list[tuple[dict, str]]:
    """``[(combination, trained learner)]`` of a grid entry (its one learner over every combination)."""
    base = entry["learners"][0]
    return [(combination, learner_for(config, base, combination)) for combination in grid_combinations(entry)]


def _sweep_value_problems(config: dict, key: str, entry: dict) -> list[str]:
    """A sweep's parameter and values, checked by building each (learner, value) once (a bag: against the
    schema of a bag's parameters), naming the entry's key."""
    from ...workflow.validation import sweep_problems

    if "param" not in entry or "values" not in entry:
        return []
    learners = [learner for learner in entry.get("learners", []) if learner in config["learners"]]
    bags = [learner for learner in learners if config["learners"][learner]["kind"] == BAG_KIND]
    found = [problem.replace("biasvar.sweep", key) for problem in sweep_problems(
        config, [learner for learner in learners if learner not in bags], entry["param"], entry["values"])]
    for bag in bags:
        for value in entry["values"]:
            params = {**config["learners"][bag]["params"], entry["param"]: value}
            found += [f"{key}.values: {value!r} for bag {bag!r}: {problem}" for problem in bag_param_problems(params)]
    return found


def _printed_alike(where: str, values: list) -> list[str]:
    """Values that print alike would name one generated learner twice."""
    printed = [format_value(v) for v in values]
    return [f"{where}: {values} name the same learner twice ({printed})"] if len(set(printed)) < len(printed) else []


def _grid_value_problems(config: dict, key: str, entry: dict) -> list[str]:
    """A grid's one built-in learner (not a bag), its parameters and values (each value, then each combination,
    builds the learner), its sizes (at most the number of combinations) and its metric."""
    from ...metrics.names import parse_metric
    from ...workflow.validation import sweep_problems

    if not all(field in entry for field in NEEDED[GRID]):
        return []
    found = []
    learners = entry["learners"]
    if len(learners) != 1:
        return [f"{key}.learners: a grid searches one learner's parameters, got {learners}"]
    base = learners[0]
    if base not in config["learners"]:
        return []  # reported by problems()
    if config["learners"][base]["kind"] == BAG_KIND:
        return [f"{key}.learners: {base!r} is a bag; a grid searches a built-in learner's parameters"]
    for param, values in entry["grid"].items():
        found += [problem.replace("biasvar.sweep.values", f"{key}.grid.{param}").replace("biasvar.sweep.param",
                                                                                          f"{key}.grid")
                  for problem in sweep_problems(config, [base], param, values)]
        found += _printed_alike(f"{key}.grid.{param}", values)
    combinations = grid_combinations(entry)
    if not found:
        cls = LEARNER_KINDS[config["learners"][base]["kind"]]
        for combination in combinations:
            try:
                checked_learner(cls, {**config["learners"][base].get("params", {}), **combination})
            except (TypeError, ValueError) as error:
                found.append(f"{key}.grid: the combination {combination} of learner {base!r}: {error}")
    found += [f"{key}.sizes: {size} is more than the grid's {len(combinations)} combinations"
              for size in entry["sizes"] if size > len(combinations)]
    try:
        parse_metric(entry.get("metric", DEFAULT_GRID_METRIC))
    except ValueError as error:
        found.append(f"{key}.metric: {error}")
    return found


DEFAULT_GRID_METRIC = "ndcg@3"


def bag_param_problems(params: dict) -> list[str]:
    """A bag's parameters against the config schema's ``$defs/bag_params`` (a generated bag is not schema-checked)."""
    import jsonschema
    import yaml

    from ...workflow.section import SCHEMA_DIR

    schema = yaml.safe_load((SCHEMA_DIR / "core.schema.yaml").read_text())["$defs"]["bag_params"]
    return [error.message for error in jsonschema.Draft202012Validator(schema).iter_errors(params)]


def variants(config: dict) -> dict:
    """``{generated learner: config entry}`` of every sweep entry whose values build their learners."""
    out = {}
    section = settings(config)
    if section is None:
        return out
    for name, entry in section["entries"].items():
        if entry["kind"] not in GENERATING or any(field not in entry for field in NEEDED[entry["kind"]]):
            continue
        if _value_problems(config, f"catalog.entries.{name}", entry):
            continue  # reported by problems(), naming the entry
        if entry["kind"] == SWEEP:
            made = [(base, {entry["param"]: value}, learner)
                    for base, by_value in sweep_learners(config, entry).items() for value, learner in by_value.items()]
        else:
            made = [(entry["learners"][0], combination, learner) for combination, learner in grid_learners(config, entry)]
        for base, params, learner in made:
            if base in config["learners"] and learner == combination_name(base, params):
                out[learner] = generated_entry(config, base, params)
    return out


def _value_problems(config: dict, key: str, entry: dict) -> list[str]:
    return (_sweep_value_problems if entry["kind"] == SWEEP else _grid_value_problems)(config, key, entry)


def expand(config: dict) -> list[str]:
    """Add the generated learners to ``config["learners"]``; returns problems (a bad sweep value, or a name the
    config already uses for a different learner) instead of adding anything."""
    section = settings(config)
    problems = []
    for name, entry in section["entries"].items():
        if entry["kind"] in GENERATING:
            problems += _value_problems(config, f"catalog.entries.{name}", entry)
    generated = variants(config)
    for name, entry in generated.items():
        existing = config["learners"].get(name)
        if existing is not None and existing != entry:
            problems.append(f"learners.{name}: the catalog generates a learner of this name (a sweep value or "
                            f"grid combination); "
                            f"rename your entry")
    if not problems:
        config["learners"].update(generated)
    return problems


def entry_seeds(config: dict, entry: dict) -> list[int]:
    return list(entry.get("seeds") or settings(config)["seeds"])


def entry_folds(config: dict, dataset: str, entry: dict) -> list[str]:
    """The entry's folds of a dataset: all of them by default, ``first``: the first only (Fold1, Yahoo's set1)."""
    folds = config["datasets"][dataset]["folds"]
    chosen = entry.get("folds")
    return folds[:1] if chosen == FIRST_FOLD else list(chosen or folds)


def trained_learners(config: dict, entry: dict) -> list[str]:
    if entry["kind"] in (COMPARE, CURVE):
        return list(entry["learners"])
    if entry["kind"] == SWEEP:
        return [name for by_value in sweep_learners(config, entry).values() for name in by_value.values()]
    if entry["kind"] == GRID:
        return [name for _, name in grid_learners(config, entry)]
    return []


def prediction_files(config: dict, dataset: str, name: str, file: str = "test.scores") -> dict:
    """``{learner: {fold: {seed: file}}}`` of an entry's training runs."""
    entry = entries(config)[name]
    return {learner: {fold: {str(seed): paths.prediction(dataset, learner, fold, paths.seed_run(seed), file)
                             for seed in entry_seeds(config, entry)}
                      for fold in entry_folds(config, dataset, entry)}
            for learner in dict.fromkeys(trained_learners(config, entry))}


def test_files(config: dict, dataset: str, name: str, split: str = "test") -> dict:
    return {fold: paths.parsed(dataset, fold, split) for fold in entry_folds(config, dataset, entries(config)[name])}


def validation_files(config: dict, dataset: str, name: str) -> tuple[dict, dict]:
    """A grid entry's validation scores (``{learner: {fold: {seed: file}}}``) and validation data (``{fold: file}``),
    which rank its combinations; empty for other kinds."""
    if entries(config)[name]["kind"] != GRID:
        return {}, {}
    return prediction_files(config, dataset, name, "vali.scores"), test_files(config, dataset, name, "vali")


def benchmark_files(config: dict, dataset: str, name: str) -> list[str]:
    """The benchmark files of the jobs behind an entry (its training jobs; for a target, none known here)."""
    entry = entries(config)[name]
    files = []
    if entry["kind"] in TRAINED:
        for learner, by_fold in prediction_files(config, dataset, name).items():
            for fold, by_seed in by_fold.items():
                files += [path for seed in by_seed for path in core_grid.training_benchmarks(config, dataset, learner, fold, seed)]
        files.append(paths.benchmark(JOBS[f"catalog_{entry['kind']}"]).format(dataset=dataset, entry=name))
    elif entry["kind"] == SCORES:
        template = paths.benchmark(core_grid.JOBS["bag_submodel"])
        fold = config["datasets"][dataset]["folds"][0]
        files += [template.format(dataset=dataset, learner=entry["bag"], fold=fold, run=paths.seed_run(1), k=k)
                  for k in entry["submodels"]]
        files.append(paths.benchmark(JOBS["catalog_scores"]).format(dataset=dataset, entry=name))
    return files


def learner_params(config: dict, name: str) -> dict:
    """``{learner: params}`` of an entry's trained learners (what the table states it ran); a grid's: its base
    learner's (the table gives each combination)."""
    entry = entries(config)[name]
    learners = entry["learners"] if entry["kind"] == GRID else trained_learners(config, entry)
    return {learner: sorted_dict(dict(config["learners"][learner].get("params", {})))
            for learner in dict.fromkeys(learners)}


def entry_outputs(dataset: str, name: str, kind: str) -> list[str]:
    if kind == COMPARE:
        return [catalog_file(name, ext, dataset) for ext in ("csv", "md", CLAIMS_EXT)]
    if kind in (SWEEP, CURVE, GRID, SCORES):
        return [catalog_file(name, ext, dataset) for ext in ("csv", "md", CLAIMS_EXT, "png", "svg")]
    return []


def submodel_score_files(config: dict, dataset: str, name: str) -> dict:
    """``{"sub<k>": validation scores}`` of a scores entry's sub-models: the bag's first training run
    (seed 1) on the dataset's first fold."""
    entry = entries(config)[name]
    fold = config["datasets"][dataset]["folds"][0]
    return {f"sub{k}": paths.SUBMODEL.format(dataset=dataset, learner=entry["bag"], fold=fold, run=paths.seed_run(1),
                                              k=k, file="vali.scores") for k in entry["submodels"]}


def submodel_data(config: dict, dataset: str) -> str:
    return paths.parsed(dataset, config["datasets"][dataset]["folds"][0], "vali")


def target_file(dataset: str, entry: dict) -> str:
    return f"{paths.RESULTS}/{dataset}/{entry['target']}"


def made_targets(config: dict, sections) -> dict:
    """``{entry: section on}`` of the target entries: a section that is off makes no row input (``sections``: the
    registry, :data:`ltrbv.workflow.sections.SECTIONS`)."""
    return {name: sections.on(config, entry["section"]) for name, entry in entries(config).items()
            if entry["kind"] == TARGET}


def page_inputs(config: dict, dataset: str, sections) -> dict:
    """``{entry: file}`` the catalog page reads: a compare or sweep entry's CSV, a target's file when its
    section is on (a row of a section that is off says so)."""
    out = {}
    made = made_targets(config, sections)
    for name, entry in entries(config).items():
        if entry["kind"] in (*TRAINED, SCORES):
            out[name] = catalog_file(name, "csv", dataset)
        elif entry["kind"] == TARGET and made[name]:
            out[name] = target_file(dataset, entry)
    return out


def claim_files(config: dict, dataset: str) -> dict:
    """``{entry: catalog/<entry>.claims.csv}`` of the entries with a table: the claims the page judges."""
    return {name: catalog_file(name, CLAIMS_EXT, dataset) for name, entry in entries(config).items()
            if entry["kind"] in (*TRAINED, SCORES)}


def policy(config: dict) -> dict:
    """How the page judges its family (:class:`ltrbv.compare.claims.Policy`): ``catalog.level`` (alpha),
    ``catalog.power`` and ``catalog.correction``."""
    section = settings(config) or {}
    return {"alpha": section.get("level", 0.05), "power": section.get("power", 0.8),
            "correction": section.get("correction", "holm")}


def entry_params(config: dict, dataset: str, name: str) -> dict:
    """What an entry's table job needs to know (its ``entry`` param): the entry as configured, with the sweep's
    learner per value, the catalog's metrics, level and permutations, and the dataset's convention."""
    entry = entries(config)[name]
    section = settings(config)
    return {"entry": name, "kind": entry["kind"], "paper": entry["paper"], "artefact": entry["artefact"],
            "paper_data": entry["paper_data"], "note": entry["note"], "claims": entry["claims"],
            "baseline": entry.get("baseline") or (entry.get("learners") or [None])[0],
            "random_ranking": entry.get("random_ranking", False), "bag": entry.get("bag"),
            "param": entry.get("param"), "values": entry.get("values"),
            "sweep": sweep_learners(config, entry) if entry["kind"] == SWEEP else None,
            "grid": ([{"learner": learner, "params": combination} for combination, learner in grid_learners(config, entry)]
                     if entry["kind"] == GRID else None),
            "grid_base": entry["learners"][0] if entry["kind"] == GRID else None, "grid_values": entry.get("grid"),
            "sizes": entry.get("sizes"), "grid_metric": entry.get("metric", DEFAULT_GRID_METRIC),
            "metrics": section["metrics"], "level": section["level"], "permutations": section["permutations"],
            "convention": section["convention"] or config["datasets"][dataset]["conventions"][0]}


def data_description(config: dict, dataset: str) -> str:
    """What the catalog's numbers of a dataset were measured on: its folds and, for synthetic data, its size."""
    entry = config["datasets"][dataset]
    folds = ", ".join(entry["folds"])
    synthetic = entry.get("synthetic")
    if synthetic:
        return (f"synthetic data ({synthetic['n_queries']} queries x ~{synthetic['docs_per_query']} documents, "
                f"{entry['n_features']} features, labels {entry['label_range'][0]}-{entry['label_range'][1]}; "
                f"folds {folds}): not the paper's data")
    return f"{entry['root']} (folds {folds})"


def page_benchmarks(config: dict, dataset: str) -> dict:
    return {name: benchmark_files(config, dataset, name) for name in entries(config)}


def names_of_kind(config: dict, kind: str) -> list[str]:
    section = settings(config)
    return [name for name, entry in section["entries"].items() if entry["kind"] == kind] if section else []


def targets(config: dict) -> list[str]:
    files = []
    for dataset in datasets(config):
        for name, entry in entries(config).items():
            files += entry_outputs(dataset, name, entry["kind"])
        files.append(CATALOG.format(dataset=dataset))
    return files


# -- checks -------------------------------------------------------------------------------------------


def problems(config: dict, sections) -> list[str]:
    """Config errors the schema cannot see, each naming its key."""
    section = settings(config)
    if section is None:
        return []
    found = []
    metrics = config.get("metrics", [])
    for metric in section["metrics"]:
        if metric not in metrics:
            found.append(f"catalog.metrics: {metric!r} is not in metrics {metrics}")
    convention = section.get("convention")
    for dataset in datasets(config):
        conventions = config["datasets"][dataset]["conventions"]
        if convention is not None and convention not in conventions:
            found.append(f"catalog.convention {convention!r} is not among datasets.{dataset}.conventions {conventions}")
    for name in section.get("datasets") or []:
        if name not in config["run"]["datasets"]:
            found.append(f"catalog.datasets names {name!r}, which is not in run.datasets {config['run']['datasets']}")
    for name, entry in section["entries"].items():
        found += entry_problems(config, name, entry, sections)
    return found


GRID_CLAIMS = ("overfits", "best_below")

#: the fields each kind needs, and the optional ones it takes besides the common ones
NEEDED = {COMPARE: ("learners",), SWEEP: ("learners", "param", "values"), CURVE: ("learners",),
          GRID: ("learners", "grid", "sizes"), SCORES: ("bag",), TARGET: ("target", "section")}
OPTIONAL = {COMPARE: ("seeds", "folds", "baseline", "random_ranking"), SWEEP: ("seeds", "folds"),
            CURVE: ("seeds", "folds"), GRID: ("seeds", "folds", "metric"), SCORES: ("submodels",), TARGET: ()}
KIND_FIELDS = {field for fields in (*NEEDED.values(), *OPTIONAL.values()) for field in fields}


def entry_problems(config: dict, name: str, entry: dict, sections) -> list[str]:
    """One entry's problems: its name and fields, then by kind its learners and folds, or its target, then its
    claims."""
    key = f"catalog.entries.{name}"
    if not paths.is_safe_name(name):
        return [f"{key}: an entry's name becomes a file name: letters, digits and _.+- only"]
    kind = entry["kind"]
    found = [f"{key}.{field} is required for kind {kind!r}" for field in NEEDED[kind] if field not in entry]
    for field in sorted(KIND_FIELDS - set(NEEDED[kind]) - set(OPTIONAL[kind])):
        # baseline, random_ranking and submodels carry schema defaults: only a value set otherwise is out of place
        if field in entry and not ((field in ("baseline", "random_ranking") and entry[field] in (None, False))
                                   or (field == "submodels" and entry[field] == [0, 1])):
            found.append(f"{key}.{field} does not apply to kind {kind!r}")
    if found:
        return found
    if kind in TRAINED:
        found += _trained_problems(config, key, entry)
    elif kind == TARGET:
        found += _target_problems(config, key, entry, sections)
    elif kind == SCORES:
        found += _scores_problems(config, key, entry)
    return found + claim_problems(key, entry, config.get("metrics", []))


def _trained_problems(config: dict, key: str, entry: dict) -> list[str]:
    """A compare or sweep entry: built-in learners of the config, folds of every dataset, baseline, values."""
    found = []
    known = config["learners"]
    for learner in entry["learners"]:
        if learner not in known:
            found.append(unknown_name(f"{key}.learners", learner, known, "learners"))
        elif not trainable(known[learner]["kind"]):
            found.append(f"{key}.learners: {learner!r} is of kind {known[learner]['kind']!r}; the catalog "
                         f"trains built-in learners (rule train_model) and bags")
        elif entry["kind"] == CURVE and known[learner]["kind"] not in CURVE_KINDS:
            found.append(f"{key}.learners: {learner!r} is of kind {known[learner]['kind']!r}; a curve draws the "
                         f"per-round metric of a boosted learner ({', '.join(CURVE_KINDS)})")
    chosen = entry.get("folds")
    for dataset in datasets(config):
        folds = config["datasets"][dataset]["folds"]
        for fold in [] if chosen == FIRST_FOLD else chosen or []:
            if fold not in folds:
                found.append(f"{key}.folds: {fold!r} is not among datasets.{dataset}.folds {folds}")
    if entry["kind"] == COMPARE and entry.get("baseline") is not None and entry["baseline"] not in entry["learners"]:
        found.append(f"{key}.baseline {entry['baseline']!r} is not among its learners {entry['learners']}")
    if entry["kind"] == SWEEP:
        found += _printed_alike(f"{key}.values", entry["values"])
    return found


def _scores_problems(config: dict, key: str, entry: dict) -> list[str]:
    """A scores entry: a bag of the config with at least as many sub-models as the entry names."""
    from ...learners.bag import BAG_KIND

    bag = config["learners"].get(entry["bag"])
    if bag is None or bag["kind"] != BAG_KIND:
        return [f"{key}.bag {entry['bag']!r} is not a learner of kind {BAG_KIND!r} under learners"]
    n_models = int(bag["params"]["n_models"])
    return [f"{key}.submodels: {k} is not below the bag's n_models ({n_models})"
            for k in entry["submodels"] if k >= n_models]


def _target_problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    """A target entry: a known section which, when on, makes the target for every dataset."""
    by_key = {s.key: s for s in sections if s.key not in (None, "catalog")}
    section_key = entry["section"]
    if section_key not in by_key:
        return [f"{key}.section {section_key!r}: one of {sorted(by_key)}"]
    if not sections.on(config, section_key):
        return []
    made = set(by_key[section_key].targets(config))
    return [f"{key}.target {entry['target']!r}: section {section_key!r} of this config does not make {wanted}"
            for wanted in (target_file(dataset, entry) for dataset in datasets(config)) if wanted not in made]


def claim_problems(key: str, entry: dict, metrics: list[str]) -> list[str]:
    found = []
    kind = entry["kind"]
    learners = list(entry.get("learners", [])) + ([RANDOM_RANKING] if entry.get("random_ranking") else [])
    for i, claim in enumerate(entry.get("claims", [])):
        where = f"{key}.claims[{i}]"
        ckind = claim["kind"]
        if ckind == "similar" and claim.get("margin") is None:
            found.append(f"{where}.margin is required: the largest difference a 'similar' claim calls similar")
        elif ckind != "similar" and "margin" in claim:
            found.append(f"{where}.margin applies to 'similar' claims only (claim {ckind!r})")
        if ckind == "differ":
            if kind != SCORES:
                found.append(f"{where}: a 'differ' claim is about a scores entry")
            continue
        if ckind in GRID_CLAIMS or kind == GRID:
            if ckind not in GRID_CLAIMS or kind != GRID:
                found.append(f"{where}: a grid entry's claims are {list(GRID_CLAIMS)}, and those are about grid "
                             f"entries only (claim {ckind!r}, entry kind {kind!r})")
            elif ckind == "best_below":
                if claim.get("param") not in entry.get("grid", {}):
                    found.append(f"{where}.param {claim.get('param')!r} is not among the grid's parameters "
                                 f"{list(entry.get('grid', {}))}")
                if claim.get("value") is None:
                    found.append(f"{where}.value is required (the bound)")
            continue
        if kind not in TRAINED:
            found.append(f"{where}: claims are checked on compare, sweep and scores entries only (kind {kind!r}); "
                         f"say it in note")
            continue
        if ckind == "greater":
            if kind != COMPARE:
                found.append(f"{where}: a 'greater' claim compares learners of a compare entry")
                continue
            for field in ("learner", "than"):
                if claim.get(field) not in entry.get("learners", []):
                    found.append(f"{where}.{field} {claim.get(field)!r} is not among the entry's learners "
                                 f"{entry.get('learners', [])}")
            if claim.get("quantity") not in QUANTITIES:
                found.append(f"{where}.quantity {claim.get('quantity')!r}: one of {list(QUANTITIES)}")
        elif ckind in ("better", "similar"):
            if kind != COMPARE:
                found.append(f"{where}: a {ckind!r} claim compares learners of a compare entry")
                continue
            for field in ("learner", "than"):
                if claim.get(field) not in learners:
                    found.append(f"{where}.{field} {claim.get(field)!r} is not among the entry's learners {learners}")
            if claim["metric"] not in metrics:
                found.append(f"{where}.metric {claim['metric']!r} is not in metrics {metrics}")
            paper = claim.get("paper")
            if paper is not None and (not isinstance(paper, dict) or set(paper) - {claim.get("learner"), claim.get("than")}):
                found.append(f"{where}.paper: the paper's numbers by learner, of {claim.get('learner')!r} and "
                             f"{claim.get('than')!r}")
        elif ckind in ("trend", "faster"):
            if kind != SWEEP:
                found.append(f"{where}: a {ckind!r} claim is about a sweep entry")
                continue
            if claim.get("learner") not in learners:
                found.append(f"{where}.learner {claim.get('learner')!r} is not among the entry's learners {learners}")
            if ckind == "trend":
                if claim.get("direction") is None:
                    found.append(f"{where}.direction is required (increasing or decreasing)")
                if claim["metric"] not in metrics + [SECONDS_PER_TREE]:
                    found.append(f"{where}.metric {claim['metric']!r} is not in metrics {metrics} "
                                 f"nor {SECONDS_PER_TREE!r}")
            else:
                values = entry.get("values", [])
                for field in ("at", "than_value"):
                    if not any(_same(claim.get(field), v) for v in values):
                        found.append(f"{where}.{field} {claim.get(field)!r} is not among the entry's values {values}")
                paper = claim.get("paper")
                if paper is not None and (not isinstance(paper, (int, float)) or isinstance(paper, bool) or paper <= 0):
                    found.append(f"{where}.paper: the paper's speed-up, a number > 0")
    return found
