"""Every metric name the trec_eval convention accepts computes what ir_measures and pytrec_eval compute
(issue 29): on synthetic data with tied scores, unjudged and unretrieved documents (top-k runs), and on
MQ2008 Fold1 test; through the library and through `ltrbv evaluate` / `ltrbv compare`."""

from __future__ import annotations

import json

import ir_measures  # the test extra's (pyproject.toml): an oracle that is missing fails, never skips
import numpy as np
import pytest
import pytrec_eval

from conftest import MQ2008, require
from ltrbv.cli import main
from ltrbv.data.letor import read_letor
from ltrbv.data.trec import read_docids
from ltrbv.metrics import canonical_metric, evaluate

# every accepted spelling -> the ir_measures measure it must equal
SPELLINGS = {
    "nDCG@10": ["nDCG@10", "NDCG@10", "ndcg_cut.10", "ndcg_cut_10"],
    "nDCG@5": ["nDCG@5"],
    "nDCG": ["nDCG", "NDCG"],
    "nDCG(dcg='exp-log2')@10": ["nDCG(dcg='exp-log2')@10", 'NDCG(dcg="exp-log2")@10'],
    "AP": ["AP", "MAP", "map", "AP(rel=1)"],
    "AP@10": ["AP@10", "map_cut.10", "map_cut_10"],
    "AP(rel=2)": ["AP(rel=2)"],
    "P@10": ["P@10", "P.10", "P_10", "Precision@10"],
    "P(rel=2)@5": ["P(rel=2)@5"],
    "RR": ["RR", "MRR", "recip_rank"],
    "RR(rel=2)": ["RR(rel=2)"],
    "R@10": ["R@10", "recall.10", "recall_10", "Recall@10"],
    "R(rel=3)@20": ["R(rel=3)@20"],
    "ERR@10": ["ERR@10"],
}
GDEVAL = {"ERR@10", "nDCG(dcg='exp-log2')@10"}  # gdeval prints 5 decimals
RR_CUTOFFS = (1, 3)  # RR@k: trec_eval's recip_rank of the run cut at k in trec_eval's order (trec_eval -M k)


