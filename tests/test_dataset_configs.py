"""The per-data-set configs (config/datasets/*.yaml): each, merged over the config its header names, passes the
checks and plans its jobs without the data (placeholder folds); each agrees with its data set's shipped manifest;
absent data is refused naming the docs sections (docs/data.md) and the verify command."""

from __future__ import annotations

import pytest
import yaml

from conftest import REPO
from markdown_links import anchors
from ltrbv.data.manifest import manifest_named

#: config file -> (the config its header merges it over, the manifest of its data set)
DATASET_CONFIGS = {
    "mq2007.yaml": ("mq2008.yaml", "MQ2007"),
    "mslr-web10k.yaml": ("paper.yaml", "MSLR-WEB10K"),
    "mslr-web30k.yaml": ("paper.yaml", "MSLR-WEB30K"),
    "yahoo.yaml": ("paper.yaml", "Yahoo-set1"),
    "istella.yaml": ("paper.yaml", "istella-LETOR"),
}


def test_every_dataset_config_is_listed():
    assert sorted(p.name for p in (REPO / "config" / "datasets").glob("*.yaml")) == sorted(DATASET_CONFIGS)


@pytest.mark.parametrize("name", sorted(DATASET_CONFIGS))
def test_dataset_config_matches_its_manifest_and_header(name):
    base, manifest_name = DATASET_CONFIGS[name]
    text = (REPO / "config" / "datasets" / name).read_text()
    assert f"--configfile config/{base} config/datasets/{name}" in text and "ltrbv data verify ROOT" in text
    config = yaml.safe_load(text)
    (dataset_name,) = config["run"]["datasets"]
    entry = config["datasets"][dataset_name]
    manifest = manifest_named(manifest_name)
    assert {key: entry[key] for key in manifest.config_layout} == manifest.config_layout
    assert entry["n_features"] == manifest.n_features


@pytest.mark.parametrize("name", sorted(DATASET_CONFIGS))
def test_dataset_config_plans_without_the_data(name):
    from ltrbv.workflow.plan import dry_run, merged_config

    files = [str(REPO / "config" / DATASET_CONFIGS[name][0]), str(REPO / "config" / "datasets" / name)]
    config = merged_config(files)
    (dataset_name,) = config["run"]["datasets"]
    entry = config["datasets"][dataset_name]
    _, counts, _ = dry_run(files, placeholders=True)
    carved = "validation_from_train" in entry
    assert counts["parse_split"] == 3 * len(entry["folds"])
    assert counts.get("validation_split", 0) == (len(entry["folds"]) if carved else 0)
    trained = [name for name in config["run"]["learners"] if config["learners"][name]["kind"] != "bag"]
    assert counts["train_model"] == len(entry["folds"]) * len(trained) * len(config["run"]["seeds"])
    assert counts["train_biasvar_bootstrap"] > 0


def test_absent_data_is_refused_naming_the_docs_sections_and_the_verify_command():
    from ltrbv.workflow.config_checks import ConfigError, check_config
    from ltrbv.workflow.plan import merged_config

    config = merged_config([str(REPO / "config" / "paper.yaml"), str(REPO / "config" / "datasets" / "istella.yaml")])
    config["datasets"]["istella"]["root"] = "/nonexistent/istella"
    with pytest.raises(ConfigError) as error:
        check_config(config)
    message = str(error.value)
    assert "/nonexistent/istella/full/train.txt" in message and "/nonexistent/istella/full/vali.txt" not in message
    assert "every data set: docs/data.md#where-to-get-the-data-sets." in message
    assert "`ltrbv data verify ROOT` checks them (docs/data.md#checking-a-copy-ltrbv-data-verify-root)" in message
    page = (REPO / "docs" / "data.md").read_text()  # the sections it names exist, with what it says they hold
    assert {"where-to-get-the-data-sets", "checking-a-copy-ltrbv-data-verify-root"} <= anchors(page)
    where, verify = (page.split("\n## " + title, 1)[1].split("\n## ", 1)[0]
                     for title in ("Where to get the data sets", "Checking a copy"))
    assert "istella" in where and "ltrbv data verify" in verify
