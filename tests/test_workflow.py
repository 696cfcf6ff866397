"""The Snakemake workflow end to end, on a small synthetic config, in a scratch directory."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
import yaml

from conftest import REPO, tiny_config

SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]

SMALL = tiny_config(folds=("Fold1", "Fold2"))


def run(workdir, config, *args, check=True):
    path = workdir / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    result = subprocess.run(
        SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(path), "--cores", "2", *args],
        capture_output=True, text=True,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
    return result


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The whole DAG of a small synthetic config (SMALL), in a temporary folder."""
    workdir = tmp_path_factory.mktemp("wf")
    run(workdir, SMALL)
    return workdir


def test_demo_produces_tables_figures_and_traceable_predictions(finished):
    base = finished / "results" / "tiny"
    table = pd.read_csv(base / "tables" / "performance.csv", dtype={"fold": str})
    assert set(table.fold) == {"Fold1", "Fold2", "mean"}
    assert set(table.metric) == {"ndcg@10", "map"} and (table.learner == "lambdamart").all()
    assert table.value.between(0, 1).all() and table.value.gt(0).any()
    assert (base / "figures" / "performance.png").stat().st_size > 1000
    assert (base / "tables" / "performance.md").read_text().startswith("# Performance on tiny")
    meta = yaml.safe_load((base / "predictions/lambdamart/Fold1/seed1/meta.json").read_text())
    assert meta["learner"] == "lambdamart" and meta["replicate"] == 1 and "xgboost" in meta["versions"]
    n_lines = len((base / "raw/Fold1/test.txt").read_text().splitlines())
    assert len((base / "predictions/lambdamart/Fold1/seed1/test.scores").read_text().splitlines()) == n_lines
    for rule in ("parse_split", "train_model", "evaluate", "performance_table", "plot_performance"):
        assert [p for p in (base / "logs").rglob("*.log") if rule in str(p)], rule
        assert [p for p in (base / "benchmarks").rglob("*.tsv") if rule in str(p)], rule


def test_second_run_does_nothing(finished):
    result = run(finished, SMALL, "--dry-run")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_same_config_gives_bit_identical_predictions(finished, tmp_path):
    run(tmp_path, SMALL, "results/tiny/predictions/lambdamart/Fold2/seed1/test.scores")
    again = (tmp_path / "results/tiny/predictions/lambdamart/Fold2/seed1/test.scores").read_bytes()
    assert again == (finished / "results/tiny/predictions/lambdamart/Fold2/seed1/test.scores").read_bytes()


def test_invalid_config_fails_before_any_job(tmp_path):
    bad = {**SMALL, "metrics": ["ndcg@10", "mrr"]}
    result = run(tmp_path, bad, check=False)
    assert result.returncode != 0
    assert "mrr" in result.stderr + result.stdout
    assert not (tmp_path / "results").exists()


def test_unknown_learner_name_fails_before_any_job(tmp_path):
    bad = {**SMALL, "run": {**SMALL["run"], "learners": ["lambdamartt"]}}
    result = run(tmp_path, bad, check=False)
    assert result.returncode != 0 and "lambdamartt" in result.stderr + result.stdout
    assert not (tmp_path / "results").exists()


def test_missing_real_data_says_where_to_get_it(tmp_path):
    config = {**SMALL, "run": {**SMALL["run"], "datasets": ["mq2008"]},
              "datasets": {"mq2008": {"root": str(tmp_path / "nowhere"), "folds": ["Fold1"], "n_features": 46,
                                      "label_range": [0, 2], "conventions": ["letor4"]}}}
    result = run(tmp_path, config, check=False)
    out = result.stderr + result.stdout
    assert result.returncode != 0
    assert "nowhere/Fold1/train.txt" in out and "LETOR 4.0" in out
    assert not (tmp_path / "results").exists()


