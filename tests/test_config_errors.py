"""Config mistakes are answered in a few lines (issue 29, item 6): one line per problem, with its key path
and, for an unknown key, the closest known keys; ``ltrbv check-config`` runs the workflow's whole check;
``ltrbv plan`` shows the whole message."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, tiny_config
from ltrbv.cli import main
from ltrbv.workflow.config_checks import ConfigError, check_config, core_schema, fill_defaults
from ltrbv.workflow.schema_errors import schema_problems

SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
#: the config's top level: the core run's schema with every section's key
MAIN = core_schema()


def schema_lines(config: dict) -> list[str]:
    """The problems the schemas find (the top level, then each section's own), as the config check reports them."""
    try:
        fill_defaults(copy.deepcopy(config))
    except ConfigError as error:
        return error.problems
    return []


def tiny() -> dict:
    return copy.deepcopy(tiny_config())  # its learners are shared dicts


def metric_typo() -> dict:
    config = tiny()
    config["metric"] = config.pop("metrics")
    return config


def write(folder: Path, config: dict, name: str = "c.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_a_misspelt_top_level_key_is_one_line_with_the_key_it_misspells():
    assert schema_problems(metric_typo(), MAIN) == [
        "metric: unknown key; did you mean 'metrics' (a required key, missing)?"]


@pytest.mark.parametrize("change, expected", [
    (lambda c: c["learners"]["lambdamart"].__setitem__("thread", 2),
     ["learners.lambdamart.thread: unknown key; did you mean 'threads'?"]),
    (lambda c: c["learners"]["lambdamart"]["params"].__setitem__("eval_convention", "letor"),
     ["learners.lambdamart.params.eval_convention: 'letor' is not one of "
      "['standard', 'letor4', 'letor4-mslr', 'yahoo', None]; did you mean 'letor4'?"]),
    (lambda c: c["run"].__setitem__("seeds", [1, "two"]), ["run.seeds[1]: 'two' is not of type 'integer'"]),
    (lambda c: c.__setitem__("bagging", {"bag_size": 3}),
     ["bagging.bag_size: 3 is not of type 'boolean' or 'object'"]),  # anyOf: every branch's type
    (lambda c: c.__setitem__("bagging", {"bag_size": {"metrc": "map"}}),  # anyOf: the branch of its type
     ["bagging.bag_size.metrc: unknown key; did you mean 'metric'?"]),
    (lambda c: c.__setitem__("zzz", 1), ["zzz: unknown key; known keys here: active, bagging, biasvar, catalog, "
                                         "datasets, diagnostics, figures, learners, metrics, run, seed"]),
    (lambda c: (c.pop("seed"), c["run"].pop("seeds")), ["run.seeds: required key missing", "seed: required key missing"]),
])
def test_each_problem_is_one_line_naming_its_key(change, expected):
    config = tiny()
    change(config)
    assert schema_lines(config) == expected


def test_an_unknown_metric_is_named_without_the_regex():
    config = tiny()
    config["metrics"] = ["ndcg@10", "ndgc@5"]
    [line] = schema_problems(config, MAIN)
    # the description says "gain 2^label - 1": look for pieces of the pattern itself, not for "^"
    assert line.startswith("metrics[1]: 'ndgc@5' is not a metric name") and "[1-9][0-9]*" not in line
    assert "\\s*" not in line and "[dD][cC][gG]" not in line


def test_a_section_schema_prefixes_its_key():
    config = tiny()
    config["biasvar"] = {"enabled": True, "boostrap": {"replicates": 2}}
    with pytest.raises(ConfigError) as caught:
        check_config(config)
    assert caught.value.problems == ["biasvar.boostrap: unknown key; did you mean 'bootstrap'?"]


@pytest.mark.parametrize("names", [["demo.yaml"], ["mq2008.yaml", "active-mq2008.yaml", "catalog.yaml"],
                                   ["demo.yaml", "active-demo.yaml", "catalog.yaml", "catalog-small.yaml"],
                                   ["paper.yaml", "catalog.yaml", "catalog-paper.yaml"]])
def test_the_defaults_filled_are_snakemakes(names, tmp_path):
    """The shipped configs come out of the check with the defaults snakemake.utils.validate fills in."""
    from snakemake.utils import validate

    from ltrbv.workflow.config_checks import _explicit_experiments, core_schema, fill_defaults
    from ltrbv.workflow.sections import SECTIONS

    from ltrbv.workflow.plan import merged_config

    ours = merged_config([REPO / "config" / name for name in names])
    theirs = copy.deepcopy(ours)
    fill_defaults(ours)
    _explicit_experiments(theirs)  # bagging.<name>: true is {} (fill_defaults does it first)
    top = tmp_path / "top.schema.yaml"  # the core schema with every section's key (as the config check composes it)
    top.write_text(yaml.safe_dump(core_schema()))
    validate(theirs, schema=str(top))
    for section in SECTIONS[1:]:  # the core's schema is the top level's
        if section.schema and section.key in theirs:  # its document as the config check completes it (the catalog's kinds)
            document = tmp_path / f"{section.name}.schema.yaml"
            document.write_text(yaml.safe_dump(section.schema_document()))
            validate(theirs[section.key], schema=str(document))
    assert ours == theirs and ours["datasets"][next(iter(ours["datasets"]))]["layout"]


def test_a_refused_config_is_left_unchanged():
    bad = metric_typo()
    untouched = copy.deepcopy(bad)
    with pytest.raises(ConfigError):
        check_config(bad)
    assert bad == untouched


def test_check_config_refuses_the_typo_in_a_few_lines(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["check-config", str(write(tmp_path, metric_typo()))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 5 and "'metric'" not in err[0]
    assert err[-1].strip() == "metric: unknown key; did you mean 'metrics' (a required key, missing)?"


def test_check_config_runs_the_learner_and_data_checks(tmp_path, monkeypatch, capsys):
    """More than the schema: a learner parameter refused by its class, and raw data that is not there."""
    monkeypatch.chdir(tmp_path)
    config = tiny()
    assert main(["check-config", str(write(tmp_path, config))]) == 0
    assert "1 config file(s): valid" in capsys.readouterr().out
    config["learners"]["lambdamart"]["params"].update(max_depth=0, max_leaves=0)  # each alone is valid
    assert main(["check-config", str(write(tmp_path, config))]) == 2
    assert "learners.lambdamart.params: max_depth and max_leaves are both 0" in capsys.readouterr().err
    real = tiny()
    real["datasets"]["tiny"].pop("synthetic")
    assert main(["check-config", str(write(tmp_path, real))]) == 2
    assert "missing or damaged data" in capsys.readouterr().err


def test_check_config_merges_files_as_snakemake_does(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    base = write(tmp_path, metric_typo(), "base.yaml")
    fix = write(tmp_path, {"metrics": ["map"]}, "fix.yaml")
    assert main(["check-config", str(base), str(fix)]) == 2  # 'metric' stays unknown in the merge
    assert "metric: unknown key; did you mean 'metrics'?" in capsys.readouterr().err


def test_the_workflow_and_plan_give_the_same_short_message(tmp_path, capsys):
    path = write(tmp_path, metric_typo())
    result = subprocess.run(SNAKEMAKE + ["--directory", str(tmp_path), "--configfile", str(path), "--dry-run",
                                         "--cores", "1", "--nocolor"], capture_output=True, text=True, timeout=300)
    out = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode != 0
    assert len(out) <= 5, "\n".join(out)
    assert "  metric: unknown key; did you mean 'metrics' (a required key, missing)?" in out
    assert main(["plan", "--configfile", str(path)]) == 2
    err = capsys.readouterr().err
    assert "metric: unknown key; did you mean 'metrics'" in err and "in <module>" in err  # the whole message
