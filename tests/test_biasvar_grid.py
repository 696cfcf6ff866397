"""The study's job grid: which datasets, sweep points and runs a config asks for, and its config errors."""

from __future__ import annotations

from snakemake.utils import validate

from conftest import REPO
from ltrbv.sections.biasvar import grid as bvg

SCHEMA = str(REPO / "config" / "schema" / "biasvar.schema.yaml")


def config_with(section: dict, datasets=("a", "b")) -> dict:
    validate(section, schema=SCHEMA)
    return {
        "run": {"datasets": list(datasets), "learners": ["lm", "rf"], "seeds": [1]},
        "datasets": {name: {"folds": ["Fold1", "Fold2"]} for name in ("a", "b")},
        "learners": {"lm": {"kind": "xgboost"}, "rf": {"kind": "random_forest", "params": {"n_estimators": 5}},
                     "ext": {"kind": "external"}, "odd": {"kind": "unknown"}},
        "biasvar": section,
    }


def test_study_covers_only_its_datasets_and_first_fold_by_default():
    config = config_with({"datasets": ["b"], "sweep": {"learners": ["rf"], "values": [0.1, 0.5, 0.63]},
                          "compare": {"learners": ["lm"]}, "significance": {"baseline": "lm"}})
    assert bvg.study_datasets(config) == ["b"]
    targets = bvg.targets(config)
    assert targets and all(t.startswith("results/b/") for t in targets)
    runs = bvg.study_runs(config, "b")
    assert ("rf", "Fold1", "subsample=0.63", "bootstrap") in runs
    assert ("rf", "Fold1", "subsample=0.63", "twofold") not in runs  # larger than a half
    assert ("lm", "Fold1", "base", "twofold") in runs and len(runs) == 3 + 2 + 1
    assert bvg.replicates(config, "twofold") == [f"{j}{h}" for j in range(1, 6) for h in "ab"]
    assert bvg.problems(config) == []
    assert bvg.targets(config_with({"datasets": ["b"]}, datasets=("a",))) == []


def test_sweep_setting_sets_the_value_and_keeps_keys_sorted():
    config = config_with({"sweep": {"learners": ["rf"], "values": [0.05]}, "significance": {"baseline": "lm"}})
    spec = bvg.learner_spec(config, "rf", "subsample=0.05")
    assert spec["params"] == {"n_estimators": 5, "subsample": 0.05} and list(spec["params"]) == sorted(spec["params"])
    assert spec["sweep"] == {"param": "subsample", "value": 0.05, "relative_to_original": True}
    assert bvg.learner_spec(config, "rf", "base")["sweep"] is None


def test_config_errors_name_their_key():
    bad = config_with({"datasets": ["nope"], "significance": {"baseline": "lm"}})
    assert any("biasvar.datasets names 'nope'" in p for p in bvg.problems(bad))
    bad = config_with({"compare": {"learners": ["missing", "odd", "ext"]}, "significance": {"baseline": "zz"}})
    problems = "\n".join(bvg.problems(bad))
    assert "biasvar.compare.learners names 'missing'" in problems
    assert "'odd' is of kind 'unknown'" in problems and "'ext' is of kind" not in problems  # external: own rule
    assert "biasvar.significance.baseline 'zz' is not among run.learners" in problems
    bad = config_with({"sweep": {"learners": ["lm"]}, "significance": {"baseline": "lm"}})
    assert any("'lm' has no per-tree subsample" in p for p in bvg.problems(bad))
    bad = config_with({"sweep": {"learners": ["rf"], "values": [0.9]}, "significance": {"baseline": "lm"}})
    assert any("no value fits" in p for p in bvg.problems(bad))
