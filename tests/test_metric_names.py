"""Metric names as users type them (trec_eval, ir_measures, papers) are accepted everywhere and
written in one canonical spelling; an unknown name is refused naming it."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
import yaml
from jsonschema import Draft202012Validator
from snakemake.utils import validate

from conftest import REPO
from ltrbv.cli import main
from ltrbv.data.synthetic import SyntheticSpec, write_letor_split
from ltrbv.metrics import canonical_metric, canonical_metrics, evaluate, parse_metric
from ltrbv.workflow import biasvar_grid
from ltrbv.workflow.metric_names import canonical_config_metrics

SPELLINGS = {
    "ndcg@10": ["nDCG@10", "NDCG@10", "ndcg_cut_10", "ndcg_cut.10", " ndcg@10 ", "Ndcg_10"],
    "ndcg": ["nDCG", "NDCG"],
    "p@10": ["P_10", "P@10", "P.10", "p@10", "precision@10", "P_cut_10"],
    "map": ["AP", "ap", "map", "MAP"],
    "err@10": ["ERR@10", "err_cut_10", "err@10"],
    "dcg@5": ["DCG@5", "dcg_cut_5"],
}
UNKNOWN = ["mrr", "AP(rel=2)", "recall@10", "p", "map@10", "ndcg@0", "ndcg_cut_x", "ndcg@", "", "nd cg@10"]


@pytest.mark.parametrize("canonical, spellings", SPELLINGS.items())
def test_each_spelling_has_one_canonical_name(canonical, spellings):
    for name in spellings:
        assert canonical_metric(name) == canonical, name
        assert parse_metric(name) == parse_metric(canonical)
    assert canonical_metrics(",".join(spellings + [canonical])) == [canonical]


@pytest.mark.parametrize("name", UNKNOWN)
def test_unknown_names_are_refused_naming_them(name):
    with pytest.raises(ValueError, match=re.escape(f"{name!r}")):
        canonical_metric(name)


def test_spellings_give_the_same_values():
    rng = np.random.default_rng(0)
    offsets = np.array([0, 7, 15, 30])
    labels, scores = rng.integers(0, 3, 30), rng.random(30)
    for canonical, spellings in SPELLINGS.items():
        values = evaluate(scores, labels, offsets, [canonical, *spellings])
        for name in spellings:
            np.testing.assert_array_equal(values[name], values[canonical])


@pytest.fixture(scope="module")
def fold(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    spec = SyntheticSpec(n_queries=100, docs_per_query=10, n_features=8, n_informative=4, n_query_level=1, seed=1)
    test = write_letor_split(root / "test.txt", spec, 1, "test")
    scores = [root / f"m{i}.scores" for i in range(4)]
    n_lines = len(test.read_text().splitlines())
    rng = np.random.default_rng(1)
    for path in scores:
        path.write_text("".join(f"{v:.6f}\n" for v in rng.random(n_lines)))
    return test, scores


def run(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_evaluate_cli_accepts_spellings_and_prints_canonical_names(fold, capsys):
    test, scores = fold
    code, typed, err = run(capsys, "evaluate", test, scores[0], "--metrics", "nDCG@10,AP,P_10,ERR@10")
    assert code == 0, err
    code, canonical, _ = run(capsys, "evaluate", test, scores[0], "--metrics", "ndcg@10,map,p@10,err@10")
    assert json.loads(typed) == json.loads(canonical)
    assert list(json.loads(typed))[:4] == ["ndcg@10", "map", "p@10", "err@10"]
    code, out, err = run(capsys, "evaluate", test, scores[0], "--metrics", "ndcg@10,mrr")
    assert code == 2 and err == ("ltrbv evaluate: error: --metrics: unknown metric 'mrr'; known: "
                                 "ndcg@k, ndcg, dcg@k, dcg, err@k, err, map (or ap), p@k; also nDCG@10, ndcg_cut_10, "
                                 "P_10, P@10, AP, ERR@10\n")


def test_biasvar_and_compare_cli_accept_spellings(fold, capsys):
    test, scores = fold
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--metric", "nDCG,ndcg_cut_10", "--metric", "AP", "--resamples", 100)
    assert code == 0, err
    report = json.loads(out)
    assert report["metric"] == "ndcg" and list(report["metrics"]) == ["ndcg", "ndcg@10", "map"]
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--metric", "P_10")
    assert code == 2 and "ltrbv biasvar: error: metric 'p@10': ranking error 1 - m needs" in err
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--metric", "AP(rel=2)")
    assert code == 2 and "--metric: unknown metric 'AP(rel=2)'" in err
    code, out, err = run(capsys, "compare", "--data", test, "--scores", *scores[:2], "--metrics", "P_10,AP",
                         "--permutations", 200, "--json")
    assert code == 0, err
    assert json.loads(out)["metrics"] == ["p@10", "map"]


# -- config ------------------------------------------------------------------------------------

def load_schema(name):
    return Draft202012Validator(yaml.safe_load((REPO / "config" / "schema" / name).read_text()))


def demo_config():
    return yaml.safe_load((REPO / "config" / "demo.yaml").read_text())


def test_config_schemas_accept_the_spellings_and_refuse_unknown_names():
    schema = load_schema("config.schema.yaml")
    config = demo_config()
    assert not list(schema.iter_errors(config))
    typed = [name for spellings in SPELLINGS.values() for name in spellings]
    config["metrics"] = typed
    config["figures"]["metric"] = "nDCG@10"
    assert not list(schema.iter_errors(config))
    for name in UNKNOWN:
        config["metrics"] = ["ndcg@10", name]
        assert list(schema.iter_errors(config)), name
    biasvar = load_schema("biasvar.schema.yaml")
    assert not list(biasvar.iter_errors({"metrics": ["nDCG", "AP"], "zhang": {"metrics": ["AP", "NDCG"]},
                                         "significance": {"metrics": ["nDCG@10", "P_10", "ERR@10"]}}))
    assert list(biasvar.iter_errors({"significance": {"metrics": ["mrr"]}}))


def test_config_metric_names_are_rewritten_to_the_canonical_spelling():
    config = demo_config()
    config["metrics"] = ["nDCG@10", "ndcg_cut_10", "AP", "P_10"]
    config["figures"] = {"metric": "NDCG@10"}
    config["experiments"] = {"bag_size": {"metric": "AP"}}
    config["biasvar"] = {"metrics": ["nDCG", "AP"], "zhang": {"metrics": ["AP"]},
                         "significance": {"metrics": ["ERR@10", "nDCG@1"]}}
    original = copy.deepcopy(config)
    canonical_config_metrics(config)
    assert config["metrics"] == ["ndcg@10", "map", "p@10"] and config["figures"]["metric"] == "ndcg@10"
    assert config["experiments"]["bag_size"]["metric"] == "map"
    assert config["biasvar"] == {"metrics": ["ndcg", "map"], "zhang": {"metrics": ["map"]},
                                 "significance": {"metrics": ["err@10", "ndcg@1"]}}
    assert config["datasets"] == original["datasets"]
    config["experiments"]["bag_size"] = True  # a switch, not a section: left alone
    canonical_config_metrics(config)
    with pytest.raises(ValueError, match=r"^biasvar.significance.metrics: unknown metric 'mrr'"):
        canonical_config_metrics({"biasvar": {"significance": {"metrics": ["mrr"]}}})


def test_biasvar_study_metrics_are_checked_with_the_parser():
    section = {"metrics": ["nDCG@10", "AP"], "sweep": {"learners": []}}
    validate(section, schema=str(REPO / "config" / "schema" / "biasvar.schema.yaml"))  # fills the defaults
    section["metrics"] += ["ERR@10", "mrr"]  # past the schema (a config edited in code)
    config = {"run": {"datasets": ["a"], "learners": ["rf"], "seeds": [1]}, "datasets": {"a": {"folds": ["F1"]}},
              "learners": {"rf": {"kind": "random_forest", "params": {"n_estimators": 5}}}, "biasvar": section}
    problems = "\n".join(biasvar_grid.problems(config))
    assert "'nDCG@10'" not in problems and "'AP'" not in problems
    assert "biasvar.metrics: metric 'ERR@10': ranking error 1 - m needs a metric with ideal value 1" in problems
    assert "biasvar.metrics: unknown metric 'mrr'" in problems
