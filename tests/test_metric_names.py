"""Metric names are read in the namespace of the convention (issue 29): under ``trec_eval`` (the command line's
default) trec_eval's and ir_measures' names with their definitions, under the LTR conventions (the workflow's)
the LETOR scripts' lower-case names; a name of the other namespace is refused naming the one to use, so that
no accepted name means two things.  (The values are checked against ir_measures and pytrec_eval in
test_metric_oracles.py.)"""

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
from ltrbv.metrics import canonical_metric, canonical_metrics, evaluate, parse_measure, parse_metric
from ltrbv.sections.biasvar import grid as biasvar_grid
from ltrbv.workflow.metric_names import canonical_config_metrics

LTR_NAMES = ["ndcg@10", "ndcg", "dcg@5", "dcg", "err@10", "err", "map", "p@10", "rr", "rr@10", "r@100"]
TREC_SPELLINGS = {
    "nDCG@10": ["nDCG@10", "NDCG@10", "ndcg_cut.10", "ndcg_cut_10", " nDCG@10 "],
    "nDCG": ["nDCG", "NDCG"],
    "nDCG(dcg='exp-log2')@10": ["nDCG(dcg='exp-log2')@10", "nDCG(dcg=\"exp-log2\")@10"],
    "AP": ["AP", "MAP", "map", "AP(rel=1)", "AP(judged_only=False)"],
    "AP(rel=2)": ["AP(rel=2)", "MAP(rel=2)"],
    "AP@10": ["AP@10", "map_cut.10", "map_cut_10"],
    "P@10": ["P@10", "P.10", "P_10", "Precision@10"],
    "RR": ["RR", "MRR", "recip_rank"],
    "RR@10": ["RR@10", "MRR@10"],
    "R@100": ["R@100", "Recall@100", "recall.100", "recall_100"],
    "ERR@10": ["ERR@10"],
}
# a trec_eval / ir_measures name under an LTR convention: refused, naming the LTR convention's measure
REFUSED_IN_LTR = {"nDCG@10": "ndcg@10", "NDCG@10": "ndcg@10", "ndcg_cut_10": "ndcg@10", "ndcg_cut.10": "ndcg@10",
                  "P_10": "p@10", "P@10": "p@10", "AP": "map", "ERR@10": "err@10", "nDCG": "ndcg", "MRR": "rr",
                  "recip_rank": "rr", "R@100": "r@100", "DCG@5": "dcg@5", "precision@10": "p@10"}
# an LTR (or ranx) name under the trec_eval convention: refused, naming the trec_eval one
REFUSED_IN_TREC_EVAL = {"ndcg@10": "nDCG@10", "ndcg": "nDCG", "p@10": "P@10", "err@10": "ERR@10", "rr": "RR",
                        "r@100": "R@100", "ndcg_burges@10": "nDCG(dcg='exp-log2')@10", "mrr": "RR",
                        "precision@5": "P@5", "recall@20": "R@20"}
UNKNOWN = ["AP(gains={1: 2})", "AP(judged_only=True)", "nDCG(dcg='log10')@10", "P", "R", "ERR", "map@10", "p@0",
           "ndcg_cut_x", "ndcg@", "", "nd cg@10", "AP(rel=0)"]


@pytest.mark.parametrize("name", LTR_NAMES)
def test_ltr_names_are_accepted_as_written(name):
    assert canonical_metric(f" {name} ") == name == canonical_metric(name, "letor4")
    assert parse_measure(name).gain == "exp"


@pytest.mark.parametrize("canonical, spellings", TREC_SPELLINGS.items())
def test_each_trec_eval_spelling_has_one_canonical_name(canonical, spellings):
    for name in spellings:
        assert canonical_metric(name, "trec_eval") == canonical, name
        assert parse_measure(name, "trec_eval") == parse_measure(canonical, "trec_eval")
    assert canonical_metrics(",".join(spellings + [canonical]), "trec_eval") == [canonical]
    assert parse_measure("nDCG@10", "trec_eval").gain == "linear"
    assert parse_measure("nDCG(dcg='exp-log2')@10", "trec_eval").gain == "exp"


@pytest.mark.parametrize("name, use", REFUSED_IN_LTR.items())
def test_trec_eval_names_are_refused_under_ltr_conventions_naming_the_ltr_name(name, use):
    for convention in (None, "letor4", "standard"):
        with pytest.raises(ValueError, match=re.escape(f"{name!r}") + ".*" + re.escape(f"{use!r}")):
            canonical_metric(name, convention)


