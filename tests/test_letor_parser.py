"""Tests of the LETOR / SVMlight parser (ltrbv.data.letor)."""

from __future__ import annotations

import decimal
import gzip
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ltrbv.data import letor
from ltrbv.data.cache import save_cache
from ltrbv.data.letor import LetorFormatError, NonContiguousQueryWarning, read_letor

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MQ2008 = DATA / "MQ2008"
MSLR = DATA / "MSLR-WEB10K-sample"
F32_MAX = float(np.finfo(np.float32).max)


def _needs(path: Path):
    return pytest.mark.skipif(
        not path.exists(), reason=f"real data not found at {path} (see ../shared/data/README.md)"
    )


def write(tmp_path: Path, text: str, name: str = "data.txt", gz: bool = False) -> Path:
    path = tmp_path / name
    raw = text.encode("utf-8")
    if gz:
        raw = gzip.compress(raw)
    path.write_bytes(raw)
    return path


def parse_then_cache(path: Path, cache_path: Path, **kwargs):
    """The production pattern: parse, and only on success write the cache."""
    data = read_letor(path, **kwargs)
    save_cache(data, cache_path)
    return data


def sklearn_oracle(path: Path):
    sk = pytest.importorskip("sklearn.datasets")
    X, y, qid = sk.load_svmlight_file(str(path), query_id=True, dtype=np.float32)
    return X.toarray(), y, qid


def assert_matches_sklearn(path: Path, data) -> None:
    X, y, qid = sklearn_oracle(path)
    order = data.file_order
    assert np.array_equal(data.line_numbers[order], np.sort(data.line_numbers))
    np.testing.assert_array_equal(data.X[order], X)
    assert data.X.dtype == np.float32 and data.X.flags.c_contiguous
    np.testing.assert_array_equal(data.labels[order], y.astype(np.int8))
    assert np.array_equal(data.labels[order].astype(np.float64), y)
    # same grouping: row -> our qid string equals sklearn's integer qid, and queries are contiguous
    ours = data.qids[data.query_index][order].astype(np.int64)
    np.testing.assert_array_equal(ours, qid)
    assert data.n_queries == np.unique(qid).size


# -- real data --------------------------------------------------------------------


@pytest.mark.realdata
@_needs(MQ2008 / "Fold1")
@pytest.mark.parametrize("split, n_queries", [("train", 471), ("vali", 157), ("test", 156)])
def test_mq2008_fold1_matches_sklearn(split, n_queries):
    path = MQ2008 / "Fold1" / f"{split}.txt"
    data = read_letor(path)
    assert data.n_features == 46
    assert data.n_queries == n_queries  # S1..S5 hold 157/157/157/157/156 queries
    assert_matches_sklearn(path, data)
    assert np.array_equal(data.line_numbers, np.arange(1, data.n_docs + 1))  # sorted, contiguous file
    again = read_letor(path, n_features=46, max_feature=46, label_range=(0, 2))
    np.testing.assert_array_equal(again.X, data.X)


@pytest.mark.realdata
@_needs(MQ2008 / "Fold1")
def test_mq2008_fold1_totals_match_readme():
    parts = [read_letor(MQ2008 / "Fold1" / f"{s}.txt") for s in ("train", "vali", "test")]
    assert sum(p.n_queries for p in parts) == 784
    assert sum(p.n_docs for p in parts) == 15211
    labels = np.concatenate([p.labels for p in parts])
    assert np.bincount(labels).tolist() == [12279, 2001, 931]
    for p in parts:  # every line has all 46 features, written explicitly
        with open(p.source) as f:
            assert all(len(line.split("#")[0].split()) == 2 + 46 for line in f)


@pytest.mark.realdata
@_needs(MQ2008 / "Fold4")
def test_mq2008_fold4_unsorted_qids():
    path = MQ2008 / "Fold4" / "train.txt"
    with open(path) as f:
        qids_in_file = [line.split()[1][4:] for line in f if line.strip()]
    assert qids_in_file != sorted(qids_in_file, key=int)  # the premise: not sorted
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonContiguousQueryWarning)  # unsorted, but contiguous
        data = read_letor(path)
    assert data.n_queries == len(set(qids_in_file))
    assert list(data.qids) == list(dict.fromkeys(qids_in_file))  # order of first appearance
    assert_matches_sklearn(path, data)


