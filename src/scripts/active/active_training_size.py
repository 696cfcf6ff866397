"""Rule active_training_size: Sawade et al. (2013), Fig. 5 bottom row (table and figure).

The error of each training-size experiment at one budget, against the share of the training half its second
ranker was trained on; the first ranker is the same throughout.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.active.experiments import training_size_table
from ltrbv.sections.active.figures import plot_training_size
from ltrbv.io import write_text
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    sweep = sm.params.sweep
    table = training_size_table({float(share): pd.read_csv(path) for share, path in sm.params.tables.items()},
                                sweep["budget"])
    table.insert(0, "dataset", sm.wildcards.dataset)
    write_text(sm.output.csv, table.to_csv(index=False, float_format="%.10g"))
    lines = [f"Sawade et al. (2013), Fig. 5 bottom row on {sm.wildcards.dataset}: {sweep['first']} (trained on "
             f"{sm.params.first_share:g} of the training half) against {sweep['second']} trained on each share, "
             f"absolute error of the estimated difference at budget {sweep['budget']:g} (mean ± standard error).", "",
             "| measure | share | true difference | passive | active | active_uniD | active_uniC |",
             "|---|---|---|---|---|---|---|"]
    for (measure, share), rows in table.groupby(["measure", "share"], sort=True):
        cells = {r.method: f"{r.abs_error:.4g} ± {r.abs_error_se:.2g}" for r in rows.itertuples()}
        lines.append(f"| {measure.upper()} | {share:g} | {rows['truth'].iloc[0]:.4g} | " + " | ".join(
            cells.get(m, "—") for m in ("passive", "active", "active_uniD", "active_uniC")) + " |")
    write_text(sm.output.md, "\n".join(lines) + "\n")
    plot_training_size(table, sm.params.first_share, f"{sm.wildcards.dataset}: Fig. 5 (bottom row), "
                       f"{sweep['first']} vs {sweep['second']} trained on more data", [sm.output.png, sm.output.svg])
    log.info("\n%s", "\n".join(lines))
