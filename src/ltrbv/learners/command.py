"""A learner given as a shell command (``kind: command``): RankLib, a Java jar, a script of your own.

The command template names its files with placeholders::

    java -jar RankLib.jar -train {train} -validate {vali} -test {test} -ranker 6 -metric2t NDCG@10 -score {out}
    python my_ranker.py {train} {vali} {test} {out} --seed {seed} --threads {threads}

``{train}``, ``{vali}`` and ``{test}`` are LETOR text files written into a fresh temporary folder (the
job's ``TMPDIR``): ``{train}`` is the training set the job wants the learner to see (for the bias-variance
study, the replicate's queries only), ``{test}`` every document to score (the targets one after another,
queries renumbered 1..n).  The command must write ``{out}``: exactly one finite score per line of
``{test}``, in its order.  ``{seed}`` is the job's derived seed and ``{threads}`` its thread count; both are
optional.  Paths are shell-quoted; the command runs with ``sh -c`` in the workflow's working directory.

A failing command (non-zero exit), a missing or malformed ``{out}`` raise :class:`CommandLearnerError`
naming the command and the file, so the job fails and leaves no prediction file.
"""

from __future__ import annotations

import logging
import shlex
import string
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.letor_writer import write_letor
from ..data.ranking_data import RankingData, concatenate_queries, split_rows
from ..io import ScoreFileError, read_scores

PLACEHOLDERS = ("train", "vali", "test", "out", "seed", "threads")
REQUIRED_PLACEHOLDERS = ("train", "test", "out")

#: lines of the command's output kept in the job's log (and in an error message)
_TAIL_LINES = 40

log = logging.getLogger("ltrbv")


class CommandLearnerError(RuntimeError):
    pass


def placeholders(template: str) -> set[str]:
    """The ``{name}`` fields of a command template (ValueError for a malformed one)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@dataclass
class CommandLearner:
    """Train and score with an external command; see the module docstring for the template."""

    command: str
    random_state: int = 0
    n_threads: int = 1
    fit_info_: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.command, str) or not self.command.strip():
            raise ValueError(f"command must be a non-empty command template, got {self.command!r}")
        try:
            names = placeholders(self.command)
        except ValueError as error:
            raise ValueError(f"command {self.command!r}: malformed template ({error}); write a literal brace as "
                             "{{ or }}") from None
        unknown = sorted(names - set(PLACEHOLDERS))
        if unknown:
            raise ValueError(f"command: unknown placeholder(s) {unknown}; known: {list(PLACEHOLDERS)}")
        missing = [name for name in REQUIRED_PLACEHOLDERS if name not in names]
        if missing:
            raise ValueError(f"command must contain {{{'}, {'.join(missing)}}} (the files it reads and the score "
                             "file it writes)")

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list[np.ndarray]:
        targets = tuple(targets)
        test = concatenate_queries(targets)
        with tempfile.TemporaryDirectory(prefix="ltrbv-command-") as folder:
            folder = Path(folder)
            files = {"train": folder / "train.txt", "vali": folder / "vali.txt", "test": folder / "test.txt",
                     "out": folder / "test.scores"}
            write_letor(files["train"], train)
            write_letor(files["vali"], valid if valid is not None else train)
            write_letor(files["test"], test)
            command = self.command.format(**{k: shlex.quote(str(v)) for k, v in files.items()},
                                          seed=int(self.random_state), threads=int(self.n_threads))
            log.info("running: %s", command)
            result = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
            output = (result.stdout + result.stderr).splitlines()
            for line in output[-_TAIL_LINES:]:
                log.info("  | %s", line)
            if result.returncode != 0:
                tail = "\n".join(output[-_TAIL_LINES:])
                raise CommandLearnerError(f"command exited with status {result.returncode}: {command}\n{tail}")
            if not files["out"].is_file():
                raise CommandLearnerError(f"command wrote no score file {{out}} ({files['out']}): {command}")
            try:
                scores = read_scores(files["out"], n_expected=test.n_docs)
            except ScoreFileError as error:
                raise CommandLearnerError(f"command {command!r} wrote a bad score file: {error}") from None
        if progress is not None:
            progress(1)
        self.fit_info_ = {"command": self.command}
        return split_rows(scores, targets)
