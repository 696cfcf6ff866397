"""TREC runs and qrels (issue 14): export a prediction file as a run, score it with an independent tool
(pytrec_eval), read finished runs back for the reducers; bad runs are refused naming file and line."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import MQ2008, require
from ltrbv.biasvar import decompose
from ltrbv.data.letor import read_letor
from ltrbv.data.trec import TrecFormatError, read_docids, read_trec, write_qrels, write_run
from ltrbv.metrics import evaluate


def letor_file(path, n_queries=8, docs=9, seed=0, with_docids=True):
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(n_queries):
        for d in range(docs):
            label = int(rng.integers(0, 3)) if q != 2 else 0  # query 3 has no relevant document
            comment = f" #docid = GX{q:03d}-{d:02d} inc = 1" if with_docids else ""
            lines.append(f"{label} qid:{100 + q} 1:{rng.random():.4f} 2:{rng.random():.4f}{comment}\n")
    path.write_text("".join(lines))
    return path


def export(tmp_path, data_path, scores_file_order, gain="label"):
    data = read_letor(data_path)
    docids = data.from_file_order(read_docids(data_path))
    scores = data.from_file_order(np.asarray(scores_file_order))
    run = write_run(tmp_path / "a.run", data, scores, docids)
    qrels = write_qrels(tmp_path / f"{gain}.qrels", data, docids, gain=gain)
    return data, scores, run, qrels


def trec_dicts(run_path, qrels_path):
    run, qrels = {}, {}
    for line in open(run_path):
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    for line in open(qrels_path):
        qid, _, doc, label = line.split()
        qrels.setdefault(qid, {})[doc] = int(label)
    return run, qrels


def check_against_pytrec_eval(tmp_path, data_path, scores_file_order):
    """trec_eval's ndcg (linear gain) on qrels 2^l - 1, its map and P_10 on the labels, equal ltrbv's
    `standard` convention on every query with a relevant document."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    data, scores, run_path, exp_qrels = export(tmp_path, data_path, scores_file_order, gain="exp2")
    _, _, _, label_qrels = export(tmp_path, data_path, scores_file_order, gain="label")
    ours = evaluate(scores, data.labels, data.query_offsets, ["ndcg", "ndcg@10", "map", "p@10"], convention="standard")
    for qrels_path, measures, names in ((exp_qrels, {"ndcg", "ndcg_cut.10"}, {"ndcg": "ndcg", "ndcg_cut_10": "ndcg@10"}),
                                        (label_qrels, {"map", "P.10"}, {"map": "map", "P_10": "p@10"})):
        run, qrels = trec_dicts(run_path, qrels_path)
        trec = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        checked = 0
        for q, qid in enumerate(data.qids):
            if data.labels[data.query_offsets[q]:data.query_offsets[q + 1]].max() == 0:
                continue
            for trec_name, name in names.items():
                assert ours[name][q] == pytest.approx(trec[qid][trec_name], abs=1e-9), (qid, name)
            checked += 1
        assert checked > 0


def test_export_scored_by_pytrec_eval_equals_evaluate_synthetic(tmp_path):
    path = letor_file(tmp_path / "test.txt")
    scores = np.random.default_rng(1).normal(size=72)  # distinct: trec_eval breaks ties by docid
    check_against_pytrec_eval(tmp_path, path, scores)


def test_export_scored_by_pytrec_eval_equals_evaluate_mq2008(tmp_path):
    path = require(MQ2008 / "Fold1" / "test.txt")
    n = sum(1 for _ in open(path))
    scores = np.random.default_rng(2).normal(size=n)
    check_against_pytrec_eval(tmp_path, path, scores)


def test_docids_from_comments_or_line_numbers(tmp_path):
    with_ids = read_docids(letor_file(tmp_path / "a.txt", n_queries=2, docs=2))
    assert with_ids.tolist() == ["GX000-00", "GX000-01", "GX001-00", "GX001-01"]
    without = read_docids(letor_file(tmp_path / "b.txt", n_queries=2, docs=2, with_docids=False))
    assert without.tolist() == ["L1", "L2", "L3", "L4"]


def test_runs_read_back_equal_the_score_files(tmp_path):
    """The reducers on --qrels/--run give what they give on the data file and the score files."""
    path = letor_file(tmp_path / "test.txt")
    data = read_letor(path)
    docids = data.from_file_order(read_docids(path))
    rng = np.random.default_rng(4)
    models = rng.normal(size=(4, data.n_docs))
    runs = [write_run(tmp_path / f"m{i}.run", data, models[i], docids) for i in range(4)]
    qrels = write_qrels(tmp_path / "q.qrels", data, docids)
    trec_data, trec_scores = read_trec(qrels, runs)
    assert trec_data.qids.tolist() == data.qids.tolist()
    np.testing.assert_array_equal(trec_data.labels, data.labels)
    # rows of a query keep the qrels' order, which is the file's: the scores come back unchanged
    np.testing.assert_array_equal(trec_scores, models)
    a = decompose(data, models, "twofold", metrics=("ndcg", "map"), n_resamples=200, seed=1).summary
    b = decompose(trec_data, trec_scores, "twofold", metrics=("ndcg", "map"), n_resamples=200, seed=1).summary
    assert a == b