def synthetic(seed=3, n_queries=40, top_k=True, ties=True):
    """Labels 0-4 (one query without relevant documents), tied scores, random document ids; some documents
    unretrieved (at least one retrieved per query)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 25, n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = int(offsets[-1])
    labels = rng.choice(5, n, p=[0.5, 0.2, 0.15, 0.1, 0.05])
    labels[offsets[2]:offsets[3]] = 0
    scores = rng.integers(0, 4, n).astype(float) if ties else rng.random(n)
    docids = np.array([f"d{rng.integers(0, 10**6):06d}-{i}" for i in range(n)])
    retrieved = (rng.random(n) < 0.7) if top_k else np.ones(n, bool)
    retrieved[offsets[:-1]] = True
    qids = [str(100 + q) for q in range(n_queries)]
    return labels, offsets, scores, docids, retrieved, qids


def trec_dicts(labels, offsets, scores, docids, retrieved, qids):
    qrels = {qid: {str(docids[i]): int(labels[i]) for i in range(offsets[q], offsets[q + 1])}
             for q, qid in enumerate(qids)}
    run = {qid: {str(docids[i]): float(scores[i]) for i in range(offsets[q], offsets[q + 1]) if retrieved[i]}
           for q, qid in enumerate(qids)}
    return qrels, run


def oracle(measure: str, qrels, run) -> dict[str, float]:
    return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run)}


def rr_at_k_oracle(k, qrels, run) -> dict[str, float]:
    """pytrec_eval's recip_rank of each query's run cut at its top k in trec_eval's order (score, then document
    id, both descending): trec_eval -M k.  (ir_measures computes RR@k with the MS MARCO script, which breaks
    ties by document id ascending.)"""
    cut = {qid: dict(sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k])
           for qid, docs in run.items()}
    result = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
    return {qid: values["recip_rank"] for qid, values in result.items()}


def assert_equal_per_query(ours, theirs, qids, tolerance, what):
    assert set(theirs) == set(qids), what
    for q, qid in enumerate(qids):
        assert ours[q] == pytest.approx(theirs[qid], abs=tolerance), (what, qid, ours[q], theirs[qid])


@pytest.mark.parametrize("top_k", [False, True], ids=["all-retrieved", "top-k"])
def test_every_trec_eval_name_equals_ir_measures_with_ties(top_k):
    labels, offsets, scores, docids, retrieved, qids = synthetic(top_k=top_k)
    assert not retrieved.all() if top_k else retrieved.all()
    qrels, run = trec_dicts(labels, offsets, scores, docids, retrieved, qids)
    names = [name for spellings in SPELLINGS.values() for name in spellings]
    ours = evaluate(scores, labels, offsets, names, convention="trec_eval", docids=docids,
                    retrieved=retrieved if top_k else None)
    for measure, spellings in SPELLINGS.items():
        theirs = oracle(measure, qrels, run)
        for name in spellings:
            assert canonical_metric(name, "trec_eval") == measure
            assert_equal_per_query(ours[name], theirs, qids, 6e-6 if measure in GDEVAL else 1e-9, name)
    for k in RR_CUTOFFS:
        values = evaluate(scores, labels, offsets, [f"RR@{k}"], convention="trec_eval", docids=docids,
                          retrieved=retrieved)[f"RR@{k}"]
        assert_equal_per_query(values, rr_at_k_oracle(k, qrels, run), qids, 1e-12, f"RR@{k}")


def test_ties_follow_trec_eval_document_order_not_row_order():
    """Reversing the rows of every query changes nothing under trec_eval's order (the LTR input order would)."""
    labels, offsets, scores, docids, retrieved, qids = synthetic(top_k=False)
    reverse = np.concatenate([np.arange(offsets[q + 1] - 1, offsets[q] - 1, -1) for q in range(len(qids))])
    names = ["nDCG@10", "AP", "P@5", "RR", "ERR@10"]
    a = evaluate(scores, labels, offsets, names, convention="trec_eval", docids=docids)
    b = evaluate(scores[reverse], labels[reverse], offsets, names, convention="trec_eval", docids=docids[reverse])
    for name in names:
        np.testing.assert_array_equal(a[name], b[name])
    ltr = evaluate(scores, labels, offsets, ["ndcg@10"], convention="standard")["ndcg@10"]
    ltr_reversed = evaluate(scores[reverse], labels[reverse], offsets, ["ndcg@10"], convention="standard")["ndcg@10"]
    assert np.abs(ltr - ltr_reversed).max() > 0.01
    with pytest.raises(ValueError, match="no document ids were given"):
        evaluate(scores, labels, offsets, ["AP"], convention="trec_eval")
    with pytest.raises(ValueError, match="orders tied scores as trec_eval does"):
        evaluate(scores, labels, offsets, ["AP"], convention="trec_eval", docids=docids, ties="expected")


def test_unretrieved_documents_are_refused_under_ltr_conventions():
    labels, offsets, scores, docids, retrieved, qids = synthetic(ties=False)
    with pytest.raises(ValueError, match="the letor4 convention ranks every document"):
        evaluate(scores, labels, offsets, ["ndcg@10"], convention="letor4", retrieved=retrieved)


def test_ltr_rr_and_recall_equal_brute_force_under_expected_ties():
    """RR and R@k of the LTR conventions under ties='expected' equal the mean over every order of the ties."""
    from itertools import permutations

    labels = np.array([0, 1, 0, 2, 1, 0])
    scores = np.array([3.0, 2.0, 2.0, 2.0, 1.0, 2.0])
    offsets = np.array([0, 6])
    names = ["rr", "rr@2", "rr@3", "r@2", "r@3"]
    expected = evaluate(scores, labels, offsets, names, convention="standard", ties="expected")
    tied = [1, 2, 3, 5]
    sums = dict.fromkeys(names, 0.0)
    orders = list(permutations(tied))
    for order in orders:
        rows = [0, *order, 4]
        values = evaluate(scores[rows] * 0 + np.arange(6, 0, -1), labels[rows], offsets, names, convention="standard")
        for name in names:
            sums[name] += values[name][0]
    for name in names:
        assert expected[name][0] == pytest.approx(sums[name] / len(orders), abs=1e-12), name


