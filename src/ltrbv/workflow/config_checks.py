"""``check_config``: the one check of a config, run once at parse time, before any job.

In order, stopping at the first stage that finds a problem (later stages assume the earlier ones
passed): the config files themselves (valid YAML, no key given twice); the JSON schemas, which also
fill in every default; metric names in their canonical spelling; the learners the sections generate
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
    """Validate ``config`` against the schemas (snakemake.utils.validate), which fill in every default."""
    from snakemake.utils import validate

    _explicit_experiments(config)
    _validate(config, schema_dir / MAIN_SCHEMA, ())
    for section in SECTIONS:
        if section.schema and section.key in config:
            _validate(config[section.key], schema_dir / section.schema, (section.key,))
    return config


def _validate(instance, schema_path: Path, prefix: tuple) -> None:
    """snakemake.utils.validate (which fills in defaults); a failure is refused with the full key path of each
    value the schema refuses (a section's keys under the section's own key: ``biasvar.uncertainty.resamples``)."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    try:
        validate(instance, schema=str(schema_path))
    except WorkflowError as error:
        raise ConfigError("invalid config", schema_problems(instance, schema_path, prefix) or [str(error)]) from None


def key_path(parts) -> str:
    """``('biasvar', 'uncertainty', 'resamples')`` -> ``biasvar.uncertainty.resamples``; list items as ``[i]``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


def schema_problems(instance, schema_path: Path, prefix: tuple = ()) -> list[str]:
    """Every schema violation of ``instance`` (the most relevant alternative of a oneOf/anyOf), as
    ``full.key.path: what is wrong``, in key order."""
    import yaml
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    schema = yaml.safe_load(Path(schema_path).read_text())
    errors = [best_match([error]) for error in Draft202012Validator(schema).iter_errors(instance)]
    found = sorted({(key_path((*prefix, *e.absolute_path)), e.message) for e in errors}, key=lambda p: p[0])
    return [f"{where}: {message}" for where, message in found]


def check_config(config: dict, config_files=(), schema_dir: Path = SCHEMA_DIR) -> dict:
    """Refuse a bad config (ConfigError) or return it with defaults filled in and metric names canonical."""
    file_problems = [problem for path in config_files for problem in config_file_problems(path)]
    if file_problems:
        raise ConfigError("invalid config file", file_problems)
    read_yaml12_floats(config, config_files)
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
