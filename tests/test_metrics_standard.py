"""The `standard` convention against independent oracles (trec_eval via pytrec_eval,
scikit-learn's ndcg_score, a transcription of Chapelle et al. 2009's ERR), plus the public API's contract."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltrbv.metrics import CONVENTIONS, METRIC_KINDS, Convention, evaluate, get_convention, parse_metric
from ltrbv.metrics import ranking
from ltrbv.metrics.ranking import descending_order_within_queries, query_index_of_rows


def offsets_from_sizes(sizes) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


def random_queries(seed: int, n_queries: int = 300, max_size: int = 40, max_label: int = 4,
                   distinct_scores: bool = True):
    """Random labels 0..max_label; scores globally distinct unless ``distinct_scores=False``."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_queries)
    offsets = offsets_from_sizes(sizes)
    n = int(offsets[-1])
    labels = rng.integers(0, max_label + 1, n)
    # zero-label queries happen by chance only for tiny queries; force a few
    for q in rng.choice(n_queries, size=max(1, n_queries // 20), replace=False):
        labels[offsets[q]:offsets[q + 1]] = 0
    if distinct_scores:
        scores = rng.permutation(n).astype(np.float64) + rng.random(n) * 0.5
    else:
        scores = rng.integers(0, 4, n).astype(np.float64)
    return scores, labels, offsets


def qid(q: int) -> str:
    return f"q{q:05d}"


def trec_inputs(scores, labels, offsets, gain=lambda label: 2**label - 1):
    qrels, run = {}, {}
    for q in range(offsets.size - 1):
        rows = range(offsets[q], offsets[q + 1])
        qrels[qid(q)] = {f"d{r}": int(gain(int(labels[r]))) for r in rows}
        run[qid(q)] = {f"d{r}": float(scores[r]) for r in rows}
    return qrels, run


# -- trec_eval (pytrec_eval) ---------------------------------------------------------------
#
# trec_eval conventions checked here:
# * its ndcg uses the qrels value itself as the gain (linear gain), so the qrels carry
#   2**label - 1 and trec_eval's linear gain equals our exponential gain;
# * its discount is 1/log2(r + 1), the ideal ranking comes from the qrels (= all documents
#   of the query here), and ndcg of a query without relevant documents is 0;
# * relevance for map / P is qrels value >= relevance_level (default 1): 2**l - 1 >= 1 iff
#   l >= 1, and 2**l - 1 >= 3 iff l >= 2;
# * P_k divides by k also for queries with fewer than k documents;
# * it breaks score ties by docid, not input order: these tests use distinct scores.


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_standard_matches_trec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    scores, labels, offsets = random_queries(seed)
    qrels, run = trec_inputs(scores, labels, offsets)
    trec = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut_5", "ndcg_cut_10", "ndcg", "map", "P_5", "P_10"}
    ).evaluate(run)
    ours = evaluate(scores, labels, offsets, ("ndcg@5", "ndcg@10", "ndcg", "map", "p@5", "p@10"))
    pairs = {"ndcg@5": "ndcg_cut_5", "ndcg@10": "ndcg_cut_10", "ndcg": "ndcg",
             "map": "map", "p@5": "P_5", "p@10": "P_10"}
    for ours_name, trec_name in pairs.items():
        expected = np.array([trec[qid(q)][trec_name] for q in range(offsets.size - 1)])
        np.testing.assert_allclose(ours[ours_name], expected, rtol=1e-12, atol=1e-12,
                                   err_msg=ours_name)


def test_map_threshold_matches_trec_eval_relevance_level():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    scores, labels, offsets = random_queries(7)
    qrels, run = trec_inputs(scores, labels, offsets)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10"}, relevance_level=3).evaluate(run)
    convention = dataclasses.replace(get_convention("standard"), map_threshold=2)
    ours = evaluate(scores, labels, offsets, ("map", "p@10"), convention=convention)
    for name, trec_name in (("map", "map"), ("p@10", "P_10")):
        expected = np.array([trec[qid(q)][trec_name] for q in range(offsets.size - 1)])
        np.testing.assert_allclose(ours[name], expected, rtol=1e-12, atol=1e-12)
    # letor4-mslr uses the same AP / P@k with label >= 2
    mslr = evaluate(scores, labels, offsets, ("map", "p@10"), convention="letor4-mslr")
    np.testing.assert_allclose(mslr["map"], ours["map"], rtol=1e-12)
    np.testing.assert_allclose(mslr["p@10"], ours["p@10"], rtol=1e-12)


# -- scikit-learn's ndcg_score ------------------------------------------------------------------
#
# sklearn.metrics.ndcg_score is an independent NDCG (Järvelin & Kekäläinen 2002): its gain is the
# relevance value itself, so it is given 2**label - 1 (our exponential gain; ranx's "ndcg_burges");
# discount 1/log2(r + 1); a query without relevant documents scores 0; and tied scores are averaged
# over all their orders (McSherry & Najork 2008), i.e. our ties="expected".  It needs at least two
# documents per query, so one-document queries are left out.  (It replaces ranx, whose install pulls
# ir-datasets and fastparquet; scikit-learn is in the test extra, so this test always runs.)


@pytest.mark.parametrize("distinct, ties", [(True, "input-order"), (False, "expected")])
def test_standard_ndcg_matches_scikit_learn(distinct, ties):
    from sklearn.metrics import ndcg_score

    scores, labels, offsets = random_queries(11, n_queries=150, distinct_scores=distinct)
    ours = evaluate(scores, labels, offsets, ("ndcg@10", "ndcg@3", "ndcg"), ties=ties)
    queries = [q for q in range(offsets.size - 1) if offsets[q + 1] - offsets[q] >= 2]
    assert len(queries) > 100 and any(not labels[offsets[q]:offsets[q + 1]].any() for q in queries)
    for q in queries:
        rows = slice(offsets[q], offsets[q + 1])
        gain, score = (2.0 ** labels[rows] - 1)[np.newaxis, :], scores[rows][np.newaxis, :]
        for name, k in (("ndcg@10", 10), ("ndcg@3", 3), ("ndcg", None)):
            expected = ndcg_score(gain, score, k=k, ignore_ties=False)
            assert ours[name][q] == pytest.approx(expected, rel=1e-12, abs=1e-12), (name, q)


# -- ERR against Chapelle et al. (2009), transcribed per query -------------------------------

def chapelle_err(ranked_labels, max_grade, k=None):
    """ERR = sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^g_max (Chapelle et al. 2009,
    Algorithm 2), over the first k ranks."""
    if k is not None:
        ranked_labels = ranked_labels[:k]
    p, total = 1.0, 0.0
    for r, grade in enumerate(ranked_labels, start=1):
        stop = (2.0**grade - 1.0) / 2.0**max_grade
        total += p * stop / r
        p *= 1.0 - stop
    return total


@pytest.mark.parametrize("distinct_scores", [True, False])
def test_err_matches_chapelle_transcription(distinct_scores):
    scores, labels, offsets = random_queries(3, distinct_scores=distinct_scores)
    ours = evaluate(scores, labels, offsets, ("err@1", "err@5", "err@10", "err"))
    yahoo = evaluate(scores, labels, offsets, ("err@10", "err"), convention="yahoo")
    for q in range(offsets.size - 1):
        rows = np.arange(offsets[q], offsets[q + 1])
        # Python's sort is stable: tied scores keep row (input) order
        ranked = [int(labels[r]) for r in sorted(rows, key=lambda r: -scores[r])]
        for name, k in (("err@1", 1), ("err@5", 5), ("err@10", 10), ("err", None)):
            assert ours[name][q] == pytest.approx(chapelle_err(ranked, 4, k), rel=1e-12, abs=1e-15)
        assert yahoo["err@10"][q] == pytest.approx(chapelle_err(ranked, 4, 10), rel=1e-12, abs=1e-15)
        assert yahoo["err"][q] == pytest.approx(chapelle_err(ranked, 4), rel=1e-12, abs=1e-15)


def test_err_max_grade_is_a_parameter_and_is_enforced():
    scores = np.array([3.0, 2.0, 1.0])
    labels = np.array([1, 2, 0])
    offsets = np.array([0, 3])
    two = dataclasses.replace(get_convention("standard"), max_grade=2)
    got = evaluate(scores, labels, offsets, ("err",), convention=two)["err"][0]
    assert got == pytest.approx(chapelle_err([1, 2, 0], 2))
    assert got != pytest.approx(evaluate(scores, labels, offsets, ("err",))["err"][0])
    with pytest.raises(ValueError, match="max_grade"):
        evaluate(scores, np.array([3, 0, 0]), offsets, ("err",), convention=two)


# -- hand-computed values ------------------------------------------------------------------

def test_hand_computed_standard_values():
    # one query, ranked order by score: labels 2, 0, 1, 0
    scores = np.array([0.1, 0.9, 0.5, 0.7])
    labels = np.array([0, 2, 1, 0])
    offsets = np.array([0, 4])
    got = evaluate(scores, labels, offsets, ("dcg@2", "dcg", "ndcg", "ndcg@1", "map", "p@2", "p@10"))
    dcg = 3.0 + 0.0 + 1.0 / math.log2(4)
    ideal = 3.0 + 1.0 / math.log2(3)
    assert got["dcg@2"][0] == pytest.approx(3.0)
    assert got["dcg"][0] == pytest.approx(dcg)
    assert got["ndcg"][0] == pytest.approx(dcg / ideal)
    assert got["ndcg@1"][0] == pytest.approx(1.0)
    assert got["map"][0] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert got["p@2"][0] == pytest.approx(0.5)
    assert got["p@10"][0] == pytest.approx(0.2)  # divided by k, not by the query size


def test_short_query_ndcg_at_k_is_computed_normally_under_standard():
    scores = np.array([1.0, 2.0, 3.0])
    labels = np.array([2, 0, 1])
    got = evaluate(scores, labels, np.array([0, 3]), ("ndcg@10", "ndcg"))
    assert 0 < got["ndcg@10"][0] < 1
    assert got["ndcg@10"][0] == got["ndcg"][0]


@pytest.mark.parametrize("empty_value", [0.0, 1.0, float("nan")])
def test_empty_query_value(empty_value):
    scores = np.array([1.0, 2.0, 3.0, 1.0])
    labels = np.array([0, 0, 0, 1])
    offsets = np.array([0, 3, 4])
    convention = dataclasses.replace(get_convention("standard"), empty_query_value=empty_value)
    got = evaluate(scores, labels, offsets, ("ndcg@10", "ndcg", "map", "err", "p@1"),
                   convention=convention)
    np.testing.assert_equal(got["ndcg@10"], [empty_value, 1.0])
    np.testing.assert_equal(got["ndcg"], [empty_value, 1.0])
    np.testing.assert_equal(got["map"], [0.0, 1.0])  # AP of a query without relevant docs: 0
    np.testing.assert_equal(got["err"][0], 0.0)
    np.testing.assert_equal(got["p@1"], [0.0, 1.0])


def test_empty_query_value_must_be_zero_one_or_nan():
    with pytest.raises(ValueError, match="empty_query_value"):
        dataclasses.replace(get_convention("standard"), empty_query_value=0.5)


# -- properties ------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.data())
def test_segment_sort_equals_lexsort_on_rows_negated_scores_and_query(data):
    sizes = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=8))
    offsets = offsets_from_sizes(sizes)
    n = int(offsets[-1])
    values = data.draw(st.lists(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 2.0, np.inf]),
                                min_size=n, max_size=n))
    scores = np.array(values, dtype=np.float64)
    reference = np.lexsort((np.arange(n), -scores, query_index_of_rows(offsets)))
    # both paths: numpy's lexsort below KERNEL_MIN_ROWS rows, the compiled kernel from there on
    np.testing.assert_array_equal(descending_order_within_queries(scores, offsets), reference)
    np.testing.assert_array_equal(ranking._descending_order_kernel(scores, offsets), reference)
    labels = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.int8)
    by_label = np.lexsort((np.arange(n), -labels.astype(np.int64), query_index_of_rows(offsets)))
    np.testing.assert_array_equal(descending_order_within_queries(labels, offsets), by_label)
    np.testing.assert_array_equal(ranking._descending_order_kernel(labels, offsets), by_label)


