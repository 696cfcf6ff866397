# Shared definitions: checks run at parse time (before any job), wildcard constraints, grids.

import re
from pathlib import Path

from ltrbv.data.synthetic import FOLD_NAMES as SYNTHETIC_FOLDS
from ltrbv.workflow.datasets import check_raw_files, raw_file, SPLITS
from ltrbv.seeding import derive_seed
from ltrbv.workflow import report_grid
from ltrbv.workflow.validation import learner_problems, non_finite_values
from ltrbv.workflow.grid import (
    built_in_learners,
    intermediate_targets,
    learner_rule_params,
    PARSE_BENCHMARK,
    PARSED,
    damaged_cache,
    metrics_files,
    performance_targets,
    raw_input,
    unknown_names,
)

_problems = non_finite_values(config) + unknown_names(config) + learner_problems(config)
if _problems:
    raise WorkflowError("invalid config:\n  " + "\n  ".join(_problems))

for _name in config["run"]["datasets"]:
    check_raw_files(_name, config["datasets"][_name])
    # A damaged parsed cache is refused here: once a job started, Snakemake would already have deleted
    # the outputs downstream of it.
    for _fold in config["datasets"][_name]["folds"]:
        for _split in SPLITS:
            _damage = damaged_cache(_name, _fold, _split)
            if _damage:
                raise WorkflowError(_damage)


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


def rule_resources(rule_name, key, default):
    return config.get("resources", {}).get(rule_name, {}).get(key, default)


def all_targets():
    return performance_targets(config) + intermediate_targets(config)
