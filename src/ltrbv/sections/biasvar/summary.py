"""``results/{dataset}/summary.md``: each claim of the papers next to what this run measured.

A trend claim ("bias falls as p grows") is tested on the difference between the largest and the
smallest swept value, paired over the same test queries (:mod:`ltrbv.sections.biasvar.trends`: a t-test over
queries, and the bootstrap interval over queries), and so is "two-fold variance above bootstrap
variance".  The claim engine (:mod:`ltrbv.compare.claims`, as on ``catalog.md``) judges every such claim of
the page as one family (Holm): reproduced, not reproduced, contradicted or inconclusive, with the
minimum detectable effect.  Spearman's rank correlation between the swept value and the estimate is
given beside it.  Whatever the answers, they are reported.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...compare import claims as engine
from .tables import SCHEME_LABELS


#: "far above": SRE at least this many times VRE (the paper's MSLR / Yahoo Table 5 ratios are larger)
FAR_RATIO = 5.0


def _fmt(row) -> str:
    return f"{row['estimate']:.4g} [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"


def _judged_rows(trends: pd.DataFrame, wanted, policy: engine.Policy) -> tuple[list, int]:
    """``[(claim, row, judged)]`` of every tested row of ``wanted`` (``[(comparison, quantity, metric, direction,
    claim)]``), judged as one family; and the family's size."""
    found = []
    for comparison, quantity, metric, direction, claim in wanted:
        if trends.empty:
            continue
        rows = trends[(trends["comparison"] == comparison) & (trends["quantity"] == quantity)
                      & (trends["metric"] == metric)]
        for _, row in rows.iterrows():
            tested = engine.Tested(engine.TREND, direction * row["difference"],
                                   *sorted((direction * row["ci_low"], direction * row["ci_high"])), row["p"],
                                   int(row["n_queries"]), row["se"])
            found.append((claim, row, tested))
    judged = engine.judge([t for _, _, t in found], policy)
    return [(claim, row, j) for (claim, row, _), j in zip(found, judged)], (judged[0].family if judged else 0)


def _test_cells(row, j) -> str:
    p = "" if np.isnan(j.tested.p) else f"{j.tested.p:.3g}; {j.p_adjusted:.3g}"
    return (f"{row['difference']:+.3g} [{row['ci_low']:+.3g}, {row['ci_high']:+.3g}] | {p} | {j.mde:.3g} | "
            f"**{j.verdict}**")