def test_large_inputs_take_the_compiled_kernel_with_the_same_order(monkeypatch):
    rng = np.random.default_rng(3)
    offsets = offsets_from_sizes(rng.integers(1, 40, 2000).tolist())
    scores = rng.integers(0, 5, int(offsets[-1])).astype(np.float64)  # many ties
    small = descending_order_within_queries(scores, offsets)
    monkeypatch.setattr(ranking, "KERNEL_MIN_ROWS", 0)
    np.testing.assert_array_equal(descending_order_within_queries(scores, offsets), small)


@pytest.mark.parametrize("convention", sorted(CONVENTIONS))
def test_row_order_does_not_matter_without_ties(convention):
    scores, labels, offsets = random_queries(5, n_queries=50, max_label=2)
    rng = np.random.default_rng(9)
    # shuffle rows inside each query (a permutation that keeps queries contiguous)
    keys = query_index_of_rows(offsets) + rng.random(offsets[-1])
    perm = np.argsort(keys)
    metrics = ("ndcg@10", "ndcg", "dcg@3", "err@10", "err", "map", "p@5", "rr", "rr@3", "r@5")
    if get_convention(convention).names == "trec_eval":
        metrics = ("nDCG@10", "nDCG", "nDCG(dcg='exp-log2')@3", "ERR@10", "AP", "P@5", "RR", "RR@3", "R@5")
    a = evaluate(scores, labels, offsets, metrics, convention=convention)
    b = evaluate(scores[perm], labels[perm], offsets, metrics, convention=convention)
    for name in metrics:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-15, err_msg=name)