@pytest.mark.parametrize("name, use", REFUSED_IN_TREC_EVAL.items())
def test_ltr_and_ranx_names_are_refused_under_trec_eval_naming_its_name(name, use):
    with pytest.raises(ValueError, match=re.escape(f"{name!r}") + ".*" + re.escape(use)):
        canonical_metric(name, "trec_eval")


@pytest.mark.parametrize("name", UNKNOWN)
def test_unknown_names_are_refused_naming_them(name):
    for convention in (None, "trec_eval"):
        with pytest.raises(ValueError, match=re.escape(f"{name!r}")):
            canonical_metric(name, convention)


def test_spellings_give_the_same_values():
    rng = np.random.default_rng(0)
    offsets = np.array([0, 7, 15, 30])
    labels, scores = rng.integers(0, 3, 30), rng.random(30)
    for canonical, spellings in TREC_SPELLINGS.items():
        values = evaluate(scores, labels, offsets, [canonical, *spellings], convention="trec_eval")
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
    code, typed, err = run(capsys, "evaluate", test, scores[0], "--metrics", "NDCG@10,map,P_10,ERR@10,recip_rank")
    assert code == 0, err
    code, canonical, _ = run(capsys, "evaluate", test, scores[0], "--metrics", "nDCG@10,AP,P@10,ERR@10,RR")
    assert json.loads(typed) == json.loads(canonical)
    assert list(json.loads(typed))[:5] == ["nDCG@10", "AP", "P@10", "ERR@10", "RR"]
    assert json.loads(typed)["convention"] == "trec_eval"
    assert json.loads(typed)["definitions"]["nDCG@10"] == "nDCG@10 = trec_eval's ndcg / ndcg_cut, gain = label"
    code, out, err = run(capsys, "evaluate", test, scores[0], "--metrics", "nDCG@10,ndcg@10")
    assert code == 2 and err.startswith("ltrbv evaluate: error: --metrics: metric 'ndcg@10' is ambiguous")
    assert "write 'nDCG@10'" in err
    code, out, err = run(capsys, "evaluate", test, scores[0], "--convention", "letor4", "--metrics", "nDCG@10")
    assert code == 2 and "metric 'nDCG@10' is trec_eval's / ir_measures' nDCG@10, gain label" in err
    assert "the letor4 convention's own measure is 'ndcg@10'" in err
    code, out, err = run(capsys, "evaluate", test, scores[0], "--convention", "letor4")
    assert code == 0 and list(json.loads(out))[:2] == ["ndcg@10", "map"]
    assert json.loads(out)["definitions"] == {"ndcg@10": "ndcg@10: gain = 2^label - 1",
                                              "map": "map: relevant iff label >= 1"}


def test_biasvar_and_compare_cli_accept_spellings(fold, capsys):
    test, scores = fold
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--metric", "nDCG,ndcg_cut_10", "--metric", "map", "--resamples", 100)
    assert code == 0, err
    report = json.loads(out)
    assert report["metric"] == "nDCG" and list(report["metrics"]) == ["nDCG", "nDCG@10", "AP"]
    assert report["convention"] == "trec_eval"
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--convention", "standard", "--metric", "ndcg,ndcg@10", "--metric", "map",
                         "--resamples", 100)
    assert code == 0, err
    assert list(json.loads(out)["metrics"]) == ["ndcg", "ndcg@10", "map"]
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--metric", "P_10")
    assert code == 2 and "ltrbv biasvar: error: metric 'P@10': ranking error 1 - m needs" in err
    code, out, err = run(capsys, "biasvar", "--data", test, "--method", "bootstrap", "--scores", *scores,
                         "--metric", "AP(gains=2)")
    assert code == 2 and "--metric: metric 'AP(gains=2)': parameter 'gains'" in err
    code, out, err = run(capsys, "compare", "--data", test, "--scores", *scores[:2], "--metrics", "P_10,map",
                         "--permutations", 200, "--json")
    assert code == 0, err
    assert json.loads(out)["metrics"] == ["P@10", "AP"]


# -- config ------------------------------------------------------------------------------------

def load_schema(name):
    if name == "core.schema.yaml":  # the config's top level: the core's schema with the sections' keys
        from ltrbv.workflow.config_checks import core_schema

        return Draft202012Validator(core_schema())
    return Draft202012Validator(yaml.safe_load((REPO / "config" / "schema" / name).read_text()))


def demo_config():
    return yaml.safe_load((REPO / "config" / "demo.yaml").read_text())


