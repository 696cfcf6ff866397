"""The job grid of the reproduction catalog: every table and figure of the papers, one entry each.

Config section ``catalog`` (schema: ``config/schema/catalog.schema.yaml``, completed by the kinds' own fields,
:func:`schema`; off when absent); the shipped entries are in ``config/catalog.yaml``.  An entry is of one kind,
a module of :mod:`ltrbv.sections.catalog.kinds` (compare, sweep, curve, grid, scores, target): its fields, the
learners it needs, its job's inputs, its table, page, figure and claims.

Every entry of a kind with a job has one ``catalog_<kind>`` job per dataset, which writes its table, its page,
its figure and its claims' tests (``catalog/<entry>.claims.csv``).  One ``catalog_page`` job per dataset writes
``results/{dataset}/catalog.md``: each entry's claims, this run's numbers, the verdict of the claim engine
(:mod:`ltrbv.compare.claims`; every tested claim of the page is one family, :func:`policy`) and the CPU time of
the jobs behind it.

Generated learners (a sweep's values, a grid's combinations) are added to ``learners:`` by :func:`expand`
(called once by the config check), so that the core run's rules, resources and checks treat them as any
learner of the config.
"""

from __future__ import annotations

import copy

from ...workflow import paths
from ...workflow.paths import is_safe_name
from ...workflow.validation import unknown_name
from ...workflow.section import Page
from ..core.grid import sorted_dict
from .entries import CATALOG, CLAIMS_EXT, catalog_file, datasets, entries, entry_job, settings
from .generated import combination_name, generated_entry, learner_for
from .kinds import KINDS, WITH_JOB
from .kinds.target import target_file
from .timing import TIMING_EXT, timing_specs

__all__ = ["CATALOG", "CLAIMS_EXT", "TIMING_EXT", "catalog_file", "datasets", "entries", "settings"]

#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = "catalog"
ORDER = 50

JOBS = {**{f"catalog_{kind}": entry_job(kind) for kind in WITH_JOB}, "catalog_timing": "catalog_timing/{entry}",
        "catalog_page": "catalog_page"}
CATEGORY = "7. Reproduction catalog"
PAGES = {
    "catalog": Page(CATALOG, CATEGORY, "Reproduction catalog",
                    "Every table and figure of the papers in the catalog: the paper's claim and numbers, this run's "
                    "numbers, a verdict, the file that has them and the CPU time behind them."),
}


def kind_of(entry: dict):
    return KINDS[entry["kind"]]


# -- the schema: the common fields (config/schema/catalog.schema.yaml), then each kind's -------------------------


def schema(document: dict) -> dict:
    """The catalog's schema with each kind's fields: an entry's ``kind`` is one of :data:`KINDS`, and it takes the
    common fields and its kind's (``FIELDS``, ``REQUIRED``), no other (``unevaluatedProperties``)."""
    document = copy.deepcopy(document)
    entry = document["$defs"]["entry"]
    entry["properties"]["kind"] = {"enum": list(KINDS), "description": "the entry's kind: " + ", ".join(
        f"{name} ({(module.__doc__ or '').split(':', 1)[-1].split('.')[0].strip()})" for name, module in KINDS.items())}
    entry.pop("additionalProperties", None)
    entry["unevaluatedProperties"] = False
    entry["allOf"] = [{"if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
                       "then": {"properties": dict(module.FIELDS), "required": list(module.REQUIRED)}}
                      for name, module in KINDS.items()]
    claim = document["$defs"]["claim"]["properties"]["kind"]
    claim["enum"] = list(dict.fromkeys(kind for module in KINDS.values() for kind in module.CLAIMS))
    claim.pop("type", None)
    return document


# -- the section protocol ---------------------------------------------------------------------------------------


def variants(config: dict) -> dict:
    """``{generated learner: config entry}`` of every entry whose values build their learners."""
    out = {}
    for name, entry in (settings(config) or {"entries": {}})["entries"].items():
        kind = kind_of(entry)
        if not hasattr(kind, "generated") or kind.value_problems(config, f"catalog.entries.{name}", entry):
            continue  # a problem is reported by expand(), naming the entry
        for base, params in kind.generated(config, entry):
            learner = combination_name(base, params)
            if base in config["learners"] and learner_for(config, base, params) == learner:
                out[learner] = generated_entry(config, base, params)
    return out


def expand(config: dict) -> list[str]:
    """Add the generated learners to ``config["learners"]``; returns problems (a bad sweep value, or a name the
    config already uses for a different learner) instead of adding anything."""
    problems = []
    for name, entry in settings(config)["entries"].items():
        kind = kind_of(entry)
        if hasattr(kind, "value_problems"):
            problems += kind.value_problems(config, f"catalog.entries.{name}", entry)
    generated = variants(config)
    for name, entry in generated.items():
        existing = config["learners"].get(name)
        if existing is not None and existing != entry:
            problems.append(f"learners.{name}: the catalog generates a learner of this name (a sweep value or "
                            f"grid combination); rename your entry")
    if not problems:
        config["learners"].update(generated)
    return problems


def targets(config: dict) -> list[str]:
    files = []
    for dataset in datasets(config):
        for name, entry in entries(config).items():
            files += list(outputs(entry["kind"], name, dataset).values())
        files.append(CATALOG.format(dataset=dataset))
    return files


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
            found.append(unknown_name("catalog.datasets", name, config["run"]["datasets"], "run.datasets", "in"))
    for name, entry in section["entries"].items():
        found += entry_problems(config, name, entry, sections)
    return found


