"""``target``: a file another section makes (e.g. ``tables/bagging_performance.md``); its row on the catalog page
points at it when that section is on, and says the section is off otherwise.  No job of its own, no claims (the
section's own page states the claim and the measured number)."""

from __future__ import annotations

from ....workflow.paths import RESULTS

NAME = "target"
JOB = False
FIGURE = False
FIELDS = {
    "target": {"description": "a file another section makes, relative to results/{dataset}/", "type": "string",
               "minLength": 1},
    "section": {"description": "the config key of the section that makes it (its row says so when the section is "
                               "off)", "type": "string"},
}
REQUIRED = ("target", "section")
CLAIMS = {}


def learners(config: dict, entry: dict) -> list[str]:
    return []


def target_file(dataset: str, entry: dict) -> str:
    return f"{RESULTS}/{dataset}/{entry['target']}"


def problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    """A known section which, when on, makes the target for every dataset (``sections``: the registry)."""
    from ..entries import datasets

    by_key = {s.key: s for s in sections if s.key not in (None, "catalog")}
    section_key = entry["section"]
    if section_key not in by_key:
        return [f"{key}.section {section_key!r}: one of {sorted(by_key)}"]
    if not sections.on(config, section_key):
        return []
    made = set(by_key[section_key].targets(config))
    return [f"{key}.target {entry['target']!r}: section {section_key!r} of this config does not make {wanted}"
            for wanted in (target_file(dataset, entry) for dataset in datasets(config)) if wanted not in made]


def claim_problems(where: str, claim: dict, entry: dict, config: dict) -> list[str]:
    return []


def benchmarks(config: dict, dataset: str, name: str, entry: dict) -> list[str]:
    return []