# -- API contract ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, parsed", [
    ("ndcg@10", ("ndcg", 10)), ("ndcg@5", ("ndcg", 5)), ("ndcg", ("ndcg", None)),
    ("map", ("ap", None)), ("err@20", ("err", 20)), ("err", ("err", None)),
    ("p@5", ("p", 5)), ("dcg@10", ("dcg", 10)), ("dcg", ("dcg", None)), ("rr", ("rr", None)),
    ("rr@10", ("rr", 10)), ("r@100", ("r", 100)),
])
def test_parse_metric(name, parsed):
    assert parse_metric(name) == parsed
    assert parsed[0] in METRIC_KINDS


@pytest.mark.parametrize("name", ["ndcg@0", "ndcg@x", "p", "map@10", "ndcg@-1", "", "r", "foo"])
def test_parse_metric_rejects_unknown_names_listing_known_ones(name):
    with pytest.raises(ValueError, match="known under the LTR conventions' names: ndcg@k"):
        parse_metric(name)


def test_evaluate_output_shape_dtype_and_keys():
    scores, labels, offsets = random_queries(1, n_queries=17)
    got = evaluate(scores, labels.astype(np.int8), offsets, (" ndcg@10", "map", "err@3", "p@2", "rr", "r@3"))
    assert list(got) == [" ndcg@10", "map", "err@3", "p@2", "rr", "r@3"]
    for values in got.values():
        assert values.dtype == np.float64 and values.shape == (17,)
        assert np.all((values >= 0) & (values <= 1))


