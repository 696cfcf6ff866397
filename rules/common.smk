# Shared definitions: checks run at parse time (before any job), wildcard constraints, grids.

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from ltrbv.data.synthetic import FOLD_NAMES as SYNTHETIC_FOLDS
from ltrbv.workflow.datasets import check_raw_files, raw_file, SPLITS
from ltrbv.seeding import derive_seed
from ltrbv.workflow.validation import learner_problems
from ltrbv.workflow.grid import (
    built_in_learners,
    intermediate_targets,
    learner_rule_params,
    metrics_files,
    performance_targets,
    raw_input,
    unknown_names,
)

_problems = unknown_names(config) + learner_problems(config)
if _problems:
    raise WorkflowError("invalid config:\n  " + "\n  ".join(_problems))

for _name in config["run"]["datasets"]:
    check_raw_files(_name, config["datasets"][_name])


def _alternatives(names):
    return "|".join(sorted(map(re.escape, names))) or "(?!)"


wildcard_constraints:
    dataset=_alternatives(config["datasets"]),
    fold="[A-Za-z0-9_.-]+",
    split="|".join(SPLITS),
    learner="[A-Za-z0-9_.+-]+",
    seed=r"\d+",


def rule_resources(rule_name, key, default):
    return config.get("resources", {}).get(rule_name, {}).get(key, default)


def all_targets():
    return performance_targets(config) + intermediate_targets(config)