@pytest.mark.realdata
@_needs(MSLR)
@pytest.mark.parametrize("split, n_queries, n_docs", [("train", 7, 582), ("test", 4, 403)])
def test_mslr_sample_matches_sklearn(split, n_queries, n_docs):
    path = MSLR / f"{split}.txt"
    data = read_letor(path, max_feature=136)
    assert (data.n_docs, data.n_features, data.n_queries) == (n_docs, 136, n_queries)
    assert_matches_sklearn(path, data)
    assert data.X.max() > 1e5  # raw, unnormalised values survive
    assert set(np.unique(data.labels)) <= {0, 1, 2, 3, 4}


# -- synthetic files: format quirks --------------------------------------------------

LETOR4 = (
    "2 qid:10 1:0.1 2:0.25 3:1.000000 #docid = GX001-01 inc = 1 prob = 0.5\n"
    "0 qid:10 1:0 2:0.5 3:0.000001 #docid = GX001-02 inc = 0.2 prob = 0.01\n"
    "1 qid:11 1:1e-05 2:-3.5 3:12345.678 #docid = GX002-01 inc = 1 prob = 0.3\n"
    "0 qid:11 1:.5 2:5. 3:+7 #docid = GX002-02 inc = 1 prob = 0.3\n"
)


def check_letor4(data) -> None:
    assert data.X.shape == (4, 3) and data.X.dtype == np.float32
    expected = np.array(
        [[0.1, 0.25, 1.0], [0, 0.5, 0.000001], [1e-05, -3.5, 12345.678], [0.5, 5.0, 7.0]], dtype=np.float32
    )
    np.testing.assert_array_equal(data.X, expected)
    assert data.labels.dtype == np.int8 and data.labels.tolist() == [2, 0, 1, 0]
    assert data.qids.dtype.kind == "U" and data.qids.tolist() == ["10", "11"]
    assert data.query_offsets.tolist() == [0, 2, 4]
    assert data.line_numbers.dtype == np.int64


def test_letor4_dense_with_comments(tmp_path):
    data = read_letor(write(tmp_path, LETOR4))
    check_letor4(data)
    assert data.line_numbers.tolist() == [1, 2, 3, 4]
    assert data.source.endswith("data.txt")


def test_gzip(tmp_path):
    check_letor4(read_letor(write(tmp_path, LETOR4, name="data.txt.gz", gz=True)))


def test_gzip_detected_by_content_not_name(tmp_path):
    check_letor4(read_letor(write(tmp_path, LETOR4, name="data.txt", gz=True)))


def test_crlf(tmp_path):
    data = read_letor(write(tmp_path, LETOR4.replace("\n", "\r\n")))
    check_letor4(data)


def test_blank_and_comment_lines_are_skipped_but_counted(tmp_path):
    lines = LETOR4.splitlines(keepends=True)
    text = "\n" + lines[0] + "   \n\t\r\n" + lines[1] + "# a comment line\n" + lines[2] + "\n" + lines[3] + "\n\n"
    data = read_letor(write(tmp_path, text))
    check_letor4(data)
    assert data.line_numbers.tolist() == [2, 5, 7, 9]


def test_no_trailing_newline_is_refused_as_a_cut_file(tmp_path):
    """A last data line without its newline is what a truncated file looks like (issue 15)."""
    n_lines = LETOR4.count("\n")
    with pytest.raises(LetorFormatError, match=rf"x.txt, line {n_lines}: the last line has no final newline"):
        read_letor(write(tmp_path, LETOR4.rstrip("\n"), name="x.txt"))
    with pytest.raises(LetorFormatError, match="no final newline"):  # gzip: the same rule
        read_letor(write(tmp_path, LETOR4.rstrip("\n"), gz=True))


def test_a_final_comment_without_newline_is_fine(tmp_path):
    check_letor4(read_letor(write(tmp_path, LETOR4 + "# end of file")))


def test_every_cut_inside_the_last_line_is_refused(tmp_path):
    last_line = LETOR4.splitlines(keepends=True)[-1]
    for cut in range(1, len(last_line)):  # every cut point that leaves part of the last line
        path = write(tmp_path, LETOR4[:-cut], name="cut.txt")
        with pytest.raises(LetorFormatError, match=r"cut.txt, line 4: the last line has no final newline"):
            read_letor(path)


