"""The catalog's claims, tested by the claim engine (:mod:`ltrbv.study.claims`).

An entry's job tests its claims (:func:`claim_tests`: one row per claim, written to
``catalog/<entry>.claims.csv``); the page judges every tested claim of the page as one family
(:func:`judge_claims`).  How each claim kind of ``config/catalog.yaml`` is tested:

* ``better`` (compare): learner greater than ``than`` on ``metric``, paired over the pooled test queries
  (each query's value averaged over seeds); the paper's effect is its two numbers' difference.
* ``similar`` (compare): TOST within the claim's ``margin``.
* ``trend`` on a metric (sweep): the per-query change along the swept values, in the claimed direction.
* ``differ`` (scores): the two-sample Kolmogorov-Smirnov test of the entry's table.
* Not tests, outside the family: timings (``faster``; ``trend`` of ``seconds_per_tree``; ``greater`` of
  ``fit_seconds``), measured on cores shared with other jobs; a forest's tree structure from the runs'
  means (``greater``); a grid's best-of-k curve and best combination (``overfits``, ``best_below``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..seeding import derive_seed
from . import claims as engine
from .catalog import BEST_OF_K, COMBINATION, SECONDS_PER_TREE
from .significance import POOLED, per_query_means

COLUMNS = ["claim", "text", "paper_numbers", "measured", "relation", "estimate", "ci_low", "ci_high", "p",
           "p_randomisation", "n", "se", "margin", "paper_effect", "p_beyond", "untested"]
JUDGED = ["p_adjusted", "p_randomisation_adjusted", "mde", "verdict", "family", "correction"]


def _paper_numbers(claim: dict) -> str:
    paper = claim.get("paper")
    if paper is None:
        return ""
    if isinstance(paper, dict):
        return ", ".join(f"{k} {v:.4f}" for k, v in paper.items())
    return f"{paper:g}x"


def _paired(values: pd.Series, a: str, b: str, metric: str) -> pd.DataFrame:
    """(fold, qid) x [a, b]: the two learners' per-query values (seed means) on the queries both have."""
    for name in (a, b):
        if (name, metric) not in values.index.droplevel(["fold", "qid"]):
            raise ValueError(f"no per-query values of {name!r} for {metric!r}")
    return pd.concat([values.loc[(a, metric)].rename("a"), values.loc[(b, metric)].rename("b")], axis=1,
                     join="inner").dropna()


def _row(claim: dict, measured: str, tested: engine.Tested | None = None, untested: str = "") -> dict:
    row = dict.fromkeys(COLUMNS, np.nan)
    row.update({"text": claim["text"], "paper_numbers": _paper_numbers(claim), "measured": measured,
                "untested": untested, "relation": tested.relation if tested else ""})
    if tested is not None:
        row.update({k: getattr(tested, k) for k in ("estimate", "ci_low", "ci_high", "p", "p_randomisation", "n",
                                                    "se", "margin", "paper_effect", "p_beyond")})
    return row


def compare_claim(values: pd.Series, table: pd.DataFrame, claim: dict, permutations: int, seed) -> dict:
    """A compare entry's claim: ``better`` or ``similar`` tested over queries, ``greater`` described."""
    if claim["kind"] == "greater":
        pooled = table[table["fold"] == POOLED].drop_duplicates("learner").set_index("learner")[claim["quantity"]]
        a, b = float(pooled[claim["learner"]]), float(pooled[claim["than"]])
        measured = f"{claim['quantity']}: {claim['learner']} {a:.4g} vs {claim['than']} {b:.4g} (ratio {a / b:.2f})"
        reason = engine.TIMING if claim["quantity"] == "fit_seconds" else engine.DESCRIPTIVE
        return _row(claim, measured, untested=engine.untested(reason, a > b))
    learner, than, metric = claim["learner"], claim["than"], claim["metric"]
    pairs = _paired(values, learner, than, metric)
    if claim["kind"] == "better":
        paper = claim.get("paper") or {}
        effect = paper[learner] - paper[than] if {learner, than} <= set(paper) else np.nan
        tested = engine.greater_test(pairs["a"], pairs["b"], effect, permutations, seed)
    else:
        tested = engine.similar_test(pairs["a"], pairs["b"], float(claim["margin"]))
    measured = (f"{learner} {pairs['a'].mean():.4f} vs {than} {pairs['b'].mean():.4f} ({metric}, "
                f"{len(pairs)} queries)")
    return _row(claim, measured, tested)


