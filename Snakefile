# ltrbv: bias and variance of learning-to-rank algorithms.
# DAG: raw folds -> parsed folds -> per-seed training -> prediction files -> metrics -> tables, figures.

import os

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


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
