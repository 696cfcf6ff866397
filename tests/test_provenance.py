"""Results trace to a code version (issue 29, item 5): the version from git, ``ltrbv --version``, the commit, dirty
flag and config files in every model's meta.json; LICENSE and CITATION.cff."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml

from conftest import REPO, tiny_config

SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]


def git(cwd, *args) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def version_line(root: Path) -> str:
    """``ltrbv --version`` of the code under ``root`` (PYTHONPATH), run from elsewhere."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    result = subprocess.run([sys.executable, "-m", "ltrbv.cli", "--version"], capture_output=True, text=True,
                            env=env, cwd=root.parent)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def clone(tmp_path) -> Path:
    """A clone of this repository's committed tree (HEAD)."""
    if subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(target)], check=True)
    return target


def revision_line(root: Path) -> str:
    """What ``ltrbv --version`` prints for a checkout at ``root``, by this source tree's code."""
    from ltrbv.provenance import code_revision

    return f"ltrbv {code_revision.__wrapped__(root).describe()}"


def test_version_names_the_commit_and_changes_with_it(clone):
    first = revision_line(clone)
    head = git(clone, "rev-parse", "HEAD")
    count = git(clone, "rev-list", "--count", "HEAD")
    assert first == f"ltrbv 0.1.dev{count}+g{head[:9]} (commit {head}, clean; from git)", first
    assert version_line(clone) == first  # the clone's own `ltrbv --version`
    git(clone, "commit", "-q", "--allow-empty", "-m", "another commit")
    second = revision_line(clone)
    assert second != first and git(clone, "rev-parse", "HEAD") in second and f"0.1.dev{int(count) + 1}+g" in second
    (clone / "README.md").write_text("changed\n")  # a tracked file changed: dirty
    assert re.search(r"\.d\d{8} \(commit [0-9a-f]{40}, dirty", revision_line(clone))
    git(clone, "checkout", "-q", "README.md")
    (clone / "notes.txt").write_text("x")  # an untracked file (not git-ignored): still clean
    assert ", clean;" in revision_line(clone)


def test_cli_version_is_this_checkouts(capsys):
    from ltrbv.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert out.startswith("ltrbv ") and (head.returncode != 0 or f"commit {head.stdout.strip()}" in out)


def test_a_git_archive_copy_knows_its_commit(clone, tmp_path):
    """The README's quick start installs from ``git archive HEAD``: no .git, the commit from _archival.txt."""
    archive = tmp_path / "tree.tar"
    git(clone, "archive", "-o", str(archive), "HEAD")
    copy = tmp_path / "copy"
    with tarfile.open(archive) as tar:
        tar.extractall(copy, filter="data")
    assert not (copy / ".git").exists()
    line = version_line(copy)
    assert f"commit {git(clone, 'rev-parse', 'HEAD')}, dirty unknown; from git-archive" in line, line
    git(tmp_path, "init", "-q")  # a copy inside another repository is no checkout of ltrbv: still the archive's
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "outer")
    assert f"commit {git(clone, 'rev-parse', 'HEAD')}, dirty unknown; from git-archive" in version_line(copy)


def test_the_build_takes_its_version_from_git():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert any(r.startswith("setuptools-scm") for r in project["build-system"]["requires"])
    assert re.fullmatch(r"\d+\.\d+\.dev0", project["tool"]["setuptools_scm"]["fallback_version"])
    assert "src/ltrbv/_archival.txt export-subst" in (REPO / ".gitattributes").read_text()
    assert "node: $Format:%H$" in (REPO / "src/ltrbv/_archival.txt").read_text()


def test_each_models_meta_json_records_commit_dirty_and_config_files(tmp_path):
    config = tiny_config()
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    target = "results/tiny/predictions/lambdamart/Fold1/seed1/meta.json"
    result = subprocess.run(SNAKEMAKE + ["--directory", str(tmp_path), "--configfile", str(path), "--cores", "1",
                                         target], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    provenance = json.loads((tmp_path / target).read_text())["provenance"]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:  # a checkout: the live commit and state
        status = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout
        assert provenance["commit"] == head.stdout.strip() and provenance["commit_source"] == "git"
        assert provenance["dirty"] is bool(status.strip())
    assert provenance["config_files"] == [{"path": str(path.resolve()),
                                           "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}]
    from ltrbv.provenance import code_revision

    assert provenance["version"] == code_revision().version


def test_license_and_citation():
    license_text = (REPO / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 the ltrbv authors" in license_text
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"}
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    # CFF 1.2.0's required keys (cffconvert --validate passes on it)
    assert cff["cff-version"] == "1.2.0" and cff["message"] and cff["title"]
    assert cff["authors"] and all("name" in a or "family-names" in a for a in cff["authors"])
    assert cff["license"] == "MIT" and cff["type"] == "software"