def test_string_qids_and_float_labels(tmp_path):
    text = "2.0 qid:abc-12 1:1\n0 qid:abc-12 1:2\n1.0 qid:Q_7/x 1:3\n"
    data = read_letor(write(tmp_path, text))
    assert data.qids.tolist() == ["abc-12", "Q_7/x"]
    assert data.labels.tolist() == [2, 0, 1]
    assert data.query_offsets.tolist() == [0, 2, 3]


def test_qids_are_kept_as_written(tmp_path):
    data = read_letor(write(tmp_path, "0 qid:007 1:1\n0 qid:7 1:1\n"))
    assert data.qids.tolist() == ["007", "7"]  # different tokens, different queries


def test_sparse_yahoo_like(tmp_path):
    text = (
        "4 qid:1 3:0.5 700:0.25 10:1\n"
        "0 qid:1 1:0.125\n"
        "2 qid:2 650:0.75 2:1 1:2\n"  # decreasing indices are fine
        "1 qid:2\n"  # no features at all
    )
    path = write(tmp_path, text)
    data = read_letor(path, max_feature=700)
    assert data.X.shape == (4, 700)
    expected = np.zeros((4, 700), dtype=np.float32)
    expected[0, [2, 699, 9]] = [0.5, 0.25, 1]
    expected[1, 0] = 0.125
    expected[2, [649, 1, 0]] = [0.75, 1, 2]
    np.testing.assert_array_equal(data.X, expected)
    assert read_letor(path).n_features == 700  # inferred from the largest index
    assert read_letor(path, n_features=800).X.shape == (4, 800)


def test_inferred_width_is_largest_index(tmp_path):
    data = read_letor(write(tmp_path, "0 qid:1 5:1\n1 qid:1 2:1\n"))
    assert data.n_features == 5


def test_inferred_width_ignores_comments(tmp_path):
    data = read_letor(write(tmp_path, "0 qid:1 2:1 #docid = 999:1 inc = 5:3\n# 77:1\n1 qid:1 3:1 #x 88:2\n"))
    assert data.n_features == 3


def test_inferred_width_too_large(tmp_path):
    path = write(tmp_path, GOOD + "1 qid:1 99999999999999999999:1\n", name="wide.txt")
    with pytest.raises(LetorFormatError, match=r"wide.txt, line 2: a feature index above 100,000"):
        read_letor(path)


def test_utf8_bom_is_refused_as_by_every_reader(tmp_path):
    """One rule for every reader (ltrbv.input_files): a byte-order mark is refused, saying so."""
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + LETOR4.encode())
    with pytest.raises(LetorFormatError, match=r"bom.txt: starts with a UTF-8 byte-order mark \(BOM\)"):
        read_letor(path)
    path.write_bytes(LETOR4.encode())
    check_letor4(read_letor(path))


def test_label_range_accepts_bounds(tmp_path):
    data = read_letor(write(tmp_path, "0 qid:1 1:1\n4 qid:1 1:1\n-1 qid:2 1:1\n"), label_range=(-1, 4))
    assert data.labels.tolist() == [0, 4, -1]


def test_non_contiguous_queries_are_grouped_stably(tmp_path):
    qids = ["a", "a", "b", "a", "c", "b", "b", "a"]
    text = "".join(f"{i % 3} qid:{q} 1:{i + 1} 2:{-(i + 1)}\n" for i, q in enumerate(qids))
    path = write(tmp_path, text, name="folds.txt")
    with pytest.warns(NonContiguousQueryWarning) as record:
        data = read_letor(path)
    messages = [str(w.message) for w in record if issubclass(w.category, NonContiguousQueryWarning)]
    assert len(messages) == 2  # one per query that reappears: 'a' (line 4) and 'b' (line 6)
    assert all("folds.txt" in m for m in messages)
    assert "line 4" in messages[0] and "'a'" in messages[0]
    assert "line 6" in messages[1] and "'b'" in messages[1]
    assert data.qids.tolist() == ["a", "b", "c"]
    assert data.query_offsets.tolist() == [0, 4, 7, 8]
    assert data.line_numbers.tolist() == [1, 2, 4, 8, 3, 6, 7, 5]
    np.testing.assert_array_equal(data.X[:, 0], data.line_numbers.astype(np.float32))
    np.testing.assert_array_equal(data.X[:, 1], -data.line_numbers.astype(np.float32))
    assert data.labels.tolist() == [(n - 1) % 3 for n in data.line_numbers]
    # back to file order
    np.testing.assert_array_equal(data.to_file_order(data.X[:, 0]), np.arange(1, 9, dtype=np.float32))


