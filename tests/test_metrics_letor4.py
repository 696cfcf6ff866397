"""The `letor4` / `letor4-mslr` conventions: every quirk of the LETOR 4.0 script
Eval-Score-4.0.pl, by hand-made cases and against a position-by-position Python
transcription of the script's per-query logic (random queries and real MQ2008)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from ltrbv.metrics import evaluate, get_convention

MQ2008_FOLD1_TEST = Path(__file__).resolve().parents[1].parent / "shared/data/MQ2008/Fold1/test.txt"

LETOR4_NAMES = [f"ndcg@{k}" for k in range(1, 11)] + [f"p@{k}" for k in range(1, 11)] + ["map", "ndcg"]


def one_query(labels, scores=None):
    """Arrays for one query; default scores rank the rows in the given order."""
    labels = np.asarray(labels)
    if scores is None:
        scores = -np.arange(labels.size, dtype=np.float64)
    return np.asarray(scores, dtype=np.float64), labels, np.array([0, labels.size])


from letor4_perl import (  # noqa: E402  (the transcription of Eval-Score-4.0.pl)
    HS_PRECISION_REL_LETOR4,
    HS_PRECISION_REL_MSLR,
    perl_eval_query,
)


def assert_matches_perl(scores, labels, offsets, convention="letor4", precision_rel=HS_PRECISION_REL_LETOR4):
    ours = evaluate(scores, labels, offsets, LETOR4_NAMES, convention=convention)
    for q in range(offsets.size - 1):
        rows = slice(offsets[q], offsets[q + 1])
        perl = perl_eval_query(labels[rows], scores[rows], precision_rel)
        for name in LETOR4_NAMES:
            assert ours[name][q] == pytest.approx(perl[name], rel=1e-12, abs=1e-14), (q, name)


# -- hand-made cases, one per quirk ------------------------------------------------------------

def test_gains_are_0_1_3_and_ranks_1_2_are_undiscounted():
    scores, labels, offsets = one_query([1, 2, 0, 0])
    got = evaluate(scores, labels, offsets, ("dcg@1", "dcg@2", "ndcg@2"), convention="letor4")
    assert got["dcg@1"][0] == 1.0
    assert got["dcg@2"][0] == 4.0  # 1 + 3, no discount at rank 2
    assert got["ndcg@2"][0] == 1.0  # ideal DCG@2 is 3 + 1 as well: ranks 1 and 2 are equivalent
    standard = evaluate(scores, labels, offsets, ("ndcg@2",))["ndcg@2"][0]
    assert standard < 1.0


def test_discount_from_rank_3_is_one_over_log2_rank():
    scores, labels, offsets = one_query([0, 0, 1, 1, 0])
    got = evaluate(scores, labels, offsets, ("dcg@3", "dcg@4", "dcg"), convention="letor4")
    assert got["dcg@3"][0] == pytest.approx(1 / math.log2(3))
    assert got["dcg@4"][0] == pytest.approx(1 / math.log2(3) + 1 / 2)
    assert got["dcg"][0] == got["dcg@4"][0]


def test_query_with_fewer_than_k_documents_has_ndcg_at_k_zero():
    scores, labels, offsets = one_query([0, 2, 1, 0, 0, 1, 0])  # 7 documents
    got = evaluate(scores, labels, offsets, ("ndcg@5", "ndcg@7", "ndcg@8", "ndcg@10", "ndcg"),
                   convention="letor4")
    assert got["ndcg@5"][0] > 0
    assert got["ndcg@7"][0] > 0
    assert got["ndcg@8"][0] == 0.0
    assert got["ndcg@10"][0] == 0.0
    assert got["ndcg"][0] == got["ndcg@7"][0]  # untruncated: over all documents, no short rule
    # the standard convention computes NDCG@10 of a short query normally
    assert evaluate(scores, labels, offsets, ("ndcg@10",))["ndcg@10"][0] > 0


def test_query_without_relevant_documents_scores_zero():
    scores, labels, offsets = one_query([0] * 12)
    got = evaluate(scores, labels, offsets, ("ndcg@10", "ndcg", "map", "p@10"), convention="letor4")
    assert all(values[0] == 0.0 for values in got.values())
    # nan ("exclude") only when asked for
    nan_convention = dataclasses.replace(get_convention("letor4"), empty_query_value=float("nan"))
    assert np.isnan(evaluate(scores, labels, offsets, ("ndcg@10",), convention=nan_convention)["ndcg@10"][0])


def test_ties_keep_input_order():
    scores = np.array([1.0, 1.0, 0.0])
    forward = evaluate(scores, np.array([0, 2, 1]), np.array([0, 3]), ("ndcg@1", "map", "p@1"),
                       convention="letor4")
    reverse = evaluate(scores, np.array([2, 0, 1]), np.array([0, 3]), ("ndcg@1", "map", "p@1"),
                       convention="letor4")
    assert (forward["ndcg@1"][0], forward["p@1"][0]) == (0.0, 0.0)
    assert (reverse["ndcg@1"][0], reverse["p@1"][0]) == (1.0, 1.0)
    assert forward["map"][0] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert reverse["map"][0] == pytest.approx((1 / 1 + 2 / 3) / 2)


def test_precision_of_a_short_query_counts_missing_positions_as_irrelevant():
    # Eval-Score-4.0.pl (Jun Xu, 2009-4-24): "if # retrieved doc < $topN, the P@N will consider
    # the hole as irrelevant": P@10 of a 3-document query with 2 relevant is 2/10, not 0.
    scores, labels, offsets = one_query([1, 0, 2])
    got = evaluate(scores, labels, offsets, ("p@1", "p@3", "p@10"), convention="letor4")
    assert got["p@1"][0] == 1.0
    assert got["p@3"][0] == pytest.approx(2 / 3)
    assert got["p@10"][0] == pytest.approx(0.2)
    zero_rule = dataclasses.replace(get_convention("letor4"), short_query_precision_is_zero=True)
    got = evaluate(scores, labels, offsets, ("p@3", "p@10"), convention=zero_rule)
    assert got["p@3"][0] == pytest.approx(2 / 3)
    assert got["p@10"][0] == 0.0


def test_map_relevance_threshold_letor4_vs_mslr():
    scores, labels, offsets = one_query([1, 2, 0, 1])
    letor4 = evaluate(scores, labels, offsets, ("map", "p@2"), convention="letor4")
    mslr = evaluate(scores, labels, offsets, ("map", "p@2"), convention="letor4-mslr")
    assert letor4["map"][0] == pytest.approx((1 / 1 + 2 / 2 + 3 / 4) / 3)
    assert letor4["p@2"][0] == 1.0
    assert mslr["map"][0] == pytest.approx(1 / 2)  # only the label-2 document at rank 2
    assert mslr["p@2"][0] == 0.5


def test_labels_3_and_4_use_the_mslr_gains():
    scores, labels, offsets = one_query([3, 4])
    got = evaluate(scores, labels, offsets, ("dcg@1", "dcg@2"), convention="letor4-mslr")
    assert (got["dcg@1"][0], got["dcg@2"][0]) == (7.0, 22.0)


# -- against the transcription ----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_letor4_matches_perl_transcription_on_random_queries(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, 400)  # many queries shorter than 10
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = int(offsets[-1])
    labels = rng.choice([0, 0, 0, 1, 2], n)
    scores = np.round(rng.random(n), 1) if seed % 2 else rng.random(n)  # odd seeds: many ties
    assert_matches_perl(scores, labels, offsets)
    mslr_labels = rng.integers(0, 5, n)
    assert_matches_perl(scores, mslr_labels, offsets, "letor4-mslr", HS_PRECISION_REL_MSLR)


def read_letor_labels_and_qids(path: Path):
    """Labels and query offsets of a LETOR file, rows grouped by query in line order."""
    labels, qids = [], []
    with open(path) as handle:
        for line in handle:
            tokens = line.split(maxsplit=2)
            labels.append(int(tokens[0]))
            qids.append(tokens[1].removeprefix("qid:"))
    first_seen = {}
    query_number = np.array([first_seen.setdefault(q, len(first_seen)) for q in qids])
    rows = np.argsort(query_number, kind="stable")
    offsets = np.concatenate(([0], np.cumsum(np.bincount(query_number))))
    return np.array(labels)[rows], offsets


@pytest.mark.realdata
@pytest.mark.skipif(not MQ2008_FOLD1_TEST.exists(),
                    reason=f"real data absent: {MQ2008_FOLD1_TEST} (needs ../shared/data/MQ2008)")
@pytest.mark.parametrize("score_kind", ["continuous", "tied"])
def test_letor4_matches_perl_transcription_on_mq2008(score_kind):
    labels, offsets = read_letor_labels_and_qids(MQ2008_FOLD1_TEST)
    assert offsets.size - 1 == 156 and labels.size > 2000
    assert (np.diff(offsets) < 10).any()  # MQ2008 has short queries: the quirk matters
    rng = np.random.default_rng(2016)
    scores = rng.random(labels.size)
    if score_kind == "tied":
        scores = np.round(scores, 1)
    assert_matches_perl(scores, labels, offsets)
