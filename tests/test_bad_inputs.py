"""No silent garbage (issue 15): every bad input is refused, naming the file and line or the config key.

One table of cases; for each: a non-zero exit, a message that says where the problem is, no output or
cache left behind, the inputs unchanged, and nothing written outside the results tree.

* CLI cases run ``ltrbv`` in-process on small files (a traceback would fail the test, not pass it).
* Workflow cases run ``snakemake --dry-run`` on a tiny config with one bad value and assert that the
  workflow stopped at parse time: no job planned, no ``results/`` folder, nothing beside the config.
"""

from __future__ import annotations

import copy
import re
import gzip
import hashlib
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


# -- CLI cases --------------------------------------------------------------------------------

@dataclass
class CliCase:
    id: str
    argv: Callable[[dict, Path], list[str]]  # (good files, folder) -> ltrbv arguments
    message: str  # regex the error must match (file and line, or the option)
    must_not_exist: tuple[str, ...] = ()  # outputs that must not be left behind


def _ev(data, scores, *more):
    return ["evaluate", str(data), str(scores), *map(str, more)]


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
    CliCase("scores-is-a-directory", lambda f, d: _ev(f["data"], d), r"Is a directory"),
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
    WorkflowCase("forest-max_depth-0", param("rf", "max_depth", 0), r"learners.rf.params: max_depth must be"),
    WorkflowCase("forest-max_depth-negative", param("rf", "max_depth", -2), r"learners.rf.params: max_depth must be"),
    WorkflowCase("forest-truncation-0", param("rf", "truncation", 0), r"learners.rf.params: truncation must be"),
    WorkflowCase("forest-truncation-negative", param("rf", "truncation", -3), r"learners.rf.params: truncation must be"),
    WorkflowCase("forest-discount_power-nan", param("rf", "discount_power", float("nan")),
                 r"learners.rf.params.discount_power: nan is not a finite number"),
    WorkflowCase("forest-max_features-negative", param("rf", "max_features", -3), r"learners.rf.params: max_features must be"),
    WorkflowCase("forest-min_samples_leaf-negative", param("rf", "min_samples_leaf", -1),
                 r"learners.rf.params: min_samples_leaf must be"),
    WorkflowCase("forest-min_samples_split-negative", param("rf", "min_samples_split", -4),
                 r"learners.rf.params: min_samples_split must be"),
    WorkflowCase("forest-n_estimators-negative", param("rf", "n_estimators", -5), r"learners.rf.params: n_estimators must be"),
    WorkflowCase("forest-n_estimators-0", param("rf", "n_estimators", 0), r"learners.rf.params: n_estimators must be"),
    WorkflowCase("forest-n_estimators-10.5", param("rf", "n_estimators", 10.5), r"learners.rf.params: n_estimators must be"),
    WorkflowCase("forest-unknown-parameter", param("rf", "max_featurs", 3), r"learners.rf.params: unknown parameter\(s\) \['max_featurs'\]"),
    WorkflowCase("xgboost-eval_metric", param("gbm", "eval_metric", "bogus@3"),
                 r"learners.gbm.params: eval_metric must be an XGBoost ranking metric"),
    WorkflowCase("xgboost-eval_convention", param("gbm", "eval_convention", "trec"),
                 r"learners.gbm.params.eval_convention: 'trec' is not one of"),
    WorkflowCase("xgboost-eval_metric-with-convention",
                 lambda c: c["learners"]["gbm"]["params"].update(eval_convention="letor4", eval_metric="ndcg@ten"),
                 r"learners.gbm.params: eval_metric: "),
    WorkflowCase("xgboost-learning_rate-nan", param("gbm", "learning_rate", float("nan")),
                 r"learners.gbm.params.learning_rate: nan is not a finite number"),
    WorkflowCase("xgboost-learning_rate-inf", param("gbm", "learning_rate", float("inf")),
                 r"learners.gbm.params.learning_rate: inf is not a finite number"),
    WorkflowCase("learner-named-dotdot", rename("learners", "rf", ".."), r"run.learners\[1\]: '..' does not match"),
    WorkflowCase("learner-with-slash", rename("learners", "rf", "a/../../b"), r"run.learners\[1\]: 'a/../../b' does not"),
    WorkflowCase("dataset-escaping-results", rename("datasets", "tiny", "../../escape"), r"run.datasets\[0\]: '../../escape' does not match"),
    WorkflowCase("fold-named-dotdot", lambda c: c["datasets"]["tiny"].__setitem__("folds", [".."]),
                 r"datasets.tiny.folds\[0\]: '..' does not match"),
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
                 r"active.models.logit.params: prior_variances must be in \(0, inf\]"),
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
                 r"catalog.entries.sw.values is required for kind 'sweep'"),
    catalog_case("field-of-another-kind", entry_change("cmp", param="subsample"),
                 r"catalog.entries.cmp.param does not apply to kind 'compare'"),
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
                 r"catalog.entries.sw.claims\[0\]: a 'better' claim compares learners of a compare entry"),
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
    catalog_case("unavailable-without-note", lambda s: s["entries"].update(
        u={"paper": "P", "artefact": "Fig. 7", "kind": "unavailable"}),
        r"catalog.entries.u.note: an unavailable entry says why"),
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
                 r"catalog.entries.g.sizes is required for kind 'grid'"),
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
                 r"learners.rf.params: feature_subset must be an integer >= 1 or None"),
    WorkflowCase("catalog-generated-name-taken", lambda c: (
        c["learners"].__setitem__("rf+min_samples_leaf-5", {"kind": "random_forest", "params": {"splitting": "rand"}}),
        c.__setitem__("catalog", {"entries": copy.deepcopy(CATALOG)})),
        r"learners.rf\+min_samples_leaf-5: the catalog generates a learner of this name"),
    WorkflowCase("forest-listwise_objective", param("rf", "listwise_objective", "ndcg-as-printed"),
                 r"learners.rf.params: listwise_objective must be one of \('ndcg', 'err', 'ndcg-printed'\)"),
    WorkflowCase("forest-exploration", param("rf", "exploration", "biggest"),
                 r"learners.rf.params: exploration must be one of \('breadth-first', 'depth-first', 'random', "
                 r"'biggest-first', 'relevant-first'\)"),
    WorkflowCase("command-learner-without-out",
                 lambda c: c["learners"].__setitem__("rf", {"kind": "command", "params": {"command": "rank {train} {test}"}}),
                 r"learners.rf.params: command must contain \{out\}"),
    WorkflowCase("python-learner-not-importable",
                 lambda c: c["learners"].__setitem__("rf", {"kind": "python", "params": {"callable": "no_such_mod:f"}}),
                 r"learners.rf.params: callable 'no_such_mod:f': cannot import module 'no_such_mod'"),
    WorkflowCase("lightgbm-eval_convention", lambda c: c["learners"].__setitem__(
        "rf", {"kind": "lightgbm", "params": {"eval_convention": "trec"}}), r"learners.rf.params: eval_convention: unknown"),
    WorkflowCase("lightgbm-eval_metric-with-convention", lambda c: c["learners"].__setitem__(
        "rf", {"kind": "lightgbm", "params": {"eval_convention": "letor4", "eval_metric": -3}}),
        r"learners.rf.params: eval_metric: "),
    WorkflowCase("lightgbm-eval_metric", lambda c: c["learners"].__setitem__(
        "rf", {"kind": "lightgbm", "params": {"eval_metric": "map"}}), r"learners.rf.params: eval_metric must be ndcg@k"),
    WorkflowCase("significance-correction", study(significance={"baseline": "gbm", "correction": "bonferroni"}),
                 r"'bonferroni'"),
    WorkflowCase("config-duplicate-key", raw="seed: 1\n" + _DUP, message=r"c.yaml, line \d+: key 'seed' is given twice"),
    WorkflowCase("damaged-parsed-cache", setup=corrupt_cache, message=r"train.npz: damaged cache",
                 expected_files={"results/tiny/parsed/Fold1/train.npz"}),
    # issue 28, part 2: config messages name the full key path; a study with no trend; raw paths that are no files
    WorkflowCase("config-merge-key-then-duplicate", raw=_MERGE_DUP,
                 message=r"c.yaml, line \d+: key 'threads' is given twice"),
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
    schema = yaml.safe_load((REPO / "config/schema/config.schema.yaml").read_text())
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