def test_get_convention():
    assert get_convention("LETOR4").name == "letor4"
    custom = Convention(name="custom", map_threshold=3)
    assert get_convention(custom) is custom
    with pytest.raises(ValueError, match="known: standard, letor4, letor4-mslr, yahoo"):
        get_convention("trec")
    with pytest.raises(ValueError, match="unknown ties"):
        evaluate(np.zeros(1), np.zeros(1, int), np.array([0, 1]), ties="random")


@pytest.mark.parametrize("scores, labels, offsets, message", [
    ([np.nan, 1.0], [0, 1], [0, 2], "NaN"),
    ([1.0, 2.0], [0, 1], [0, 3], "shape"),
    ([1.0, 2.0], [0, -1], [0, 2], ">= 0"),
    ([1.0, 2.0], [0.5, 1], [0, 2], "integers"),
    ([1.0, 2.0], [0, 1], [1, 2], "start at 0"),
])
def test_invalid_inputs_are_rejected(scores, labels, offsets, message):
    with pytest.raises(ValueError, match=message):
        evaluate(np.array(scores), np.array(labels), np.array(offsets))


def test_queries_without_documents_are_allowed():
    got = evaluate(np.array([1.0, 2.0]), np.array([1, 0]), np.array([0, 0, 2, 2]),
                   ("ndcg@10", "err", "map", "p@3"))
    np.testing.assert_equal(got["ndcg@10"], [0.0, 1 / math.log2(3) / 1.0, 0.0])
    np.testing.assert_equal(got["map"], [0.0, 0.5, 0.0])
