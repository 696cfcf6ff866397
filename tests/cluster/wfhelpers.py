"""Helpers for tests/test_slurm.py, tests/test_incremental.py and tests/test_faults.py.

Run the workflow on a config in a scratch directory (``--directory``), read which jobs a dry run
plans, write small real (non-synthetic) LETOR folds, and compare result files byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
from pathlib import Path

import yaml

from ltrbv.workflow.dryrun import Job, job_counts, parse_jobs  # noqa: F401  (re-exported for the tests)

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]

# Files whose bytes must not depend on how or where the workflow ran. meta.json (fit time) and the SVG
# (matplotlib writes a date and random clip-path ids) are left out on purpose.
REPRODUCIBLE = ("*.scores", "*.npz", "metrics/**/*.csv", "tables/*.csv", "tables/*.md", "figures/*.png")


def write_config(workdir: Path, config: dict, name: str = "config.yaml") -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / name
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def snakemake_command(workdir: Path, config: dict, *args: str, cores: int | None = 2) -> list[str]:
    path = write_config(workdir, config)
    command = SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(path), "--nocolor"]
    if cores is not None:
        command += ["--cores", str(cores)]
    return command + list(args)


def snakemake(workdir: Path, config: dict, *args: str, cores: int | None = 2, check: bool = True,
              timeout: float = 900, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the workflow in ``workdir``; raise with the output's tail if it fails and ``check``."""
    result = subprocess.run(snakemake_command(workdir, config, *args, cores=cores), capture_output=True,
                            text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
    return result


def planned_jobs(workdir: Path, config: dict, *targets: str) -> list[Job]:
    """The jobs ``snakemake --dry-run`` would run (excluding the target-only rule ``all``)."""
    result = snakemake(workdir, config, "--dry-run", *targets)
    text = result.stdout + result.stderr
    if "Nothing to be done" in text:
        return []
    jobs = [job for job in parse_jobs(text) if job.rule != "all"]
    assert jobs, f"could not read the job list of the dry run:\n{text[-4000:]}"
    return jobs


def letor_lines(n_queries: int, docs_per_query: int, n_features: int, seed: int, qid_start: int = 1) -> str:
    """A small LETOR 4.0 style file: 'label qid:Q 1:v ... #docid = ...' with labels 0..2."""
    rng = random.Random(seed)
    lines = []
    for q in range(qid_start, qid_start + n_queries):
        for d in range(docs_per_query):
            features = [rng.random() for _ in range(n_features)]
            label = min(2, int(3 * features[0] ** 2 + rng.random() * 0.6))
            values = " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(features))
            lines.append(f"{label} qid:{q} {values} #docid = D{q}-{d}\n")
    return "".join(lines)


def write_letor_folds(root: Path, folds, n_queries=24, docs_per_query=8, n_features=6, seed=0) -> None:
    """ROOT/FoldK/{train,vali,test}.txt with distinct queries per split."""
    for k, fold in enumerate(folds):
        for s, (split, share) in enumerate((("train", 3), ("vali", 1), ("test", 1))):
            path = root / fold / f"{split}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(letor_lines(n_queries * share, docs_per_query, n_features, seed=1000 * seed + 10 * k + s,
                                        qid_start=1 + 1000 * s))


def digests(base: Path, patterns=REPRODUCIBLE) -> dict[str, str]:
    """sha256 of every file under ``base`` matching ``patterns`` (relative path -> digest)."""
    found = {}
    for pattern in patterns:
        for path in base.rglob(pattern):
            if path.is_file() and not path.name.startswith("."):
                found[str(path.relative_to(base))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(found.items()))


def assert_same_results(expected: Path, actual: Path, patterns=REPRODUCIBLE) -> int:
    """Both trees hold the same reproducible files with the same bytes; returns how many were compared."""
    want, got = digests(expected, patterns), digests(actual, patterns)
    assert want, f"no result files under {expected}"
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    differ = sorted(name for name in set(want) & set(got) if want[name] != got[name])
    assert not (missing or extra or differ), f"missing: {missing}\nextra: {extra}\ndiffer: {differ}"
    return len(want)


def no_temporaries(base: Path) -> list[str]:
    """Leftover temporary files of atomic writers (.NAME.XXXX.tmp) under ``base``."""
    return sorted(str(p.relative_to(base)) for p in base.rglob("*.tmp"))


def env_with(**extra: str) -> dict:
    env = dict(os.environ)
    env.update(extra)
    return env
