"""What produced a file: the code's version and commit, the config files and the package versions recorded
beside every prediction file (meta.json)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import subprocess
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

#: recorded name -> the distributions that provide it (the first one installed counts): XGBoost is installed
#: as ``xgboost-cpu`` on Linux (issue 16), as ``xgboost`` elsewhere
PACKAGES = {"ltrbv": ("ltrbv",), "numpy": ("numpy",), "scipy": ("scipy",), "numba": ("numba",),
            "xgboost": ("xgboost-cpu", "xgboost"), "lightgbm": ("lightgbm",), "scikit-learn": ("scikit-learn",),
            "pandas": ("pandas",), "snakemake": ("snakemake",)}


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name, distributions in PACKAGES.items():
        for distribution in distributions:
            try:
                versions[name] = metadata.version(distribution)
                break
            except metadata.PackageNotFoundError:
                continue
    return versions


# -- the code's revision and the config files of a run -----------------------------------------------------------

#: the checkout the package runs from (src layout: <root>/src/ltrbv/provenance.py)
SOURCE_ROOT = Path(__file__).resolve().parents[2]
#: ``git archive`` writes the commit into this file of its copy (.gitattributes: export-subst)
ARCHIVAL_FILE = Path(__file__).with_name("_archival.txt")
#: the Snakefile puts the config files it merged here, for its jobs (they inherit the environment)
CONFIG_FILES_VARIABLE = "LTRBV_CONFIG_FILES"
#: hex digits of the commit in setuptools-scm's version (vcs-versioning: "g" + 9 digits)
_NODE_DIGITS = 9


@dataclass(frozen=True)
class Revision:
    """The code a result came from: ``commit`` (40 hex digits) and whether tracked files differed from it
    (``dirty``; None where that cannot be known), and where that was read (``source``)."""

    version: str
    commit: str | None
    dirty: bool | None
    source: str  # "git" (the checkout, read live), "git-archive", "package metadata" or "unknown"

    def describe(self) -> str:
        if self.commit is None:
            return f"{self.version} (commit unknown: {self.source})"
        state = {True: "dirty: tracked files changed", False: "clean", None: "dirty unknown"}[self.dirty]
        return f"{self.version} (commit {self.commit}, {state}; from {self.source})"


def installed_version() -> str:
    """The installed distribution's version (setuptools-scm's, from git at install time)."""
    try:
        return metadata.version("ltrbv")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _git(root: Path, *args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def _live_version(root: Path, commit: str, dirty: bool) -> str:
    """setuptools-scm's version of the checkout as it is now: the installed one if it was made at this commit
    and state; else, with no release tag (setuptools-scm's scheme then), 0.1.devN+g<short>[.dYYYYMMDD] with N
    the commits up to HEAD; else (an editable install older than a tagged checkout) the installed one."""
    version = installed_version()
    if f"+g{commit[:_NODE_DIGITS]}" in version and dirty == (".d" in version):
        return version
    if _git(root, "describe", "--tags", "--abbrev=0") is not None:
        return version
    count = _git(root, "rev-list", "--count", "HEAD") or "0"
    return f"0.1.dev{count}+g{commit[:_NODE_DIGITS]}" + (f".d{time.strftime('%Y%m%d', time.gmtime())}" if dirty else "")


def _from_git(root: Path) -> Revision | None:
    """The checkout's HEAD and whether tracked files differ from it (untracked files, e.g. results/, do not
    count)."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve():  # not a checkout of its own (a copy in another repo)
        return None
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:  # a repository without commits
        return None
    dirty = bool(_git(root, "status", "--porcelain", "--untracked-files=no"))
    return Revision(_live_version(root, commit, dirty), commit, dirty, "git")


def _from_archive() -> Revision | None:
    """A ``git archive`` copy (or a package built from one): the commit ``export-subst`` wrote into _archival.txt."""
    try:
        text = ARCHIVAL_FILE.read_text(encoding="utf-8")
    except OSError:
        return None
    match = re.search(r"^node: ([0-9a-f]{40})$", text, flags=re.M)
    return Revision(installed_version(), match.group(1), None, "git-archive") if match else None


def _from_metadata() -> Revision:
    """An installed (not editable) package: the commit setuptools-scm put into its version, if any."""
    version = installed_version()
    match = re.search(r"\+g([0-9a-f]{7,40})(\.d\d{8})?$", version)
    if match is None:
        return Revision(version, None, None, "unknown")
    return Revision(version, match.group(1), match.group(2) is not None, "package metadata")


@functools.cache
def code_revision(root: Path = SOURCE_ROOT) -> Revision:
    """The running code's revision: the live checkout when the package runs from one, else a ``git archive``
    copy's commit, else what the installed version records."""
    return _from_git(root) or _from_archive() or _from_metadata()


def config_files_record(paths) -> list[dict]:
    """Each config file merged, in order: its path as given and its SHA-256."""
    records = []
    for path in paths:
        try:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            digest = None
        records.append({"path": str(path), "sha256": digest})
    return records


def export_config_files(paths) -> None:
    """Called by the Snakefile: the config files it merged, for :func:`run_provenance` in its jobs."""
    os.environ[CONFIG_FILES_VARIABLE] = json.dumps([str(Path(p).resolve()) for p in paths])


def run_provenance() -> dict:
    """What a model's meta.json records of its origin: the code's version, commit and dirty flag, and the
    config files the workflow merged (with their digests; empty outside the workflow)."""
    revision = code_revision()
    files = json.loads(os.environ.get(CONFIG_FILES_VARIABLE, "[]"))
    return {"version": revision.version, "commit": revision.commit, "dirty": revision.dirty,
            "commit_source": revision.source, "config_files": config_files_record(files)}