def test_contiguous_unsorted_qids_do_not_warn(tmp_path):
    text = "0 qid:9 1:1\n0 qid:9 1:2\n1 qid:3 1:3\n1 qid:5 1:4\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = read_letor(write(tmp_path, text))
    assert data.qids.tolist() == ["9", "3", "5"]


def _random_letor_text(rng: np.random.Generator, n_lines: int, n_features: int) -> str:
    lines = []
    qid = 0
    for i in range(n_lines):
        if rng.random() < 0.2:
            qid = int(rng.integers(0, 6))  # revisits earlier qids: non-contiguous runs
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "   ", "# comment", "\t"]))
        feats = rng.permutation(n_features)[: rng.integers(0, n_features + 1)] + 1
        tokens = " ".join(f"{j}:{rng.normal() * 10.0 ** rng.integers(-3, 6):.{rng.integers(0, 9)}g}" for j in feats)
        lines.append(f"{rng.integers(0, 5)} qid:q{qid} {tokens} #docid = d{i}" + ("" if rng.random() < 0.5 else " "))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("chunk", [16, 33, 64, 257, 4096])
def test_chunk_boundaries_do_not_matter(tmp_path, monkeypatch, chunk):
    rng = np.random.default_rng(chunk)
    text = _random_letor_text(rng, 300, 12)
    path = write(tmp_path, text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonContiguousQueryWarning)
        reference = read_letor(path)
        monkeypatch.setattr(letor, "CHUNK_BYTES", chunk)
        small = read_letor(path)
    for name in ("X", "labels", "query_offsets", "qids", "line_numbers"):
        np.testing.assert_array_equal(getattr(small, name), getattr(reference, name))
    # and both agree with a plain Python reading of the text
    rows = {}
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split("#")[0].split()
        if body:
            rows[number] = body
    assert sorted(reference.line_numbers.tolist()) == sorted(rows)
    for r, number in enumerate(reference.line_numbers.tolist()):
        body = rows[number]
        assert reference.labels[r] == int(body[0])
        assert reference.qids[np.searchsorted(reference.query_offsets, r, side="right") - 1] == body[1][4:]
        expected = np.zeros(reference.n_features, dtype=np.float32)
        for token in body[2:]:
            j, v = token.split(":")
            expected[int(j) - 1] = np.float32(float(v))
        np.testing.assert_array_equal(reference.X[r], expected)


