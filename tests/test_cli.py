"""`ltrbv evaluate` replaces Eval-Score-4.0.pl: same numbers on real MQ2008, clear errors otherwise."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import MQ2008, require
from letor4_perl import perl_eval_query
from ltrbv.data.letor import read_letor

LTRBV = [sys.executable, "-m", "ltrbv.cli"]


def run_cli(*args):
    return subprocess.run(LTRBV + [str(a) for a in args], capture_output=True, text=True)


@pytest.mark.realdata
@pytest.mark.parametrize("kind", ["continuous", "heavily-tied"])
def test_evaluate_equals_the_perl_script_on_mq2008_fold1_test(tmp_path, kind):
    path = require(MQ2008 / "Fold1" / "test.txt")
    data = read_letor(path)
    rng = np.random.default_rng(42)
    scores = rng.normal(size=data.n_docs) if kind == "continuous" else rng.integers(0, 3, data.n_docs).astype(float)
    score_file = tmp_path / "scores.txt"
    np.savetxt(score_file, scores, fmt="%.17g")  # file order, one per line, as the Perl script reads it
    result = run_cli("evaluate", path, score_file, "--convention", "letor4",
                     "--metrics", "ndcg@1,ndcg@5,ndcg@10,map,p@10", "--per-query", tmp_path / "pq.csv")
    assert result.returncode == 0, result.stderr
    means = json.loads(result.stdout)
    # the oracle: the script's per-query logic over queries in file order, averaged over queries
    row_scores = data.from_file_order(scores)  # line i of the score file belongs to line i of the data file
    perl = [perl_eval_query(data.labels[a:b], row_scores[a:b]) for a, b in zip(data.query_offsets[:-1], data.query_offsets[1:])]
    for metric in ("ndcg@1", "ndcg@5", "ndcg@10", "map", "p@10"):
        assert means[metric] == pytest.approx(np.mean([q[metric] for q in perl]), abs=1e-12), metric
    assert means["queries"] == 156
    per_query = (tmp_path / "pq.csv").read_text().splitlines()
    assert per_query[0] == "qid,ndcg@1,ndcg@5,ndcg@10,map,p@10" and len(per_query) == 157


def test_evaluate_rejects_a_short_score_file(tmp_path):
    data_file = tmp_path / "d.txt"
    data_file.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n2 qid:2 1:0.3\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.2\n")
    result = run_cli("evaluate", data_file, scores)
    assert result.returncode == 2
    assert "s.txt: 2 scores for 3 documents" in result.stderr


def test_evaluate_names_the_bad_data_line(tmp_path):
    data_file = tmp_path / "d.txt"
    data_file.write_text("1 qid:1 1:0.5\nx qid:1 1:0.1\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.2\n")
    result = run_cli("evaluate", data_file, scores)
    assert result.returncode == 2 and "d.txt, line 2" in result.stderr


def test_evaluate_small_case_by_hand(tmp_path):
    data_file = tmp_path / "d.txt"
    # query 1: labels 2,0,1 ranked by scores 0.1, 0.9, 0.5 -> ranking 0,1,2 (labels) ; query 2: one relevant doc on top
    data_file.write_text("2 qid:1 1:1\n0 qid:1 1:1\n1 qid:1 1:1\n1 qid:2 1:1\n0 qid:2 1:1\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.9\n0.5\n3\n1\n")
    result = run_cli("evaluate", data_file, scores, "--convention", "standard", "--metrics", "map,p@1")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    # query 1: relevant at ranks 2 and 3 -> AP = (1/2 + 2/3) / 2; query 2: AP = 1
    assert out["map"] == pytest.approx(((1 / 2 + 2 / 3) / 2 + 1) / 2)
    assert out["p@1"] == pytest.approx(0.5)


def test_every_subcommand_and_option_is_explained():
    """`ltrbv --help` names every sub-command; each has a description and every option a help text (issue 17)."""
    import argparse

    from ltrbv.cli import build_parser

    parser = build_parser()
    top = parser.format_help()
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in subparsers.choices.items():
        assert name in parser.description, f"the top-level description does not name {name}"
        assert sub.description, f"ltrbv {name} has no description"
        unexplained = [a.option_strings or a.dest for a in sub._actions
                       if not a.help and not isinstance(a, argparse._HelpAction)]
        assert not unexplained, f"ltrbv {name}: options without help {unexplained}"
    assert "``" not in top  # plain text, not reStructuredText


def every_parser(parser, path=("ltrbv",)):
    """(command path, parser) of the top-level parser and of every sub-command below it, however deep."""
    import argparse

    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from every_parser(sub, (*path, name))


def test_every_help_ends_with_one_example_that_parses():
    """Each command's --help (walked from the parser, not listed here) ends with one ``Example:`` whose command
    line is the command itself, with arguments its own parser accepts (issue 29)."""
    import contextlib
    import io
    import shlex

    from ltrbv.cli import build_parser

    parsers = list(every_parser(build_parser()))
    assert {" ".join(path) for path, _ in parsers} >= {"ltrbv evaluate", "ltrbv compare", "ltrbv biasvar",
                                                        "ltrbv data", "ltrbv data verify", "ltrbv plan"}
    for path, parser in parsers:
        command = " ".join(path)
        text = parser.format_help().rstrip("\n")
        assert text.count("\nExample:\n") == 1, f"{command} --help: not one 'Example:' (found {text.count('Example:')})"
        example = text.split("\nExample:\n", 1)[1].replace("\\\n", " ")  # shell continuation lines joined
        assert "\n" not in example.strip(), f"{command} --help: the example is not the end, or not one command"
        words = shlex.split(example)
        assert words[:len(path)] == list(path) or len(path) == 1 and words[0] == "ltrbv", \
            f"{command} --help: its example runs {' '.join(words[:3])!r}, another command"
        with contextlib.redirect_stderr(io.StringIO()) as errors:
            try:
                build_parser().parse_args(words[1:])
            except SystemExit:
                raise AssertionError(f"{command} --help: its example does not parse: {errors.getvalue()}") from None
