"""``check_config``: the one check of a config, run once at parse time, before any job.

In order, stopping at the first stage that finds a problem (later stages assume the earlier ones
passed): the config files themselves (valid YAML, no key given twice; YAML 1.2 floats such as ``1e-1``
read as numbers); metric names in their canonical spelling; the JSON schemas, one per section
(``config/schema/<section>.schema.yaml``), which also fill in every default; the learners the sections
generate (added to ``learners:``); the core run's cross-checks; the raw data and parsed caches; every other
section's cross-checks.  Each message names its key.

It asks the sections through the registry (:mod:`ltrbv.workflow.sections`), so it sits above them.
"""

from __future__ import annotations

import copy

from .metric_names import canonical_config_metrics
from .section import SCHEMA_DIR
from .sections import SECTIONS
from .validation import config_file_problems, read_yaml12_floats

#: keys renamed since an earlier release: refused, naming the new place
RENAMED_KEYS = {
    "experiments": "bagging (the bagging experiments' section is named after its folder, rules file and schema)",
    "resources": "the profile (profiles/slurm/config.yaml, set-resources) for every rule but training, whose "
                 "resources are the learner's own (learners.<name>.mem_mb, runtime)",
}


class ConfigError(ValueError):
    """A config the workflow refuses; the message lists every problem found at the failing stage."""

    def __init__(self, heading: str, problems: list[str]):
        self.problems = list(problems)
        super().__init__(heading + ":\n  " + "\n  ".join(self.problems))


def core_schema(sections=SECTIONS, schema_dir=SCHEMA_DIR) -> dict:
    """The schema of the config's top level: the core run's keys, and each other section's key (an object its own
    schema validates)."""
    from .schema_errors import _load

    core = sections[0]
    schema = copy.deepcopy(_load(schema_dir / core.schema.name))
    for section in sections[1:]:
        if section.key is not None:
            schema["properties"][section.key] = {
                "type": "object", "description": f"section {section.name}: config/schema/{section.name}.schema.yaml"}
    return schema


def _explicit_experiments(config: dict) -> None:
    """``bagging.<experiment>: true`` means the defaults: an empty object the schema fills in."""
    for name, value in (config.get("bagging") or {}).items():
        if value is True:
            config["bagging"][name] = {}


def fill_defaults(config: dict, schema_dir=SCHEMA_DIR, sections=SECTIONS) -> dict:
    """Validate ``config`` against the schemas, which fill in every default; ConfigError lists every problem,
    one line each with its key path (:mod:`ltrbv.workflow.schema_errors`)."""
    from .schema_errors import fill_schema_defaults, schema_problems

    renamed = [f"{key}: renamed; now {where}" for key, where in RENAMED_KEYS.items() if key in config]
    if renamed:
        raise ConfigError("invalid config", renamed)
    _explicit_experiments(config)
    top = core_schema(sections, schema_dir)
    problems = schema_problems(config, top)
    if problems:  # the sections' own schemas assume the top level passed
        raise ConfigError("invalid config", problems)
    fill_schema_defaults(config, top)
    optional = [s for s in sections[1:] if s.schema is not None and s.key in config]
    documents = {section.key: section.schema_document() for section in optional}
    for section in optional:
        problems += schema_problems(config[section.key], documents[section.key], prefix=section.key)
    if problems:
        raise ConfigError("invalid config", problems)
    for section in optional:
        fill_schema_defaults(config[section.key], documents[section.key])
    return config


def check_config(config: dict, config_files=(), schema_dir=SCHEMA_DIR, sections=SECTIONS) -> dict:
    """Refuse a bad config (ConfigError) or return it with defaults filled in and metric names canonical."""
    file_problems = [problem for path in config_files for problem in config_file_problems(path)]
    if file_problems:
        raise ConfigError("invalid config file", file_problems)
    read_yaml12_floats(config, config_files)
    try:  # before the schema, whose message for an unknown name would be its whole pattern
        canonical_config_metrics(config)
    except ValueError as error:
        raise ConfigError("invalid config", [str(error)]) from None
    fill_defaults(config, schema_dir, sections)
    try:
        canonical_config_metrics(config)
    except ValueError as error:
        raise ConfigError("invalid config", [str(error)]) from None
    core, *optional = sections
    problems = [problem for section in optional for problem in section.expand(config)]
    if problems:
        raise ConfigError("invalid config", problems)
    problems = core.problems(config, sections)
    if problems:
        raise ConfigError("invalid config", problems)
    problems = core.grid.data_problems(config)
    if problems:
        raise ConfigError("missing or damaged data", problems)
    problems = [problem for section in optional for problem in section.problems(config, sections)]
    if problems:
        raise ConfigError("invalid config", problems)
    return config
