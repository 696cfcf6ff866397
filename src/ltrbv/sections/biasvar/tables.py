"""Tables of the bias-variance study: the sweep (data of Figs. 5-7) and the comparison (Table 5 analogue).

The sweep table is long: one row per (learner, fold, setting, scheme, quantity, metric) with the
estimate and its confidence interval over test queries.  Pointwise quantities (``bias2``,
``variance``) have metric ``score``.
"""

from __future__ import annotations

import pandas as pd

from ...tables import markdown_table

POINTWISE = ("bias2", "variance")
LISTWISE = ("sre", "vre", "ranking_error", "vre_signed", "vre_squared")
SCHEME_LABELS = {"bootstrap": "bootstrap", "twofold": "two-fold"}


def _value(setting: str):
    if setting == "base":
        return None
    text = setting.partition("=")[2]
    try:
        return float(text)
    except ValueError:
        return text


def sweep_rows(summary: dict) -> list[dict]:
    """Long rows of one reducer summary (the JSON written by rule reduce_biasvar)."""
    key = {name: summary[name] for name in ("learner", "fold", "setting", "scheme")}
    key["param"] = summary["setting"].partition("=")[0] if summary["setting"] != "base" else None
    key["value"] = _value(summary["setting"])
    key["n_models"] = summary["n_models"]
    rows = []
    for quantity in POINTWISE:
        low, high = summary[f"{quantity}_ci"]
        rows.append({**key, "quantity": quantity, "metric": "score", "estimate": summary[quantity],
                     "ci_low": low, "ci_high": high})
    for metric, values in summary["metrics"].items():
        for quantity in LISTWISE:
            low, high = values[f"{quantity}_ci"]
            rows.append({**key, "quantity": quantity, "metric": metric, "estimate": values[quantity],
                         "ci_low": low, "ci_high": high})
    return rows


def sweep_table(summaries: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame([row for summary in summaries for row in sweep_rows(summary)])
    return table.sort_values(["learner", "fold", "scheme", "quantity", "metric", "setting"], kind="stable",
                             ignore_index=True)


def comparison_table(sweep: pd.DataFrame, learners: list[str], schemes: list[str]) -> pd.DataFrame:
    """Table 5 analogue: SRE, VRE and ranking error (with CIs) of each compared learner at its configured
    parameters, per fold, scheme and metric, plus the share of the error that SRE accounts for."""
    base = sweep[(sweep["setting"] == "base") & sweep["learner"].isin(learners) & sweep["scheme"].isin(schemes)
                 & sweep["quantity"].isin(["sre", "vre", "ranking_error"])]
    if base.empty:
        return pd.DataFrame(columns=["learner", "fold", "scheme", "metric"])
    wide = base.pivot_table(index=["learner", "fold", "scheme", "metric"], columns="quantity",
                            values=["estimate", "ci_low", "ci_high"], aggfunc="first")
    out = pd.DataFrame(index=wide.index)
    for quantity in ("sre", "vre", "ranking_error"):
        out[quantity] = wide[("estimate", quantity)]
        out[f"{quantity}_ci_low"] = wide[("ci_low", quantity)]
        out[f"{quantity}_ci_high"] = wide[("ci_high", quantity)]
    out["sre_over_vre"] = out["sre"] / out["vre"].where(out["vre"] > 0)
    out = out.reset_index()
    order = {name: i for i, name in enumerate(learners)}
    return out.sort_values(["fold", "scheme", "metric", "learner"], key=lambda s: s.map(order) if s.name == "learner"
                           else s, kind="stable", ignore_index=True)


def comparison_markdown(table: pd.DataFrame, dataset: str) -> str:
    """The comparison as Markdown, one block per (fold, scheme, metric), estimates with 95% CIs."""
    lines = [f"# Listwise bias and variance of the compared learners on {dataset} (Ibrahim 2021, Table 5 analogue)",
             "", "SRE = 1 - NDCG of the averaged scores (eq. 14/16); VRE = mean positive drop of each model's "
             "NDCG below it (eq. 15/17); error = mean 1 - NDCG of the individual models.  Brackets: "
             "confidence interval over test queries.", ""]
    if table.empty:
        return "\n".join(lines + ["(no learner to compare: set biasvar.compare.learners)", ""])
    for (fold, scheme, metric), block in table.groupby(["fold", "scheme", "metric"], sort=False):
        lines += [f"## {fold}, {SCHEME_LABELS.get(scheme, scheme)}, {metric}", ""]
        shown = pd.DataFrame({
            "learner": block["learner"],
            **{name: [f"{v:.4f} [{lo:.4f}, {hi:.4f}]" for v, lo, hi in
                      zip(block[q], block[f"{q}_ci_low"], block[f"{q}_ci_high"])]
               for name, q in (("SRE", "sre"), ("VRE", "vre"), ("error", "ranking_error"))},
            "SRE/VRE": [f"{v:.1f}" if pd.notna(v) else "—" for v in block["sre_over_vre"]],
        })
        lines += [markdown_table(shown), ""]
    return "\n".join(lines)
