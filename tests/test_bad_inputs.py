"""No silent garbage (issue 15): every bad input is refused, naming the file and line or the config key.

One table of cases; for each: a non-zero exit, a message that says where the problem is, no output or
cache left behind, the inputs unchanged, and nothing written outside the results tree.

* CLI cases run ``ltrbv`` in-process on small files (a traceback would fail the test, not pass it).
* Workflow cases run ``snakemake --dry-run`` on a tiny config with one bad value and assert that the
  workflow stopped at parse time: no job planned, no ``results/`` folder, nothing beside the config.
"""

from __future__ import annotations

import bz2
import copy
import lzma
import os
import re
import gzip
import hashlib
import tarfile
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
import yaml

from conftest import tiny_config
from ltrbv.cli import main
from ltrbv.data.cache import save_cache
from ltrbv.data.letor import read_letor

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]


# -- small inputs -----------------------------------------------------------------------------

def letor_text(n_queries: int = 6, docs: int = 5, n_features: int = 8, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(1, n_queries + 1):
        for d in range(docs):
            values = " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(rng.random(n_features)))
            lines.append(f"{int(rng.integers(0, 3))} qid:{q} {values} #docid = D{q}-{d}\n")
    return "".join(lines)


TEXT = letor_text()
N_DOCS = TEXT.count("\n")


def scores_text(n: int = N_DOCS, seed: int = 1) -> str:
    return "".join(f"{float(v)!r}\n" for v in np.random.default_rng(seed).random(n))


def make_files(root: Path) -> dict[str, Path]:
    """The good files every case starts from (test.txt, test.txt.gz, s.scores, t.scores, probs.txt, test.npz)."""
    files = {"data": root / "test.txt", "scores": root / "s.scores", "scores2": root / "t.scores",
             "gz": root / "test.txt.gz", "probs": root / "probs.txt", "npz": root / "test.npz"}
    files["data"].write_text(TEXT)
    files["scores"].write_text(scores_text())
    files["scores2"].write_text(scores_text(seed=2))
    files["gz"].write_bytes(gzip.compress(TEXT.encode(), mtime=0))
    files["probs"].write_text("0.700000 0.200000 0.100001\n" * N_DOCS)  # printed to 6 decimals: sums to 1.000001
    save_cache(read_letor(files["data"]), files["npz"])
    return files


def cut(path: Path, n_bytes: int, name: str) -> Path:
    out = path.with_name(name)
    out.write_bytes(path.read_bytes()[:-n_bytes])
    return out


def flip(path: Path, at: float | int, name: str) -> Path:
    """Invert one byte: at a share of the file (float) or at an index (int; -6 is in a gzip's CRC-32)."""
    data = bytearray(path.read_bytes())
    data[at if isinstance(at, int) else int(len(data) * at)] ^= 0xFF
    out = path.with_name(name)
    out.write_bytes(bytes(data))
    return out


def write(root: Path, name: str, text: str) -> Path:
    (root / name).write_text(text)
    return root / name


def write_bytes(root: Path, name: str, data: bytes) -> Path:
    (root / name).write_bytes(data)
    return root / name


def fifo(root: Path, name: str) -> Path:
    os.mkfifo(root / name)
    return root / name


def pipe_path() -> str:
    """What a process substitution ``<(...)`` gives a command: /dev/fd/N, the read end of a pipe."""
    read_end, write_end = os.pipe()
    os.close(write_end)  # a reader that read it anyway would see an empty file, not wait forever
    return f"/dev/fd/{read_end}"


def tar_gz(source: Path, root: Path, name: str = "data.tar.gz", compression: str = "gz") -> Path:
    with tarfile.open(root / name, f"w:{compression}" if compression else "w") as archive:
        archive.add(source, arcname=source.name)
    return root / name


#: the data line whose label relabel() changes (the first document of query 2)
RELABELLED = 6


def relabel(root: Path, name: str, label: int, every: bool = False) -> Path:
    lines = TEXT.splitlines(keepends=True)
    for i in range(len(lines)) if every else [RELABELLED - 1]:
        lines[i] = f"{label}{lines[i][lines[i].index(' '):]}"
    return write(root, name, "".join(lines))


def cache_of(path: Path) -> Path:
    return save_cache(read_letor(path), path.with_suffix(".npz"))


def fold_tree(root: Path, link: Path | None = None) -> Path:
    """A data set folder ``ds`` holding Fold1/train.txt (a copy of the good data, or a symbolic link to ``link``)."""
    (root / "ds" / "Fold1").mkdir(parents=True)
    target = root / "ds" / "Fold1" / "train.txt"
    if link is None:
        target.write_text(TEXT)
    else:
        target.symlink_to(link)
    return root / "ds"


def output_target(kind: str, root: Path) -> Path | str:
    """An existing output path that is not a regular file: a symbolic link (to a file), a FIFO, a device."""
    if kind == "symlink":
        write(root, "target.csv", "keep me\n")
        (root / "link.out").symlink_to(root / "target.csv")
        return root / "link.out"
    if kind == "fifo":
        return fifo(root, "fifo.out")
    return "/dev/full"


OUTPUT_KIND_WORDS = {"symlink": "symbolic link", "fifo": r"FIFO \(named pipe\) or a pipe", "device": "character device"}


def _compare_argv(f, d):
    return ["compare", "--data", str(f["data"]), "--scores", str(f["scores"]), str(f["scores2"])]


#: every output option of every command: (option, the command's arguments without it)
OUTPUT_OPTIONS = (
    ("--per-query", lambda f, d: _ev(f["data"], f["scores"])),
    ("--run", lambda f, d: ["export-trec", str(f["data"]), str(f["scores"])]),
    ("--qrels", lambda f, d: ["export-trec", str(f["data"]), str(f["scores"]), "--run", str(d / "o.run")]),
    ("--csv", _compare_argv),
    ("--latex", _compare_argv),
    ("--plot", _compare_argv),
    ("--per-query", lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores",
                                  str(f["scores"]), str(f["scores2"])]),
    ("--out", lambda f, d: ["sampling-distribution", "--data", str(f["data"]), "--label-probs", str(f["probs"]),
                            "--scores", str(f["scores"]), "--measure", "dcg"]),
)

BENCH_HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def benchmark(root: Path, text: str) -> Path:
    """A calibration folder holding one Snakemake benchmark file (a rule's) with ``text``."""
    (root / "bench").mkdir()
    (root / "bench" / "performance_table.tsv").write_text(text)
    return root / "bench"


#: numbers outside the one grammar of numbers in files: (case name, token, what the message says)
BAD_NUMBERS = (
    ("nan", "nan", "not finite"), ("inf", "inf", "not finite"), ("minus-infinity", "-Infinity", "not finite"),
    ("underscore", "1_000", "not a number"), ("hex", "0x1p3", "not a number"), ("plus-minus", "+-1", "not a number"),
    ("thousands-separator", "1,000.5", "not a number"), ("decimal-comma", "0,5", "not a number"),
    ("trailing-junk", "0.5abc", "not a number"), ("non-ascii-digits", "\u0661\u0662", "not a number"),
    ("overflow", "1e999", "out of the range of a float64"), ("lone-exponent", "1e", "not a number"),
    ("lone-dot", ".", "not a number"),
)


# -- CLI cases --------------------------------------------------------------------------------

@dataclass
class CliCase:
    id: str
    argv: Callable[[dict, Path], list[str]]  # (good files, folder) -> ltrbv arguments
    message: str  # regex the error must match (file and line, or the option)
    must_not_exist: tuple[str, ...] = ()  # outputs that must not be left behind


def _ev(data, scores, *more):
    return ["evaluate", str(data), str(scores), *map(str, more)]


FAKE = {"data": "d", "scores": "s", "scores2": "t", "probs": "p"}  # to name a command in a case id


