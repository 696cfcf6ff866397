"""The catalog's claims, tested by the claim engine (:mod:`ltrbv.compare.claims`).

An entry's job tests its claims (:func:`claim_tests`: one row per claim, written to
``catalog/<entry>.claims.csv``; each kind's module says how it tests its own, ``claim_row``); the page judges
every tested claim of the page as one family (:func:`judge_claims`).  How each claim kind of
``config/catalog.yaml`` is tested:

* ``better`` (compare): learner greater than ``than`` on ``metric``, paired over the pooled test queries
  (each query's value averaged over seeds); the paper's effect is its two numbers' difference.
* ``similar`` (compare): TOST within the claim's ``margin``.
* ``trend`` on a metric (sweep): the per-query change along the swept values, in the claimed direction.
* ``differ`` (scores): the two-sample Kolmogorov-Smirnov test of the entry's table.
* Not tests, outside the family: timings (``faster``; ``trend`` of ``seconds_per_tree``; ``greater`` of
  ``fit_seconds``), the median CPU seconds of a dedicated timing job's fits (``timing.py``); a forest's tree
  structure from the runs' means (``greater``); a grid's best-of-k curve and best combination (``overfits``,
  ``best_below``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...compare import claims as engine
from ...compare.significance import per_query_means
from ...seeding import derive_seed

__all__ = ["COLUMNS", "JUDGED", "claim_tests", "common_problems", "judge_claims", "paired", "per_query_means",
           "read_claim_tests", "row"]

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


def paired(values: pd.Series, a: str, b: str, metric: str) -> pd.DataFrame:
    """(fold, qid) x [a, b]: the two learners' per-query values (seed means) on the queries both have."""
    for name in (a, b):
        if (name, metric) not in values.index.droplevel(["fold", "qid"]):
            raise ValueError(f"no per-query values of {name!r} for {metric!r}")
    return pd.concat([values.loc[(a, metric)].rename("a"), values.loc[(b, metric)].rename("b")], axis=1,
                     join="inner").dropna()


def row(claim: dict, measured: str, tested: engine.Tested | None = None, untested: str = "") -> dict:
    row = dict.fromkeys(COLUMNS, np.nan)
    row.update({"text": claim["text"], "paper_numbers": _paper_numbers(claim), "measured": measured,
                "untested": untested, "relation": tested.relation if tested else ""})
    if tested is not None:
        row.update({k: getattr(tested, k) for k in ("estimate", "ci_low", "ci_high", "p", "p_randomisation", "n",
                                                    "se", "margin", "paper_effect", "p_beyond")})
    return row


def claim_tests(entry: dict, row_of, seed: int) -> pd.DataFrame:
    """One row per claim of ``entry`` (:data:`COLUMNS`): ``row_of(claim, seed)`` tests it (or says why it is not a
    test) with this run's numbers; each claim's seed derives from ``seed``, the entry's name and its index."""
    rows = [{**row_of(claim, derive_seed(seed, entry["entry"], i)), "claim": i} for i, claim in enumerate(entry["claims"])]
    return pd.DataFrame(rows, columns=COLUMNS)


def common_problems(where: str, claim: dict, kind_name: str, kinds: dict) -> list[str]:
    """A claim's problems every entry kind shares: its kind is one the entry's kind takes (``kinds``: the
    registry), its fields are there, and a margin is a similar claim's."""
    ckind = claim["kind"]
    found = []
    if ckind == "similar" and claim.get("margin") is None:
        found.append(f"{where}.margin is required: the largest difference a 'similar' claim calls similar")
    elif ckind != "similar" and "margin" in claim:
        found.append(f"{where}.margin applies to 'similar' claims only (claim {ckind!r})")
    taken = kinds[kind_name].CLAIMS
    if ckind not in taken:
        homes = [name for name, module in kinds.items() if ckind in module.CLAIMS]
        about = f"a {ckind!r} claim is about a {' or '.join(homes)} entry" if homes else f"no kind takes {ckind!r}"
        if not taken:
            return found + [f"{where}: a {kind_name} entry takes no claims ({about}); say it in its note"]
        return found + [f"{where}: a {kind_name} entry's claims are {list(taken)} ({about})"]
    return found + [f"{where}.{field} is required for a {ckind!r} claim" for field in taken[ckind]
                    if claim.get(field) is None and not (field == "margin" and ckind == "similar")]


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
