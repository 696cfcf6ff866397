"""Every file the workflow writes, as one named template each (the one place a results path is spelled).

Templates use Snakemake's wildcard syntax.  Rules take their ``output:`` from here, job grids fill the
templates with :func:`fill` (Snakemake's ``expand`` of one combination), and scripts never build or
parse a path: they read ``snakemake.input``/``output``/``params`` by name.

A prediction folder's ``{run}`` is a training run of one fold: ``seed<n>`` (the whole training set,
replicate n) or ``trial<t>`` (the variance experiment's sample t); :data:`SEED_RUN` and
:data:`TRIAL_RUN` spell them and :func:`run_seed_keys` is the one place a run name is read back.
"""

from __future__ import annotations

import re
import string

RESULTS = "results"
_DATASET = RESULTS + "/{dataset}"

# -- data -----------------------------------------------------------------------------------------
#: a synthetic dataset's generated LETOR text (rule synthetic_folds)
SYNTHETIC_RAW = _DATASET + "/raw/{fold}/{split}.txt"
#: the binary cache of one split of one fold (rule parse_split)
PARSED = _DATASET + "/parsed/{fold}/{split}.npz"
#: a fetched dataset's unpacked archive (its root is this folder or one below it), and what was fetched
FETCHED = _DATASET + "/download"
FETCH_RECORD = _DATASET + "/download.json"
#: the training and validation queries carved from a fold's training file (validation_from_train)
VALIDATION_SPLIT = _DATASET + "/parsed/{fold}/validation_split.json"
#: the SHA-256 digest of a raw split's content as the workflow last saw it (written at parse time, by
#: :func:`ltrbv.workflow.digests.refresh_raw_digests`, never by a job)
RAW_DIGEST = _DATASET + "/digests/raw/{fold}/{split}.sha256"

# -- core run: predictions and metrics -------------------------------------------------------------
SEED_RUN = "seed{seed}"
TRIAL_RUN = "trial{trial}"
#: a training run's files: ``test.scores``, ``vali.scores``, ``meta.json``
PREDICTION = _DATASET + "/predictions/{learner}/{fold}/{run}/{file}"
#: per-query metrics of one learner's test predictions, every fold and seed (rule evaluate)
METRICS = _DATASET + "/metrics/{learner}.csv"
#: one table (``{name}.{ext}``) or figure of a dataset
TABLE = _DATASET + "/tables/{name}.{ext}"
FIGURE = _DATASET + "/figures/{name}.{ext}"
#: each paper claim next to what the run measured (rule biasvar_summary)
SUMMARY = _DATASET + "/summary.md"

# -- bagging experiments (Ganjisaffar et al. 2011) ------------------------------------------------
#: sub-model k of a bag in one training run
SUBMODEL = _DATASET + "/bags/{learner}/{fold}/{run}/sub{k}/{file}"
#: the training queries of one variance trial
TRIAL_QUERIES = _DATASET + "/trials/{fold}/trial{trial}.json"

# -- bias-variance study --------------------------------------------------------------------------
STUDY_SAMPLE = _DATASET + "/biasvar/samples/{fold}/{scheme}/rep{replicate}.json"
STUDY_PREDICTION = _DATASET + "/biasvar/predictions/{learner}/{fold}/{setting}/{scheme}/rep{replicate}/{file}"
STUDY_REDUCED = _DATASET + "/biasvar/reduced/{learner}/{fold}/{setting}/{scheme}.{ext}"


def model_file_name(name: str, replicate: str) -> str:
    """The name of one model's input or output in a study training job (``test_1``, ``queries_2b``): the job
    fits a run's models and names each model's files, so a script reads them by name, not by position."""
    return f"{name}_{replicate}"

# -- diagnostics ----------------------------------------------------------------------------------
TREE_STRENGTH = _DATASET + "/diagnostics/tree_strength/{learner}.csv"