def test_lint_passes():
    result = subprocess.run(SNAKEMAKE + ["--lint"], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr


def test_bad_raw_line_fails_the_job_naming_file_and_line(tmp_path):
    root = tmp_path / "data" / "Fold1"
    root.mkdir(parents=True)
    good = "".join(f"{i % 3} qid:{i // 4} 1:{i / 10:.2f} 2:{(i * 7) % 5}\n" for i in range(40))
    for split in ("train", "vali"):
        (root / f"{split}.txt").write_text(good)
    (root / "test.txt").write_text(good + "1 qid:99 1:0.5 2:nan\n")
    config = {**SMALL, "datasets": {"tiny": {"root": str(tmp_path / "data"), "folds": ["Fold1"], "n_features": 2,
                                             "label_range": [0, 2], "conventions": ["letor4"]}}}
    result = run(tmp_path, config, check=False)
    assert result.returncode != 0
    log = (tmp_path / "results/tiny/logs/parse_split/Fold1/test.log").read_text()
    assert "test.txt, line 41" in log and "nan" in log.lower()
    assert not (tmp_path / "results/tiny/parsed/Fold1/test.npz").exists()
    assert not list((tmp_path / "results/tiny/parsed/Fold1").glob("*tmp*"))


@pytest.mark.parametrize(
    "params, message",
    [({"n_trees": 10}, "learners.rf.params.n_trees: unknown key"),
     ({"splitting": "listwise"}, "learners.rf.params.splitting: 'listwise' is not one of"),
     ({"n_estimators": 500.0}, "learners.rf.params.n_estimators: must be an integer >= 1, got 500.0")],
)
def test_bad_learner_parameters_fail_before_any_job(tmp_path, params, message):
    config = {**SMALL, "learners": {**SMALL["learners"], "rf": {"kind": "random_forest", "params": params}}}
    result = run(tmp_path, config, check=False)
    assert result.returncode != 0 and message in result.stderr + result.stdout
    assert not (tmp_path / "results").exists()


MINIMAL = {
    "seed": 1,
    "run": {"datasets": ["tiny"], "learners": ["forest"], "seeds": [1]},
    "metrics": ["ndcg@10"],
    "datasets": {"tiny": {k: v for k, v in SMALL["datasets"]["tiny"].items() if k != "folds"} | {"folds": ["Fold1"]}},
    "learners": {"forest": {"kind": "random_forest", "params": {"n_estimators": 3}}},
}


def test_a_config_with_only_a_dataset_and_a_learner_runs(tmp_path):
    """A user's config is the whole config: nothing of the demo (its learners, study, diagnostics) is merged
    under it, every default comes from the schemas, and the core run completes."""
    result = run(tmp_path, MINIMAL)
    out = result.stdout + result.stderr
    for rule in ("train_biasvar", "tree_strength", "biasvar_sample", "rule bag_"):
        assert rule not in out, f"{rule} ran for a config that does not ask for it"
    assert "demo" not in {p.name for p in (tmp_path / "results").iterdir()}
    table = pd.read_csv(tmp_path / "results/tiny/tables/performance.csv", dtype={"fold": str})
    assert set(table.learner) == {"forest"} and set(table.metric) == {"ndcg@10"}
    assert (tmp_path / "results/tiny/figures/performance.png").exists()


def test_mq2008_config_switches_nothing_off():
    """config/mq2008.yaml says what it runs; it has no `enabled: false` left over from merging over the demo."""
    text = (REPO / "config" / "mq2008.yaml").read_text()
    assert "enabled: false" not in text and "datasets: [mq2008]          #" not in text


def test_no_configfile_runs_the_demo(tmp_path):
    result = subprocess.run(SNAKEMAKE + ["--directory", str(tmp_path), "--cores", "1", "--dry-run"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "results/demo/predictions/rf-hybrid-l2/Fold1/seed1/test.scores" in result.stdout + result.stderr


def test_rule_resources_are_written_in_one_place(tmp_path):
    """A training rule's resources are its learner's (learners.<name>.mem_mb / runtime, doubled on a retry); every
    other rule declares none, and the Slurm profile's set-resources is the one place they are written; the old
    config key `resources:` is refused, naming the new place."""
    import re

    from ltrbv.workflow.sections import SECTIONS

    training = {"train_model", "train_bag", "bag_submodel", "train_trial", "train_biasvar_bootstrap",
                "train_biasvar_twofold"}
    declaring = set()
    for section in SECTIONS:
        text = (REPO / section.rules).read_text()
        for block in re.split(r"\n(?=\s*rule\b)", text):
            name = re.search(r"rule\s*(\w*):", block)
            if name is None or "resources:" not in block:
                continue
            declared = name.group(1) or re.search(r'name:\s*\n\s*f?"([\w{}]+)', block).group(1)
            assert "learner_resource(" in block and "mem_mb=" in block, declared
            declaring.add(declared.replace("_{_scheme}", "").replace("_{_n}", ""))
    assert declaring == {"train_model", "train_bag", "bag_submodel", "train_trial", "train_biasvar"}
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    assert set(profile["set-resources"]) <= set(SECTIONS.jobs()) - training
    learners = {name: {**entry, "mem_mb": 3210} for name, entry in MINIMAL["learners"].items()}
    out = run(tmp_path, {**MINIMAL, "learners": learners}, "--dry-run").stdout
    train_jobs = [block for block in out.split("\n\n") if "rule train_model:" in block]
    assert train_jobs and all("mem_mb=3210" in job for job in train_jobs)
    result = run(tmp_path, {**MINIMAL, "resources": {"evaluate": {"mem_mb": 3210}}}, "--dry-run", check=False)
    assert result.returncode != 0 and "resources: renamed; now the profile" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("*.scores"))
