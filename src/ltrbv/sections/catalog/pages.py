"""The catalog's Markdown: one page per compare or sweep entry, and ``catalog.md``, one row per paper artefact."""

from __future__ import annotations

import pandas as pd

from ...tables import markdown_table
from ...compare import claims as engine
from .tables import BEST_OF_K, COMBINATION, QUANTITIES, SECONDS_PER_TREE, TABLE_KINDS
from ...compare.significance import POOLED, significance_markdown

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


def _num(value, spec: str = ".3g") -> str:
    return "" if pd.isna(value) else format(float(value), spec)


def _estimate(r) -> str:
    if pd.isna(r.estimate) or pd.isna(r.ci_low):
        return _num(r.estimate, "+.4g")
    return f"{r.estimate:+.4g} [{r.ci_low:+.4g}, {r.ci_high:+.4g}]"


def _claims(tests: pd.DataFrame | None) -> str:
    """An entry page's claims: each one's test (raw p); the verdicts are the catalog page's, whose family is
    every tested claim of the page."""
    if tests is None or not len(tests):
        return ""
    rows = pd.DataFrame([{"claim": r.text, "paper": r.paper_numbers, "this run": r.measured,
                          "test": r.relation or r.untested, "estimate [95% CI]": _estimate(r),
                          "margin": _num(r.margin, ".4g"), "p (raw)": _num(r.p),
                          "p randomisation (raw)": _num(r.p_randomisation)} for r in tests.itertuples()])
    return ("\n## The paper's claims and their tests\n\nEach claim's test on this run; the verdict, with the "
            "p-value adjusted over the catalog page's family and the minimum detectable effect, is on "
            "`catalog.md`.\n\n" + markdown_table(rows))


def compare_markdown(table: pd.DataFrame, entry: dict, dataset: str, learner_params: dict,
                     tests: pd.DataFrame | None = None) -> str:
    """The significance page of a compare entry, its seconds per model, its claims, and the learners as run."""
    pooled = table[(table["fold"] == POOLED) & (table["baseline"] == entry["baseline"])]
    quantities = [q for q in QUANTITIES if pooled[q].notna().any()]
    structure = pooled.drop_duplicates("learner")[["learner", *quantities]]
    body = significance_markdown(table, dataset).split("\n", 1)[1]
    return "".join([
        _heading(entry, dataset), body,
        "\n## Training seconds per model, and the forests' mean tree (leaves, training rows per leaf, leaf score, "
        "depth); means over folds and seeds\n\n" + markdown_table(structure, "{:.3g}"),
        _claims(tests), _params(learner_params),
    ])


def sweep_markdown(table: pd.DataFrame, entry: dict, dataset: str, learner_params: dict,
                   tests: pd.DataFrame | None = None) -> str:
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
        markdown_table(pd.DataFrame(wide)), _claims(tests), _params(learner_params),
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


def grid_markdown(table: pd.DataFrame, entry: dict, dataset: str, base_params: dict, top: int = 10,
                  tests: pd.DataFrame | None = None) -> str:
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
        markdown_table(curve), _claims(tests), _params(base_params),
    ])


def scores_markdown(table: pd.DataFrame, entry: dict, dataset: str, tests: pd.DataFrame | None = None) -> str:
    """A scores entry: each sub-model's validation score distribution and the claims."""
    return "".join([
        _heading(entry, dataset, f"Sub-models {', '.join(table['model'])} of `{entry['bag']}` (seed 1, first fold), "
                                 "each trained on its own sample of the training queries; raw validation scores."),
        markdown_table(table, "{:.4g}"), _claims(tests),
    ])


