"""The catalog's Markdown: one page per compare or sweep entry, and ``catalog.md``, one row per paper artefact."""

from __future__ import annotations

import pandas as pd

from ..tables import markdown_table
from .catalog import (BEST_OF_K, COMBINATION, DIFFERS, NOT_SIGNIFICANT, QUANTITIES, REPRODUCED, SECONDS_PER_TREE,
                      TABLE_KINDS, claim_verdicts)
from .significance import POOLED, significance_markdown

NOT_RUN = "not run here"
ELSEWHERE = "see its target"


def _heading(entry: dict, dataset: str, convention: str | None = None) -> str:
    """Title, the metrics' convention (a curve's is its learner's own ``eval_convention``), the paper's data, note."""
    data = f" The paper's data: {entry['paper_data']}." if entry.get("paper_data") else ""
    note = f"\n\n{entry['note']}" if entry.get("note") else ""
    convention = convention or f"`{entry['convention']}` convention."
    return f"# {entry['paper']}, {entry['artefact']}: {dataset}\n\n{convention}{data}{note}\n\n"


def _params(learner_params: dict) -> str:
    rows = pd.DataFrame([{"learner": k, "params": ", ".join(f"{p}={v}" for p, v in params.items())}
                         for k, params in learner_params.items()])
    return "\n## Learners as run\n\n" + markdown_table(rows)


def _claims(kind: str, table: pd.DataFrame, entry: dict) -> str:
    if not entry["claims"]:
        return ""
    verdicts = pd.DataFrame(claim_verdicts(kind, table, entry["claims"], entry["level"]))
    return "\n## The paper's claims and this run\n\n" + markdown_table(verdicts[["text", "paper_numbers", "measured",
                                                                                 "verdict"]])


def compare_markdown(table: pd.DataFrame, entry: dict, dataset: str, learner_params: dict) -> str:
    """The significance page of a compare entry, its seconds per model, its claims, and the learners as run."""
    pooled = table[(table["fold"] == POOLED) & (table["baseline"] == entry["baseline"])]
    quantities = [q for q in QUANTITIES if pooled[q].notna().any()]
    structure = pooled.drop_duplicates("learner")[["learner", *quantities]]
    body = significance_markdown(table, dataset).split("\n", 1)[1]
    return "".join([
        _heading(entry, dataset), body,
        "\n## Training seconds per model, and the forests' mean tree (leaves, training rows per leaf, leaf score, "
        "depth); means over folds and seeds\n\n" + markdown_table(structure, "{:.3g}"),
        _claims("compare", table, entry), _params(learner_params),
    ])


def sweep_markdown(table: pd.DataFrame, entry: dict, dataset: str, learner_params: dict) -> str:
    """A sweep entry: per learner and value, each metric with its interval, and the seconds per tree."""
    wide = []
    for (learner, value), rows in table.groupby(["learner", "value"], sort=False):
        row = {"learner": learner, entry["param"]: value}
        for r in rows.itertuples():
            row[r.metric] = f"{r.mean:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]"
        row["s/model"] = f"{rows['fit_seconds'].iloc[0]:.2f}"
        row["s/tree"] = f"{rows[SECONDS_PER_TREE].iloc[0]:.4f}"
        wide.append(row)
    return "".join([
        _heading(entry, dataset),
        "Mean over the pooled test queries of the folds (each query's value averaged over seeds) with its 95% "
        "bootstrap interval over queries; training seconds per model and per tree, mean over folds and seeds.\n\n",
        markdown_table(pd.DataFrame(wide)), _claims("sweep", table, entry), _params(learner_params),
    ])


def curve_markdown(table: pd.DataFrame, entry: dict, dataset: str, learner_params: dict) -> str:
    """A curve entry: per learner and split, the best round of the mean curve and the value at the last round."""
    rows = []
    for (learner, split, metric), curve in table.groupby(["learner", "split", "metric"], sort=False):
        best = curve.loc[curve["mean"].idxmax()]
        last = curve.iloc[-1]
        rows.append({"learner": learner, "split": split, "metric": metric, "best round": int(best["round"]),
                     "best": f"{best['mean']:.4f}", "last round": int(last["round"]), "at last": f"{last['mean']:.4f}",
                     "runs at last": int(last["n_runs"])})
    return "".join([
        _heading(entry, dataset, "Each learner's own validation metric and convention (its `eval_metric`, "
                                 "`eval_convention`)."),
        "The monitored metric after each boosting round, mean over the runs (folds x seeds) that reached the round "
        "(a run stopped early reaches fewer); catalog/<entry>.csv has every round.\n\n",
        markdown_table(pd.DataFrame(rows)), _params(learner_params),
    ])


