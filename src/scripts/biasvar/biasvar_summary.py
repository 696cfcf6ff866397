"""Rule biasvar_summary: results/{dataset}/summary.md, the papers' claims next to this run's measurements."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.io import write_text
from ltrbv.sections.biasvar.summary import build_summary
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tables = {key: pd.read_csv(sm.input[key], dtype={"fold": str})
              for key in ("sweep", "trends", "comparison", "zhang", "significance")}
    text = build_summary(sm.params.dataset, tables["sweep"], tables["trends"], tables["comparison"], tables["zhang"],
                         tables["significance"], sm.params.param, sm.params.metric)
    write_text(sm.output[0], text)
    log.info("wrote %s", sm.output[0])
