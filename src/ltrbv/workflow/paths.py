"""The workflow's shared files, as one named template each: data, predictions, metrics, tables, logs.

A section's own files (the study's samples, the catalog's pages, ...) are templates in its grid module
(``ltrbv.sections.<name>.grid``), built on :data:`DATASET`; every results path is spelled once.  Templates use Snakemake's wildcard syntax.  Rules take their ``output:`` from here, job grids fill the
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
#: a dataset's results folder: every section's own templates start here (each spelled once, in its grid)
DATASET = RESULTS + "/{dataset}"

# -- data -----------------------------------------------------------------------------------------
#: a synthetic dataset's generated LETOR text (rule synthetic_folds)
SYNTHETIC_RAW = DATASET + "/raw/{fold}/{split}.txt"
#: the binary cache of one split of one fold (rule parse_split)
PARSED = DATASET + "/parsed/{fold}/{split}.npz"
#: a fetched dataset's unpacked archive (its root is this folder or one below it), and what was fetched
FETCHED = DATASET + "/download"
FETCH_RECORD = DATASET + "/download.json"
#: the training and validation queries carved from a fold's training file (validation_from_train)
VALIDATION_SPLIT = DATASET + "/parsed/{fold}/validation_split.json"
#: the SHA-256 digest of a raw split's content as the workflow last saw it (written at parse time, by
#: :func:`ltrbv.workflow.digests.refresh_raw_digests`, never by a job)
RAW_DIGEST = DATASET + "/digests/raw/{fold}/{split}.sha256"

# -- core run: predictions and metrics -------------------------------------------------------------
SEED_RUN = "seed{seed}"
TRIAL_RUN = "trial{trial}"
#: a training run's files: ``test.scores``, ``vali.scores``, ``meta.json``
PREDICTION = DATASET + "/predictions/{learner}/{fold}/{run}/{file}"
#: per-query metrics of one learner's test predictions, every fold and seed (rule evaluate)
METRICS = DATASET + "/metrics/{learner}.csv"
#: one table (``{name}.{ext}``) or figure of a dataset
TABLE = DATASET + "/tables/{name}.{ext}"
FIGURE = DATASET + "/figures/{name}.{ext}"

# -- bags and trials (a bag is a learner of the core run; trials are the bagging section's samples) -----
#: sub-model k of a bag in one training run
SUBMODEL = DATASET + "/bags/{learner}/{fold}/{run}/sub{k}/{file}"
#: the training queries of one variance trial
TRIAL_QUERIES = DATASET + "/trials/{fold}/trial{trial}.json"

# -- per-job records ------------------------------------------------------------------------------
#: ``{job}``: the rule's name and the wildcards that tell its jobs apart, e.g. ``train_model/{learner}/{fold}/seed{seed}``
LOG = DATASET + "/logs/{job}.log"
BENCHMARK = DATASET + "/benchmarks/{job}.tsv"
#: rules of the whole run (not of one dataset)
RUN_LOG = RESULTS + "/logs/{job}.log"
RUN_BENCHMARK = RESULTS + "/benchmarks/{job}.tsv"


#: a name that may become a folder or file name (the schema's $defs/name)
_SAFE_NAME = r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}"


def is_safe_name(name: str) -> bool:
    return isinstance(name, str) and re.fullmatch(_SAFE_NAME, name) is not None and name not in (".", "..")


def format_value(value) -> str:
    """A parameter value as it appears in a file or learner name: ``0.05`` -> ``0.05``, ``8`` -> ``8``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


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


def log(job: str) -> str:
    """The log file template of a rule's jobs; ``job``: the rule's name and the wildcards that tell its jobs apart
    (each section's ``JOBS``), e.g. ``train_model/{learner}/{fold}/seed{seed}``."""
    return fill(LOG, job=job)


def benchmark(job: str) -> str:
    """The benchmark file template of a rule's jobs (``job`` as for :func:`log`)."""
    return fill(BENCHMARK, job=job)


def parse_job(job: str, jobs: dict[str, str]) -> tuple[str, dict[str, str]] | None:
    """(rule, wildcards) of a job name written by ``log``/``benchmark`` (``train_model/lm/Fold1/seed1``), or None;
    ``jobs``: every rule's job template (:meth:`ltrbv.workflow.sections.Sections.jobs`)."""
    rule = job.split("/", 1)[0]
    if rule not in jobs:
        return None
    pattern = "".join(re.escape(text) + (f"(?P<{name}>[^/]+)" if name else "")
                      for text, name, _, _ in string.Formatter().parse(jobs[rule]))
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


def run_trial(run: str) -> str | None:
    """The trial number of a ``trial<t>`` run (t, as written), None for a seed run."""
    prefix = TRIAL_RUN.partition("{")[0]
    return run[len(prefix):] if run.startswith(prefix) else None


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