@pytest.mark.parametrize("edit, message", [
    (lambda run: run[:-1], r"m1.run: query 107 lacks 1 of its 9 documents \(e.g. 'GX007-0\d'\)"),
    (lambda run: run + [run[0]], r"m1.run, line 73: document 'GX\d+-\d+' of query \d+ appears twice"),
    (lambda run: run + ["999 Q0 X 1 0.5 t\n"], r"m1.run: query 999 is not in the qrels"),
    (lambda run: [run[0].replace(" Q0 ", " ")] + run[1:], r"m1.run, line 1: 5 fields"),
    (lambda run: [" ".join(run[0].split()[:4] + ["nan", "t"]) + "\n"] + run[1:], r"m1.run, line 1: score 'nan' is not finite"),
])
def test_bad_runs_are_refused(tmp_path, edit, message):
    path = letor_file(tmp_path / "test.txt")
    data = read_letor(path)
    docids = data.from_file_order(read_docids(path))
    qrels = write_qrels(tmp_path / "q.qrels", data, docids)
    good = write_run(tmp_path / "m0.run", data, np.arange(data.n_docs, dtype=float), docids)
    lines = good.read_text().splitlines(keepends=True)
    lines.sort(key=lambda line: (int(line.split()[0]), line.split()[2]))  # rows by query, then document
    bad = tmp_path / "m1.run"
    bad.write_text("".join(edit(lines)))
    with pytest.raises(TrecFormatError, match=message):
        read_trec(qrels, [good, bad])


def test_unjudged_retrieved_documents_count_as_not_relevant(tmp_path):
    (tmp_path / "q.qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.run").write_text("1 Q0 c 1 3.0 t\n1 Q0 a 2 2.0 t\n1 Q0 b 3 1.0 t\n")
    data, scores = read_trec(tmp_path / "q.qrels", [tmp_path / "r.run"])
    assert data.labels.tolist() == [1, 0, 0]
    assert scores.tolist() == [[2.0, 1.0, 3.0]]


def test_cli_export_then_evaluate_and_biasvar_from_runs(tmp_path, capsys):
    """`ltrbv export-trec` then `evaluate --qrels --run` and `biasvar --qrels --run` equal the score-file forms."""
    import json

    from ltrbv.cli import main

    path = letor_file(tmp_path / "test.txt")
    rng = np.random.default_rng(8)
    score_files, run_files = [], []
    for i in range(4):
        score_files.append(tmp_path / f"m{i}.scores")
        score_files[-1].write_text("".join(f"{v!r}\n" for v in rng.normal(size=72).tolist()))
        run_files.append(tmp_path / f"m{i}.run")
        qrels = ["--qrels", str(tmp_path / "t.qrels")] if i == 0 else []
        assert main(["export-trec", str(path), str(score_files[-1]), "--run", str(run_files[-1]), *qrels]) == 0
    capsys.readouterr()

    def output(argv):
        assert main(argv) == 0, capsys.readouterr().err
        return json.loads(capsys.readouterr().out)

    common = ["--convention", "standard", "--metrics", "ndcg@10,map"]
    a = output(["evaluate", str(path), str(score_files[0]), *common])
    b = output(["evaluate", "--qrels", str(tmp_path / "t.qrels"), "--run", str(run_files[0]), *common])
    assert a == b
    args = ["--method", "twofold", "--metric", "ndcg,map", "--resamples", "200", "--convention", "standard"]
    a = output(["biasvar", "--data", str(path), "--scores", *map(str, score_files), *args])
    b = output(["biasvar", "--qrels", str(tmp_path / "t.qrels"), "--run", *map(str, run_files), *args])
    a.pop("data"), b.pop("data")
    assert a == b
    # a run that lacks a document is refused, naming it
    lines = run_files[1].read_text().splitlines(keepends=True)
    run_files[1].write_text("".join(lines[:-1]))
    assert main(["biasvar", "--qrels", str(tmp_path / "t.qrels"), "--run", *map(str, run_files), *args]) == 2
    assert "m1.run: query" in capsys.readouterr().err
    # both input forms at once, or half of one, are refused
    assert main(["evaluate", str(path), str(score_files[0]), "--qrels", str(tmp_path / "t.qrels"),
                 "--run", str(run_files[0])]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["evaluate", "--run", str(run_files[0])]) == 2
    assert "--run needs --qrels" in capsys.readouterr().err