def test_config_schemas_accept_the_names_and_refuse_unknown_ones():
    schema = load_schema("core.schema.yaml")
    config = demo_config()
    assert not list(schema.iter_errors(config))
    config["metrics"] = LTR_NAMES + list(REFUSED_IN_LTR)[:8]  # the old spellings pass, refused by the parser
    config["figures"]["metric"] = "nDCG@10"
    assert not list(schema.iter_errors(config))
    for name in ["mrr@x", "p", "map@10", "ndcg@0", "ndcg_cut_x", "ndcg@", "", "nd cg@10", "AP(rel=2)"]:
        config["metrics"] = ["ndcg@10", name]
        assert list(schema.iter_errors(config)), name
    biasvar = load_schema("biasvar.schema.yaml")
    assert not list(biasvar.iter_errors({"metrics": ["ndcg", "map"], "zhang": {"metrics": ["map", "ndcg"]},
                                         "significance": {"metrics": ["ndcg@10", "p@10", "err@10"]}}))
    assert list(biasvar.iter_errors({"significance": {"metrics": ["mrr"]}}))


def test_config_metric_names_keep_their_meaning_and_old_spellings_are_refused_naming_the_new():
    config = demo_config()
    config["metrics"] = [" ndcg@10", "ndcg@10", "map", "p@10", "rr@10", "r@20"]
    config["figures"] = {"metric": "ndcg@10 "}
    config["bagging"] = {"bag_size": {"metric": "map"}}
    config["biasvar"] = {"metrics": ["ndcg", "map"], "zhang": {"metrics": ["map"]},
                         "significance": {"metrics": ["err@10", "ndcg@1"]}}
    original = copy.deepcopy(config)
    canonical_config_metrics(config)
    assert config["metrics"] == ["ndcg@10", "map", "p@10", "rr@10", "r@20"] and config["figures"]["metric"] == "ndcg@10"
    assert config["bagging"]["bag_size"]["metric"] == "map"
    assert config["biasvar"] == original["biasvar"]
    assert config["datasets"] == original["datasets"]
    config["bagging"]["bag_size"] = True  # a switch, not a section: left alone
    canonical_config_metrics(config)
    with pytest.raises(ValueError, match=r"^biasvar.significance.metrics: unknown metric 'mrr' under the LTR "
                                         r"conventions' names; write 'rr'"):
        canonical_config_metrics({"biasvar": {"significance": {"metrics": ["mrr"]}}})
    with pytest.raises(ValueError, match=r"^metrics: metric 'nDCG@10' is trec_eval's / ir_measures' nDCG@10, gain "
                                         r"label: it needs the trec_eval convention; the LTR conventions' own "
                                         r"measure is 'ndcg@10' \(gain 2\^label - 1\)"):
        canonical_config_metrics({"metrics": ["nDCG@10"]})


def test_shipped_configs_name_ltr_metrics_only():
    """Every metric name of the shipped configs is an LTR name, unchanged by the parser: the papers' tables keep
    the exponential-gain LETOR NDCG they always had."""
    for path in sorted((REPO / "config").glob("*.yaml")):
        config = yaml.safe_load(path.read_text()) or {}
        before = copy.deepcopy(config)
        canonical_config_metrics(config)
        assert config == before, path.name


def test_biasvar_study_metrics_are_checked_with_the_parser():
    section = {"metrics": ["ndcg@10", "map"], "sweep": {"learners": []}}
    validate(section, schema=str(REPO / "config" / "schema" / "biasvar.schema.yaml"))  # fills the defaults
    section["metrics"] += ["err@10", "mrr"]  # past the schema (a config edited in code)
    config = {"run": {"datasets": ["a"], "learners": ["rf"], "seeds": [1]}, "datasets": {"a": {"folds": ["F1"]}},
              "learners": {"rf": {"kind": "random_forest", "params": {"n_estimators": 5}}}, "biasvar": section}
    problems = "\n".join(biasvar_grid.problems(config))
    assert "'ndcg@10'" not in problems and "'map'" not in problems
    assert "biasvar.metrics: metric 'err@10': ranking error 1 - m needs a metric with ideal value 1" in problems
    assert "biasvar.metrics: unknown metric 'mrr'" in problems


def test_a_learner_validates_in_an_ltr_convention_only():
    """Validation data carries no document ids, so trec_eval's order of tied scores is not available there."""
    from ltrbv.learners._validation_metric import check_validation_metric

    check_validation_metric("ndcg@10", "letor4")
    with pytest.raises(ValueError, match="eval_metric: metric 'nDCG@10' is trec_eval's"):
        check_validation_metric("nDCG@10", "letor4")
    with pytest.raises(ValueError, match="eval_convention: the trec_eval convention orders tied scores by document"):
        check_validation_metric("nDCG@10", "trec_eval")
