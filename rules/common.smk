# Shared definitions: wildcard constraints, the job names of logs and benchmarks, the modules every rules file
# uses.  The config was checked (and its defaults filled in) by check_config in the Snakefile, before this.
#
# Resources: a training job's come from its learner's entry (learners.<name>.mem_mb / runtime, doubled on a
# retry); every other rule's from the profile (profiles/slurm/config.yaml, set-resources), the one place they
# are written.

import re

from ltrbv.data.synthetic import FOLD_NAMES as SYNTHETIC_FOLDS
from ltrbv.seeding import derive_seed
from ltrbv.sections.core import grid as core_grid
from ltrbv.workflow import paths
from ltrbv.workflow.datasets import SPLITS
from ltrbv.workflow.paths import fill
from ltrbv.workflow.sections import SECTIONS

#: each rule's job name: the rule and the wildcards that tell its jobs apart (each section's JOBS)
JOBS = SECTIONS.jobs()


def log(rule):
    """The log file template of a rule's jobs."""
    return paths.log(JOBS[rule])


def benchmark(rule):
    """The benchmark file template of a rule's jobs."""
    return paths.benchmark(JOBS[rule])


# Names that become folders under results/ (the schema's $defs/name): no slash, never '..' or '.'.
SAFE_NAME = "[A-Za-z0-9][A-Za-z0-9_.+-]*"


def _alternatives(names):
    return "|".join(sorted(map(re.escape, names))) or "(?!)"


wildcard_constraints:
    dataset=_alternatives(config["datasets"]),
    fold=SAFE_NAME,
    split="|".join(SPLITS),
    learner=SAFE_NAME,
    seed=r"\d+",


def run_cores():
    """``--cores`` of a local run; 1 where none is given (a cluster run: each job holds its own cpus_per_task)."""
    from snakemake.exceptions import WorkflowError

    try:
        return workflow.cores
    except WorkflowError:
        return 1


def learner_threads(w):
    return config["learners"][w.learner]["threads"]


def learner_resource(key, per_job=1):
    """A training job's resource from its learner's entry (the schema's defaults: 2000 MB, 60 minutes), doubled on a
    retry (Snakemake's ``attempt``); ``per_job``: how many models the job fits one after another."""
    return lambda w, attempt: config["learners"][w.learner][key] * (per_job(w) if callable(per_job) else per_job) * attempt