# -- the command line on TREC files: top-k runs ---------------------------------------------------

def write_trec(tmp_path, labels, offsets, docids, qids, systems, unjudged=3):
    """qrels (every document, labels) and one top-k run per system, each with a few unjudged documents."""
    qrels = tmp_path / "t.qrels"
    qrels.write_text("".join(f"{qid} 0 {docids[i]} {labels[i]}\n" for q, qid in enumerate(qids)
                             for i in range(offsets[q], offsets[q + 1])))
    runs = []
    for s, (scores, retrieved) in enumerate(systems):
        lines = []
        for q, qid in enumerate(qids):
            rows = [i for i in range(offsets[q], offsets[q + 1]) if retrieved[i]]
            docs = [(docids[i], float(scores[i])) for i in rows] + [(f"unjudged-{qid}-{u}", 1.5) for u in range(unjudged)]
            lines += [f"{qid} Q0 {doc} {rank} {score!r} sys{s}\n" for rank, (doc, score) in enumerate(docs, 1)]
        runs.append(tmp_path / f"sys{s}.run")
        runs[-1].write_text("".join(lines))
    return qrels, runs


def read_dicts(qrels_path, run_path):
    qrels, run = {}, {}
    for line in open(qrels_path):
        qid, _, doc, label = line.split()
        qrels.setdefault(qid, {})[doc] = int(label)
    for line in open(run_path):
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return qrels, run


def cli_json(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_cli_top_k_runs_equal_pytrec_eval_and_biasvar_refuses_them(tmp_path, capsys):
    labels, offsets, scores, docids, retrieved, qids = synthetic(seed=5)
    rng = np.random.default_rng(6)
    other = (rng.integers(0, 3, scores.size).astype(float), rng.random(scores.size) < 0.5)
    other[1][offsets[:-1]] = True
    qrels, runs = write_trec(tmp_path, labels, offsets, docids, qids, [(scores, retrieved), other])
    measures = {"ndcg_cut_10": "nDCG@10", "map": "AP", "P_10": "P@10", "recip_rank": "RR", "recall_10": "R@10",
                "ndcg": "nDCG"}
    for run in runs:
        typed = "ndcg_cut.10,map,P.10,recip_rank,recall.10,nDCG"  # trec_eval's -m spellings (ndcg: nDCG)
        out = cli_json(capsys, "evaluate", "--qrels", qrels, "--run", run, "--metrics", typed)
        assert out["convention"] == "trec_eval" and "not ranked" in out["unretrieved"]
        assert out["definitions"]["nDCG@10"] == "nDCG@10 = trec_eval's ndcg / ndcg_cut, gain = label"
        qrels_dict, run_dict = read_dicts(qrels, run)
        trec = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10", "map", "P.10", "recip_rank", "recall.10",
                                                           "ndcg"}).evaluate(run_dict)
        for trec_name, name in measures.items():
            assert out[name] == pytest.approx(np.mean([trec[qid][trec_name] for qid in qids]), abs=1e-12), name
    # compare gives the same means, and says how unretrieved documents count
    comparison = cli_json(capsys, "compare", "--qrels", qrels, "--run", *runs, "--metrics", "nDCG@10,AP",
                          "--permutations", 100, "--resamples", 50, "--json")
    first = cli_json(capsys, "evaluate", "--qrels", qrels, "--run", runs[0])
    row = next(r for r in comparison["rows"] if r["system"] == "sys0" and r["metric"] == "nDCG@10")
    assert row["mean"] == pytest.approx(first["nDCG@10"], abs=1e-15)
    assert any("not ranked" in note for note in comparison["notes"])
    # an LTR convention ranks every document: a top-k run is refused there, naming the convention to use
    assert main(["evaluate", "--qrels", str(qrels), "--run", str(runs[0]), "--convention", "standard",
                 "--metrics", "ndcg@10"]) == 2
    assert "the standard convention ranks every document of a query" in capsys.readouterr().err
    # bias and variance need every model to score the same documents
    assert main(["biasvar", "--qrels", str(qrels), "--run", *map(str, runs), "--method", "twofold"]) == 2
    err = capsys.readouterr().err
    assert "sys0.run: query 100 lacks" in err and "bias and variance compare each document's scores" in err


