"""``check_config``: the one check of a config, run once at parse time, before any job.

In order, stopping at the first stage that finds a problem (later stages assume the earlier ones
passed): the config files themselves (valid YAML, no key given twice; YAML 1.2 floats such as ``1e-1``
read as numbers); the JSON schemas, which also fill in every default; metric names in their canonical spelling; the learners the sections generate
(added to ``learners:``); the core run's cross-checks; the
raw data and parsed caches; every optional section's cross-checks.  Each message names its key.
"""

from __future__ import annotations

from pathlib import Path

from .metric_names import canonical_config_metrics
from .sections import SECTIONS
from .validation import config_file_problems, read_yaml12_floats

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "config" / "schema"
MAIN_SCHEMA = "config.schema.yaml"


class ConfigError(ValueError):
    """A config the workflow refuses; the message lists every problem found at the failing stage."""

    def __init__(self, heading: str, problems: list[str]):
        self.problems = list(problems)
        super().__init__(heading + ":\n  " + "\n  ".join(self.problems))


def resource_defaults(schema_path: Path | str = SCHEMA_DIR / MAIN_SCHEMA) -> dict[str, dict[str, int]]:
    """Each rule's default resources ({rule: {mem_mb, runtime}}), as the schema's ``resources`` gives them."""
    import yaml

    schema = yaml.safe_load(Path(schema_path).read_text())
    return {rule: dict(entry["default"]) for rule, entry in schema["properties"]["resources"]["properties"].items()}


def _explicit_experiments(config: dict) -> None:
    """``experiments.<name>: true`` means the defaults: an empty object the schema fills in."""
    for name, value in (config.get("experiments") or {}).items():
        if value is True:
            config["experiments"][name] = {}


def fill_defaults(config: dict, schema_dir: Path = SCHEMA_DIR) -> dict:
    """Validate ``config`` against the schemas, which fill in every default; ConfigError lists every problem,
    one line each with its key path (:mod:`ltrbv.workflow.schema_errors`)."""
    from .schema_errors import fill_schema_defaults, schema_problems

    _explicit_experiments(config)
    problems = schema_problems(config, schema_dir / MAIN_SCHEMA)
    if problems:  # the sections' own schemas assume the main one passed
        raise ConfigError("invalid config", problems)
    fill_schema_defaults(config, schema_dir / MAIN_SCHEMA)
    for section in SECTIONS:
        if section.schema and section.key in config:
            problems += schema_problems(config[section.key], schema_dir / section.schema, prefix=section.key)
    if problems:
        raise ConfigError("invalid config", problems)
    for section in SECTIONS:
        if section.schema and section.key in config:
            fill_schema_defaults(config[section.key], schema_dir / section.schema)
    return config


def check_config(config: dict, config_files=(), schema_dir: Path = SCHEMA_DIR) -> dict:
    """Refuse a bad config (ConfigError) or return it with defaults filled in and metric names canonical."""
    file_problems = [problem for path in config_files for problem in config_file_problems(path)]
    if file_problems:
        raise ConfigError("invalid config file", file_problems)
    read_yaml12_floats(config, config_files)
    try:  # before the schema, whose message for an unknown name would be its whole pattern
        canonical_config_metrics(config)
    except ValueError as error:
        raise ConfigError("invalid config", [str(error)]) from None
    fill_defaults(config, schema_dir)
    try:
        canonical_config_metrics(config)
    except ValueError as error:
        raise ConfigError("invalid config", [str(error)]) from None
    core, *optional = SECTIONS
    problems = [problem for section in optional for problem in section.expand(config)]
    if problems:
        raise ConfigError("invalid config", problems)
    problems = core.problems(config)
    if problems:
        raise ConfigError("invalid config", problems)
    from .core_grid import data_problems

    problems = data_problems(config)
    if problems:
        raise ConfigError("missing or damaged data", problems)
    problems = [problem for section in optional for problem in section.problems(config)]
    if problems:
        raise ConfigError("invalid config", problems)
    return config
