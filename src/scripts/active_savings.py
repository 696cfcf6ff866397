"""Rule active_savings: label savings of active over passive at the largest budget (CSV + Markdown)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

import pandas as pd

from ltrbv.active.experiments import label_savings
from ltrbv.io import write_text
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    rows = []
    for experiment, path in sm.params.tables.items():
        table = pd.read_csv(path)
        kind = sm.params.kinds[experiment]
        for method in [m for m in table["method"].unique() if m != "passive"]:
            found = label_savings(table, "abs_error", "passive", method)
            found.insert(0, "method", method)
            found.insert(0, "kind", kind)
            found.insert(0, "experiment", experiment)
            top = table[table["budget"] == table["budget"].max()].set_index(["measure", "method"])
            found["passive_selection_error"] = [top.loc[(m, "passive"), "selection_error"] for m in found["measure"]]
            found["selection_error"] = [top.loc[(m, method), "selection_error"] for m in found["measure"]]
            rows.append(found)
    savings = pd.concat(rows, ignore_index=True)
    write_text(sm.output.csv, savings.to_csv(index=False, float_format="%.6g"))
    shown = savings[savings["method"] == "active"]
    lines = ["| experiment | measure | budget | passive error | active error | savings "
             "| passive / active model-selection error |", "|---|---|---|---|---|---|---|"]
    for _, r in shown.iterrows():
        bound = "≥ " if r["at_bound"] and r["savings"] > 0 else ""
        selection = (f"{r['passive_selection_error']:.3f} / {r['selection_error']:.3f}" if r["kind"] == "compare"
                     else "—")
        lines.append(f"| {r['experiment']} | {r['measure'].upper()} | {r['budget']:g} | {r['passive_error']:.4g} | "
                     f"{r['active_error']:.4g} | {bound}{100 * r['savings']:.0f}% | {selection} |")
    write_text(sm.output.md, "\n".join(lines) + "\n\nError: mean absolute estimation error (of R, or of the "
               "difference R[r1] - R[r2]); savings = 1 - (budget at which active reaches passive's error at "
               "the largest budget) / largest budget; negative = passive needs less.\n")
    log.info("\n%s", "\n".join(lines))