def test_evaluate_and_compare_print_the_same_value_with_no_options(tmp_path, capsys):
    from ltrbv.data.synthetic import SyntheticSpec, write_letor_split

    spec = SyntheticSpec(n_queries=30, docs_per_query=12, n_features=6, n_informative=3, n_query_level=1, seed=2)
    test = write_letor_split(tmp_path / "test.txt", spec, 1, "test")
    n_lines = len(test.read_text().splitlines())
    files = []
    for i, values in enumerate(np.random.default_rng(3).integers(0, 5, (2, n_lines))):
        files.append(tmp_path / f"m{i}.scores")
        files[-1].write_text("".join(f"{v}\n" for v in values))  # tied scores
    evaluated = cli_json(capsys, "evaluate", test, files[0])
    compared = cli_json(capsys, "compare", "--data", test, "--scores", *files, "--json", "--permutations", 50,
                        "--resamples", 20)
    assert evaluated["convention"] == compared["convention"] == "trec_eval"
    for metric in ("nDCG@10", "AP"):
        row = next(r for r in compared["rows"] if r["system"] == "m0" and r["metric"] == metric)
        assert row["mean"] == evaluated[metric]


# -- MQ2008 Fold1 test -------------------------------------------------------------------------------

@pytest.mark.realdata
def test_mq2008_every_name_equals_ir_measures_and_pytrec_eval(tmp_path, capsys):
    path = require(MQ2008 / "Fold1" / "test.txt")
    data = read_letor(path)
    docids = data.from_file_order(read_docids(path))
    feature = data.X[:, 0].astype(np.float64)  # many ties
    rng = np.random.default_rng(0)
    qrels, _ = trec_dicts(data.labels, data.query_offsets, feature, docids, np.ones(data.n_docs, bool), data.qids)
    for scores in (feature, rng.normal(size=data.n_docs)):
        top10 = np.zeros(data.n_docs, bool)
        for q in range(data.n_queries):
            lo, hi = data.query_offsets[q], data.query_offsets[q + 1]
            top10[lo + np.argsort(-scores[lo:hi], kind="stable")[:10]] = True
        for retrieved in (np.ones(data.n_docs, bool), top10):
            _, run = trec_dicts(data.labels, data.query_offsets, scores, docids, retrieved, data.qids)
            names = [name for spellings in SPELLINGS.values() for name in spellings]
            ours = evaluate(scores, data.labels, data.query_offsets, names, convention="trec_eval", docids=docids,
                            retrieved=retrieved)
            for measure, spellings in SPELLINGS.items():
                theirs = oracle(measure, qrels, run)
                for name in spellings:
                    assert_equal_per_query(ours[name], theirs, data.qids, 6e-6 if measure in GDEVAL else 1e-9, name)
    # the command line, with a score file of the feature: nDCG@10 equals pytrec_eval's ndcg_cut.10
    scores_file = tmp_path / "f1.scores"
    scores_file.write_text("".join(f"{v!r}\n" for v in data.to_file_order(feature).tolist()))
    out = cli_json(capsys, "evaluate", path, scores_file, "--metrics", "nDCG@10,ndcg_cut.10,AP,P@10,RR,R@100")
    _, run = trec_dicts(data.labels, data.query_offsets, feature, docids, np.ones(data.n_docs, bool), data.qids)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.10", "recip_rank", "recall.100"}).evaluate(run)
    for trec_name, name in {"ndcg_cut_10": "nDCG@10", "map": "AP", "P_10": "P@10", "recip_rank": "RR",
                            "recall_100": "R@100"}.items():
        assert out[name] == pytest.approx(np.mean([trec[q][trec_name] for q in data.qids]), abs=1e-12), name
