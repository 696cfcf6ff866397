"""``results/{dataset}/summary.md``: each claim of the papers next to what this run measured.

A trend claim ("bias falls as p grows") is judged from the difference between the largest and the
smallest swept value, paired over the same test queries, and its bootstrap interval over queries
(:mod:`ltrbv.study.trends`): **yes** when the change has the claimed sign and the interval excludes 0,
**yes, within noise** when it has the claimed sign but the interval holds 0, **no** otherwise.
Spearman's rank correlation between the swept value and the estimate is given beside it.  Whatever
the answers, they are reported.
"""

from __future__ import annotations

import pandas as pd

from .tables import SCHEME_LABELS
from .trends import verdict


#: "far above": SRE at least this many times VRE (the paper's MSLR / Yahoo Table 5 ratios are larger)
FAR_RATIO = 5.0


def _fmt(row) -> str:
    return f"{row['estimate']:.4g} [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"


def build_summary(dataset: str, sweep: pd.DataFrame, trends: pd.DataFrame, comparison: pd.DataFrame,
                  zhang: pd.DataFrame, significance: pd.DataFrame, param: str, metric: str) -> str:
    lines = [f"# {dataset}: paper claims and what this run measured", "",
             "Every number comes from `tables/biasvar_sweep.csv`, `tables/biasvar_trends.csv`, "
             "`tables/biasvar_comparison.csv`, `tables/zhang.csv` and `tables/significance.csv`, made by the rules "
             "of `rules/biasvar.smk` from the prediction files under `biasvar/predictions/` (each with its seed in "
             "`meta.json`).  A change is tested *paired over test queries*: the difference between two runs on "
             "the same queries, with a 95% bootstrap interval over queries; **yes** = the claimed sign and an "
             "interval that excludes 0.", ""]
    lines += [f"## Ibrahim (2021), Figs. 5-6: bias and variance against the swept {param}", "",
              "| claim | learner | fold | scheme | measured | smallest → largest value | difference [95% CI] | "
              "Spearman ρ |", "|---|---|---|---|---|---|---|---|"]
    claims = [("bias2", "score", -1, "Pointwise squared bias falls as p grows (§6.3)"),
              ("variance", "score", +1, "Pointwise variance rises as p grows (§6.3)"),
              ("sre", metric, -1, f"SRE ({metric}) falls as p grows (§6.4; may flatten at large p)"),
              ("vre", metric, +1, f"VRE ({metric}) rises as p grows (§6.4)"),
              ("ranking_error", metric, -1, f"Ranking error ({metric}) falls as p grows (Fig. 7)")]
    last_first = trends[trends["comparison"] == "last_minus_first"] if len(trends) else trends
    for quantity, qmetric, direction, claim in claims:
        rows = last_first[(last_first["quantity"] == quantity) & (last_first["metric"] == qmetric)] \
            if len(last_first) else last_first
        for r in rows.itertuples():
            lines.append(f"| {claim} | {r.learner} | {r.fold} | {SCHEME_LABELS.get(r.scheme, r.scheme)} | "
                         f"{verdict(r.difference, r.ci_low, r.ci_high, direction)} | {r.first:g}: "
                         f"{r.estimate_first:.4g} → {r.last:g}: {r.estimate_last:.4g} | {r.difference:+.3g} "
                         f"[{r.ci_low:+.3g}, {r.ci_high:+.3g}] | {r.spearman:.2f} ({int(r.n_values)} values) |")
    lines += ["", "## Two-fold variance above bootstrap variance (§6.3: ~3.5× at the largest p)", "",
              "| learner | fold | setting | quantity | bootstrap | two-fold | ratio | difference [95% CI] | measured |",
              "|---|---|---|---|---|---|---|---|---|"]
    gaps = trends[trends["comparison"] == "twofold_minus_bootstrap"] if len(trends) else trends
    for quantity, qmetric in (("variance", "score"), ("vre", metric)):
        rows = gaps[(gaps["quantity"] == quantity) & (gaps["metric"] == qmetric)] if len(gaps) else gaps
        for r in rows.itertuples():
            ratio = r.estimate_last / r.estimate_first if r.estimate_first > 0 else float("nan")
            lines.append(f"| {r.learner} | {r.fold} | {r.setting} | {quantity if qmetric == 'score' else f'{quantity} ({qmetric})'} | "
                         f"{r.estimate_first:.4g} | {r.estimate_last:.4g} | {ratio:.2f} | {r.difference:+.3g} "
                         f"[{r.ci_low:+.3g}, {r.ci_high:+.3g}] | {verdict(r.difference, r.ci_low, r.ci_high, +1)} |")
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
        measured = ("**yes**" if ratio >= FAR_RATIO else "**above, not far**") if above else "**no**"
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {SCHEME_LABELS.get(key[3], key[3])} | {key[4]} | {_fmt(s)} | "
                     f"{_fmt(v)} | {ratio:.1f} | {measured} |")
    lines += ["", f"(**yes**: SRE's interval lies above VRE's and SRE ≥ {FAR_RATIO:g} × VRE; **above, not far**: "
              "intervals apart, ratio smaller.)", ""]
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
