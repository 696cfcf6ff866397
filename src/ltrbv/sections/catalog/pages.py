"""The catalog's Markdown: what every entry's page shares (each kind writes its own body,
:mod:`ltrbv.sections.catalog.kinds`), and ``catalog.md``, one row per claim of every paper artefact."""

from __future__ import annotations

import pandas as pd

from ...compare import claims as engine
from ...tables import markdown_table

NOT_RUN = "not run here"
ELSEWHERE = "see its target"


def heading(entry: dict, dataset: str, convention: str | None = None) -> str:
    """Title, the metrics' convention (a curve's is its learner's own ``eval_convention``), the paper's data, note."""
    data = f" The paper's data: {entry['paper_data']}." if entry.get("paper_data") else ""
    note = f"\n\n{entry['note']}" if entry.get("note") else ""
    convention = convention or f"`{entry['convention']}` convention."
    return f"# {entry['paper']}, {entry['artefact']}: {dataset}\n\n{convention}{data}{note}\n\n"


def params_section(learner_params: dict) -> str:
    rows = pd.DataFrame([{"learner": k, "params": ", ".join(f"{p}={v}" for p, v in params.items())}
                         for k, params in learner_params.items()])
    return "\n## Learners as run\n\n" + markdown_table(rows)


def _num(value, spec: str = ".3g") -> str:
    return "" if pd.isna(value) else format(float(value), spec)


def _estimate(r) -> str:
    if pd.isna(r.estimate) or pd.isna(r.ci_low):
        return _num(r.estimate, "+.4g")
    return f"{r.estimate:+.4g} [{r.ci_low:+.4g}, {r.ci_high:+.4g}]"


def claims_section(tests: pd.DataFrame | None) -> str:
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


def catalog_rows(entries: dict, judged: dict, cpu: dict, files: dict, dataset: str, with_job) -> pd.DataFrame:
    """One row per (entry, claim): paper, artefact, the paper's claim and numbers, this run's numbers, the test's
    estimate, p-values and MDE, the verdict, the file that has it and the CPU time of the jobs behind it.
    ``judged``: {entry: its claims judged within the page's family (:func:`~ltrbv.sections.catalog.claims.judge_claims`)}
    of the entries with a table; ``cpu``: {entry: (seconds, missing benchmark files)}; ``with_job``: the kinds whose
    entries have a job (a table)."""
    rows = []
    for name, entry in entries.items():
        base = {"paper": entry["paper"], "artefact": entry["artefact"], "entry": name,
                "paper_data": entry.get("paper_data", ""), "estimate [95% CI]": "", "p (raw; adjusted)": "",
                "MDE": "", "margin": ""}
        seconds, missing = cpu.get(name, (0.0, 0))
        cpu_text = f"{seconds:.0f}" + (f" (+{missing} jobs unrecorded)" if missing else "") if name in judged else ""
        if entry["kind"] in with_job:
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
        f"{engine.family_statement(family, policy)} Timings (the median CPU seconds of fits by a timing job that "
        "no other job runs beside; the load is recorded) and descriptive claims are not tests, are outside the "
        "family, and say whether they hold. When the paper's data is "
        "another data set the verdict says so. *see its target*: reproduced by another section, whose own page "
        "states the claim and the measured number. *not run here*: why. CPU seconds: the benchmarked "
        "training and table jobs behind the entry (a job shared by entries counts in each).\n\n",
        f"Rows: {summary}.\n\n",
        markdown_table(rows[["paper", "artefact", "claim", "paper_numbers", "this_run", "estimate [95% CI]",
                             "p (raw; adjusted)", "MDE", "margin", "verdict", "file", "cpu_seconds"]]),
    ])
