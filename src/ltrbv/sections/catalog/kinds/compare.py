"""``compare``: learners trained on every fold with the entry's seeds; mean ± std over folds, paired tests against
the baseline (pooled over folds and per fold), seconds per model and the forests' mean tree, and optionally a
random ranking's expected metric (every document tied: the mean over all orders, ``ties="expected"``), the
"random" column of Ibrahim & Carman's Table XI.

Claims: ``better`` (the paired t-test over queries; the paper's effect is its two numbers' difference),
``similar`` (two one-sided tests within the claim's margin) and ``greater`` (a quantity of the learners' runs:
seconds per model, from the entry's dedicated timing job, or the forests' tree structure; described, not a test).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ....compare import claims as engine
from ....compare.significance import POOLED, significance_markdown, significance_table
from ....metrics import evaluate
from ....tables import markdown_table
from .. import claims
from ..pages import claims_section, heading, params_section
from ..tables import QUANTITIES, Made, fit_seconds, per_query_values
from ..timing import describe, seconds_per_tree
from . import _trained

NAME = "compare"
FIGURE = False
#: the row of a compare entry with random_ranking: true
RANDOM_RANKING = "random ranking"
FIELDS = {
    "learners": _trained.learners_field("the learners compared (names under learners:)"),
    "baseline": {"description": "the learner every other one is tested against (default: the first)",
                 "type": ["string", "null"], "default": None},
    "random_ranking": {"description": "add the expected metric of a random ranking (every document tied)",
                       "type": "boolean", "default": False},
    **_trained.RUN_FIELDS,
}
REQUIRED = ("learners",)
CLAIMS = {"better": ("learner", "than"), "similar": ("learner", "than", "margin"), "greater": ("learner", "than", "quantity")}


def learners(config: dict, entry: dict) -> list[str]:
    return list(entry["learners"])


def problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    found = _trained.learner_problems(config, key, entry)
    if entry.get("baseline") is not None and entry["baseline"] not in entry["learners"]:
        found.append(f"{key}.baseline {entry['baseline']!r} is not among its learners {entry['learners']}")
    return found


def timed(config: dict, entry: dict) -> list[str]:
    """The learners its ``greater`` claims of ``fit_seconds`` compare (its dedicated timing job fits them)."""
    return list(dict.fromkeys(name for claim in entry["claims"]
                              if claim["kind"] == "greater" and claim.get("quantity") == "fit_seconds"
                              for name in (claim["learner"], claim["than"])))


def claim_problems(where: str, claim: dict, entry: dict, config: dict) -> list[str]:
    found = []
    compared = list(entry["learners"]) + ([RANDOM_RANKING] if entry.get("random_ranking") else [])
    among = entry["learners"] if claim["kind"] == "greater" else compared
    for field in ("learner", "than"):
        if claim.get(field) not in among:
            found.append(f"{where}.{field} {claim.get(field)!r} is not among the entry's learners {among}")
    if claim["kind"] == "greater":
        if claim.get("quantity") not in QUANTITIES:
            found.append(f"{where}.quantity {claim.get('quantity')!r}: one of {list(QUANTITIES)}")
        return found
    metrics = config.get("metrics", [])
    if claim["metric"] not in metrics:
        found.append(f"{where}.metric {claim['metric']!r} is not in metrics {metrics}")
    paper = claim.get("paper")
    if paper is not None and (not isinstance(paper, dict) or set(paper) - {claim.get("learner"), claim.get("than")}):
        found.append(f"{where}.paper: the paper's numbers by learner, of {claim.get('learner')!r} and "
                     f"{claim.get('than')!r}")
    return found


def params(config: dict, dataset: str, entry: dict) -> dict:
    return {"baseline": entry.get("baseline") or entry["learners"][0], "random_ranking": entry["random_ranking"]}


def files(config: dict, dataset: str, name: str, entry: dict) -> dict:
    """Its runs' scores, records and test splits, and its timing table when it has timing claims."""
    return _trained.timed_run_files(config, dataset, name, entry, learners(config, entry), timed(config, entry))


def benchmarks(config: dict, dataset: str, name: str, entry: dict) -> list[str]:
    return _trained.training_benchmarks(config, dataset, name, entry, learners(config, entry))


# -- the job ---------------------------------------------------------------------------------------------------


def random_ranking_values(data: dict, metrics, convention: str) -> pd.DataFrame:
    """The expected metric of a uniformly random ranking of each test query (all documents tied)."""
    frames = []
    for fold, d in data.items():
        values = evaluate(np.zeros(d.n_docs), d.labels, d.query_offsets, list(metrics), convention=convention,
                          ties="expected")
        for metric in metrics:
            frames.append(pd.DataFrame({"learner": RANDOM_RANKING, "fold": fold, "seed": 1, "qid": d.qids,
                                        "metric": metric, "convention": convention, "value": values[metric]}))
    return pd.concat(frames, ignore_index=True)