# -- reproduction catalog -------------------------------------------------------------------------
#: one page per dataset: every catalog entry's claims, numbers, verdict and CPU time (rule catalog_page)
CATALOG = _DATASET + "/catalog.md"
#: a compare or sweep entry's table (csv, md) and a sweep's figure (png, svg)
CATALOG_FILE = _DATASET + "/catalog/{entry}.{ext}"
#: a name that may become a folder or file name (the schema's $defs/name)
_safe_name = r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}"


def catalog_file(entry: str, ext: str, dataset: str = "{dataset}") -> str:
    return CATALOG_FILE.format(dataset=dataset, entry=entry, ext=ext)


def is_safe_name(name: str) -> bool:
    return isinstance(name, str) and re.fullmatch(_safe_name, name) is not None and name not in (".", "..")

# -- active evaluation ----------------------------------------------------------------------------
ACTIVE_MODEL = _DATASET + "/active/models/{partition}/{model}.npz"
ACTIVE_SIMULATION = _DATASET + "/active/simulations/{experiment}/{partition}.{ext}"
ACTIVE_TABLE = _DATASET + "/active/tables/{name}.{ext}"
ACTIVE_FIGURE = _DATASET + "/active/figures/{name}.{ext}"

# -- report ---------------------------------------------------------------------------------------
REPORT_PAGE = _DATASET + "/report/{page}.html"
#: the report's first page (rule report_landing)
REPORT_LANDING = RESULTS + "/report/index.rst"

# -- per-job records ------------------------------------------------------------------------------
#: ``{job}``: the rule's name and the wildcards that tell its jobs apart, e.g. ``train_model/{learner}/{fold}/seed{seed}``
LOG = _DATASET + "/logs/{job}.log"
BENCHMARK = _DATASET + "/benchmarks/{job}.tsv"
#: rules of the whole run (not of one dataset)
RUN_LOG = RESULTS + "/logs/{job}.log"
RUN_BENCHMARK = RESULTS + "/benchmarks/{job}.tsv"


