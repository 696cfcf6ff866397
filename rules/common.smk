# Shared definitions: wildcard constraints, per-rule resources, the modules every rule file uses.
# The config was checked (and its defaults filled in) by check_config in the Snakefile, before this.

import os
import re

from ltrbv.data.synthetic import FOLD_NAMES as SYNTHETIC_FOLDS
from ltrbv.seeding import derive_seed
from ltrbv.workflow import core_grid, paths, report_grid
from ltrbv.workflow.datasets import SPLITS
from ltrbv.workflow.paths import benchmark, fill, log
from ltrbv.workflow.config_checks import resource_defaults

# each rule's default resources, from the one place they are written (config/schema/config.schema.yaml)
RESOURCE_DEFAULTS = resource_defaults(os.path.join(workflow.basedir, "config", "schema", "config.schema.yaml"))


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


def rule_resources(rule_name, key):
    """A rule's resource: the config's ``resources.<rule>.<key>``, else the schema's default for that rule."""
    given = config.get("resources", {}).get(rule_name, {})
    return given[key] if key in given else RESOURCE_DEFAULTS[rule_name][key]


def learner_threads(w):
    return config["learners"][w.learner]["threads"]


def learner_resource(key):
    """A training job's resource from its learner's entry (the schema's defaults: 2000 MB, 60 minutes)."""
    return lambda w: config["learners"][w.learner][key]
