"""Checks of learner entries that the JSON schema cannot express (run before any job)."""

from __future__ import annotations

import dataclasses

from ..learners import LEARNER_KINDS


def learner_problems(config: dict) -> list[str]:
    """Unknown or invalid parameters of built-in learners, found by building each learner once."""
    problems = []
    for name, entry in config["learners"].items():
        cls = LEARNER_KINDS.get(entry["kind"])
        if cls is None:
            continue
        params = dict(entry.get("params", {}))
        if dataclasses.is_dataclass(cls):
            accepted = {f.name for f in dataclasses.fields(cls) if f.init} - {"random_state", "n_threads"}
            unknown = sorted(set(params) - accepted)
            if unknown:
                problems.append(
                    f"learners.{name}.params: unknown parameter(s) {unknown} for kind {entry['kind']!r}; "
                    f"accepted: {sorted(accepted)}"
                )
                continue
        try:
            cls(**params)
        except (TypeError, ValueError) as error:
            problems.append(f"learners.{name}.params: {error}")
    return problems
