# ltrbv: bias and variance of learning-to-rank algorithms.
# DAG: raw folds -> parsed folds -> per-seed training -> prediction files -> metrics -> tables, figures.

import os
import sys

from snakemake.utils import min_version, validate

min_version("9.0")
sys.path.insert(0, os.path.join(workflow.basedir, "src"))

from ltrbv.workflow.validation import config_file_problems


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


# Keys given twice in a config file (YAML keeps the last one silently); refused before anything else.
_file_problems = [problem for path in [os.path.join(workflow.basedir, "config", "config.yaml"),
                                       *workflow.overwrite_configfiles] for problem in config_file_problems(path)]
if _file_problems:
    raise WorkflowError("invalid config file:\n  " + "\n  ".join(_file_problems))

validate(config, schema=os.path.join(workflow.basedir, "config", "schema", "config.schema.yaml"))
# Sections with a schema of their own (defaults filled in by the validator).
for _section in ("biasvar", "active", "diagnostics"):
    if _section in config:
        validate(config[_section], schema=os.path.join(workflow.basedir, "config", "schema", f"{_section}.schema.yaml"))


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/train.smk"
include: "rules/evaluate.smk"
include: "rules/report.smk"
include: "rules/bagging.smk"
include: "rules/experiments.smk"
include: "rules/biasvar.smk"
include: "rules/active.smk"
include: "rules/diagnostics.smk"


rule all:
    input:
        all_targets(),
        experiment_targets(config),
        biasvar_targets(),
        active_targets(),
        diagnostics_targets(),
    default_target: True