def sweep_claim(values: pd.Series, table: pd.DataFrame, sweep: dict, claim: dict, permutations: int, seed) -> dict:
    """A sweep entry's claim: a metric's ``trend`` tested over queries; timings described."""
    rows = table[table["learner"] == claim["learner"]].drop_duplicates("value")
    if claim["kind"] == "faster":
        per_value = {float(v): s for v, s in zip(rows["value"], rows[SECONDS_PER_TREE])}
        at, than = per_value[float(claim["at"])], per_value[float(claim["than_value"])]
        measured = (f"{claim['learner']}: {at:.3g} s per tree at {claim['at']} vs {than:.3g} s at "
                    f"{claim['than_value']} (speed-up {than / at:.2f}x)")
        return _row(claim, measured, untested=engine.untested(engine.TIMING, at < than))
    sign = 1 if claim["direction"] == "increasing" else -1
    if claim["metric"] == SECONDS_PER_TREE:
        x, y = rows["value"].to_numpy(float), rows[SECONDS_PER_TREE].to_numpy(float)
        from scipy.stats import spearmanr

        rho = float(spearmanr(x, y).statistic) if np.ptp(y) > 0 else 0.0
        measured = f"seconds per tree from {y[0]:.4g} (at {x[0]:g}) to {y[-1]:.4g} (at {x[-1]:g}); Spearman rho {rho:+.2f}"
        return _row(claim, measured, untested=engine.untested(engine.TIMING, sign * rho > 0))
    ordered = sorted(sweep[claim["learner"]].items(), key=lambda item: float(item[0]))
    metric = claim["metric"]
    columns = [values.loc[(trained, metric)].rename(str(value)) for value, trained in ordered]
    matrix = pd.concat(columns, axis=1, join="inner").dropna()
    tested = engine.trend_test(matrix.to_numpy(), sign, np.nan, permutations, seed)
    means = matrix.mean()
    measured = (f"{metric} of {claim['learner']} from {means.iloc[0]:.4f} (at {ordered[0][0]:g}) to "
                f"{means.iloc[-1]:.4f} (at {ordered[-1][0]:g}), {len(ordered)} values, {len(matrix)} queries; "
                f"estimate: the per-query fitted change first to last, {claim['direction']} positive")
    return _row(claim, measured, tested)


def grid_claim(table: pd.DataFrame, claim: dict) -> dict:
    """A grid entry's ``overfits`` or ``best_below`` claim: descriptive (one curve, one best combination)."""
    if claim["kind"] == "overfits":
        curve = table[table["part"] == BEST_OF_K].sort_values("k", kind="stable")
        peak = curve.loc[curve["test"].idxmax()]
        last, first = curve.iloc[-1], curve.iloc[0]
        measured = (f"expected test value of the best of k (by validation) peaks at {peak['test']:.4f} (k = "
                    f"{int(peak['k'])}) and is {last['test']:.4f} at k = {int(last['k'])}; validation "
                    f"{first['validation']:.4f} (k = {int(first['k'])}) to {last['validation']:.4f}")
        holds = int(peak["k"]) < int(last["k"]) and last["test"] < peak["test"]
        return _row(claim, measured, untested=engine.untested(engine.DESCRIPTIVE, holds))
    combinations = table[table["part"] == COMBINATION].sort_values("rank", kind="stable")
    best = combinations.iloc[0]
    params = {c.split(":", 1)[1]: best[c] for c in combinations.columns if c.startswith("param:")}
    value = float(params[claim["param"]])
    measured = (f"best by validation: {', '.join(f'{k} {v:g}' for k, v in params.items())} (validation "
                f"{best['validation']:.4f}, test {best['test']:.4f}); {claim['param']} {value:g} vs bound "
                f"{claim['value']:g}")
    return _row(claim, measured, untested=engine.untested(engine.DESCRIPTIVE, value < float(claim["value"])))


