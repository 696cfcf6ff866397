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

# Metric names in their one spelling (nDCG@10 -> ndcg@10, P_10 -> p@10, AP -> map) for every output.
from ltrbv.workflow.metric_names import canonical_config_metrics

try:
    canonical_config_metrics(config)
except ValueError as _error:
    raise WorkflowError(f"invalid config:\n  {_error}")


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


_TARGETS = all_targets() + experiment_targets(config) + biasvar_targets() + active_targets() + diagnostics_targets()


# The report opens on the summaries and performance tables (rule report_landing) once they exist.
_LANDING = os.path.abspath(report_grid.LANDING)


report: _LANDING if os.path.exists(_LANDING) else "rules/captions/workflow.rst"


rule all:
    input:
        _TARGETS,
        report_grid.page_targets(_TARGETS),
        report_grid.LANDING if report_grid.landing_inputs(_TARGETS) else [],
    default_target: True
