from __future__ import annotations

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