def catalog_rows(entries: dict, judged: dict, cpu: dict, files: dict, dataset: str) -> pd.DataFrame:
    """One row per (entry, claim): paper, artefact, the paper's claim and numbers, this run's numbers, the test's
    estimate, p-values and MDE, the verdict, the file that has it and the CPU time of the jobs behind it.
    ``judged``: {entry: its claims judged within the page's family (:func:`~ltrbv.sections.catalog.claims.judge_claims`)}
    of the entries with a table; ``cpu``: {entry: (seconds, missing benchmark files)}."""
    rows = []
    for name, entry in entries.items():
        base = {"paper": entry["paper"], "artefact": entry["artefact"], "entry": name,
                "paper_data": entry.get("paper_data", ""), "estimate [95% CI]": "", "p (raw; adjusted)": "",
                "MDE": "", "margin": ""}
        seconds, missing = cpu.get(name, (0.0, 0))
        cpu_text = f"{seconds:.0f}" + (f" (+{missing} jobs unrecorded)" if missing else "") if name in judged else ""
        if entry["kind"] in TABLE_KINDS:
            where = files[name].rsplit(".", 1)[0] + ".md"
            claims = judged[name]
            if not len(claims):
                rows.append({**base, "claim": "(no claim checked; the table is the artefact)", "paper_numbers": "",
                             "this_run": "see the table", "verdict": "listed", "file": where, "cpu_seconds": cpu_text})
            for r in claims.itertuples():
                verdict = r.verdict
                if verdict in engine.OUTCOMES and entry.get("paper_data") and \
                        dataset.lower() not in entry["paper_data"].lower():
                    verdict += f" on {dataset} (paper: {entry['paper_data']})"
                p = "" if pd.isna(r.p) else f"{r.p:.3g}; {r.p_adjusted:.3g}"
                rows.append({**base, "claim": r.text, "paper_numbers": r.paper_numbers, "this_run": r.measured,
                             "estimate [95% CI]": _estimate(r) if r.relation else "", "p (raw; adjusted)": p,
                             "MDE": _num(r.mde, ".3g"), "margin": _num(r.margin, ".4g"), "verdict": verdict,
                             "file": where, "cpu_seconds": cpu_text})
        elif entry["kind"] == "target" and name in files:
            rows.append({**base, "claim": entry.get("note", ""), "paper_numbers": "", "this_run": "see the file",
                         "verdict": ELSEWHERE, "file": files[name], "cpu_seconds": ""})
        else:  # a target whose section is off
            rows.append({**base, "claim": entry.get("note", ""), "paper_numbers": "",
                         "this_run": f"section {entry['section']!r} is off in this config", "verdict": NOT_RUN,
                         "file": entry["target"], "cpu_seconds": ""})
    return pd.DataFrame(rows)


def catalog_markdown(rows: pd.DataFrame, dataset: str, policy: engine.Policy, family: int, data: str = "") -> str:
    counts = rows.drop_duplicates(["entry", "claim"])["verdict"].str.split(" on ").str[0].value_counts()
    summary = ", ".join(f"{n} {v}" for v, n in counts.items())
    return "".join([
        f"# Reproduction catalog: {dataset}\n\n",
        f"Data: {data}.\n\n" if data else "",
        "One row per claim of each paper artefact, judged by a test over the pooled test queries of all folds "
        "(each query's value averaged over seeds): *greater* by the paired t-test (the randomisation test's "
        "p-values are on the entry's page), *trend* by the per-query change along the swept values, *similar* by "
        "two one-sided tests (TOST) within the claim's margin. "
        "**reproduced**: significant in the claimed direction (similar: equivalent within the margin); "
        "**contradicted**: significant in the opposite direction (similar: significantly beyond the margin); "
        "**inconclusive**: not significant, and the minimum detectable effect (MDE, at "
        f"{policy.power:.0%} power) is larger than the paper's own effect or the margin; **not reproduced**: "
        "not significant, with the power to see the paper's effect (or no paper effect to compare: see the MDE). "
        f"{engine.family_statement(family, policy)} Timings (cores shared with other jobs) and descriptive "
        "claims are not tests, are outside the family, and say whether they hold. When the paper's data is "
        "another data set the verdict says so. *see its target*: reproduced by another section, whose own page "
        "states the claim and the measured number. *not run here*: why. CPU seconds: the benchmarked "
        "training and table jobs behind the entry (a job shared by entries counts in each).\n\n",
        f"Rows: {summary}.\n\n",
        markdown_table(rows[["paper", "artefact", "claim", "paper_numbers", "this_run", "estimate [95% CI]",
                             "p (raw; adjusted)", "MDE", "margin", "verdict", "file", "cpu_seconds"]]),
    ])
