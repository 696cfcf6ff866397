from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MQ2008 = SHARED_DATA / "MQ2008"
MSLR_SAMPLE = SHARED_DATA / "MSLR-WEB10K-sample"


def require(path: Path) -> Path:
    """Skip the test with a clear reason when real data is absent (as on a user's fresh clone)."""
    if not path.exists():
        pytest.skip(f"real data not found at {path} (it sits beside the repository on the project's machines)")
    return path


@pytest.fixture
def mq2008() -> Path:
    return require(MQ2008 / "Fold1" / "train.txt").parents[1]


TINY_LAMBDAMART = {"lambdamart": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 20}}}


def tiny_config(folds=("Fold1",), learners=None) -> dict:
    """A workflow config on a tiny synthetic dataset (60 queries x ~10 documents x 12 features)."""
    learners = learners or TINY_LAMBDAMART
    return {
        "seed": 5,
        "run": {"datasets": ["tiny"], "learners": list(learners), "seeds": [1]},
        "metrics": ["ndcg@10", "map"],
        "datasets": {
            "tiny": {
                "root": "results/tiny/raw",
                "folds": list(folds),
                "n_features": 12,
                "label_range": [0, 2],
                "conventions": ["letor4"],
                "synthetic": {"n_queries": 60, "docs_per_query": 10, "n_features": 12, "n_informative": 5,
                              "n_query_level": 1, "seed": 3},
            }
        },
        "learners": dict(learners),
        "figures": {"metric": "ndcg@10", "convention": "letor4"},
    }


# -- long fixtures say what they are doing ------------------------------------------------------------------
#: a fixture still setting up after this many seconds is announced on the terminal (pytest -q shows only dots)
ANNOUNCE_AFTER_S = 15.0


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """Announce a fixture that takes long (the workflow fixtures run Snakemake for minutes): what it is, from its
    docstring, then how long it has been running every minute, and when it is done."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or fixturedef.scope == "function":
        yield
        return
    capture = request.config.pluginmanager.get_plugin("capturemanager")

    def say(text: str) -> None:  # past pytest's output capture, which is on while fixtures set up
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            reporter.write_line(text)

    doc = (fixturedef.func.__doc__ or "").strip().splitlines()
    what = f"{fixturedef.argname} ({doc[0].rstrip('.')})" if doc else fixturedef.argname
    started, finished, announced = time.monotonic(), threading.Event(), []

    def announce() -> None:
        wait = ANNOUNCE_AFTER_S
        while not finished.wait(wait):
            say(f"[fixture] {what}: setting up, {time.monotonic() - started:.0f} s so far")
            announced.append(True)
            wait = 60.0

    watcher = threading.Thread(target=announce, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()
        if announced:
            say(f"[fixture] {fixturedef.argname}: ready after {time.monotonic() - started:.0f} s")
