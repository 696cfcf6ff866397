"""ltrbv sampling-distribution: output against the library, and clear errors (file, line, exit code 2)."""

import numpy as np
import pandas as pd
import pytest

from ltrbv.active.rankings import ranks_from_scores
from ltrbv.active.sampling import compare_distribution, estimate_distribution, query_costs
from ltrbv.cli import main

LINES = [  # (label, qid); query 2's lines come first to check file order handling
    (1, "q2"), (0, "q2"), (2, "q2"),
    (0, "q1"), (1, "q1"),
    (2, "q3"), (0, "q3"), (0, "q3"), (1, "q3"),
]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    data = tmp_path / "pool.txt"
    data.write_text("".join(f"{y} qid:{q} 1:{rng.random():.4f} 2:{rng.random():.4f}\n" for y, q in LINES))
    probs = rng.dirichlet(np.ones(3), size=len(LINES))
    np.savetxt(tmp_path / "probs.txt", probs, fmt="%.17g")
    scores_a, scores_b = rng.normal(size=len(LINES)), rng.normal(size=len(LINES))
    np.savetxt(tmp_path / "a.scores", scores_a, fmt="%.17g")
    np.savetxt(tmp_path / "b.scores", scores_b, fmt="%.17g")
    return tmp_path, probs, scores_a, scores_b


def _expected(probs, scores_a, scores_b, measure, costs_kind):
    """The library called on the queries grouped by hand (q2 first: the order of first appearance)."""
    offsets = np.array([0, 3, 5, 9])
    costs = query_costs(offsets) if costs_kind == "ndocs" else np.ones(3)
    ra = ranks_from_scores(scores_a, offsets)
    if scores_b is None:
        return estimate_distribution(probs, ra, offsets, measure, costs)
    return compare_distribution(probs, ra, ranks_from_scores(scores_b, offsets), offsets, measure, costs)


@pytest.mark.parametrize("measure", ["dcg", "err"])
@pytest.mark.parametrize("compare", [False, True])
@pytest.mark.parametrize("cost", ["ndocs", "uniform"])
def test_writes_the_library_distribution(files, measure, compare, cost):
    tmp, probs, sa, sb = files
    out = tmp / "q.csv"
    argv = ["sampling-distribution", "--data", str(tmp / "pool.txt"), "--label-probs", str(tmp / "probs.txt"),
            "--scores", str(tmp / "a.scores"), "--measure", measure, "--cost", cost, "--out", str(out)]
    if compare:
        argv += ["--scores-b", str(tmp / "b.scores")]
    assert main(argv) == 0
    table = pd.read_csv(out, dtype={"qid": str})
    assert list(table.columns) == ["qid", "q"]
    assert table["q"].sum() == pytest.approx(1.0)
    expected = dict(zip(["q2", "q1", "q3"], _expected(probs, sa, sb if compare else None, measure, cost)))
    for qid, q in zip(table["qid"], table["q"]):
        assert q == pytest.approx(expected[qid], rel=1e-8)


@pytest.mark.parametrize("content,message", [
    ("0.5 0.5 0\n" * 8, "8 lines for 9 documents (line 9 is missing)"),
    ("0.5 0.5 0\n" * 10, "10 lines for 9 documents"),
    ("0.5 0.5 0\n" * 4 + "0.5 0.5\n" + "0.5 0.5 0\n" * 4, "line 5: 2 columns, line 1 has 3"),
    ("0.5 0.5 0\n" * 2 + "0.5 0.4 0\n" + "0.5 0.5 0\n" * 6, "line 3: probabilities sum to 0.9, not 1"),
    ("0.5 0.5 0\n" + "0.5 abc 0\n" + "0.5 0.5 0\n" * 7, "line 2: probability 'abc' is not a number"),
    ("1.5 -0.5 0\n" + "0.5 0.5 0\n" * 8, "line 1: probabilities must lie in [0, 1]"),
])
def test_bad_label_probs_give_a_clear_error(files, capsys, content, message):
    tmp, *_ = files
    bad = tmp / "bad.txt"
    bad.write_text(content)
    code = main(["sampling-distribution", "--data", str(tmp / "pool.txt"), "--label-probs", str(bad),
                 "--scores", str(tmp / "a.scores"), "--measure", "err"])
    assert code == 2
    err = capsys.readouterr().err
    assert "ltrbv sampling-distribution: error:" in err and str(bad) in err and message in err


def test_bad_scores_file_is_reported(files, capsys):
    tmp, *_ = files
    (tmp / "short.scores").write_text("1\n2\n")
    code = main(["sampling-distribution", "--data", str(tmp / "pool.txt"), "--label-probs", str(tmp / "probs.txt"),
                 "--scores", str(tmp / "short.scores"), "--measure", "dcg"])
    assert code == 2 and "short.scores" in capsys.readouterr().err


def test_real_mq2008_test_split(mq2008, tmp_path):
    """On MQ2008 Fold1's test split (skipped where the real data is absent): one q per query, summing to 1."""
    from ltrbv.data.letor import read_letor

    path = mq2008 / "Fold1" / "test.txt"
    data = read_letor(path)
    labels = data.to_file_order(data.labels).astype(int)
    probs = np.full((labels.size, 3), 0.1)
    probs[np.arange(labels.size), labels] = 0.8
    np.savetxt(tmp_path / "probs.txt", probs, fmt="%.3f")
    np.savetxt(tmp_path / "r.scores", data.to_file_order(data.X[:, 20]), fmt="%.17g")  # BM25 of the body
    out = tmp_path / "q.csv"
    assert main(["sampling-distribution", "--data", str(path), "--label-probs", str(tmp_path / "probs.txt"),
                 "--scores", str(tmp_path / "r.scores"), "--measure", "err", "--out", str(out)]) == 0
    table = pd.read_csv(out, dtype={"qid": str})
    assert len(table) == data.n_queries and table["q"].sum() == pytest.approx(1.0) and (table["q"] > 0).all()