def differ_claim(table: pd.DataFrame, claim: dict) -> dict:
    """A scores entry's ``differ`` claim: the two-sample Kolmogorov-Smirnov test of its first two models."""
    a, b = table.iloc[0], table.iloc[1]
    measured = (f"{a['ks_pair']}: Kolmogorov-Smirnov D = {a['ks_statistic']:.3f}; means {a['mean']:.3g} vs "
                f"{b['mean']:.3g}, std {a['std']:.3g} vs {b['std']:.3g}")
    return _row(claim, measured, engine.tested_p(engine.DIFFER, float(a["ks_p"]), float(a["ks_statistic"])))


def claim_tests(kind: str, table: pd.DataFrame, claims: list[dict], per_query: pd.DataFrame | None = None,
                convention: str | None = None, sweep: dict | None = None, permutations: int = 10000,
                seed: int = 0, entry: str = "") -> pd.DataFrame:
    """One row per claim of an entry (:data:`COLUMNS`): its test (or why it is not one) and this run's numbers.
    ``per_query``: the entry's per-query values (compare and sweep)."""
    values = per_query_means(per_query, convention) if per_query is not None and len(per_query) else None
    rows = []
    for i, claim in enumerate(claims):
        seed_i = derive_seed(seed, entry, i)
        if kind == "compare":
            row = compare_claim(values, table, claim, permutations, seed_i)
        elif kind == "sweep":
            row = sweep_claim(values, table, sweep, claim, permutations, seed_i)
        elif kind == "grid":
            row = grid_claim(table, claim)
        elif kind == "scores":
            row = differ_claim(table, claim)
        else:  # a curve entry has no claims
            raise ValueError(f"a {kind!r} entry has no claims")
        rows.append({**row, "claim": i})
    return pd.DataFrame(rows, columns=COLUMNS)


def _tested(row) -> engine.Tested:
    return engine.Tested(row["relation"], *(float(row[k]) for k in ("estimate", "ci_low", "ci_high", "p")),
                         int(row["n"]) if pd.notna(row["n"]) else 0,
                         *(float(row[k]) for k in ("se", "p_randomisation", "margin", "paper_effect", "p_beyond")))


def judge_claims(tests: pd.DataFrame, policy: engine.Policy) -> pd.DataFrame:
    """The claim rows of one page (every entry's :func:`claim_tests`) with :data:`JUDGED` columns: the tested
    ones judged as one family, the others keeping their 'not a test' verdict."""
    out = tests.copy()
    for column in JUDGED:
        out[column] = np.nan
    out["verdict"] = out["untested"].fillna("").astype(str)
    out["correction"] = ""
    tested = out["untested"].fillna("").astype(str) == ""
    judged = engine.judge([_tested(row) for _, row in out[tested].iterrows()], policy)
    for index, j in zip(out.index[tested], judged):
        out.loc[index, JUDGED] = [j.p_adjusted, j.p_randomisation_adjusted, j.mde, j.verdict, j.family,
                                  j.correction]
    return out


def read_claim_tests(path) -> pd.DataFrame:
    """An entry's claim tests as its job wrote them (``catalog/<entry>.claims.csv``)."""
    frame = pd.read_csv(path)
    for column in ("text", "paper_numbers", "measured", "relation", "untested"):
        frame[column] = frame[column].fillna("").astype(str)
    return frame
