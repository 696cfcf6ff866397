# ltrbv: bias and variance of learning-to-rank algorithms.
# DAG: raw folds -> parsed folds -> per-seed training -> prediction files -> metrics -> tables, figures.
#
# Config: `snakemake --cores 2` runs the synthetic demo (config/demo.yaml); with --configfile the given
# files alone make the config (nothing of the demo is merged under them).  Every default is in the
# schemas under config/schema/; check_config refuses a bad config before any job.

import os
import sys

from snakemake.utils import min_version

min_version("9.0")
sys.path.insert(0, os.path.join(workflow.basedir, "src"))

from ltrbv.provenance import export_config_files
from ltrbv.sections.report import grid as report_grid
from ltrbv.workflow.bytecode import bytecode_warning
from ltrbv.workflow.config_checks import ConfigError, check_config
from ltrbv.workflow.digests import changed_score_files, refresh_raw_digests
from ltrbv.workflow.rate_timers import cancel_rate_timers
from ltrbv.workflow.sections import SECTIONS

DEMO_CONFIG = os.path.join(workflow.basedir, "config", "demo.yaml")


if not workflow.overwrite_configfiles:

    configfile: DEMO_CONFIG


try:
    check_config(config, list(workflow.overwrite_configfiles) or [DEMO_CONFIG])
except ConfigError as _error:
    raise WorkflowError(str(_error))
export_config_files(list(workflow.overwrite_configfiles) or [DEMO_CONFIG])  # each job's meta.json names them

# Content digests (ltrbv.workflow.digests): a score file changed after its job wrote it is refused; a raw file
# whose content changed (whatever its mtime) is parsed again.  Once, in the main process (not in each job's).
if workflow.is_main_process:
    _CHANGED = changed_score_files(config)
    if _CHANGED:
        raise WorkflowError("changed score files:\n  " + "\n  ".join(_CHANGED))
    for _raw in refresh_raw_digests(config):
        print(f"Note: {_raw}: its content changed since the last run (SHA-256), whatever its timestamp says; it is "
              "parsed again and everything downstream of it rerun", file=sys.stderr)

_BYTECODE_WARNING = bytecode_warning()
if _BYTECODE_WARNING:
    print(f"Warning: {_BYTECODE_WARNING}", file=sys.stderr)


# Every section (ltrbv.workflow.sections: the core run, the experiments, the catalog, the report) asked the same
# way: its rules file, then its targets.
include: "rules/common.smk"


for _section in SECTIONS:

    include: _section.rules


_TARGETS = SECTIONS.targets(config)


# The report opens on the summaries and performance tables (rule report_landing) once they exist.
_LANDING = os.path.abspath(report_grid.LANDING)


report: _LANDING if os.path.exists(_LANDING) else "rules/captions/workflow.rst"


rule all:
    input:
        _TARGETS,
    default_target: True


# Snakemake's job-rate timers (one timespan of the profile's max-jobs-per-timespan each) would keep the process
# alive after the last job: cancelled once the scheduler has stopped (ltrbv.workflow.rate_timers).
onsuccess:
    cancel_rate_timers()


onerror:
    cancel_rate_timers()