def test_query_spanning_chunks_is_one_run(tmp_path, monkeypatch):
    text = "".join(f"1 qid:long-query-id 1:{i} 2:0.5 #doc {i}\n" for i in range(50))
    monkeypatch.setattr(letor, "CHUNK_BYTES", 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = read_letor(write(tmp_path, text))
    assert data.qids.tolist() == ["long-query-id"]
    assert data.query_offsets.tolist() == [0, 50]


def test_line_longer_than_chunk(tmp_path, monkeypatch):
    long_line = "1 qid:1 " + " ".join(f"{j}:{j / 7:.9f}" for j in range(1, 501)) + "\n"
    monkeypatch.setattr(letor, "CHUNK_BYTES", 64)
    data = read_letor(write(tmp_path, "0 qid:1 1:1\n" + long_line + long_line))
    assert data.X.shape == (3, 500)
    np.testing.assert_array_equal(data.X[1], np.float32([float(f"{j / 7:.9f}") for j in range(1, 501)]))


def test_importing_compiles_nothing():
    import subprocess
    import sys

    code = (
        "import ltrbv.data.letor, ltrbv.data._letor_kernels as K\n"
        "kernels = [K.parse_chunk, K.count_lines, K.scan_lines_and_indices, K.parse_number, K.slow_number, K.permute_rows_inplace]\n"
        "assert all(not k.signatures for k in kernels), [k.signatures for k in kernels]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- numbers ----------------------------------------------------------------------------


def parse_values(tmp_path: Path, tokens: list[str]) -> np.ndarray:
    line = "0 qid:1 " + " ".join(f"{j + 1}:{t}" for j, t in enumerate(tokens)) + "\n"
    path = write(tmp_path, line, name="values.txt")
    return read_letor(path, n_features=len(tokens)).X[0]


def assert_exact(got: np.ndarray, tokens: list[str]) -> None:
    expected = np.array([np.float32(float(t)) for t in tokens], dtype=np.float32)
    mismatch = got.view(np.uint32) != expected.view(np.uint32)  # bitwise: -0.0 and 0.0 differ
    assert not mismatch.any(), [(t, g, e) for t, g, e, m in zip(tokens, got, expected, mismatch) if m]


TRICKY = [
    "0", "-0", "-0.0", "+0.0", "0e10", "000.000", "1", "+1", "-1", "00012", "12.", ".125", "1E3", "1e+05",
    "1e-05", "1.5E-3", "0.1", "0.2", "0.3", "123456.789", "12345.678", "11089534", "-18.567793",
    "16777216", "16777217", "16777218", "16777219", "33554433", "9007199254740993", "9007199254740995",
    "1.00000005960464477539062500000000000000000000001",  # just above a float32 tie, rounds to it in float64
    "1.0000000596046448", "1.00000017881393432617187499", "0.333333333333333314829616256247390992939472198486328125",
    "3.4028235e38", "3.4028234663852886e38", "-3.4028234663852886e+38", "3.4028235677973362e38",
    "1.401298464324817e-45", "7.006492321624085e-46", "7.0064923216240862e-46", "1e-46", "2.9e-45",
    "1.1754943508222875e-38", "1.1754942106924411e-38", "2.2250738585072011e-308", "4.9406564584124654e-324",
    "2.4703282292062327e-324", "1e-400", "123456789012345678901234567890", "1234567890123456789e-10",
    "0." + "0" * 40 + "1", "1" + "0" * 38, "0." + "9" * 60, "4" + "9" * 900 + "e-900", "5" * 820 + "e-830",
    "1.5e22", "1.5e30", "7e37", "123456789e29", "-3.402823567797336e38",
]  # fmt: skip


def test_tricky_numbers_exact(tmp_path):
    assert_exact(parse_values(tmp_path, TRICKY), TRICKY)


def test_numbers_near_float32_overflow(tmp_path):
    ok = ["3.4028235677973362e38"]  # float64 just below the float32 halfway point: FLT_MAX
    assert_exact(parse_values(tmp_path, ok), ok)
    # float64 rounds these to the halfway point (or beyond): float32 rounds them to infinity
    for bad in ["3.4028235677973366e38", "3.40282356779733661637539395458142568447e38", "3.5e38", "-1e39", "1e400"]:
        with pytest.raises(LetorFormatError, match="line 1"):
            parse_values(tmp_path, [bad])


_formats = st.sampled_from([repr, "%.6f".__mod__, "%g".__mod__, "%.9g".__mod__, "%.17g".__mod__, "%e".__mod__])
_f32_range = st.floats(min_value=-F32_MAX, max_value=F32_MAX, allow_nan=False, allow_infinity=False)
_f32_values = st.floats(width=32, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.one_of(_f32_range, _f32_values, st.floats(-1e6, 1e6)), _formats), min_size=1, max_size=40))
def test_random_floats_parse_exactly(tmp_path, pairs):
    tokens = [fmt(x) for x, fmt in pairs]
    with np.errstate(over="ignore"):
        tokens = [t for t in tokens if math.isfinite(np.float32(float(t)))]
    if tokens:
        assert_exact(parse_values(tmp_path, tokens), tokens)


_digit_strings = st.builds(
    lambda sign, digits, point, exp: (
        sign + (digits[:point] + "." + digits[point:] if point is not None else digits) + (f"e{exp}" if exp is not None else "")
    ),
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", min_size=1, max_size=30),
    st.one_of(st.none(), st.integers(0, 30)),
    st.one_of(st.none(), st.integers(-80, 60)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_digit_strings, min_size=1, max_size=30))
def test_random_decimal_strings_parse_exactly(tmp_path, tokens):
    with np.errstate(over="ignore"):
        tokens = [t for t in tokens if math.isfinite(np.float32(float(t)))]
    if tokens:
        assert_exact(parse_values(tmp_path, tokens), tokens)


def kernel_float64(token: str) -> float:
    """The parser's float64 for one token (before the float32 rounding)."""
    from ltrbv.data import _letor_kernels as K

    buf = np.frombuffer(token.encode() + b" ", dtype=np.uint8)
    status, value, end = K.parse_number(buf, 0, buf.size)
    assert status != K._NUM_BAD and end == len(token), token
    if status == K._NUM_SLOW:
        value = K.slow_number(buf, 0, end, np.zeros(K.DEC_DIGITS, np.uint8), np.zeros(K.DEC_TMP, np.uint8))
    return value