def grid_markdown(table: pd.DataFrame, entry: dict, dataset: str, base_params: dict, top: int = 10) -> str:
    """A grid entry: the best combinations by validation (Table 3) and the best of k (Fig. 1)."""
    combinations = table[table["part"] == COMBINATION].sort_values("rank", kind="stable")
    params = [c for c in combinations.columns if c.startswith("param:")]
    best = combinations.head(top)[["rank", *params, "validation", "test", "learner"]].rename(
        columns={c: c.split(":", 1)[1] for c in params})
    best["rank"] = best["rank"].astype(int)
    for c in params:  # a grid's values as given (the CSV holds them as numbers, next to the curve's empty cells)
        best[c.split(":", 1)[1]] = [f"{v:g}" if isinstance(v, float) else str(v) for v in best[c.split(":", 1)[1]]]
    curve = table[table["part"] == BEST_OF_K][["k", "validation", "test"]].astype({"k": int})
    metric = entry["grid_metric"]
    return "".join([
        _heading(entry, dataset),
        f"{len(combinations)} combinations of {', '.join(entry['grid'][0]['params'])} "
        f"({' x '.join(str(combinations[c].nunique()) for c in params)}); each trained on every fold with the "
        f"entry's seeds. `{metric}` is the mean over folds and seeds of the mean over queries.\n\n",
        f"## The best {min(top, len(combinations))} combinations by validation {metric} (Table 3)\n\n",
        markdown_table(best),
        f"\n\n## Best of k combinations drawn at random (Fig. 1)\n\nThe expected validation and test {metric} of "
        "the combination with the best validation value among k drawn uniformly without replacement, computed "
        "exactly over all draws (the paper averages 10,000 random draws).\n\n",
        markdown_table(curve), _claims("grid", table, entry), _params(base_params),
    ])


def scores_markdown(table: pd.DataFrame, entry: dict, dataset: str) -> str:
    """A scores entry: each sub-model's validation score distribution and the claims."""
    return "".join([
        _heading(entry, dataset, f"Sub-models {', '.join(table['model'])} of `{entry['bag']}` (seed 1, first fold), "
                                 "each trained on its own sample of the training queries; raw validation scores."),
        markdown_table(table, "{:.4g}"), _claims("scores", table, entry),
    ])


def catalog_rows(entries: dict, tables: dict, cpu: dict, files: dict, level: float, dataset: str) -> pd.DataFrame:
    """One row per (entry, claim): paper, artefact, the paper's claim and numbers, this run's numbers, verdict,
    the file that has it and the CPU time of the jobs behind it.  ``tables``: {entry: table} of compare and
    sweep entries; ``cpu``: {entry: (seconds, missing benchmark files)}."""
    rows = []
    for name, entry in entries.items():
        base = {"paper": entry["paper"], "artefact": entry["artefact"], "entry": name,
                "paper_data": entry.get("paper_data", "")}
        seconds, missing = cpu.get(name, (0.0, 0))
        cpu_text = f"{seconds:.0f}" + (f" (+{missing} jobs unrecorded)" if missing else "") if name in tables else ""
        if entry["kind"] in TABLE_KINDS:
            verdicts = claim_verdicts(entry["kind"], tables[name], entry["claims"], level)
            where = files[name].rsplit(".", 1)[0] + ".md"
            if not verdicts:
                verdicts = [{"text": "(no claim checked; the table is the artefact)", "paper_numbers": "",
                             "measured": "see the table", "verdict": "listed"}]
            for v in verdicts:
                verdict = v["verdict"]
                if verdict in (REPRODUCED, DIFFERS, NOT_SIGNIFICANT) and entry.get("paper_data") and dataset.lower() not in \
                        entry["paper_data"].lower():
                    verdict += f" on {dataset} (paper: {entry['paper_data']})"
                rows.append({**base, "claim": v["text"], "paper_numbers": v["paper_numbers"], "this_run": v["measured"],
                             "verdict": verdict, "file": where, "cpu_seconds": cpu_text})
        elif entry["kind"] == "target" and name in files:
            rows.append({**base, "claim": entry.get("note", ""), "paper_numbers": "", "this_run": "see the file",
                         "verdict": ELSEWHERE, "file": files[name], "cpu_seconds": ""})
        elif entry["kind"] == "target":
            rows.append({**base, "claim": entry.get("note", ""), "paper_numbers": "",
                         "this_run": f"section {entry['section']!r} is off in this config", "verdict": NOT_RUN,
                         "file": entry["target"], "cpu_seconds": ""})
        else:
            where = f"config: {entry['config']}" if entry.get("config") else ""
            rows.append({**base, "claim": entry["note"], "paper_numbers": "", "this_run": "",
                         "verdict": NOT_RUN, "file": where, "cpu_seconds": ""})
    return pd.DataFrame(rows)


def catalog_markdown(rows: pd.DataFrame, dataset: str, level: float, data: str = "") -> str:
    counts = rows.drop_duplicates(["entry", "claim"])["verdict"].str.split(" on ").str[0].value_counts()
    summary = ", ".join(f"{n} {v}" for v, n in counts.items())
    return "".join([
        f"# Reproduction catalog: {dataset}\n\n",
        f"Data: {data}.\n\n" if data else "",
        "One row per claim of each paper artefact. *reproduced* / *same direction, not significant* / *differs*: "
        f"the claim checked on this run's numbers (two-sided paired t-test over the pooled test queries, level "
        f"{level:g}: a 'better' claim is reproduced only when significant; trends by the sign of Spearman's rho of "
        "the swept value against the metric); when the paper's data is another data set the verdict says so. "
        "*see its target*: reproduced by another section, whose own page states the claim and the measured "
        "number. *not run here*: why, and the config for the paper's data. CPU seconds: the benchmarked "
        "training and table jobs behind the entry (a job shared by entries counts in each).\n\n",
        f"Rows: {summary}.\n\n",
        markdown_table(rows[["paper", "artefact", "claim", "paper_numbers", "this_run", "verdict", "file",
                             "cpu_seconds"]]),
    ])