def compare_table(per_query: pd.DataFrame, learners: list[str], metrics: list[str], baseline: str, convention: str,
                  permutations: int, seed: int, seconds: pd.DataFrame, pairs=()) -> pd.DataFrame:
    """The significance table (every learner against ``baseline``, plus ``pairs``), with each learner's mean seconds
    per model and tree structure (:data:`QUANTITIES`) on its pooled rows."""
    table = significance_table(per_query, learners, metrics, baseline, convention, permutations, seed, pairs=pairs)
    per_learner = seconds.groupby("learner")[list(QUANTITIES)].mean()
    for quantity in QUANTITIES:
        table[quantity] = [per_learner[quantity].get(learner, np.nan) if fold == POOLED else np.nan
                           for learner, fold in zip(table["learner"], table["fold"])]
    return table


def claim_row(claim: dict, values: pd.Series, table: pd.DataFrame, permutations: int, seed,
              timing: pd.DataFrame | None = None) -> dict:
    """A claim: ``better`` or ``similar`` tested over queries, ``greater`` described (a timing from the dedicated
    timing job ``timing``)."""
    if claim["kind"] == "greater" and claim["quantity"] == "fit_seconds":
        per_learner = seconds_per_tree(timing)
        a, b = per_learner[claim["learner"]][0], per_learner[claim["than"]][0]
        how = describe(timing[timing["learner"].isin([claim["learner"], claim["than"]])])
        measured = (f"seconds per tree (per model where trees are not counted): {claim['learner']} {a:.4g} vs "
                    f"{claim['than']} {b:.4g} (ratio {a / b:.2f}; {how})")
        return claims.row(claim, measured, untested=engine.untested(engine.TIMING, a > b))
    if claim["kind"] == "greater":
        pooled = table[table["fold"] == POOLED].drop_duplicates("learner").set_index("learner")[claim["quantity"]]
        a, b = float(pooled[claim["learner"]]), float(pooled[claim["than"]])
        measured = f"{claim['quantity']}: {claim['learner']} {a:.4g} vs {claim['than']} {b:.4g} (ratio {a / b:.2f})"
        return claims.row(claim, measured, untested=engine.untested(engine.DESCRIPTIVE, a > b))
    learner, than, metric = claim["learner"], claim["than"], claim["metric"]
    pairs = claims.paired(values, learner, than, metric)
    if claim["kind"] == "better":
        paper = claim.get("paper") or {}
        effect = paper[learner] - paper[than] if {learner, than} <= set(paper) else np.nan
        tested = engine.greater_test(pairs["a"], pairs["b"], effect, permutations, seed)
    else:
        tested = engine.similar_test(pairs["a"], pairs["b"], float(claim["margin"]))
    measured = (f"{learner} {pairs['a'].mean():.4f} vs {than} {pairs['b'].mean():.4f} ({metric}, "
                f"{len(pairs)} queries)")
    return claims.row(claim, measured, tested)


def markdown(table: pd.DataFrame, entry: dict, dataset: str, tests: pd.DataFrame) -> str:
    """The significance page, its seconds per model, its claims, and the learners as run."""
    pooled = table[(table["fold"] == POOLED) & (table["baseline"] == entry["baseline"])]
    quantities = [q for q in QUANTITIES if pooled[q].notna().any()]
    structure = pooled.drop_duplicates("learner")[["learner", *quantities]]
    body = significance_markdown(table, dataset).split("\n", 1)[1]
    return "".join([
        heading(entry, dataset), body,
        "\n## Training seconds per model, and the forests' mean tree (leaves, training rows per leaf, leaf score, "
        "depth); means over folds and seeds\n\n" + markdown_table(structure, "{:.3g}"),
        claims_section(tests), params_section(entry["learner_params"]),
    ])


def make(files: dict, entry: dict, seed: int, dataset: str) -> Made:
    scores, data = _trained.read_scores(files["scores"], files["data"])
    per_query = per_query_values(scores, data, entry["metrics"], entry["convention"])
    compared = list(scores)
    if entry["random_ranking"]:
        per_query = pd.concat([per_query, random_ranking_values(data, entry["metrics"], entry["convention"])],
                              ignore_index=True)
        compared.append(RANDOM_RANKING)
    baseline = entry["baseline"]
    pairs = []  # claims between two learners besides the baseline are tested too
    for claim in entry["claims"]:
        pair = (claim.get("learner"), claim.get("than"))
        if claim["kind"] in ("better", "similar") and baseline not in pair and pair not in pairs \
                and pair[::-1] not in pairs:
            pairs.append(pair)
    table = compare_table(per_query, compared, entry["metrics"], baseline, entry["convention"], entry["permutations"],
                          seed, fit_seconds(_trained.read_meta(files["meta"])), pairs=pairs)
    values = claims.per_query_means(per_query, entry["convention"])
    timing = pd.read_csv(files["timing"]) if "timing" in files else None
    tests = claims.claim_tests(entry, lambda claim, claim_seed: claim_row(claim, values, table, entry["permutations"],
                                                                          claim_seed, timing), seed)
    return Made(table, tests, markdown(table, entry, dataset, tests))