def assert_float64_exact(tokens: list[str]) -> None:
    got = np.array([kernel_float64(t) for t in tokens])
    expected = np.array([float(t) for t in tokens])
    bad = got.view(np.uint64) != expected.view(np.uint64)
    assert not bad.any(), [(t, g, e) for t, g, e, b in zip(tokens, got, expected, bad) if b]


def test_tricky_numbers_float64_exact():
    extra = ["1e400", "-1e400", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
             "2.4703282292062327e-324", "2.4703282292062328e-324", "5e-324", "1e-330", "9007199254740993",
             "9007199254740993.00000000000000000000001", "0.1" + "0" * 900 + "1"]  # fmt: skip
    assert_float64_exact(TRICKY + extra)


_f64_formats = st.sampled_from([repr, "%.17g".__mod__, "%.20e".__mod__, "%.16g".__mod__, "%.25f".__mod__])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False), _f64_formats), min_size=1, max_size=20))
def test_random_floats_float64_exact(pairs):
    """Sharper than the float32 tests: a float64 off by one ulp rarely changes the float32."""
    assert_float64_exact([fmt(x) for x, fmt in pairs])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.builds(
            lambda digits, point, exp: f"{digits[:point]}.{digits[point:]}e{exp}",
            st.text("0123456789", min_size=1, max_size=40),
            st.integers(0, 40),
            st.integers(-360, 330),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_random_decimal_strings_float64_exact(tokens):
    assert_float64_exact(tokens)


def halfway_token(x: float, nudge: int, sticky: bool) -> str:
    """Exact decimal of the midpoint between x and the next float64 up, nudged by a hair;
    ``sticky`` appends 900 zeros and a 1 (beyond the 800 digits the slow path keeps)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 2000  # enough for every float64 midpoint (<= 767 significant digits)
        lo, hi = decimal.Decimal(x), decimal.Decimal(float(np.nextafter(x, np.inf)))
        mid = (lo + hi) / 2 + nudge * (hi - lo) / 10**30
        mantissa, _, exponent = format(mid, "e").partition("e")
        if sticky:
            mantissa += ("" if "." in mantissa else ".") + "0" * 900 + "1"
        return f"{mantissa}e{exponent}"


_halfway = st.builds(
    halfway_token,
    st.floats(min_value=0.0, max_value=1e308, exclude_min=True),
    st.sampled_from([-1, 0, 1]),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_halfway, min_size=1, max_size=10))
def test_float64_halfway_cases(tokens):
    assert_float64_exact(tokens)


# -- errors -------------------------------------------------------------------------------

GOOD = "1 qid:1 1:0.5 2:0.25\n"

ERROR_CASES = [
    # (id, text, kwargs, bad line, message fragment)
    ("non-numeric label", GOOD + "abc qid:1 1:0.5\n", {}, 2, "non-numeric label"),
    ("nan label", GOOD + GOOD + "nan qid:1 1:0.5\n", {}, 3, "non-numeric label"),
    ("non-integral label", GOOD + "1.5 qid:1 1:0.5\n", {}, 2, "not an integer"),
    ("label out of range", GOOD + GOOD + "5 qid:1 1:0.5\n", {"label_range": (0, 4)}, 3, "label_range"),
    ("label beyond int8", "300 qid:1 1:0.5\n", {}, 1, "int8"),
    ("missing qid", GOOD + "1 1:0.5 2:0.25\n", {}, 2, "qid"),
    ("empty qid", GOOD + "1 qid: 1:0.5\n", {}, 2, "qid"),
    ("qid without colon", GOOD + "1 qid 1:0.5\n", {}, 2, "qid"),
    ("label only", GOOD + "1\n", {}, 2, "qid"),
    ("label and comment", GOOD + "1 #qid:3\n", {}, 2, "qid"),
    ("feature index 0", GOOD + "1 qid:1 0:0.5\n", {}, 2, "index 0"),
    ("index above max_feature", GOOD + "1 qid:1 47:0.5\n", {"max_feature": 46}, 2, "max_feature=46"),
    ("index above n_features", GOOD + "1 qid:1 3:0.5\n", {"n_features": 2}, 2, "n_features=2"),
    ("huge index", GOOD + "1 qid:1 99999999999999999999:1\n", {"max_feature": 700}, 2, "max_feature"),
    ("duplicate index", GOOD + "1 qid:1 1:0.5 2:0.1 1:0.3\n", {}, 2, "duplicate feature index 1"),
    ("non-numeric value", GOOD + "1 qid:1 1:abc\n", {}, 2, "non-numeric"),
    ("value with junk", GOOD + "1 qid:1 1:0.5x\n", {}, 2, "non-numeric"),
    ("nan value", GOOD + "1 qid:1 1:nan\n", {}, 2, "NaN"),
    ("NaN value", GOOD + "1 qid:1 1:NaN\n", {}, 2, "NaN"),
    ("inf value", GOOD + "1 qid:1 1:inf\n", {}, 2, "infinite"),
    ("-Infinity value", GOOD + "1 qid:1 2:-Infinity\n", {}, 2, "infinite"),
    ("float64 overflow", GOOD + "1 qid:1 1:1e400\n", {}, 2, "infinite"),
    ("float32 overflow", GOOD + "1 qid:1 1:1e39\n", {}, 2, "overflows float32"),
    ("token without colon", GOOD + "1 qid:1 1:0.5 7\n", {}, 2, "malformed feature token"),
    ("token with empty value", GOOD + "1 qid:1 1:\n", {}, 2, "malformed feature token"),
    ("token with empty index", GOOD + "1 qid:1 :0.5\n", {}, 2, "malformed feature token"),
    ("negative index", GOOD + "1 qid:1 -1:0.5\n", {}, 2, "malformed feature token"),
    ("named feature", GOOD + "1 qid:1 x:0.5\n", {}, 2, "malformed feature token"),
    ("second qid", GOOD + "1 qid:1 qid:2 1:0.5\n", {}, 2, "malformed feature token"),
    ("error after blank lines", GOOD + "\n\n  \n# c\n" + "1 qid:1 0:1\n", {}, 6, "index 0"),
]


@pytest.mark.parametrize("text, kwargs, line, fragment", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
@pytest.mark.parametrize("variant", ["plain", "crlf", "gz", "small-chunks"])
def test_errors_name_file_and_line(tmp_path, monkeypatch, text, kwargs, line, fragment, variant):
    if variant == "crlf":
        text = text.replace("\n", "\r\n")
    if variant == "small-chunks":
        monkeypatch.setattr(letor, "CHUNK_BYTES", 16)
    path = write(tmp_path, text, name="broken-fold.txt", gz=variant == "gz")
    cache = tmp_path / "broken-fold.npz"
    with pytest.raises(LetorFormatError) as info:
        parse_then_cache(path, cache, **kwargs)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.path == str(path) and err.line == line
    message = str(err)
    assert message.startswith(f"{path}, line {line}: "), message
    assert "broken-fold.txt" in message and fragment in message, message
    assert not cache.exists()


@pytest.mark.parametrize("text", ["", "\n", "\n  \n\r\n", "# only a comment\n#another\n"])
def test_empty_file_is_an_error(tmp_path, text):
    path = write(tmp_path, text, name="empty.txt")
    cache = tmp_path / "empty.npz"
    with pytest.raises(LetorFormatError, match="no data lines") as info:
        parse_then_cache(path, cache)
    assert info.value.line is None and "empty.txt" in str(info.value)
    assert not cache.exists()


def test_empty_gz_file_is_an_error(tmp_path):
    with pytest.raises(LetorFormatError, match="no data lines"):
        read_letor(write(tmp_path, "", name="empty.txt.gz", gz=True))


def test_first_error_wins(tmp_path):
    text = GOOD + "1 qid:1 0:1\n" + "x qid:1 1:1\n"
    with pytest.raises(LetorFormatError, match="line 2: feature index 0"):
        read_letor(write(tmp_path, text))


def test_bad_arguments(tmp_path):
    path = write(tmp_path, GOOD)
    with pytest.raises(ValueError, match="max_feature"):
        read_letor(path, n_features=10, max_feature=20)
    with pytest.raises(ValueError, match="label_range"):
        read_letor(path, label_range=(3, 1))
    with pytest.raises(ValueError, match="label_range"):
        read_letor(path, label_range=(0, 500))


def test_error_is_picklable(tmp_path):
    import pickle

    err = LetorFormatError(tmp_path / "f.txt", 3, "bad")
    again = pickle.loads(pickle.dumps(err))
    assert (again.path, again.line, str(again)) == (err.path, 3, str(err))
