"""A :class:`~ltrbv.compare.systems.Comparison` as text: a Markdown table for the terminal, LaTeX for a paper.

Markers (:func:`ltrbv.biasvar.significance.significance_marker`) use the *adjusted* p-value of one test
(``test="t"`` or ``"randomisation"``): ``*`` p < 0.05, ``**`` p < 0.01, ``†`` significantly worse than
the baseline.  Every output states the test, the correction and the family size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..biasvar.significance import significance_marker
from ..tables import markdown_table

CORRECTION_NAMES = {"holm": "Holm-corrected", "bh": "Benjamini-Hochberg-corrected", "none": "uncorrected"}
TEST_NAMES = {"t": "paired t-test", "randomisation": "paired randomisation test"}


def _marker(row, test: str) -> str:
    return significance_marker(row[f"p_{test}_adjusted"], row["difference"])


def describe(comparison, test: str = "t") -> str:
    """One paragraph: queries, convention, baseline, intervals, tests and the correction."""
    n_compared = len(comparison.systems) - 1
    n_queries = sorted(set(comparison.table["n_queries"]))
    convention = f", `{comparison.convention}` convention" if comparison.convention else ""
    return (f"{' / '.join(map(str, n_queries))} queries{convention}; baseline **{comparison.baseline}**; "
            f"{comparison.level:.0%} percentile bootstrap intervals over queries ({comparison.n_resamples} "
            f"resamples). Two-sided paired t-test and paired randomisation test ({comparison.n_permutations} "
            f"sign flips), {CORRECTION_NAMES[comparison.correction]} over the {n_compared} comparison(s) of each "
            f"metric; markers by the adjusted {TEST_NAMES[test]}: `*` p < 0.05, `**` p < 0.01, `†` worse than "
            "the baseline." + "".join(f" {note}." for note in comparison.notes))


def markdown(comparison, test: str = "t") -> str:
    """Means with intervals (systems x metrics), then one row per comparison with every statistic."""
    table = comparison.table
    means = pd.DataFrame([
        {"system": system, **{row.metric: f"{row.mean:.4f} [{row.ci_low:.4f}, {row.ci_high:.4f}]"
                              + (_marker(row._asdict(), test) if system != comparison.baseline else "")
                              for row in table[table["system"] == system].itertuples()}}
        for system in comparison.systems])
    compared = table[table["system"] != comparison.baseline]
    details = pd.DataFrame([{
        "system": row.system, "metric": row.metric,
        "difference [CI]": f"{row.difference:+.4f} [{row.difference_ci_low:+.4f}, {row.difference_ci_high:+.4f}]",
        "p t": row.p_t, "p t adj.": row.p_t_adjusted, "p rand.": row.p_randomisation,
        "p rand. adj.": row.p_randomisation_adjusted, "Cohen's d": row.cohens_d,
        "wins/ties/losses": f"{row.wins}/{row.ties}/{row.losses}"} for row in compared.itertuples()])
    return "".join([describe(comparison, test), "\n\n", markdown_table(means), "\n",
                    f"Against {comparison.baseline}:\n\n", markdown_table(details, float_format="{:.4g}")])


def _latex_escape(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"), ("_", r"\_"),
                          ("$", r"\$"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"),
                          ("^", r"\textasciicircum{}")):
        text = text.replace(char, escaped)
    return text


def _latex_marker(marker: str) -> str:
    return f"$^{{{marker.replace('†', chr(92) + 'dagger ')}}}$" if marker else ""


def latex(comparison, test: str = "t") -> str:
    """A booktabs table: systems x metrics, the best mean of each metric in bold, markers as superscripts."""
    table = comparison.table
    best = table.groupby("metric")["mean"].max()
    lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{l" + "r" * len(comparison.metrics) + "}",
             r"\toprule", " & ".join(["System", *(_latex_escape(m) for m in comparison.metrics)]) + r" \\",
             r"\midrule"]
    for system in comparison.systems:
        cells = [_latex_escape(system)]
        for row in table[table["system"] == system].to_dict(orient="records"):
            value = f"{row['mean']:.4f}"
            if np.isclose(row["mean"], best[row["metric"]], rtol=0, atol=1e-12):
                value = rf"\textbf{{{value}}}"
            marker = _marker(row, test) if system != comparison.baseline else ""
            cells.append(value + _latex_marker(marker))
        lines.append(" & ".join(cells) + r" \\")
    settings = describe(comparison, test).split(" Two-sided")[0].replace("**", "").replace("`", "")
    caption = (_latex_escape(settings)
               + rf" Markers: {CORRECTION_NAMES[comparison.correction]} two-sided {TEST_NAMES[test]} against "
               rf"{_latex_escape(comparison.baseline)}, $^{{*}}$ $p<0.05$, $^{{**}}$ $p<0.01$, "
               r"$^{\dagger}$ worse than the baseline."
               + "".join(f" {_latex_escape(note)}." for note in comparison.notes))
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{caption}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"
