"""Rule active_savings: label savings of active over passive at the largest budget (CSV + Markdown).

The error each experiment is judged by is the paper's (Sawade et al. 2013): absolute estimation error of R
for ``estimate`` experiments (Fig. 2); model-selection error, the share of repetitions whose estimated
difference picks the worse ranking function, for ``compare`` experiments (Fig. 3).  For a comparison the
savings by absolute error of the estimated difference are kept as extra columns (``abs_*``).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.active.experiments import label_savings
from ltrbv.io import write_text
from ltrbv.workflow.logs import rule_log

#: the error by which each kind of experiment is judged (the paper's), and the extra one kept beside it
PRIMARY_ERROR = {"estimate": "abs_error", "compare": "selection_error"}

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    rows = []
    for experiment, path in sm.params.tables.items():
        table = pd.read_csv(path)
        kind = sm.params.kinds[experiment]
        for method in [m for m in table["method"].unique() if m != "passive"]:
            def savings_by(error):
                return label_savings(table, error, "passive", method).rename(columns={f"{method}_error": "method_error"})

            found = savings_by(PRIMARY_ERROR[kind])
            if kind == "compare":
                extra = savings_by("abs_error")
                for column in ("passive_error", "method_error", "savings", "at_bound"):
                    found[f"abs_{column}"] = extra[column].to_numpy()
            found.insert(0, "method", method)
            found.insert(0, "kind", kind)
            found.insert(0, "experiment", experiment)
            rows.append(found)
    savings = pd.concat(rows, ignore_index=True)
    write_text(sm.output.csv, savings.to_csv(index=False, float_format="%.6g"))
    shown = savings[savings["method"] == "active"]
    lines = ["| experiment | measure | error | budget | passive error | active error | savings "
             "| by absolute error of the difference: passive / active, savings |", "|---|---|---|---|---|---|---|---|"]
    for _, r in shown.iterrows():
        bound = "≥ " if r["at_bound"] and r["savings"] > 0 else ""
        label = "model selection" if r["kind"] == "compare" else "absolute"
        extra = "—"
        if r["kind"] == "compare":
            abs_bound = "≥ " if r["abs_at_bound"] and r["abs_savings"] > 0 else ""
            extra = (f"{r['abs_passive_error']:.4g} / {r['abs_method_error']:.4g}, "
                     f"{abs_bound}{100 * r['abs_savings']:.0f}%")
        saving = (f"{bound}{100 * r['savings']:.0f}%" if r["savings"] == r["savings"]
                  else "— (no error to save on: both are 0 throughout)")
        lines.append(f"| {r['experiment']} | {r['measure'].upper()} | {label} | {r['budget']:g} | "
                     f"{r['passive_error']:.4g} | {r['method_error']:.4g} | {saving} | {extra} |")
    write_text(sm.output.md, "\n".join(lines) + "\n\nError, as in Sawade et al. (2013): for an estimation experiment "
               "the mean absolute error of the estimated R (Fig. 2); for a comparison the model-selection error, the "
               "share of repetitions whose estimated difference R[r1] - R[r2] has the wrong sign (Fig. 3), with the "
               "absolute error of the difference beside it. Savings = 1 - (budget at which active reaches passive's "
               "error at the largest budget) / largest budget; negative = passive needs less.\n")
    log.info("\n%s", "\n".join(lines))
