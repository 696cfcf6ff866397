import numpy as np
import pytest

from ltrbv.io import ScoreFileError, read_scores, write_json, write_scores
from ltrbv.seeding import derive_seed


def test_derive_seed_is_stable_and_key_sensitive():
    # A fixed value: the same config must give the same seed on every machine and Python version.
    assert derive_seed(20261122, "mq2008", "Fold1", "lambdamart", 1) == derive_seed(20261122, "mq2008", "Fold1", "lambdamart", "1")
    seeds = {derive_seed(7, d, f, l, s) for d in "ab" for f in ("Fold1", "Fold2") for l in ("x", "y") for s in (1, 2)}
    assert len(seeds) == 16
    assert derive_seed(1, "a") != derive_seed(2, "a")
    assert derive_seed(1, "a", "b") != derive_seed(1, "b", "a")


def test_scores_round_trip_bit_exact(tmp_path):
    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.normal(size=500), rng.normal(size=500).astype(np.float32), [1e-300, -0.0, 123456789.123]])
    write_scores(tmp_path / "s.txt", scores)
    back = read_scores(tmp_path / "s.txt", n_expected=scores.size)
    assert back.tobytes() == np.asarray(scores, dtype=np.float64).tobytes()


@pytest.mark.parametrize(
    "text, line, what",
    [("0.5\nabc\n", 2, "not a number"), ("0.5\n1\n\n", 3, "empty line"), ("nan\n", 1, "not finite")],
)
def test_bad_score_file_names_line(tmp_path, text, line, what):
    path = tmp_path / "bad.scores"
    path.write_text(text)
    with pytest.raises(ScoreFileError, match=rf"bad\.scores, line {line}: .*{what}"):
        read_scores(path)


def test_score_count_mismatch(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("1\n2\n")
    with pytest.raises(ScoreFileError, match="2 scores for 3 documents"):
        read_scores(path, n_expected=3)


def test_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(ValueError):
        write_scores(tmp_path / "s.txt", np.array([1.0, np.inf]))
    with pytest.raises(TypeError):
        write_json(tmp_path / "m.json", {"x": object()})
    assert list(tmp_path.iterdir()) == []


def test_written_files_are_readable_by_group_and_others(tmp_path):
    """Results on a shared cluster file system: the usual umask's mode, not mkstemp's 0600 (issue 13)."""
    import os
    import stat

    from ltrbv.io import write_json, write_scores

    old = os.umask(0o022)
    try:
        import importlib

        import ltrbv.io

        importlib.reload(ltrbv.io)  # FILE_MODE is read from the umask at import
        ltrbv.io.write_text(tmp_path / "a.md", "x\n")
        write_scores(tmp_path / "b.scores", [0.5, 0.25])
        write_json(tmp_path / "c.json", {"a": 1})
        for name in ("a.md", "b.scores", "c.json"):
            mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
            assert mode & 0o044 == 0o044, f"{name}: mode {oct(mode)}"
    finally:
        os.umask(old)
