"""``results/{dataset}/summary.md``: each claim of the papers next to what this run measured.

A trend claim ("bias falls as p grows") is judged from the estimates at the smallest and the largest
swept value and their confidence intervals over test queries: **yes** when the change has the claimed
sign and the two intervals do not overlap, **yes, within noise** when it has the claimed sign but the
intervals overlap, **no** otherwise.  Spearman's rank correlation between the swept value and the
estimate is given beside it.  Whatever the answers, they are reported.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .tables import SCHEME_LABELS


def _fmt(row) -> str:
    return f"{row['estimate']:.4g} [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"


def trend_verdict(curve: pd.DataFrame, direction: int) -> tuple[str, str]:
    """(verdict, evidence) for a curve (rows with value, estimate, ci_low, ci_high) claimed to move in
    ``direction`` (+1 rises, -1 falls) as the value grows."""
    curve = curve.sort_values("value")
    if len(curve) < 2:
        return "not measured", "fewer than two swept values"
    first, last = curve.iloc[0], curve.iloc[-1]
    change = last["estimate"] - first["estimate"]
    separate = last["ci_low"] > first["ci_high"] if direction > 0 else last["ci_high"] < first["ci_low"]
    rho = stats.spearmanr(curve["value"], curve["estimate"]).statistic if curve["estimate"].nunique() > 1 else np.nan
    if np.sign(change) == direction:
        verdict = "**yes**" if separate else "**yes, within noise** (intervals overlap)"
    else:
        verdict = "**no**"
    evidence = (f"{first['value']:g}: {_fmt(first)} → {last['value']:g}: {_fmt(last)}; "
                f"Spearman ρ(value, estimate) = {rho:.2f} over {len(curve)} values")
    return verdict, evidence


def _curves(sweep: pd.DataFrame, quantity: str, metric: str):
    rows = sweep[(sweep["setting"] != "base") & (sweep["quantity"] == quantity) & (sweep["metric"] == metric)].copy()
    rows["value"] = pd.to_numeric(rows["value"], errors="coerce")
    for (learner, fold, scheme), curve in rows.groupby(["learner", "fold", "scheme"], sort=False):
        yield learner, fold, scheme, curve


def build_summary(dataset: str, sweep: pd.DataFrame, comparison: pd.DataFrame, zhang: pd.DataFrame,
                  significance: pd.DataFrame, param: str, metric: str) -> str:
    lines = [f"# {dataset}: paper claims and what this run measured", "",
             "Brackets are confidence intervals over test queries (bootstrap over queries); every number "
             "comes from `tables/biasvar_sweep.csv`, `tables/biasvar_comparison.csv`, `tables/zhang.csv` and "
             "`tables/significance.csv`, made by the rules of `rules/biasvar.smk` from the prediction files "
             "under `biasvar/predictions/` (each with its seed in `meta.json`).", ""]
    lines += [f"## Ibrahim (2021), Fig. 5: pointwise bias and variance against the swept {param}", ""]
    claims = [("bias2", "score", -1, "Pointwise squared bias falls as p grows (§6.3)"),
              ("variance", "score", +1, "Pointwise variance rises as p grows (§6.3)"),
              ("sre", metric, -1, f"SRE ({metric}) falls as p grows (§6.4; it may flatten at large p)"),
              ("vre", metric, +1, f"VRE ({metric}) rises as p grows (§6.4)")]
    lines += ["| claim | learner | fold | scheme | measured | evidence |", "|---|---|---|---|---|---|"]
    for quantity, qmetric, direction, claim in claims:
        for learner, fold, scheme, curve in _curves(sweep, quantity, qmetric):
            verdict, evidence = trend_verdict(curve, direction)
            lines.append(f"| {claim} | {learner} | {fold} | {SCHEME_LABELS.get(scheme, scheme)} | {verdict} | "
                         f"{evidence} |")
    lines += ["", "## Two-fold variance above bootstrap variance (§6.3: ~3.5× at the largest p)", "",
              "| learner | fold | p | quantity | bootstrap | two-fold | ratio | measured |", "|---|---|---|---|---|---|---|---|"]
    for quantity, qmetric in (("variance", "score"), ("vre", metric)):
        rows = sweep[(sweep["quantity"] == quantity) & (sweep["metric"] == qmetric)]
        wide = rows.pivot_table(index=["learner", "fold", "setting"], columns="scheme",
                                values=["estimate", "ci_low", "ci_high"], aggfunc="first")
        if ("estimate", "bootstrap") not in wide.columns or ("estimate", "twofold") not in wide.columns:
            continue
        for (learner, fold, setting), row in wide.dropna().iterrows():
            boot, two = row[("estimate", "bootstrap")], row[("estimate", "twofold")]
            above = two > boot
            separate = row[("ci_low", "twofold")] > row[("ci_high", "bootstrap")]
            verdict = ("**yes**" if separate else "**yes, within noise**") if above else "**no**"
            lines.append(f"| {learner} | {fold} | {setting.partition('=')[2] or setting} | {quantity} | "
                         f"{boot:.4g} [{row[('ci_low', 'bootstrap')]:.4g}, {row[('ci_high', 'bootstrap')]:.4g}] | "
                         f"{two:.4g} [{row[('ci_low', 'twofold')]:.4g}, {row[('ci_high', 'twofold')]:.4g}] | "
                         f"{two / boot if boot > 0 else float('nan'):.2f} | {verdict} |")
    lines += ["", f"## SRE far above VRE (§6.5: \"the value of SRE has been found to be far greater than VRE\")", "",
              "| learner | fold | setting | scheme | metric | SRE | VRE | SRE/VRE | measured |", "|---|---|---|---|---|---|---|---|---|"]
    sre = sweep[sweep["quantity"] == "sre"].set_index(["learner", "fold", "setting", "scheme", "metric"])
    vre = sweep[sweep["quantity"] == "vre"].set_index(["learner", "fold", "setting", "scheme", "metric"])
    for key, s in sre.iterrows():
        if key[4] != metric or key not in vre.index:
            continue
        v = vre.loc[key]
        ratio = s["estimate"] / v["estimate"] if v["estimate"] > 0 else float("inf")
        verdict = "**yes**" if s["ci_low"] > 10 * v["ci_high"] else ("**yes, SRE > VRE**" if s["ci_low"] > v["ci_high"]
                                                                    else "**no**")
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {SCHEME_LABELS.get(key[3], key[3])} | {key[4]} | {_fmt(s)} | "
                     f"{_fmt(v)} | {ratio:.1f} | {verdict} |")
    lines += ["", "(\"yes\": SRE's lower bound is more than ten times VRE's upper bound.)", ""]
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
        lines += [f"## Performance against {baseline} (paired tests over all test queries)", "",
                  "| learner | metric | mean | baseline | difference | p (t-test) | p (randomisation) |",
                  "|---|---|---|---|---|---|---|"]
        for r in pooled[pooled["learner"] != baseline].itertuples():
            lines.append(f"| {r.learner} | {r.metric} | {r.mean:.4f} | {r.baseline_mean:.4f} | {r.difference:+.4f}"
                         f"{r.mark_t} | {r.p_t:.3g} | {r.p_randomisation:.3g} |")
        pair = pooled.set_index(["learner", "metric"])
        if ("rf-list", "ndcg@10") in pair.index and ("rf-point", "ndcg@10") in pair.index:
            diff = pair.loc[("rf-list", "ndcg@10"), "mean"] - pair.loc[("rf-point", "ndcg@10"), "mean"]
            lines += ["", f"Ibrahim & Carman (2016): RF-list beats RF-point. Measured NDCG@10 difference: {diff:+.4f}.", ""]
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