def entry_problems(config: dict, name: str, entry: dict, sections) -> list[str]:
    """One entry's problems: its name, its kind's own checks, then its claims."""
    from .claims import common_problems

    key = f"catalog.entries.{name}"
    if not is_safe_name(name):
        return [f"{key}: an entry's name becomes a file name: letters, digits and _.+- only"]
    kind = kind_of(entry)
    found = kind.problems(config, key, entry, sections)
    for i, claim in enumerate(entry.get("claims", [])):
        where = f"{key}.claims[{i}]"
        shared = common_problems(where, claim, entry["kind"], KINDS)
        found += shared or kind.claim_problems(where, claim, entry, config)
    return found


# -- the jobs' inputs and params ----------------------------------------------------------------------------------


def outputs(kind: str, name: str = "{entry}", dataset: str = "{dataset}") -> dict:
    """An entry job's outputs by name (``csv``, ``md``, ``claims``; ``png``, ``svg`` for a kind with a figure); none
    for a kind without a job."""
    module = KINDS[kind]
    if kind not in WITH_JOB:
        return {}
    files = {"csv": catalog_file(name, "csv", dataset), "md": catalog_file(name, "md", dataset),
             "claims": catalog_file(name, CLAIMS_EXT, dataset)}
    if module.FIGURE:
        files |= {"png": catalog_file(name, "png", dataset), "svg": catalog_file(name, "svg", dataset)}
    return files


def entry_files(config: dict, dataset: str, name: str) -> dict:
    """An entry job's inputs by name (nested dicts of paths; the rule's input is their flat list)."""
    entry = entries(config)[name]
    return kind_of(entry).files(config, dataset, name, entry)


def learner_params(config: dict, entry: dict) -> dict:
    """``{learner: params}`` of an entry's trained learners (what its page states it ran); a grid's: its one learner's
    (the table gives each combination)."""
    shown = entry["learners"] if entry["kind"] == "grid" else kind_of(entry).learners(config, entry)
    return {learner: sorted_dict(dict(config["learners"][learner].get("params", {})))
            for learner in dict.fromkeys(shown)}


def entry_params(config: dict, dataset: str, name: str) -> dict:
    """What an entry's job needs to know: the entry as configured, the catalog's metrics, level and permutations,
    the dataset's convention, the learners as run, and its kind's own settings."""
    entry = entries(config)[name]
    section = settings(config)
    return {"entry": name, "kind": entry["kind"], "paper": entry["paper"], "artefact": entry["artefact"],
            "paper_data": entry["paper_data"], "note": entry["note"], "claims": entry["claims"],
            "metrics": section["metrics"], "level": section["level"], "permutations": section["permutations"],
            "convention": section["convention"] or config["datasets"][dataset]["conventions"][0],
            "learner_params": learner_params(config, entry),
            **kind_of(entry).params(config, dataset, entry)}


# -- the timing jobs ------------------------------------------------------------------------------------------------


def timed_learners(config: dict, name: str) -> list[str]:
    """The learners an entry's timing claims compare (none: the entry has no timing job)."""
    entry = entries(config)[name]
    kind = kind_of(entry)
    return kind.timed(config, entry) if hasattr(kind, "timed") else []


def timed_entries(config: dict) -> list[str]:
    section = settings(config)
    return [name for name in section["entries"] if timed_learners(config, name)] if section else []


def timing_inputs(config: dict, dataset: str) -> dict:
    """The first fold's training and validation splits, which a timing job fits on."""
    fold = config["datasets"][dataset]["folds"][0]
    return {split: paths.parsed(dataset, fold, split) for split in ("train", "vali")}


def timing_params(config: dict, name: str) -> dict:
    """What an entry's timing job fits: ``{learner: {"kind", "params"}}``, and ``repeats``."""
    timing = settings(config)["timing"]
    return {"learners": timing_specs(config, timed_learners(config, name), timing["trees"]),
            "repeats": timing["repeats"]}


def names_of_kind(config: dict, kind: str) -> list[str]:
    section = settings(config)
    return [name for name, entry in section["entries"].items() if entry["kind"] == kind] if section else []


# -- the page ---------------------------------------------------------------------------------------------------


def page_inputs(config: dict, dataset: str, sections) -> dict:
    """``{entry: file}`` the catalog page reads: an entry's table, a target's file when its section is on (a row of a
    section that is off says so); ``sections``: the registry (:data:`ltrbv.workflow.sections.SECTIONS`)."""
    out = {}
    for name, entry in entries(config).items():
        if entry["kind"] in WITH_JOB:
            out[name] = catalog_file(name, "csv", dataset)
        elif sections.on(config, entry["section"]):
            out[name] = target_file(dataset, entry)
    return out


def claim_files(config: dict, dataset: str) -> dict:
    """``{entry: catalog/<entry>.claims.csv}`` of the entries with a job: the claims the page judges."""
    return {name: catalog_file(name, CLAIMS_EXT, dataset) for name, entry in entries(config).items()
            if entry["kind"] in WITH_JOB}


def page_benchmarks(config: dict, dataset: str) -> dict:
    """``{entry: the benchmark files of the jobs behind it}`` (its CPU time on the page): its kind's, and its timing
    job's."""
    timing = paths.benchmark(JOBS["catalog_timing"])
    return {name: kind_of(entry).benchmarks(config, dataset, name, entry)
            + ([timing.format(dataset=dataset, entry=name)] if timed_learners(config, name) else [])
            for name, entry in entries(config).items()}


def policy(config: dict) -> dict:
    """How the page judges its family (:class:`ltrbv.compare.claims.Policy`): ``catalog.level`` (alpha),
    ``catalog.power`` and ``catalog.correction``."""
    section = settings(config) or {}
    return {"alpha": section.get("level", 0.05), "power": section.get("power", 0.8),
            "correction": section.get("correction", "holm")}


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
