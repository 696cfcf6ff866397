"""The section registry finds the sections (ltrbv.workflow.sections.discover): a new section is three new files.

* ``discover`` on a made-up package: the grids' ``ORDER`` orders the sections, whatever their folder names; a
  grid that lacks part of the protocol, two grids with one ``ORDER`` or one ``CONFIG_KEY``, and a section with a
  config key but no schema file are refused, naming the file or the sections.
* The real registry: the seven sections of docs/layout.md in the documented order.
* End to end, in a copy of the workflow: a section made of exactly three new files (``sections/toy/grid.py``,
  ``rules/toy.smk``, ``config/schema/toy.schema.yaml``), nothing else edited, is planned by ``rule all``, runs,
  takes its defaults from its schema, and a bad value or an unknown key under it is refused before any job with
  the key named.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ltrbv.workflow.sections import SECTIONS, discover

REPO = Path(__file__).resolve().parents[1]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


GRID = """
CONFIG_KEY = {key!r}
ORDER = {order}
JOBS = {{}}
def settings(config): return config.get({key!r})
def targets(config): return []
def problems(config, sections): return []
"""


@pytest.fixture
def fake_sections(tmp_path, monkeypatch):
    """A package ``fakesections`` under tmp_path (imported fresh for every test) and its schema folder."""
    package = tmp_path / "pkg" / "fakesections"
    write(package / "__init__.py", '"""made-up sections"""\n')
    monkeypatch.syspath_prepend(str(tmp_path / "pkg"))
    for name in [m for m in sys.modules if m == "fakesections" or m.startswith("fakesections.")]:
        monkeypatch.delitem(sys.modules, name)
    schemas = tmp_path / "schema"
    schemas.mkdir()

    def add(name: str, key: str | None, order: int, grid: str = GRID, schema: bool = True) -> None:
        write(package / name / "grid.py", grid.format(key=key, order=order))
        if schema and key is not None:
            write(schemas / f"{name}.schema.yaml", "type: object\n")

    def found():
        importlib.invalidate_caches()
        return discover(importlib.import_module("fakesections"), schemas)

    return add, found, package


def test_the_grids_order_decides_not_the_folder_names(fake_sections):
    add, found, _ = fake_sections
    add("zeta", "first", 0)
    add("alpha", None, 99)  # always on, no schema needed
    add("mid", "middle", 5)
    sections = found()
    assert [s.name for s in sections] == ["zeta", "mid", "alpha"]
    assert [s.key for s in sections] == ["first", "middle", None]
    assert [s.has_schema for s in sections] == [True, True, False]


def test_a_folder_without_a_grid_is_not_a_section(fake_sections):
    add, found, package = fake_sections
    add("one", "one", 1)
    write(package / "helpers" / "plots.py", "X = 1\n")
    assert [s.name for s in found()] == ["one"]


def test_a_grid_missing_part_of_the_protocol_is_refused_naming_its_file(fake_sections):
    add, found, package = fake_sections
    add("one", "one", 1)
    add("broken", "broken", 2, grid="CONFIG_KEY = {key!r}\nJOBS = {{}}\n")
    with pytest.raises(TypeError) as error:
        found()
    said = str(error.value)
    assert str(package / "broken" / "grid.py") in said
    assert "ORDER" in said and "settings" in said and "targets" in said and "problems" in said


def test_two_sections_with_one_order_are_refused(fake_sections):
    add, found, _ = fake_sections
    add("one", "one", 3)
    add("two", "two", 3)
    with pytest.raises(ValueError, match=r"'one' and 'two' both declare ORDER = 3"):
        found()


def test_two_sections_with_one_config_key_are_refused(fake_sections):
    add, found, _ = fake_sections
    add("one", "same", 1)
    add("two", "same", 2)
    with pytest.raises(ValueError, match="one CONFIG_KEY"):
        found()


def test_a_section_with_a_config_key_needs_its_schema(fake_sections):
    add, found, _ = fake_sections
    add("one", "one", 1, schema=False)
    with pytest.raises(FileNotFoundError, match=r"one\.schema\.yaml"):
        found()


def test_the_real_registry_is_the_documented_one():
    assert [(s.name, s.key) for s in SECTIONS] == [
        ("core", "run"), ("bagging", "bagging"), ("biasvar", "biasvar"), ("active", "active"),
        ("diagnostics", "diagnostics"), ("catalog", "catalog"), ("report", None)]
    layout = (REPO / "docs" / "layout.md").read_text()
    for section in SECTIONS:
        assert f"| `{section.name}` |" in layout, section.name


# -- a new section, end to end: three new files ------------------------------------------------------------

TOY_GRID = '''
"""A toy section: one greeting file (the three-file section of docs/layout.md)."""

from ...workflow.paths import DATASET

CONFIG_KEY = "toy"
ORDER = 45
JOBS = {"toy_hello": "toy_hello"}
HELLO = DATASET + "/toy/hello.txt"


def settings(config):
    return config.get("toy")


def targets(config):
    return [HELLO.format(dataset=dataset) for dataset in config["datasets"]]


def problems(config, sections):
    settings_ = settings(config)
    return [] if settings_["message"].strip() else ["toy.message: say something (it is blank)"]
'''

TOY_RULES = '''
from ltrbv.sections.toy import grid as toy_grid


rule toy_hello:
    output:
        toy_grid.HELLO,
    params:
        text=lambda w: " ".join([config["toy"]["message"]] * config["toy"]["times"]),
    log:
        log("toy_hello"),
    shell:
        "echo '{params.text}' > {output} 2> {log}"
'''

TOY_SCHEMA = '''
$schema: "https://json-schema.org/draft/2020-12/schema"
description: A toy section (tests/test_sections.py).
type: object
additionalProperties: false
properties:
  message: {type: string, default: hello}
  times: {type: integer, minimum: 1, default: 2}
'''


@pytest.fixture(scope="module")
def workflow_with_toy(tmp_path_factory):
    """A copy of the workflow (Snakefile, rules, config, src) with a new section of three files and nothing else."""
    copy = tmp_path_factory.mktemp("toy") / "wf"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".numba_cache", "results", ".snakemake")
    for item in ("Snakefile", "rules", "config", "src", "profiles", "envs"):
        source = REPO / item
        (shutil.copytree(source, copy / item, ignore=ignore) if source.is_dir() else shutil.copy2(source, copy / item))
    before = {p.relative_to(copy) for p in copy.rglob("*") if p.is_file()}
    added = {
        write(copy / "src/ltrbv/sections/toy/grid.py", TOY_GRID).relative_to(copy),
        write(copy / "rules/toy.smk", TOY_RULES).relative_to(copy),
        write(copy / "config/schema/toy.schema.yaml", TOY_SCHEMA).relative_to(copy),
    }
    after = {p.relative_to(copy) for p in copy.rglob("*") if p.is_file()}
    assert after - before == added and len(added) == 3
    return copy


def run_toy(copy: Path, toy: str | None, *args: str) -> subprocess.CompletedProcess:
    configs = [str(copy / "config" / "demo.yaml")]
    if toy is not None:
        (copy / "toy.yaml").write_text(toy)
        configs.append(str(copy / "toy.yaml"))
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    return subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(copy / "Snakefile"), "--cores", "1",
                           "--nocolor", *args, "--configfile", *configs], cwd=copy, capture_output=True, text=True,
                          env=env, timeout=600)


def test_a_three_file_section_is_planned_and_runs(workflow_with_toy):
    copy = workflow_with_toy
    plan = run_toy(copy, "toy: {message: hi}\n", "--dry-run")
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert "toy_hello" in plan.stdout, plan.stdout[-3000:]  # rule all asks for the section's target
    off = run_toy(copy, None, "--dry-run")
    assert off.returncode == 0 and "toy_hello" not in off.stdout  # off when its config key is absent
    done = run_toy(copy, "toy: {message: hi}\n", "results/demo/toy/hello.txt")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (copy / "results/demo/toy/hello.txt").read_text() == "hi hi\n"  # times: 2 from the schema's default


@pytest.mark.parametrize("toy, key", [
    ("toy: {message: hi, times: 0}\n", "toy.times"),
    ("toy: {mesage: hi}\n", "mesage"),
    ("toy: {message: '  '}\n", "toy.message"),
])
def test_a_bad_value_of_the_new_section_is_refused_before_any_job(workflow_with_toy, toy, key):
    copy = workflow_with_toy
    shutil.rmtree(copy / "results", ignore_errors=True)
    result = run_toy(copy, toy)
    said = result.stdout + result.stderr
    assert result.returncode != 0 and key in said, said[-3000:]
    assert "Traceback" not in said, said[-3000:]
    assert not (copy / "results").exists() or not any((copy / "results").rglob("*.txt"))