def build_summary(dataset: str, sweep: pd.DataFrame, trends: pd.DataFrame, comparison: pd.DataFrame,
                  zhang: pd.DataFrame, significance: pd.DataFrame, param: str, metric: str,
                  policy: engine.Policy = engine.Policy()) -> str:
    lines = [f"# {dataset}: paper claims and what this run measured", "",
             "Every number comes from `tables/biasvar_sweep.csv`, `tables/biasvar_trends.csv`, "
             "`tables/biasvar_comparison.csv`, `tables/zhang.csv` and `tables/significance.csv`, made by the rules "
             "of `rules/biasvar.smk` from the prediction files under `biasvar/predictions/` (each with its seed in "
             "`meta.json`).  A change is tested *paired over test queries*: the difference between two runs on "
             "the same queries, a t-test over queries and a 95% bootstrap interval over queries. **reproduced**: "
             "significant in the claimed direction (adjusted p); **contradicted**: significant the other way; "
             "**inconclusive**: not significant and the MDE above the paper's effect; **not reproduced**: not "
             "significant (see the MDE).", ""]
    claims = [("bias2", "score", -1, "Pointwise squared bias falls as p grows (§6.3)"),
              ("variance", "score", +1, "Pointwise variance rises as p grows (§6.3)"),
              ("sre", metric, -1, f"SRE ({metric}) falls as p grows (§6.4; may flatten at large p)"),
              ("vre", metric, +1, f"VRE ({metric}) rises as p grows (§6.4)"),
              ("ranking_error", metric, -1, f"Ranking error ({metric}) falls as p grows (Fig. 7)")]
    wanted = [("last_minus_first", q, m, d, c) for q, m, d, c in claims]
    wanted += [("twofold_minus_bootstrap", q, m, +1, None) for q, m in (("variance", "score"), ("vre", metric))]
    judged, family = _judged_rows(trends, wanted, policy)
    lines += [engine.family_statement(family, policy) + " A claim's effect: the change (largest minus smallest "
              "value; two-fold minus bootstrap) in the claimed direction; the paper gives no effect size here, so "
              "a test without a significant change is *not reproduced*, with its MDE.", ""]
    lines += [f"## Ibrahim (2021), Figs. 5-6: bias and variance against the swept {param}", "",
              "| claim | learner | fold | scheme | smallest → largest value | difference [95% CI] | "
              "p (raw; adjusted) | MDE | verdict | Spearman ρ |", "|---|---|---|---|---|---|---|---|---|---|"]
    for claim, r, j in judged:
        if r["comparison"] != "last_minus_first":
            continue
        lines.append(f"| {claim} | {r['learner']} | {r['fold']} | {SCHEME_LABELS.get(r['scheme'], r['scheme'])} | "
                     f"{r['first']:g}: {r['estimate_first']:.4g} → {r['last']:g}: {r['estimate_last']:.4g} | "
                     f"{_test_cells(r, j)} | {r['spearman']:.2f} ({int(r['n_values'])} values) |")
    lines += ["", "## Two-fold variance above bootstrap variance (§6.3: ~3.5× at the largest p)", "",
              "| learner | fold | setting | quantity | bootstrap | two-fold | ratio | difference [95% CI] | "
              "p (raw; adjusted) | MDE | verdict |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, r, j in judged:
        if r["comparison"] != "twofold_minus_bootstrap":
            continue
        quantity = r["quantity"] if r["metric"] == "score" else f"{r['quantity']} ({r['metric']})"
        ratio = r["estimate_last"] / r["estimate_first"] if r["estimate_first"] > 0 else float("nan")
        lines.append(f"| {r['learner']} | {r['fold']} | {r['setting']} | {quantity} | {r['estimate_first']:.4g} | "
                     f"{r['estimate_last']:.4g} | {ratio:.2f} | {_test_cells(r, j)} |")
    lines += ["", "## SRE far above VRE (§6.5: \"the value of SRE has been found to be far greater than VRE\")", "",
              "| learner | fold | setting | scheme | metric | SRE | VRE | SRE/VRE | measured |", "|---|---|---|---|---|---|---|---|---|"]
    sre = sweep[sweep["quantity"] == "sre"].set_index(["learner", "fold", "setting", "scheme", "metric"])
    vre = sweep[sweep["quantity"] == "vre"].set_index(["learner", "fold", "setting", "scheme", "metric"])
    for key, s in sre.iterrows():
        if key[4] != metric or key not in vre.index:
            continue
        v = vre.loc[key]
        ratio = s["estimate"] / v["estimate"] if v["estimate"] > 0 else float("inf")
        above = s["ci_low"] > v["ci_high"]
        measured = engine.untested(engine.DESCRIPTIVE, above and ratio >= FAR_RATIO)
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {SCHEME_LABELS.get(key[3], key[3])} | {key[4]} | {_fmt(s)} | "
                     f"{_fmt(v)} | {ratio:.1f} | {measured} |")
    lines += ["", f"(Descriptive, outside the family: *holds* when SRE's interval lies above VRE's and SRE ≥ "
              f"{FAR_RATIO:g} × VRE.)", ""]
    if not comparison.empty:
        lines += ["## Table 5 analogue: learners compared by SRE and VRE (two-fold in the paper)", ""]
        block = comparison[comparison["metric"] == metric]
        lines += ["| learner | fold | scheme | SRE | VRE | error | SRE share of SRE + VRE |", "|---|---|---|---|---|---|---|"]
        for r in block.itertuples():
            share = r.sre / (r.sre + r.vre) if (r.sre + r.vre) > 0 else float("nan")
            lines.append(f"| {r.learner} | {r.fold} | {SCHEME_LABELS.get(r.scheme, r.scheme)} | "
                         f"{r.sre:.4f} [{r.sre_ci_low:.4f}, {r.sre_ci_high:.4f}] | "
                         f"{r.vre:.4f} [{r.vre_ci_low:.4f}, {r.vre_ci_high:.4f}] | "
                         f"{r.ranking_error:.4f} [{r.ranking_error_ci_low:.4f}, {r.ranking_error_ci_high:.4f}] | "
                         f"{share:.0%} |")
        if len(block):
            best_sre = block.loc[block["sre"].idxmin(), "learner"]
            best_vre = block.loc[block["vre"].idxmin(), "learner"]
            best_err = block.loc[block["ranking_error"].idxmin(), "learner"]
            lines += ["", f"Lowest SRE: **{best_sre}**; lowest VRE: **{best_vre}**; lowest error: **{best_err}**. "
                      "The paper: SRE is the main contributor to the error for both RF-point and LambdaMART.", ""]
    if not significance.empty:
        significance = significance.fillna({"mark_t": "", "mark_randomisation": ""})
        pooled = significance[significance["fold"] == "all"]
        baseline = pooled["baseline"].iloc[0]
        correction = pooled["correction"].iloc[0] if "correction" in pooled else "none"
        lines += [f"## Performance against {baseline} (paired tests over all test queries)", "",
                  f"p-values and markers are {correction}-adjusted over the comparisons of each metric "
                  "(`tables/significance.csv` has the raw ones too).", "",
                  "| learner | metric | mean | baseline | difference | p (t-test) | p (randomisation) |",
                  "|---|---|---|---|---|---|---|"]
        for r in pooled[(pooled["baseline"] == baseline) & (pooled["learner"] != baseline)].itertuples():
            lines.append(f"| {r.learner} | {r.metric} | {r.mean:.4f} | {r.baseline_mean:.4f} | {r.difference:+.4f}"
                         f"{r.mark_t} | {r.p_t_adjusted:.3g} | {r.p_randomisation_adjusted:.3g} |")
        main = pooled[pooled["baseline"] == baseline]
        for r in pooled[(pooled["baseline"] != baseline) & (pooled["learner"] != pooled["baseline"])].itertuples():
            lines.append(f"| {r.learner} vs {r.baseline} | {r.metric} | {r.mean:.4f} | {r.baseline_mean:.4f} | "
                         f"{r.difference:+.4f}{r.mark_t} | {r.p_t_adjusted:.3g} | {r.p_randomisation_adjusted:.3g} |")
        pair = main.set_index(["learner", "metric"])
        if ("rf-list", "ndcg@10") in pair.index and ("rf-point", "ndcg@10") in pair.index:
            diff = pair.loc[("rf-list", "ndcg@10"), "mean"] - pair.loc[("rf-point", "ndcg@10"), "mean"]
            lines += ["", f"Ibrahim & Carman (2016): RF-list beats RF-point. Measured NDCG@10 difference: {diff:+.4f}"
                      " (the paired test is the `rf-list vs rf-point` row when `significance.pairs` asks for it).", ""]
        lines.append("")
    if not zhang.empty:
        lines += ["## Zhang et al. (2013): bias and variance of the metric across queries", ""]
        for (m, target), rows in zhang.groupby(["metric", "target"], sort=False):
            best = rows.loc[rows["bias2_plus_variance"].idxmin()]
            dominant = "bias²" if (rows["bias2"] > rows["variance"]).all() else (
                "variance" if (rows["variance"] > rows["bias2"]).all() else "neither throughout")
            lines.append(f"* {m}, target {target}: lowest Bias² + Var is **{best['learner']}** "
                         f"({best['bias2_plus_variance']:.4f}); the larger term for every learner: {dominant}.")
        lines.append("")
    return "\n".join(lines) + "\n"