class _Partial(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def fill(template: str, **values) -> str:
    """``template`` with the named wildcards replaced; every other wildcard stays, e.g.
    ``fill(PREDICTION, run=SEED_RUN, file="test.scores")`` is the train_model output template."""
    return string.Formatter().vformat(template, (), _Partial({key: str(value) for key, value in values.items()}))


def wildcards(template: str) -> list[str]:
    """The wildcards a template still holds."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


#: each rule's job name (the ``{job}`` of LOG and BENCHMARK): the rule and the wildcards that tell its jobs apart
JOBS = {
    "parse_split": "parse_split/{fold}/{split}",
    "fetch_dataset": "fetch_dataset",
    "validation_split": "validation_split/{fold}",
    "active_train": "active_train/{partition}/{model}",
    "active_simulate": "active_simulate/{experiment}/{partition}",
    "active_aggregate": "active_aggregate/{experiment}",
    "active_savings": "active_savings",
    "active_sampling": "active_sampling",
    "active_training_size": "active_training_size",
    "bag_submodel": "bag_submodel/{learner}/{fold}/{run}/sub{k}",
    "combine_bag": "combine_bag/{learner}/{fold}/{run}",
    "biasvar_sample": "biasvar_sample/{fold}/{scheme}/rep{replicate}",
    "train_biasvar_bootstrap": "train_biasvar_bootstrap/{learner}/{fold}/{setting}",
    "train_biasvar_twofold": "train_biasvar_twofold/{learner}/{fold}/{setting}",
    "reduce_biasvar": "reduce_biasvar/{learner}/{fold}/{setting}/{scheme}",
    "biasvar_tables": "biasvar_tables",
    "plot_biasvar": "plot_biasvar",
    "zhang_table": "zhang_table",
    "significance_table": "significance_table",
    "biasvar_summary": "biasvar_summary",
    "synthetic_folds": "synthetic_folds",
    "tree_strength": "tree_strength/{learner}",
    "plot_tree_strength": "plot_tree_strength",
    "evaluate": "evaluate/{learner}",
    "trial_queries": "trial_queries/{fold}/trial{trial}",
    "train_trial": "train_trial/{learner}/{fold}/trial{trial}",
    "variance_table": "variance_table",
    "bag_size_table": "bag_size_table",
    "plot_bag_size": "plot_bag_size",
    "bagging_table": "bagging_table",
    "performance_table": "performance_table",
    "plot_performance": "plot_performance",
    "report_page": "report_page/{page}",
    "catalog_compare": "catalog_compare/{entry}",
    "catalog_sweep": "catalog_sweep/{entry}",
    "catalog_curve": "catalog_curve/{entry}",
    "catalog_grid": "catalog_grid/{entry}",
    "catalog_scores": "catalog_scores/{entry}",
    "catalog_page": "catalog_page",
    "train_model": "train_model/{learner}/{fold}/seed{seed}",
}


def log(rule: str) -> str:
    """The log file template of a rule's jobs."""
    return fill(LOG, job=JOBS[rule])


def benchmark(rule: str) -> str:
    """The benchmark file template of a rule's jobs."""
    return fill(BENCHMARK, job=JOBS[rule])


def parse_job(job: str) -> tuple[str, dict[str, str]] | None:
    """(rule, wildcards) of a job name written by ``log``/``benchmark`` (``train_model/lm/Fold1/seed1``), or None."""
    rule = job.split("/", 1)[0]
    if rule not in JOBS:
        return None
    pattern = "".join(re.escape(text) + (f"(?P<{name}>[^/]+)" if name else "")
                      for text, name, _, _ in string.Formatter().parse(JOBS[rule]))
    match = re.fullmatch(pattern, job)
    return (rule, match.groupdict()) if match else None


def seed_run(seed) -> str:
    return SEED_RUN.format(seed=seed)


def trial_run(trial) -> str:
    return TRIAL_RUN.format(trial=trial)


def run_seed_keys(run: str) -> tuple:
    """The seed keys of a training run, as the core run's rules use them: ``seed3`` -> ("3",) (train_model's
    ``{seed}``); ``trial2`` -> ("trial2",)."""
    prefix = SEED_RUN.partition("{")[0]
    return (run[len(prefix):],) if run.startswith(prefix) else (run,)


def run_replicate(run: str) -> int | None:
    """The replicate number of a ``seed<n>`` run (n), None for a trial."""
    prefix = SEED_RUN.partition("{")[0]
    return int(run[len(prefix):]) if run.startswith(prefix) else None


def table(name: str, ext: str, dataset: str = "{dataset}") -> str:
    return TABLE.format(dataset=dataset, name=name, ext=ext)


def figure(name: str, ext: str, dataset: str = "{dataset}") -> str:
    return FIGURE.format(dataset=dataset, name=name, ext=ext)


def figures(name: str, dataset: str = "{dataset}") -> list[str]:
    """A figure's PNG and SVG."""
    return [figure(name, ext, dataset) for ext in ("png", "svg")]


def prediction(dataset: str, learner: str, fold: str, run: str, file: str = "test.scores") -> str:
    return PREDICTION.format(dataset=dataset, learner=learner, fold=fold, run=run, file=file)


def parsed(dataset: str, fold: str, split: str) -> str:
    return PARSED.format(dataset=dataset, fold=fold, split=split)


def flat(nested) -> list[str]:
    """Every path in a nested dict (or list) of paths, in order: the input list of a rule whose script
    reads the same paths by name from a param."""
    if isinstance(nested, dict):
        return [path for value in nested.values() for path in flat(value)]
    if isinstance(nested, (list, tuple)):
        return [path for value in nested for path in flat(value)]
    return [nested]


def dataset_of(target: str) -> str | None:
    """The dataset folder a target lies in (``results/<dataset>/...``), or None for a run-wide file."""
    parts = str(target).split("/")
    return parts[1] if len(parts) > 2 and parts[0] == RESULTS else None