CLI_CASES = [
    CliCase("truncated-text", lambda f, d: _ev(cut(f["data"], 40, "cut.txt"), f["scores"]),
            rf"cut.txt, line {N_DOCS}: the last line has no final newline"),
    CliCase("truncated-text-400-bytes", lambda f, d: _ev(cut(f["data"], 400, "cut.txt"), f["scores"]),
            r"cut.txt, line \d+: the last line has no final newline"),
    CliCase("missing-final-newline", lambda f, d: _ev(cut(f["data"], 1, "nonl.txt"), f["scores"]),
            rf"nonl.txt, line {N_DOCS}: the last line has no final newline"),
    CliCase("truncated-gzip", lambda f, d: _ev(cut(f["gz"], 30, "cut.txt.gz"), f["scores"]),
            r"cut.txt.gz: damaged gzip file"),
    CliCase("gzip-bad-crc", lambda f, d: _ev(flip(f["gz"], -6, "crc.txt.gz"), f["scores"]),
            r"crc.txt.gz: damaged gzip file \(CRC check failed"),
    CliCase("gzip-corrupt-stream", lambda f, d: _ev(flip(f["gz"], 0.5, "bad.txt.gz"), f["scores"]),
            r"bad.txt.gz: damaged gzip file"),
    CliCase("huge-feature-index", lambda f, d: _ev(write(d, "wide.txt", "0 qid:1 40000000:1\n1 qid:1 1:2\n"),
                                                   write(d, "two.scores", "0.1\n0.2\n")),
            r"wide.txt, line 1: a feature index above 100,000"),
    CliCase("data-is-a-directory", lambda f, d: _ev(d, f["scores"]), r": is a directory, expected a LETOR data file"),
    CliCase("scores-is-a-directory", lambda f, d: _ev(f["data"], d), r": is a directory, expected a score file"),
    CliCase("missing-data-file", lambda f, d: _ev(d / "absent.txt", f["scores"]), r"absent.txt"),
    CliCase("bad-label-line", lambda f, d: _ev(write(d, "lab.txt", TEXT.replace("qid:3", "qid:3", 1)
                                                     .replace("\n2 qid:2", "\nx qid:2", 1)), f["scores"]),
            r"lab.txt, line \d+: non-numeric label 'x'"),
    CliCase("ranklib-score-file", lambda f, d: _ev(f["data"], write(d, "rl.scores", "".join(
        f"{i // 5}\t{i % 5}\t{v}\n" for i, v in enumerate(np.linspace(0, 1, N_DOCS))))),
            r"rl.scores, line 1: 3 fields, a score file holds exactly one number per line \(this looks like RankLib"),
    CliCase("two-numbers-per-line", lambda f, d: _ev(f["data"], write(d, "two.scores", "0.5 0.25\n" * N_DOCS)),
            r"two.scores, line 1: 2 fields"),
    CliCase("nan-score", lambda f, d: _ev(f["data"], write(d, "nan.scores", "0.5\n" * 3 + "nan\n" + "0.5\n" * (N_DOCS - 4))),
            r"nan.scores, line 4: score 'nan' is not finite"),
    CliCase("too-few-scores", lambda f, d: _ev(f["data"], write(d, "short.scores", "0.5\n" * (N_DOCS - 1))),
            rf"short.scores: {N_DOCS - 1} scores for {N_DOCS} documents \(line {N_DOCS} is missing\)"),
    CliCase("per-query-onto-scores", lambda f, d: _ev(f["data"], f["scores"], "--per-query", f["scores"]),
            r"--per-query .*s.scores: is an input of this command"),
    CliCase("per-query-onto-data", lambda f, d: _ev(f["data"], f["scores"], "--per-query", f["data"]),
            r"--per-query .*test.txt: is an input of this command"),
    CliCase("per-query-is-a-directory", lambda f, d: _ev(f["data"], f["scores"], "--per-query", d),
            r"--per-query .*: is a directory"),
    CliCase("truncated-cache", lambda f, d: _ev(cut(f["npz"], 200, "cut.npz"), f["scores"]),
            r"cut.npz: (damaged|not a RankingData|unreadable)"),
    CliCase("cache-bit-flip", lambda f, d: _ev(flip(f["npz"], 300, "flip.npz"), f["scores"]),
            r"flip.npz: (unreadable cache member|content does not match its checksum)"),
    CliCase("biasvar-per-query-onto-scores",
            lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores", str(f["scores"]),
                          str(f["scores2"]), "--per-query", str(f["scores2"])],
            r"--per-query .*t.scores: is an input of this command"),
    CliCase("biasvar-ranklib-scores",
            lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores", str(f["scores"]),
                          str(write(d, "rl.scores", "1\t0\t0.5\n" * N_DOCS))],
            r"rl.scores, line 1: 3 fields"),
    CliCase("biasvar-truncated-data",
            lambda f, d: ["biasvar", "--data", str(cut(f["data"], 10, "cut.txt")), "--method", "bootstrap",
                          "--scores", str(f["scores"]), str(f["scores2"])],
            rf"cut.txt, line {N_DOCS}: the last line has no final newline"),
    CliCase("sampling-distribution-out-onto-input",
            lambda f, d: ["sampling-distribution", "--data", str(f["data"]), "--label-probs", str(f["probs"]),
                          "--scores", str(f["scores"]), "--measure", "dcg", "--out", str(f["probs"])],
            r"--out .*probs.txt: is an input of this command"),
    CliCase("label-probs-not-summing-to-one",
            lambda f, d: ["sampling-distribution", "--data", str(f["data"]), "--label-probs",
                          str(write(d, "p.txt", "0.7 0.2 0.2\n" * N_DOCS)), "--scores", str(f["scores"]),
                          "--measure", "dcg", "--out", str(d / "q.csv")],
            r"p.txt, line 1: probabilities sum to 1.1, not 1", must_not_exist=("q.csv",)),
    CliCase("export-trec-run-onto-scores", lambda f, d: ["export-trec", str(f["data"]), str(f["scores"]),
                                                         "--run", str(f["scores"])],
            r"--run .*s.scores: is an input of this command"),
    CliCase("evaluate-run-without-qrels", lambda f, d: ["evaluate", "--run", str(f["scores"])],
            r"--run needs --qrels"),
    CliCase("config-duplicate-key", lambda f, d: ["check-config", str(write(d, "c.yaml", "seed: 1\nrun: {}\nseed: 2\n"))],
            r"c.yaml, line 3: key 'seed' is given twice"),
    CliCase("config-invalid-yaml", lambda f, d: ["check-config", str(write(d, "c.yaml", "seed: 1\nrun: [a\nb: c\n"))],
            r"c.yaml, line 3: not valid YAML"),
    CliCase("plan-invalid-yaml", lambda f, d: ["plan", "--configfile", str(write(d, "c.yaml", "run: {a: [1}\n"))],
            r"c.yaml, line 1: not valid YAML"),
    # -- issue 28, CLI readers and writers (a second probe) --
    *[CliCase(f"{argv(FAKE, Path('.'))[0]}{option}-onto-a-{kind}",
              (lambda o, a, k: lambda f, d: a(f, d) + [o, str(output_target(k, d))])(option, argv, kind),
              rf"{option} .*: is a {OUTPUT_KIND_WORDS[kind]}; an output must be a regular file or a new path")
      for option, argv in OUTPUT_OPTIONS for kind in ("symlink", "fifo", "device")],
    # -- a third probe (session 33): a trailing slash names a folder; caches that are empty or text --
    *[CliCase(f"{argv(FAKE, Path('.'))[0]}{option}-trailing-slash",
              (lambda o, a: lambda f, d: a(f, d) + [o, str(d / "newdir") + "/"])(option, argv),
              rf"{option} .*newdir/: ends with '/', so it names a folder", must_not_exist=("newdir",))
      for option, argv in OUTPUT_OPTIONS],
    *[CliCase(f"{name}-empty-npz", (lambda a: lambda f, d: a(write(d, "z.npz", ""), f))(argv),
              r"z.npz: not a RankingData cache \(an empty file\)")
      for name, argv in (("evaluate", lambda data, f: _ev(data, f["scores"])),
                         ("compare", lambda data, f: ["compare", "--data", str(data), "--scores", str(f["scores"]),
                                                      str(f["scores2"])]),
                         ("export-trec", lambda data, f: ["export-trec", str(data), str(f["scores"]), "--run",
                                                          str(data.parent / "o.run")]))],
    CliCase("check-config-yaml11-octal", lambda f, d: ["check-config", str(write(d, "c.yaml", "seed: 010\nrun: {}\n"))],
            r"c.yaml, line 1: seed: 010 is read as 8 by YAML 1.1"),
    *[CliCase(f"{name}-metrics-empty", argv, r"--metrics: '(,)?' names no metric")
      for name, argv in (("evaluate", lambda f, d: _ev(f["data"], f["scores"], "--metrics", "")),
                         ("evaluate-comma", lambda f, d: _ev(f["data"], f["scores"], "--metrics", ",")),
                         ("compare", lambda f, d: _compare_argv(f, d) + ["--metrics", ""]))],
    CliCase("text-named-npz", lambda f, d: _ev(write(d, "data.npz", f["data"].read_text()), f["scores"]),
            r"data.npz: not a RankingData cache \(an .npz cache is a zip archive; this file starts with b'[0-9] qid:"
            r"[0-9]+ .*': if it is a LETOR text file, give it a name that does not end in .npz\)"),
    CliCase("per-query-stdout", lambda f, d: _ev(f["data"], f["scores"], "--per-query", "-"),
            r"--per-query -: writing to standard output is not supported"),
    CliCase("per-query-in-proc", lambda f, d: _ev(f["data"], f["scores"], "--per-query", "/proc/version"),
            r"--per-query /proc/version: cannot create a file in /proc"),
    CliCase("per-query-under-a-file", lambda f, d: _ev(f["data"], f["scores"], "--per-query", d / "s.scores" / "x.csv"),
            r"--per-query .*x.csv: .*s.scores is not a folder"),
    CliCase("data-is-dev-zero", lambda f, d: _ev("/dev/zero", f["scores"]),
            r"/dev/zero: is a character device, expected a LETOR data file \(a regular file\)"),
    CliCase("scores-is-dev-zero", lambda f, d: _ev(f["data"], "/dev/zero"),
            r"/dev/zero: is a character device, expected a score file"),
    CliCase("data-is-a-fifo", lambda f, d: _ev(fifo(d, "pipe.txt"), f["scores"]),
            r"pipe.txt: is a FIFO \(named pipe\) or a pipe, expected a LETOR data file \(a regular file\); .*save"),
    CliCase("scores-from-process-substitution", lambda f, d: _ev(f["data"], pipe_path()),
            r"/dev/fd/\d+: is a FIFO \(named pipe\) or a pipe, expected a score file"),
    CliCase("data-from-stdin", lambda f, d: _ev("-", f["scores"]),
            r"-: reading a LETOR data file from standard input is not supported"),
    CliCase("scores-from-stdin", lambda f, d: _ev(f["data"], "-"),
            r"-: reading a score file from standard input is not supported"),
    CliCase("data-is-a-tar-gz", lambda f, d: _ev(tar_gz(f["data"], d), f["scores"]),
            r"data.tar.gz: not a LETOR data file \(once gzip-decompressed\): looks like a tar archive"),
    CliCase("data-is-a-tar", lambda f, d: _ev(tar_gz(f["data"], d, "data.tar", ""), f["scores"]),
            r"data.tar: not a LETOR data file: looks like a tar archive"),
    CliCase("data-is-binary", lambda f, d: _ev(write_bytes(d, "b.txt", bytes(range(256)) * 4), f["scores"]),
            r"b.txt: not a LETOR data file: looks like a binary file \(a NUL byte"),
    CliCase("data-is-bzip2", lambda f, d: _ev(write_bytes(d, "d.txt.bz2", bz2.compress(TEXT.encode())), f["scores"]),
            r"d.txt.bz2: not a LETOR data file: looks like a bzip2-compressed file"),
    CliCase("data-is-xz", lambda f, d: _ev(write_bytes(d, "d.txt.xz", lzma.compress(TEXT.encode())), f["scores"]),
            r"d.txt.xz: looks like an xz-compressed file"),
    CliCase("scores-is-a-cache", lambda f, d: _ev(f["data"], f["npz"]),
            r"test.npz: looks like a zip archive \(a parsed .npz cache is one\); not a score file"),
    CliCase("scores-gzip", lambda f, d: _ev(f["data"], write_bytes(d, "s.scores.gz", gzip.compress(b"0.5\n" * N_DOCS))),
            r"s.scores.gz: is gzip-compressed; not a score file"),
    CliCase("data-bom", lambda f, d: _ev(write_bytes(d, "bom.txt", b"\xef\xbb\xbf" + TEXT.encode()), f["scores"]),
            r"bom.txt: starts with a UTF-8 byte-order mark \(BOM\)"),
    CliCase("data-gz-bom", lambda f, d: _ev(write_bytes(d, "bom.txt.gz", gzip.compress(b"\xef\xbb\xbf" + TEXT.encode())),
                                            f["scores"]),
            r"bom.txt.gz: starts with a UTF-8 byte-order mark \(BOM\).* \(once gzip-decompressed\)"),
    CliCase("scores-bom", lambda f, d: _ev(f["data"], write_bytes(d, "bom.scores", b"\xef\xbb\xbf" + f["scores"].read_bytes())),
            r"bom.scores: starts with a UTF-8 byte-order mark \(BOM\)"),
    CliCase("scores-utf16", lambda f, d: _ev(f["data"], write_bytes(d, "u.scores", f["scores"].read_text().encode("utf-16"))),
            r"u.scores: starts with a UTF-16 byte-order mark \(BOM\)"),
    CliCase("scores-not-utf8", lambda f, d: _ev(f["data"], write_bytes(d, "latin.scores", b"0.5\n0.5\xe9\n" + b"0.5\n" * (N_DOCS - 2))),
            r"latin.scores, line 2: not UTF-8 text \(byte 0xe9 at column 4\)"),
    CliCase("too-many-scores", lambda f, d: _ev(f["data"], write(d, "long.scores", "0.5\n" * (N_DOCS + 2))),
            rf"long.scores: {N_DOCS + 2} scores for {N_DOCS} documents \(line {N_DOCS + 1} is the first extra line"),
    CliCase("scores-cut-short", lambda f, d: _ev(f["data"], cut(f["scores"], 3, "cut.scores")),
            rf"cut.scores, line {N_DOCS}: the last line has no final newline"),
    *[CliCase(f"score-{name}", (lambda t: lambda f, d: _ev(f["data"], write(d, "x.scores", "0.5\n" * 2 + t + "\n" + "0.5\n" * (N_DOCS - 3))))(token),
              rf"x.scores, line 3: score {re.escape(repr(token))} is {problem}")
      for name, token, problem in BAD_NUMBERS],
    # label scales: an LTR convention's 0..max_grade; trec_eval's any non-negative grade (up to 127, int8)
    CliCase("negative-label", lambda f, d: _ev(relabel(d, "neg.txt", -1), f["scores"]),
            rf"neg.txt, line {RELABELLED}: label -1 outside the 'trec_eval' convention's grades 0, 1, 2, \.\.\. "
            r"\(non-negative integers, at most 127\)"),
    CliCase("negative-label-letor4", lambda f, d: _ev(relabel(d, "neg.txt", -1), f["scores"], "--convention", "letor4"),
            rf"neg.txt, line {RELABELLED}: label -1 outside the 'letor4' convention's labels 0..2"),
    CliCase("compare-negative-label",
            lambda f, d: ["compare", "--data", str(relabel(d, "neg.txt", -2)), "--scores", str(f["scores"]), str(f["scores2"])],
            rf"neg.txt, line {RELABELLED}: label -2 outside the 'trec_eval' convention's grades"),
    CliCase("label-above-letor4-scale",
            lambda f, d: _ev(relabel(d, "seven.txt", 7), f["scores"], "--convention", "letor4"),
            rf"seven.txt, line {RELABELLED}: label 7 outside the 'letor4' convention's labels 0..2"),
    CliCase("label-above-letor4-scale-in-a-cache",
            lambda f, d: _ev(cache_of(relabel(d, "seven.txt", 3)), f["scores"], "--convention", "letor4"),
            rf"seven.npz \(a cache of .*seven.txt\), line {RELABELLED} of .*seven.txt: label 3 outside the 'letor4'"),
    CliCase("negative-label-in-a-cache", lambda f, d: _ev(cache_of(relabel(d, "neg.txt", -1)), f["scores"]),
            rf"neg.npz \(a cache of .*neg.txt\), line {RELABELLED} of .*neg.txt: label -1 outside the 'trec_eval'"),
    CliCase("compare-label-above-standard-scale",
            lambda f, d: ["compare", "--data", str(relabel(d, "five.txt", 5)), "--scores", str(f["scores"]), str(f["scores2"]),
                          "--convention", "standard"],
            rf"five.txt, line {RELABELLED}: label 5 outside the 'standard' convention's labels 0..4"),
    CliCase("biasvar-label-above-standard-scale",
            lambda f, d: ["biasvar", "--data", str(relabel(d, "five.txt", 5)), "--method", "bootstrap", "--scores",
                          str(f["scores"]), str(f["scores2"]), "--convention", "standard"],
            rf"five.txt, line {RELABELLED}: label 5 outside the 'standard' convention's labels 0..4"),
    CliCase("biasvar-negative-label",
            lambda f, d: ["biasvar", "--data", str(relabel(d, "neg.txt", -1)), "--method", "bootstrap", "--scores",
                          str(f["scores"]), str(f["scores2"])],
            rf"neg.txt, line {RELABELLED}: label -1 outside the 'trec_eval' convention's grades"),
    CliCase("qrels-label-above-letor4-scale",
            lambda f, d: ["evaluate", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b 3\n")), "--run",
                          str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.25 x\n")), "--convention", "letor4"],
            r"q.qrels, line 2: label 3 outside the 'letor4' convention's labels 0..2"),
    CliCase("qrels-negative-label",
            lambda f, d: ["evaluate", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b -1\n")), "--run",
                          str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.25 x\n"))],
            r"q.qrels, line 2: label -1 is negative; qrels hold relevance grades 0, 1, 2, \.\.\. \(trec_eval reads"),
    CliCase("compare-qrels-negative-label",
            lambda f, d: ["compare", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b 0\n2 0 c -2\n")), "--run",
                          str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.25 x\n2 Q0 c 1 0.5 x\n")),
                          str(write(d, "s.run", "1 Q0 b 1 0.5 y\n1 Q0 a 2 0.25 y\n2 Q0 c 1 0.5 y\n"))],
            r"q.qrels, line 3: label -2 is negative"),
    CliCase("qrels-label-above-127",
            lambda f, d: ["evaluate", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b 128\n")), "--run",
                          str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.25 x\n"))],
            r"q.qrels, line 2: label 128 above 127; qrels hold relevance grades"),
    CliCase("biasvar-no-relevant-document",
            lambda f, d: ["biasvar", "--data", str(relabel(d, "zero.txt", 0, every=True)), "--method", "bootstrap",
                          "--scores", str(f["scores"]), str(f["scores2"])],
            r"zero.txt: no document of any query has a label >= 1, relevant for nDCG under the 'trec_eval' "
            r"convention; SRE, VRE .*need queries with a relevant"),
    CliCase("biasvar-no-relevant-document-for-map",
            lambda f, d: ["biasvar", "--data", str(relabel(d, "one.txt", 1, every=True)), "--method", "bootstrap",
                          "--metric", "ndcg,map", "--convention", "letor4-mslr", "--scores", str(f["scores"]),
                          str(f["scores2"])],
            r"one.txt: no document of any query has a label >= 2, relevant for map under the 'letor4-mslr'"),
    CliCase("compare-same-scores-twice",
            lambda f, d: ["compare", "--data", str(f["data"]), "--scores", str(f["scores"]), str(f["scores"])],
            r"--scores: .*s.scores is given twice"),
    CliCase("biasvar-same-scores-twice",
            lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores", str(f["scores"]),
                          str(f["scores2"]), str(f["scores"])],
            r"--scores: .*s.scores is given twice"),
    CliCase("compare-negative-seed",
            lambda f, d: ["compare", "--data", str(f["data"]), "--scores", str(f["scores"]), str(f["scores2"]), "--seed", "-1"],
            r"--seed must be >= 0, got -1"),
    CliCase("biasvar-negative-seed",
            lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores", str(f["scores"]),
                          str(f["scores2"]), "--seed", "-1"], r"--seed must be >= 0, got -1"),
    CliCase("biasvar-zero-resamples",
            lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores", str(f["scores"]),
                          str(f["scores2"]), "--resamples", "0"], r"--resamples must be >= 1, got 0"),
    CliCase("biasvar-level-above-one",
            lambda f, d: ["biasvar", "--data", str(f["data"]), "--method", "bootstrap", "--scores", str(f["scores"]),
                          str(f["scores2"]), "--level", "1.5"], r"--level must be in \(0, 1\), got 1.5"),
    CliCase("unknown-metric-did-you-mean", lambda f, d: _ev(f["data"], f["scores"], "--metrics", "ndgc@10"),
            r"--metrics: unknown metric 'ndgc@10' \(did you mean 'nDCG@10'\?\); known under the trec_eval convention: nDCG@k"),
    CliCase("unknown-metric-did-you-mean-letor4",
            lambda f, d: _ev(f["data"], f["scores"], "--metrics", "ndgc@10", "--convention", "letor4"),
            r"--metrics: unknown metric 'ndgc@10' \(did you mean 'ndcg@10'\?\); known under the letor4 convention's "
            r"names: ndcg@k"),
    *[CliCase(f"synthetic-queries-{n}", (lambda n: lambda f, d: ["synthetic", str(d / "out"), "--queries", str(n)])(n),
              rf"--queries {n}: need at least 5 \(one query in each partition S1..S5", must_not_exist=("out",))
      for n in (0, 3, -5)],
    CliCase("synthetic-negative-seed", lambda f, d: ["synthetic", str(d / "out"), "--queries", "5", "--seed", "-1"],
            r"--seed -1: a seed is a non-negative integer", must_not_exist=("out",)),
    CliCase("synthetic-over-a-data-set", lambda f, d: ["synthetic", str(fold_tree(d)), "--queries", "10"],
            r"ds/Fold1/train.txt: exists \(1 of the 15 files to write exist\); refusing to overwrite a data set"),
    CliCase("synthetic-overwrite-a-symlink", lambda f, d: ["synthetic", str(fold_tree(d, link=f["data"])), "--queries",
                                                           "10", "--overwrite"],
            r"OUT_DIR .*ds/Fold1/train.txt: is a symbolic link; an output must be a regular file"),
    CliCase("synthetic-into-a-file", lambda f, d: ["synthetic", str(f["data"]), "--queries", "10"],
            r"test.txt: exists and is not a folder"),
    CliCase("export-trec-tag-with-space", lambda f, d: ["export-trec", str(f["data"]), str(f["scores"]), "--run",
                                                        str(d / "o.run"), "--tag", "my run"],
            r"--tag 'my run': a run's tag is one field", must_not_exist=("o.run",)),
    CliCase("run-rank-not-an-integer",
            lambda f, d: ["evaluate", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b 0\n")), "--run",
                          str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b two 0.25 x\n"))],
            r"r.run, line 2: rank 'two' is not an integer"),
    *[CliCase(f"run-score-{name}", (lambda t: lambda f, d: [
        "evaluate", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b 0\n")), "--run",
        str(write(d, "r.run", f"1 Q0 a 1 0.5 x\n1 Q0 b 2 {t} x\n"))])(token),
              rf"r.run, line 2: score {re.escape(repr(token))} is {problem}")
      for name, token, problem in BAD_NUMBERS if " " not in token],
    *[CliCase(f"qrels-label-{name}", (lambda t: lambda f, d: [
        "evaluate", "--qrels", str(write(d, "q.qrels", f"1 0 a 1\n1 0 b {t}\n")), "--run",
        str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.25 x\n"))])(token),
              rf"q.qrels, line 2: label {re.escape(repr(token))} is not an integer")
      for name, token in (("decimal", "1.0"), ("underscore", "1_0"), ("non-ascii-digit", "\u0661"), ("plus-minus", "+-1"))],
    CliCase("qrels-bom", lambda f, d: ["evaluate", "--qrels", str(write_bytes(d, "q.qrels", b"\xef\xbb\xbf1 0 a 1\n")),
                                       "--run", str(write(d, "r.run", "1 Q0 a 1 0.5 x\n"))],
            r"q.qrels: starts with a UTF-8 byte-order mark \(BOM\)"),
    CliCase("run-cut-short", lambda f, d: ["evaluate", "--qrels", str(write(d, "q.qrels", "1 0 a 1\n1 0 b 0\n")),
                                           "--run", str(write(d, "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.2"))],
            r"r.run, line 2: the last line has no final newline"),
    *[CliCase(f"label-probs-{name}", (lambda t: lambda f, d: [
        "sampling-distribution", "--data", str(f["data"]), "--label-probs",
        str(write(d, "p.txt", "0.7 0.2 0.1\n" + t + "\n" + "0.7 0.2 0.1\n" * (N_DOCS - 2))), "--scores", str(f["scores"]),
        "--measure", "dcg", "--out", str(d / "q.csv")])(line), message, ("q.csv",))
      for name, line, message in (
          ("nan", "0.5 nan 0.5", r"p.txt, line 2: probability 'nan' is not finite"),
          ("empty-field", "0.7,,0.3", r"p.txt, line 2: an empty field between commas"),
          ("underscore", "0.7 0.2 0_1", r"p.txt, line 2: probability '0_1' is not a number"),
          ("trailing-junk", "0.7 0.2 0.1x", r"p.txt, line 2: probability '0.1x' is not a number"))],
    CliCase("label-probs-fifo", lambda f, d: ["sampling-distribution", "--data", str(f["data"]), "--label-probs",
                                              str(fifo(d, "p.fifo")), "--scores", str(f["scores"]), "--measure", "dcg"],
            r"p.fifo: is a FIFO \(named pipe\) or a pipe, expected a label-probabilities file"),
    CliCase("data-feature-inf", lambda f, d: _ev(write(d, "inf.txt", TEXT.replace(" 3:", " 3:inf 99:", 1)), f["scores"]),
            r"inf.txt, line 1: infinite feature value in '3:inf'"),
    CliCase("data-feature-underscore", lambda f, d: _ev(write(d, "u.txt", TEXT.replace(" 3:", " 3:1_000 99:", 1)),
                                                        f["scores"]),
            r"u.txt, line 1: malformed feature value in '3:1_000'"),
    CliCase("data-feature-comma", lambda f, d: _ev(write(d, "c.txt", TEXT.replace(" 3:0.", " 3:0,", 1)), f["scores"]),
            r"c.txt, line 1: (non-numeric|malformed) feature value in '3:0,"),
    CliCase("data-cr-line-endings", lambda f, d: _ev(write_bytes(d, "mac.txt", TEXT.replace("\n", "\r").encode()), f["scores"]),
            r"mac.txt, line 1: a carriage return \(CR\) inside the line: the file has old Mac line endings"),
    CliCase("data-lone-cr-in-a-data-line", lambda f, d: _ev(write_bytes(d, "cr.txt", TEXT.replace(" #docid", "\r1 #docid", 1)
                                                                        .encode()), f["scores"]),
            r"cr.txt, line 1: malformed feature token '1' \(expected index:value\); a carriage return \(CR\)"),
    CliCase("scores-cr-line-endings", lambda f, d: _ev(f["data"], write_bytes(d, "mac.scores", b"0.5\r" * N_DOCS)),
            r"mac.scores, line 1: a carriage return \(CR\) inside the line"),
    CliCase("scores-mixed-line-endings", lambda f, d: _ev(f["data"], write_bytes(d, "mix.scores", b"0.5\n0.5\r0.5\n"
                                                                                + b"0.5\r\n" * (N_DOCS - 3))),
            r"mix.scores, line 2: a carriage return \(CR\) inside the line"),
    CliCase("check-config-fifo", lambda f, d: ["check-config", str(fifo(d, "c.yaml"))],
            r"c.yaml: is a FIFO \(named pipe\) or a pipe, expected a config file"),
    CliCase("plan-config-device", lambda f, d: ["plan", "--configfile", "/dev/zero"],
            r"/dev/zero: is a character device, expected a config file"),
    CliCase("plan-sizes-without-calibration", lambda f, d: ["plan", "--sizes", "yahoo=Yahoo-set1"],
            r"--sizes gives the data sets' sizes for pricing with --calibration; give --calibration too"),
    CliCase("plan-anchors-without-calibration", lambda f, d: ["plan", "--anchors", str(d / "a.json")],
            r"--anchors scales a calibration's prices to full-size measurements; give --calibration too"),
    *[CliCase(f"plan-sizes-{name}", (lambda v: lambda f, d: ["plan", "--calibration", str(d), "--sizes", v])(value), message)
      for name, value, message in (("unknown-name", "yahoo=Yahoo-set9", r"--sizes: no published sizes of 'Yahoo-set9'"),
                                   ("no-dataset", "=Yahoo-set1", r"--sizes takes DATASET=NAME pairs"),
                                   ("no-pair", "Yahoo-set1", r"--sizes takes DATASET=NAME pairs"))],
    CliCase("plan-calibration-not-a-run", lambda f, d: ["plan", "--calibration", str(d)],
            r"--calibration .*: no config.yaml; a calibration run folder holds the run's complete config"),
    *[CliCase(f"plan-benchmark-{name}", (lambda t: lambda f, d: ["plan", "--calibration", str(benchmark(d, t))])(text),
              rf"performance_table.tsv{where}: {message}")
      for name, text, where, message in (
          ("cpu-time-nan", BENCH_HEADER + "4.0\t0\t1\t1\t1\t1\t0\t0\t50\tnan\n", ", line 2", "cpu_time 'nan' is not finite"),
          ("wall-time-text", BENCH_HEADER + "abc\t0\t1\t1\t1\t1\t0\t0\t50\t0\n", ", line 2", "s 'abc' is not a number"),
          ("negative", BENCH_HEADER + "4.0\t0\t1\t1\t1\t1\t0\t0\t50\t-3\n", ", line 2", "cpu_time -3.0 is negative"),
          ("short-line", BENCH_HEADER + "4.0\t0\t1\n", ", line 2", "3 tab-separated fields, the header has 10"),
          ("empty", "", "", "empty, not a Snakemake benchmark file"),
          ("no-s-column", "wall\tcpu_time\n1\t2\n", ", line 1", "no column 's'"))],
    CliCase("export-trec-qrels-negative-label",
            lambda f, d: ["export-trec", str(relabel(d, "neg.txt", -1)), str(f["scores"]), "--run", str(d / "o.run"),
                          "--qrels", str(d / "o.qrels")],
            rf"neg.txt, line {RELABELLED}: label -1 outside the labels 0..127 of qrels", ("o.run", "o.qrels")),
    CliCase("export-trec-qrels-exp2-overflow",
            lambda f, d: ["export-trec", str(relabel(d, "big.txt", 70)), str(f["scores"]), "--run", str(d / "o.run"),
                          "--qrels", str(d / "o.qrels"), "--qrels-gain", "exp2"],
            rf"big.txt, line {RELABELLED}: label 70 outside the labels 0..62 of qrels with --qrels-gain exp2",
            ("o.run", "o.qrels")),
    CliCase("score-with-a-comment", lambda f, d: _ev(f["data"], write(d, "c.scores", "0.5\n" * 2 + "0.5 # note\n"
                                                                   + "0.5\n" * (N_DOCS - 3))),
            r"c.scores, line 3: 3 fields, a score file holds exactly one number per line\n"),
    CliCase("compare-no-relevant-document",
            lambda f, d: ["compare", "--data", str(relabel(d, "zero.txt", 0, every=True)), "--scores", str(f["scores"]),
                          str(f["scores2"])],
            r"zero.txt: no document of any query has a label >= 1, relevant for nDCG@10 under the 'trec_eval' .*no test "
            r"can tell them apart"),
    CliCase("compare-no-relevant-document-for-p@5",
            lambda f, d: ["compare", "--data", str(relabel(d, "one.txt", 1, every=True)), "--scores", str(f["scores"]),
                          str(f["scores2"]), "--convention", "letor4-mslr", "--metrics", "ndcg@10,p@5"],
            r"one.txt: no document of any query has a label >= 2, relevant for p@5 under the 'letor4-mslr'"),
    CliCase("sampling-distribution-same-scores-twice",
            lambda f, d: ["sampling-distribution", "--data", str(f["data"]), "--label-probs", str(f["probs"]),
                          "--scores", str(f["scores"]), "--scores-b", str(f["scores"]), "--measure", "err",
                          "--out", str(d / "q.csv")],
            r"--scores-b .*s.scores: the same file as --scores", must_not_exist=("q.csv",)),
]


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_cli_refuses(case: CliCase, tmp_path, capsys):
    files = make_files(tmp_path)
    argv = case.argv(files, tmp_path)
    before = tree_digest(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code != 0, f"exit 0 for {argv}"
    assert err.count("\n") <= 12 and "Traceback" not in err
    assert re.search(case.message, err), f"message {err!r} does not match {case.message!r}"
    after = tree_digest(tmp_path)
    assert after == before, f"files changed or left behind: {sorted(set(after.items()) ^ set(before.items()))}"
    for name in case.must_not_exist:
        assert not (tmp_path / name).exists()


def test_label_probs_printed_to_six_decimals_are_accepted(tmp_path, capsys):
    files = make_files(tmp_path)
    code = main(["sampling-distribution", "--data", str(files["data"]), "--label-probs", str(files["probs"]),
                 "--scores", str(files["scores"]), "--measure", "dcg", "--out", str(tmp_path / "q.csv")])
    assert code == 0, capsys.readouterr().err
    q = np.loadtxt(tmp_path / "q.csv", delimiter=",", skiprows=1, usecols=1)
    assert q.sum() == pytest.approx(1.0)


def test_a_reader_that_goes_away_stops_the_command_quietly(tmp_path):
    """``ltrbv evaluate ... | head -1``: the closed pipe is not reported as an error of the command (no message, no
    traceback); the exit status is a shell's for a command killed by SIGPIPE (141)."""
    files = make_files(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes its first line
    try:
        result = subprocess.run([sys.executable, "-m", "ltrbv.cli", "evaluate", str(files["data"]),
                                 str(files["scores"])], stdout=write_end, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write_end)
    err = result.stderr.decode()
    assert result.returncode == 141, err
    assert err == "", err


def test_cli_refusals_are_one_line_from_the_command(tmp_path):
    """The installed command, not only main(): exit status 2, one line, no traceback."""
    files = make_files(tmp_path)
    bad = cut(files["gz"], 30, "cut.txt.gz")
    result = subprocess.run([sys.executable, "-m", "ltrbv.cli", "evaluate", str(bad), str(files["scores"])],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "damaged gzip file" in result.stderr


# -- workflow cases ---------------------------------------------------------------------------

LEARNERS = {
    "gbm": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 20}},
    "rf": {"kind": "random_forest", "threads": 1, "params": {"splitting": "list", "n_estimators": 5}},
}
STUDY = {"enabled": True, "datasets": ["tiny"], "bootstrap": {"replicates": 2}, "twofold": {"repetitions": 1},
         "sweep": {"learners": ["rf"], "param": "subsample", "values": [0.2, 0.3]}, "compare": {"learners": []},
         "significance": {"baseline": "gbm"}}


@dataclass
class WorkflowCase:
    id: str
    change: Callable[[dict], None] = lambda c: None
    message: str = ""
    raw: str | None = None  # the config file's text instead of the YAML of the changed config
    setup: Callable[[Path], None] = lambda workdir: None
    expected_files: set = field(default_factory=set)  # files the case itself put in the workdir


def param(learner: str, key: str, value):
    return lambda c: c["learners"][learner]["params"].__setitem__(key, value)


def training_size_case(name: str, change: dict, message: str) -> "WorkflowCase":
    """A case whose ``active.training_size`` differs from a good one by ``change``."""
    good = {"first": "rf_class_small", "second": "rf_class", "query_fractions": [0.6, 1.0], "budget": 10}
    return WorkflowCase(f"active-training-size-{name}",
                        lambda c: c.__setitem__("active", {"training_size": {**good, **change}}), message)


#: a good catalog on the tiny config: a compare and a sweep entry
CATALOG = {"cmp": {"paper": "P", "artefact": "Table V", "kind": "compare", "learners": ["rf", "gbm"],
                   "claims": [{"kind": "better", "learner": "rf", "than": "gbm", "text": "t"}]},
           "sw": {"paper": "P", "artefact": "Fig. 6", "kind": "sweep", "learners": ["rf"], "param": "min_samples_leaf",
                  "values": [1, 5]}}


def catalog_case(name: str, change, message: str) -> "WorkflowCase":
    """A case whose ``catalog`` section differs from a good one by ``change(section)``."""
    def apply(config):
        section = {"metrics": ["ndcg@10"], "entries": copy.deepcopy(CATALOG)}
        change(section)
        config["catalog"] = section
    return WorkflowCase(f"catalog-{name}", apply, message)


def grid_entry(**fields):
    """Add a grid entry ``g`` (gbm over 2 x 2 combinations) with ``fields`` changed."""
    entry = {"paper": "P", "artefact": "Table 3", "kind": "grid", "learners": ["gbm"],
             "grid": {"max_leaves": [3, 7], "learning_rate": [0.1, 0.3]}, "sizes": [1, 4]}
    return lambda section: section["entries"].update(g={**entry, **fields})


def entry_change(entry: str, **fields):
    return lambda section: section["entries"][entry].update(fields)


def study(**changes):
    def change(c):
        section = copy.deepcopy(STUDY)
        for key, value in changes.items():
            node = section
            *parents, last = key.split("__")
            for p in parents:
                node = node[p]
            node[last] = value
        c["biasvar"] = section
    return change


def rename(section: str, old: str, new: str):
    def change(c):
        c[section][new] = c[section].pop(old)
        run_key = "datasets" if section == "datasets" else "learners"
        c["run"][run_key] = [new if n == old else n for n in c["run"][run_key]]
    return change


def corrupt_cache(workdir: Path) -> None:
    cache = workdir / "results/tiny/parsed/Fold1/train.npz"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"PK\x03\x04 cut short")


_DUP = yaml.safe_dump(tiny_config(learners=LEARNERS), sort_keys=False)


# -- issue 28: workflow-level cases ------------------------------------------------------------

def real_dataset(config: dict) -> None:
    """The tiny dataset as a user's own data (no generator): raw files under ``raw/`` beside the config."""
    entry = config["datasets"]["tiny"]
    entry.pop("synthetic")
    entry["root"] = "raw"


def raw_files(kind: str):
    """Write the tiny dataset's raw files, with ``raw/Fold1/train.txt`` a ``kind`` (dir, fifo) instead of a file."""
    def setup(workdir: Path) -> None:
        fold = workdir / "raw/Fold1"
        fold.mkdir(parents=True)
        for split in ("vali", "test"):
            (fold / f"{split}.txt").write_text(letor_text(n_features=12))
        if kind == "dir":
            (fold / "train.txt").mkdir()
        else:
            import os
            os.mkfifo(fold / "train.txt")
    return setup


#: a learner entry shared through an anchor and merged (<<), then a real duplicate key in the same mapping
_MERGE_DUP = _DUP.replace("\n  rf:\n    kind: random_forest", "\n  rf: &rf\n    kind: random_forest", 1).replace(
    "\nfigures:", "\n  rf2:\n    <<: *rf\n    threads: 1\n    threads: 2\nfigures:", 1)

WORKFLOW_CASES = [
    WorkflowCase("forest-max_depth-0", param("rf", "max_depth", 0), r"learners.rf.params.max_depth: 0 is less than the minimum of 1"),
    WorkflowCase("forest-max_depth-negative", param("rf", "max_depth", -2),
                 r"learners.rf.params.max_depth: -2 is less than the minimum of 1"),
    WorkflowCase("forest-truncation-0", param("rf", "truncation", 0), r"learners.rf.params.truncation: 0 is less than"),
    WorkflowCase("forest-truncation-negative", param("rf", "truncation", -3),
                 r"learners.rf.params.truncation: -3 is less than"),
    WorkflowCase("forest-discount_power-nan", param("rf", "discount_power", float("nan")),
                 r"learners.rf.params.discount_power: nan is not a finite number"),
    WorkflowCase("forest-max_features-negative", param("rf", "max_features", -3),
                 r"learners.rf.params.max_features: -3 is less than the minimum of 1"),
    WorkflowCase("forest-min_samples_leaf-negative", param("rf", "min_samples_leaf", -1),
                 r"learners.rf.params.min_samples_leaf: -1 is less than the minimum of 1"),
    WorkflowCase("forest-min_samples_split-negative", param("rf", "min_samples_split", -4),
                 r"learners.rf.params.min_samples_split: -4 is less than the minimum of 2"),
    WorkflowCase("forest-n_estimators-negative", param("rf", "n_estimators", -5),
                 r"learners.rf.params.n_estimators: -5 is less than the minimum of 1"),
    WorkflowCase("forest-n_estimators-0", param("rf", "n_estimators", 0),
                 r"learners.rf.params.n_estimators: 0 is less than the minimum of 1"),
    WorkflowCase("forest-n_estimators-10.5", param("rf", "n_estimators", 10.5),
                 r"learners.rf.params.n_estimators: 10.5 is not of type 'integer'"),
    WorkflowCase("forest-n_estimators-500.0", param("rf", "n_estimators", 500.0),  # an integer to JSON Schema
                 r"learners.rf.params.n_estimators: must be an integer >= 1, got 500.0"),
    WorkflowCase("bag-base_params-value", lambda c: c["learners"].__setitem__("bag", {"kind": "bag", "params": {
        "base": "gbm", "base_params": {"max_bin": 1}}}),
                 r"learners.bag.params.base_params.max_bin: must be an integer >= 2, got 1"),
    WorkflowCase("forest-unknown-parameter", param("rf", "max_featurs", 3),
                 r"learners.rf.params.max_featurs: unknown key; did you mean 'max_features'\?"),
    WorkflowCase("xgboost-eval_metric", param("gbm", "eval_metric", "bogus@3"),
                 r"learners.gbm.params.eval_metric: must be an XGBoost ranking metric"),
    WorkflowCase("xgboost-eval_convention", param("gbm", "eval_convention", "trec"),
                 r"learners.gbm.params.eval_convention: 'trec' is not one of"),
    WorkflowCase("xgboost-eval_metric-with-convention",
                 lambda c: c["learners"]["gbm"]["params"].update(eval_convention="letor4", eval_metric="ndcg@ten"),
                 r"learners.gbm.params.eval_metric: unknown metric 'ndcg@ten'"),
    WorkflowCase("xgboost-learning_rate-nan", param("gbm", "learning_rate", float("nan")),
                 r"learners.gbm.params.learning_rate: nan is not a finite number"),
    WorkflowCase("xgboost-learning_rate-inf", param("gbm", "learning_rate", float("inf")),
                 r"learners.gbm.params.learning_rate: inf is not a finite number"),
    WorkflowCase("learner-named-dotdot", rename("learners", "rf", ".."), r"run.learners\[1\]: '\.\.' is not a dataset, fold or learner name"),
    WorkflowCase("learner-with-slash", rename("learners", "rf", "a/../../b"), r"run.learners\[1\]: 'a/\.\./\.\./b' is not a"),
    WorkflowCase("dataset-escaping-results", rename("datasets", "tiny", "../../escape"), r"run.datasets\[0\]: '\.\./\.\./escape' is not a"),
    WorkflowCase("fold-named-dotdot", lambda c: c["datasets"]["tiny"].__setitem__("folds", [".."]),
                 r"datasets.tiny.folds\[0\]: '\.\.' is not a"),
    WorkflowCase("biasvar-convention", study(convention="bogus"), r"biasvar.convention: 'bogus' is not one of"),
    WorkflowCase("biasvar-sweep-param-misspelt", study(sweep__param="max_featurs", sweep__values=[1, 2]),
                 r"biasvar.sweep.param: 'max_featurs' is not a parameter of learner 'rf'"),
    WorkflowCase("biasvar-sweep-value-negative", study(sweep__values=[-0.2, 0.3]),
                 r"biasvar.sweep.values: -0.2 for learner 'rf': subsample must be"),
    WorkflowCase("biasvar-sweep-value-above-1", study(sweep__values=[0.3, 1.5]),
                 r"biasvar.sweep.values: 1.5 for learner 'rf': subsample must be"),
    WorkflowCase("active-experiment-escaping", lambda c: c.__setitem__("active", {"experiments": {"../../x": {
        "kind": "estimate", "rankers": ["rf_class"], "label_models": ["rf_class"]}}}), r"'\.\./\.\./x'"),
    WorkflowCase("active-model-escaping", lambda c: c.__setitem__("active", {"models": {"a/../../m": {"kind": "rf_class"}}}),
                 r"'a/\.\./\.\./m'"),
    WorkflowCase("active-forest-model-max_depth-0",
                 lambda c: c.__setitem__("active", {"models": {"rf_class": {"kind": "rf_class", "params": {"max_depth": 0}}}}),
                 r"active.models.rf_class.params: max_depth must be"),
    WorkflowCase("active-lambdamart-eval_metric",
                 lambda c: c.__setitem__("active", {"models": {"lm": {"kind": "lambdamart", "params": {"eval_metric": "x"}}}}),
                 r"active.models.lm.params: eval_metric must be"),
    WorkflowCase("active-logit-prior-negative",
                 lambda c: c.__setitem__("active", {"models": {"logit": {"kind": "ordered_logit",
                                                                            "params": {"prior_variances": [1.0, -2.0]}}}}),
                 r"active.models.logit.params: prior_variances must be a non-empty list of values, each a finite number > 0"),
    training_size_case("budget", {"budget": 7}, r"active.training_size.budget: 7 is not one of active.budgets"),
    training_size_case("first", {"first": "nope"}, r"active.training_size.first: unknown model 'nope'"),
    training_size_case("share", {"query_fractions": [0.6, 1.5]}, r"1.5 is greater than the maximum of 1"),
    training_size_case("share-nan", {"query_fractions": [0.6, float("nan")]},
                       r"active.training_size.query_fractions\[1\]: nan is not a finite number"),
    training_size_case("share-zero", {"query_fractions": [0, 0.6]}, r"0 is less than or equal to the minimum of 0"),
    training_size_case("shares-alike", {"query_fractions": [0.6, 0.6000001]},
                       r"active.training_size.query_fractions: two shares print alike"),
    training_size_case("budget-type", {"budget": "ten"}, r"'ten' is not of type 'number'"),
    WorkflowCase("active-training-size-name-taken", lambda c: c.__setitem__("active", {
        "experiments": {"training_size_q0.6": {"kind": "estimate", "rankers": ["rf_class"], "label_models": ["rf_class"]}},
        "training_size": {"first": "rf_class", "second": "rf_class", "query_fractions": [0.6, 1.0], "budget": 10}}),
        r"active.experiments.training_size_q0.6: the name of an entry active.training_size makes"),
    catalog_case("unknown-learner", entry_change("cmp", learners=["rf", "nope"]),
                 r"catalog.entries.cmp.learners names 'nope', which is not under learners"),
    catalog_case("sweep-bad-value", entry_change("sw", values=[1, 0]),
                 r"catalog.entries.sw.values: 0 for learner 'rf': min_samples_leaf must be"),
    catalog_case("sweep-unknown-param", entry_change("sw", param="min_leaf"),
                 r"catalog.entries.sw.param: 'min_leaf' is not a parameter of learner 'rf'"),
    catalog_case("sweep-values-alike", entry_change("sw", param="subsample", values=[0.3, 0.3000001]),
                 r"catalog.entries.sw.values: \[0.3, 0.3000001\] name the same learner twice"),
    catalog_case("sweep-without-values", lambda s: s["entries"]["sw"].pop("values"),
                 r"catalog.entries.sw.values: required key missing"),
    catalog_case("field-of-another-kind", entry_change("cmp", param="subsample"),
                 r"catalog.entries.cmp.param: not a field of kind 'compare'; a field of kind 'sweep'"),
    catalog_case("baseline-not-compared", entry_change("cmp", baseline="rf2"),
                 r"catalog.entries.cmp.baseline 'rf2' is not among its learners"),
    catalog_case("claim-learner", entry_change("cmp", claims=[{"kind": "better", "learner": "x", "than": "gbm",
                                                               "text": "t"}]),
                 r"catalog.entries.cmp.claims\[0\].learner 'x' is not among the entry's learners"),
    catalog_case("claim-metric", entry_change("cmp", claims=[{"kind": "better", "learner": "rf", "than": "gbm",
                                                              "metric": "err@3", "text": "t"}]),
                 r"catalog.entries.cmp.claims\[0\].metric 'err@3' is not in metrics"),
    catalog_case("claim-on-the-wrong-kind", entry_change("sw", claims=[{"kind": "better", "learner": "rf",
                                                                        "than": "rf", "text": "t"}]),
                 r"catalog.entries.sw.claims\[0\]: a sweep entry's claims are \['trend', 'faster'\] \(a 'better' claim is about a compare entry\)"),
    catalog_case("trend-without-direction", entry_change("sw", claims=[{"kind": "trend", "learner": "rf",
                                                                        "text": "t"}]),
                 r"catalog.entries.sw.claims\[0\].direction is required"),
    catalog_case("faster-value-not-swept", entry_change("sw", claims=[{"kind": "faster", "learner": "rf", "at": 2,
                                                                       "than_value": 5, "text": "t"}]),
                 r"catalog.entries.sw.claims\[0\].at 2 is not among the entry's values"),
    catalog_case("greater-unknown-quantity", entry_change("cmp", claims=[{"kind": "greater", "learner": "rf",
                                                                          "than": "gbm", "quantity": "width",
                                                                          "text": "t"}]),
                 r"catalog.entries.cmp.claims\[0\].quantity 'width'"),
    catalog_case("unknown-kind", entry_change("cmp", kind="table"), r"'table' is not one of"),
    catalog_case("level-nan", lambda s: s.update(level=float("nan")), r"catalog.level: nan is not a finite number"),
    catalog_case("level-one", lambda s: s.update(level=1), r"1 is greater than or equal to the maximum of 1"),
    catalog_case("permutations-zero", lambda s: s.update(permutations=0), r"0 is less than the minimum of 100"),
    catalog_case("seeds-zero", lambda s: s.update(seeds=[0]), r"0 is less than the minimum of 1"),
    catalog_case("entry-seeds-negative", entry_change("cmp", seeds=[-2]), r"-2 is less than the minimum of 1"),
    catalog_case("entry-fold-unknown", entry_change("cmp", folds=["Fold9"]),
                 r"catalog.entries.cmp.folds: 'Fold9' is not among datasets.tiny.folds"),
    catalog_case("dataset-unknown", lambda s: s.update(datasets=["mq2007"]),
                 r"catalog.datasets names 'mq2007', which is not in run.datasets"),
    catalog_case("sweep-value-nan", entry_change("sw", param="subsample", values=[0.5, float("nan")]),
                 r"catalog.entries.sw.values: nan for learner 'rf': subsample must be"),
    catalog_case("sweep-value-wrong-type", entry_change("sw", values=[1, "five"]),
                 r"catalog.entries.sw.values: 'five' for learner 'rf': min_samples_leaf must be"),
    WorkflowCase("catalog-submodel-beyond-the-bag", lambda c: (
        c["learners"].__setitem__("bag", {"kind": "bag", "params": {"base": "gbm", "n_models": 2}}),
        c.__setitem__("catalog", {"entries": {"f3": {"paper": "P", "artefact": "Fig. 3", "kind": "scores",
                                                    "bag": "bag", "submodels": [0, 2]}}})),
        r"catalog.entries.f3.submodels: 2 is not below the bag's n_models \(2\)"),
    catalog_case("submodels-negative", lambda s: s["entries"].update(
        f3={"paper": "P", "artefact": "Fig. 3", "kind": "scores", "bag": "gbm", "submodels": [-1, 1]}),
        r"-1 is less than the minimum of 0"),
    WorkflowCase("catalog-bag-sweep-bad-share", lambda c: (
        c["learners"].__setitem__("bag", {"kind": "bag", "params": {"base": "gbm", "n_models": 1}}),
        c.__setitem__("catalog", {"entries": {"f11": {"paper": "P", "artefact": "Fig. 11", "kind": "sweep",
                                                     "learners": ["bag"], "param": "sample_fraction",
                                                     "values": [0.5, 1.5]}}})),
        r"catalog.entries.f11.values: 1.5 for bag 'bag': 1.5 is greater than the maximum of 1"),
    catalog_case("scores-of-a-non-bag", lambda s: s["entries"].update(
        f3={"paper": "P", "artefact": "Fig. 3", "kind": "scores", "bag": "gbm"}),
        r"catalog.entries.f3.bag 'gbm' is not a learner of kind 'bag'"),
    catalog_case("curve-of-a-forest", entry_change("cmp", kind="curve", learners=["rf"], claims=[]),
                 r"catalog.entries.cmp.learners: 'rf' is of kind 'random_forest'; a curve draws"),
    catalog_case("target-not-made", lambda s: s["entries"].update(
        t={"paper": "P", "artefact": "Table V", "kind": "target", "section": "run", "target": "tables/performance.txt"}),
        r"catalog.entries.t.target 'tables/performance.txt': section 'run' of this config does not make"),
    catalog_case("target-unknown-section", lambda s: s["entries"].update(
        t={"paper": "P", "artefact": "Fig. 7", "kind": "target", "section": "diagnostic", "target": "x.png"}),
        r"catalog.entries.t.section 'diagnostic': one of"),
    catalog_case("unavailable-kind-removed", lambda s: s["entries"].update(
        u={"paper": "P", "artefact": "Fig. 7", "kind": "unavailable", "note": "n"}),
        r"'unavailable' is not one of"),
    catalog_case("entry-name-escaping", lambda s: s["entries"].update({"../x": copy.deepcopy(CATALOG["cmp"])}),
                 r"catalog.entries.../x: an entry's name becomes a file name"),
    catalog_case("metric-not-in-metrics", lambda s: s.update(metrics=["err@10"]),
                 r"catalog.metrics: 'err@10' is not in metrics"),
    catalog_case("convention-not-the-datasets", lambda s: s.update(convention="standard"),
                 r"catalog.convention 'standard' is not among datasets.tiny.conventions"),
    catalog_case("grid-bad-value", grid_entry(grid={"max_leaves": [3, -1]}),
                 r"catalog.entries.g.grid.max_leaves: -1 for learner 'gbm'"),
    catalog_case("grid-unknown-param", grid_entry(grid={"leaves": [3, 7]}),
                 r"catalog.entries.g.grid: 'leaves' is not a parameter of learner 'gbm'"),
    catalog_case("grid-empty-values", grid_entry(grid={"max_leaves": []}), r"\[\] should be non-empty|is too short"),
    catalog_case("grid-size-beyond-combinations", grid_entry(sizes=[1, 9]),
                 r"catalog.entries.g.sizes: 9 is more than the grid's 4 combinations"),
    catalog_case("grid-size-zero", grid_entry(sizes=[0, 4]), r"0 is less than the minimum of 1"),
    catalog_case("grid-without-sizes", lambda s: (grid_entry()(s), s["entries"]["g"].pop("sizes")),
                 r"catalog.entries.g.sizes: required key missing"),
    catalog_case("grid-two-learners", grid_entry(learners=["gbm", "rf"]),
                 r"catalog.entries.g.learners: a grid searches one learner's parameters"),
    catalog_case("grid-unknown-metric", grid_entry(metric="ndcg@x"), r"catalog.entries.g.metric"),
    catalog_case("grid-claim-of-a-sweep", grid_entry(claims=[{"kind": "trend", "learner": "gbm",
                                                              "direction": "increasing", "text": "t"}]),
                 r"catalog.entries.g.claims\[0\]: a grid entry's claims are \['overfits', 'best_below'\]"),
    catalog_case("grid-claim-param-not-searched", grid_entry(claims=[{"kind": "best_below", "param": "subsample",
                                                                      "value": 1.0, "text": "t"}]),
                 r"catalog.entries.g.claims\[0\].param 'subsample' is not among the grid's parameters"),
    WorkflowCase("forest-feature_subset-zero", param("rf", "feature_subset", 0),
                 r"learners.rf.params.feature_subset: 0 is less than the minimum of 1"),
    WorkflowCase("catalog-generated-name-taken", lambda c: (
        c["learners"].__setitem__("rf+min_samples_leaf-5", {"kind": "random_forest", "params": {"splitting": "rand"}}),
        c.__setitem__("catalog", {"entries": copy.deepcopy(CATALOG)})),
        r"learners.rf\+min_samples_leaf-5: the catalog generates a learner of this name"),
    WorkflowCase("forest-listwise_objective", param("rf", "listwise_objective", "ndcg-as-printed"),
                 r"learners.rf.params.listwise_objective: 'ndcg-as-printed' is not one of \['ndcg', 'err', 'ndcg-printed'\]; "
                 r"did you mean 'ndcg-printed'\?"),
    WorkflowCase("forest-exploration", param("rf", "exploration", "biggest"),
                 r"learners.rf.params.exploration: 'biggest' is not one of \['breadth-first', 'depth-first', 'random', "
                 r"'biggest-first', 'relevant-first'\]"),
    WorkflowCase("command-learner-without-out",
                 lambda c: c["learners"].__setitem__("rf", {"kind": "command", "params": {"command": "rank {train} {test}"}}),
                 r"learners.rf.params: command must contain \{out\}"),
    WorkflowCase("python-learner-not-importable",
                 lambda c: c["learners"].__setitem__("rf", {"kind": "python", "params": {"callable": "no_such_mod:f"}}),
                 r"learners.rf.params: callable 'no_such_mod:f': cannot import module 'no_such_mod'"),
    WorkflowCase("lightgbm-eval_convention", lambda c: c["learners"].__setitem__(
        "rf", {"kind": "lightgbm", "params": {"eval_convention": "trec"}}), r"learners.rf.params.eval_convention: 'trec' is not one of \['standard', 'letor4'"),
    WorkflowCase("lightgbm-eval_metric-with-convention", lambda c: c["learners"].__setitem__(
        "rf", {"kind": "lightgbm", "params": {"eval_convention": "letor4", "eval_metric": -3}}),
        r"learners.rf.params.eval_metric: -3 is not of type 'string'"),
    WorkflowCase("metric-unknown-name", lambda c: c.__setitem__("metrics", ["ndcg@10", "ndgc@5"]),
                 r"metrics: unknown metric 'ndgc@5' \(did you mean 'ndcg@5'\?\); known under the LTR conventions' names: "
                 r"ndcg@k"),
    WorkflowCase("lightgbm-eval_metric", lambda c: c["learners"].__setitem__(
        "rf", {"kind": "lightgbm", "params": {"eval_metric": "map"}}), r"learners.rf.params.eval_metric: must be ndcg@k"),
    WorkflowCase("significance-correction", study(significance={"baseline": "gbm", "correction": "bonferroni"}),
                 r"'bonferroni'"),
    WorkflowCase("config-duplicate-key", raw="seed: 1\n" + _DUP, message=r"c.yaml, line \d+: key 'seed' is given twice"),
    WorkflowCase("damaged-parsed-cache", setup=corrupt_cache, message=r"train.npz: damaged cache",
                 expected_files={"results/tiny/parsed/Fold1/train.npz"}),
    # issue 28, part 2: config messages name the full key path; a study with no trend; raw paths that are no files
    WorkflowCase("config-merge-key-then-duplicate", raw=_MERGE_DUP,
                 message=r"c.yaml, line \d+: key 'threads' is given twice"),
    # YAML 1.1 (Snakemake's reader) and YAML 1.2 read these as different numbers: refused, file, line and key named
    WorkflowCase("config-yaml11-octal", raw=_DUP.replace("n_estimators: 20", "n_estimators: 010"),
                 message=r"c.yaml, line \d+: learners.gbm.params.n_estimators: 010 is read as 8 by YAML 1.1 "
                         r"\(Snakemake's reader\) but as 10 by YAML 1.2"),
    WorkflowCase("config-yaml11-base-60", raw=_DUP.replace("n_estimators: 20", "n_estimators: 1:30"),
                 message=r"c.yaml, line \d+: learners.gbm.params.n_estimators: 1:30 is read as 90 by YAML 1.1"),
    WorkflowCase("config-yaml11-binary", raw="seed: 0b11\n" + _DUP.replace("seed: ", "# seed: ", 1),
                 message=r"c.yaml, line 1: seed: 0b11 is read as 3 by YAML 1.1"),
    WorkflowCase("learning_rate-quoted-1e-1",
                 raw=_DUP.replace("n_estimators: 20", "n_estimators: 20\n      learning_rate: '1e-1'"),
                 message=r"learners.gbm.params.learning_rate: '1e-1' is not of type 'number'"),
    WorkflowCase("biasvar-uncertainty-resamples-50", study(uncertainty={"resamples": 50}),
                 r"biasvar.uncertainty.resamples: 50 is less than the minimum of 100"),
    WorkflowCase("active-key-path", lambda c: c.__setitem__("active", {"experiments": {"e": {"budget": "ten"}}}),
                 r"active.experiments.e(.budget)?: "),
    WorkflowCase("figures-convention-not-the-dataset's", lambda c: c["figures"].__setitem__("convention", "standard"),
                 r"figures.convention 'standard' is not among datasets.tiny.conventions \['letor4'\]"),
    WorkflowCase("biasvar-one-sweep-value", study(sweep__values=[0.63]),
                 r"biasvar.sweep.values \[0.63\] give at most 1 sweep point per scheme \(bootstrap: 1, twofold: 0\)"),
    WorkflowCase("biasvar-compare-only-one-scheme",
                 study(sweep__learners=[], compare={"learners": ["rf"], "schemes": ["twofold"]}),
                 r"biasvar.sweep.learners is empty and no learner of biasvar.compare runs in both schemes"),
    WorkflowCase("biasvar-significance-convention",
                 study(significance={"baseline": "gbm", "convention": "standard"}),
                 r"biasvar.significance.convention 'standard' is not among datasets.tiny.conventions"),
    WorkflowCase("biasvar-significance-metrics-none-computed",
                 study(significance={"baseline": "gbm", "metrics": ["err@10"]}),
                 r"biasvar.significance.metrics \['err@10'\]: none is among metrics"),
    WorkflowCase("raw-train-is-a-directory", real_dataset, r"raw/Fold1/train.txt: is a directory, expected a LETOR",
                 setup=raw_files("dir"), expected_files={"raw/Fold1/vali.txt", "raw/Fold1/test.txt"}),
    WorkflowCase("raw-train-is-a-fifo", real_dataset, r"raw/Fold1/train.txt: is a FIFO \(named pipe\)",
                 setup=raw_files("fifo"), expected_files={"raw/Fold1/vali.txt", "raw/Fold1/test.txt"}),
    # -- the claim engine's keys (margins, family correction, alpha, power) ---------------------------------
    catalog_case("similar-without-margin", entry_change("cmp", claims=[
        {"kind": "similar", "learner": "rf", "than": "gbm", "text": "t"}]),
        r"catalog.entries.cmp.claims\[0\].margin is required"),
    catalog_case("margin-on-a-better-claim", entry_change("cmp", claims=[
        {"kind": "better", "learner": "rf", "than": "gbm", "margin": 0.01, "text": "t"}]),
        r"catalog.entries.cmp.claims\[0\].margin applies to 'similar' claims only"),
    catalog_case("margin-negative", entry_change("cmp", claims=[
        {"kind": "similar", "learner": "rf", "than": "gbm", "margin": -0.01, "text": "t"}]),
        r"-0.01 is less than or equal to the minimum of 0"),
    catalog_case("margin-nan", entry_change("cmp", claims=[
        {"kind": "similar", "learner": "rf", "than": "gbm", "margin": float("nan"), "text": "t"}]),
        r"catalog.entries.cmp.claims\[0\].margin: nan is not a finite number"),
    catalog_case("correction-none", lambda s: s.update(correction="none"), r"'none' is not one of \['holm', 'bh'\]"),
    catalog_case("power-one", lambda s: s.update(power=1.0), r"1.0 is greater than or equal to the maximum of 1"),
    catalog_case("power-nan", lambda s: s.update(power=float("nan")), r"catalog.power: nan is not a finite number"),
    catalog_case("level-zero", lambda s: s.update(level=0), r"0 is less than or equal to the minimum of 0"),
    # -- the timing jobs' keys ---------------------------------------------------------------------------------
    catalog_case("timing-repeats-zero", lambda s: s.update(timing={"repeats": 0}),
                 r"catalog.timing.repeats: 0 is less than the minimum of 1"),
    catalog_case("timing-trees-float", lambda s: s.update(timing={"trees": 2.5}),
                 r"catalog.timing.trees: 2.5 is not of type 'integer'"),
    catalog_case("timing-unknown-key", lambda s: s.update(timing={"repeat": 3}),
                 r"catalog.timing.repeat: unknown key; did you mean 'repeats'"),
    catalog_case("significant-key-removed", entry_change("cmp", claims=[
        {"kind": "better", "learner": "rf", "than": "gbm", "significant": True, "text": "t"}]),
        r"catalog.entries.cmp.claims\[0\].significant: unknown key"),
]


def _dry_run(case: WorkflowCase, workdir: Path) -> subprocess.CompletedProcess:
    workdir.mkdir(parents=True)
    config = tiny_config(learners=copy.deepcopy(LEARNERS))
    case.change(config)
    (workdir / "c.yaml").write_text(case.raw if case.raw is not None else yaml.safe_dump(config, sort_keys=False))
    case.setup(workdir)
    return subprocess.run(SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(workdir / "c.yaml"),
                                       "--dry-run", "--cores", "1", "--nocolor"],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def dry_runs(tmp_path_factory):
    """Every workflow case's dry run, two at a time (each is a Snakemake start-up of a few seconds)."""
    root = tmp_path_factory.mktemp("bad-configs")
    # the work directory sits two levels down, so that a name like ../../escape would land inside root
    workdirs = {case.id: root / case.id / "a" / "b" / "wd" for case in WORKFLOW_CASES}
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(workdirs, pool.map(lambda c: _dry_run(c, workdirs[c.id]), WORKFLOW_CASES)))
    return root, workdirs, results


@pytest.mark.parametrize("case", WORKFLOW_CASES, ids=[c.id for c in WORKFLOW_CASES])
def test_workflow_refuses_before_any_job(case: WorkflowCase, dry_runs):

    root, workdirs, results = dry_runs
    result = results[case.id]
    out = result.stdout + result.stderr
    assert result.returncode != 0, f"dry run accepted the config:\n{out[-2000:]}"
    assert re.search(case.message, out), f"{case.message!r} not in:\n{out[-3000:]}"
    assert "Job stats" not in out and "rule train" not in out, "jobs were planned"
    workdir = workdirs[case.id]
    written = {str(p.relative_to(root / case.id)) for p in (root / case.id).rglob("*")
               if p.is_file() and ".snakemake" not in p.parts}
    expected = {"a/b/wd/c.yaml"} | {f"a/b/wd/{name}" for name in case.expected_files}
    assert written == expected, f"files written: {sorted(written - expected)}"
    assert not (workdir / "results").exists() or case.expected_files


def test_a_good_config_passes_the_same_checks(tmp_path):
    """The control: the unchanged tiny config plans its jobs (so the refusals above are about the bad value)."""
    result = _dry_run(WorkflowCase("good", change=study()), tmp_path / "wd")
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert "train_biasvar" in result.stdout + result.stderr


def test_safe_name_pattern_is_the_wildcard_constraint():
    """Names in the schema and the wildcard constraints of the rules agree (one pattern, two places)."""
    schema = yaml.safe_load((REPO / "config/schema/core.schema.yaml").read_text())
    pattern = schema["$defs"]["name"]["pattern"]
    common = (REPO / "rules/common.smk").read_text()

    wildcard = re.search(r'SAFE_NAME = "(.+)"', common).group(1)
    for name in ["Fold1", "rf-point", "bl-mart-of", "set1", "rf-hybrid-l6", "a.b", "x+y"]:
        assert re.fullmatch(pattern, name) and re.fullmatch(wildcard, name)
    for name in ["..", ".", "../x", "a/b", "-x", "", ".hidden", "a b"]:
        assert not re.fullmatch(pattern, name) and not re.fullmatch(wildcard, name)


def test_a_cache_changed_after_its_job_is_refused_before_any_job(tmp_path):
    """A parsed cache edited in place (same size, a flipped bit, a newer timestamp) would make Snakemake
    rerun, and so delete, everything downstream before the training job finds the damage: the
    workflow refuses it at parse time instead, by its checksum."""
    workdir = tmp_path / "wd"
    workdir.mkdir()
    config = tiny_config(learners=copy.deepcopy(LEARNERS))
    (workdir / "c.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    command = SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(workdir / "c.yaml"), "--cores", "1",
                           "--nocolor"]
    cache = workdir / "results/tiny/parsed/Fold1/train.npz"
    built = subprocess.run(command + [str(cache.relative_to(workdir))], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    good = subprocess.run(command + ["--dry-run"], capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stderr[-3000:]

    data = bytearray(cache.read_bytes())
    data[len(data) // 3] ^= 0x01  # inside X
    cache.write_bytes(bytes(data))
    result = subprocess.run(command + ["--dry-run"], capture_output=True, text=True, timeout=300)
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert re.search(r"train.npz: (content does not match its checksum|unreadable cache member)", out), out[-3000:]
    assert cache.read_bytes() == bytes(data), "the damaged cache must be left for the user to inspect"


# -- issue 28: what the readers now accept, and what the writers keep ---------------------------

def _json_out(capsys) -> dict:
    import json

    return json.loads(capsys.readouterr().out)


def test_a_cache_with_another_name_is_read_as_a_cache(tmp_path, capsys):
    """A parsed cache is recognised by its zip magic number, not its name: the same numbers as the .npz."""
    files = make_files(tmp_path)
    renamed = tmp_path / "cache.txt"
    renamed.write_bytes(files["npz"].read_bytes())
    assert main(_ev(files["npz"], files["scores"])) == 0
    expected = _json_out(capsys)
    assert main(_ev(renamed, files["scores"])) == 0
    assert _json_out(capsys) == expected


@pytest.mark.parametrize("variant", ["gz", "cr-in-comment"])
def test_export_trec_ids_follow_the_parser(tmp_path, capsys, variant):
    """export-trec on a gzip data file and on one with a lone CR inside a comment: the run's document ids
    are the data lines' own, and the run reads back (evaluate --qrels --run) to the data file's numbers."""
    files = make_files(tmp_path)
    if variant == "gz":
        data = files["gz"]
    else:  # a lone CR in a comment is whitespace to the parser, not a line break
        data = write(tmp_path, "cr.txt", TEXT.replace(" #docid = D1-0", " #docid = D1-0 \rnote", 1))
    run, qrels = tmp_path / "o.run", tmp_path / "o.qrels"
    assert main(["export-trec", str(data), str(files["scores"]), "--run", str(run), "--qrels", str(qrels)]) == 0
    ids = {line.split()[2] for line in run.read_text().splitlines()}
    assert ids == {f"D{q}-{d}" for q in range(1, 7) for d in range(5)}
    capsys.readouterr()
    assert main(_ev(data, files["scores"], "--convention", "standard")) == 0
    from_data = _json_out(capsys)
    assert main(["evaluate", "--qrels", str(qrels), "--run", str(run), "--convention", "standard"]) == 0
    from_run = _json_out(capsys)
    assert from_run["ndcg@10"] == pytest.approx(from_data["ndcg@10"], abs=1e-12)
    assert from_run["map"] == pytest.approx(from_data["map"], abs=1e-12)


def test_trec_eval_takes_any_non_negative_grade(tmp_path, capsys):
    """The trec_eval convention's label scale is trec_eval's: a grade 7 (outside every LTR convention's scale)
    is read, from a data file and from qrels, and scored as ir_measures scores it (gain = the grade)."""
    import ir_measures

    files = make_files(tmp_path)
    data = relabel(tmp_path, "seven.txt", 7)
    run, qrels = tmp_path / "o.run", tmp_path / "o.qrels"
    assert main(["export-trec", str(data), str(files["scores"]), "--run", str(run), "--qrels", str(qrels)]) == 0
    capsys.readouterr()
    assert "7" in {line.split()[3] for line in qrels.read_text().splitlines()}
    assert main(_ev(data, files["scores"], "--metrics", "nDCG@10,AP")) == 0
    from_data = _json_out(capsys)
    assert main(["evaluate", "--qrels", str(qrels), "--run", str(run), "--metrics", "nDCG@10,AP"]) == 0
    from_run = _json_out(capsys)
    oracle = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.AP],
                                        list(ir_measures.read_trec_qrels(str(qrels))),
                                        list(ir_measures.read_trec_run(str(run))))
    for result in (from_data, from_run):
        assert result["nDCG@10"] == pytest.approx(oracle[ir_measures.nDCG @ 10], abs=1e-12)
        assert result["AP"] == pytest.approx(oracle[ir_measures.AP], abs=1e-12)
    assert main(_ev(data, files["scores"], "--convention", "standard")) != 0  # 0..4: refused
    assert "label 7 outside the 'standard' convention's labels 0..4" in capsys.readouterr().err


def test_synthetic_overwrite_replaces_regular_files_only(tmp_path, capsys):
    out = fold_tree(tmp_path)
    before = (out / "Fold1" / "train.txt").read_text()
    assert main(["synthetic", str(out), "--queries", "10", "--overwrite"]) == 0
    assert (out / "Fold1" / "train.txt").read_text() != before
    assert sorted(p.name for p in out.rglob("*.txt")) == sorted(["train.txt", "vali.txt", "test.txt"] * 5)
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("kind", ["symlink", "fifo", "device"])
def test_the_writer_refuses_what_is_not_a_regular_file(tmp_path, kind):
    """The one writer (ltrbv.io.atomic_path), also for library callers: the target is never replaced."""
    from ltrbv.io import write_text

    target = output_target(kind, tmp_path)
    with pytest.raises(ValueError, match=f"is a {OUTPUT_KIND_WORDS[kind]}; an output must be a regular file"):
        write_text(target, "x\n")
    if kind == "symlink":
        assert Path(target).is_symlink() and (tmp_path / "target.csv").read_text() == "keep me\n"
    assert not list(tmp_path.glob(".*.tmp"))


def test_every_output_option_is_probed():
    """Each command's output options (metavar OUT..., or --out) are rows above: a new one needs its rows."""
    import argparse

    from ltrbv.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    outputs = {(command, option) for command, parser in sub.choices.items() for action in parser._actions
               for option in action.option_strings[:1]
               if str(action.metavar or "").startswith("OUT") or action.dest == "out"}
    probed = {(argv(FAKE, Path("."))[0], option) for option, argv in OUTPUT_OPTIONS}
    assert outputs == probed


def test_a_line_without_end_is_refused_not_read_forever(tmp_path, monkeypatch, capsys):
    """A gzip stream is not bounded by its file's size: a line longer than MAX_LINE_BYTES is refused (the
    reader's buffer doubled without a cap)."""
    from ltrbv.data import letor

    monkeypatch.setattr(letor, "MAX_LINE_BYTES", 1 << 20)
    monkeypatch.setattr(letor, "CHUNK_BYTES", 1 << 16)
    files = make_files(tmp_path)
    endless = write_bytes(tmp_path, "long.txt.gz", gzip.compress(TEXT.encode() + b"1 qid:9" + b" 1:0.5" * (1 << 20)))
    before = tree_digest(tmp_path)
    assert main(_ev(endless, files["scores"])) == 2
    assert re.search(rf"long.txt.gz: a line of more than 1,048,576 bytes from byte {len(TEXT):,} on: not a LETOR "
                     "text file", capsys.readouterr().err)
    assert tree_digest(tmp_path) == before
