"""Checks of a config that the JSON schemas cannot express (run at parse time, before any job).

Each function returns a list of problems, each naming the config key it is about.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re

import yaml

from ..checks import ParameterError
from ..learners import LEARNER_KINDS, RUN_PARAMETERS, checked_learner


def unknown_name(key: str, name, known, where: str, relation: str = "under") -> str:
    """The one message for a config value that names an entry which does not exist: ``run.learners names 'lm',
    which is not under learners: [...]`` (``relation``: "under" a mapping of the config, "in" or "among" a
    list), with a did-you-mean when a known name is close."""
    names = sorted(map(str, known)) if relation == "under" else list(map(str, known))
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{key} names {name!r}, which is not {relation} {where}: {names}{hint}"


def accepted_params(cls) -> list[str]:
    """The parameters a config entry may set for a built-in learner class: its constraint table's (the run
    parameters come from the job); a class without a table (command, python): its dataclass fields."""
    if hasattr(cls, "_parameter_constraints"):
        return [name for name in cls._parameter_constraints if name not in RUN_PARAMETERS]
    return [f.name for f in dataclasses.fields(cls) if f.init and f.name not in RUN_PARAMETERS]


def param_problems(cls, params: dict, where: str, base: dict | None = None) -> list[str]:
    """Unknown or invalid ``params`` of built-in learner class ``cls``, found by building it once (its constraint
    table, then its rules over several parameters); a bad value is named by its key, ``<where>.<param>``.

    With ``base``, ``params`` override those (a bag's ``base_params`` over its base learner's): a problem of
    ``base`` alone is left to the base's own entry."""
    unknown = sorted(set(params) - set(accepted_params(cls)))
    if unknown:
        return [f"{where}: unknown parameter(s) {unknown} for kind {kind_of(cls)!r}; "
                f"accepted: {sorted(accepted_params(cls))}"]
    if base is not None and param_problems(cls, base, where):
        return []
    try:
        checked_learner(cls, {**(base or {}), **params})
    except ParameterError as error:
        if error.param is not None and error.param in params:
            return [f"{where}.{error.param}: {error.reason}"]
        return [f"{where}: {error}"]
    except (TypeError, ValueError) as error:
        return [f"{where}: {error}"]
    return []


def kind_of(cls) -> str:
    return next((kind for kind in LEARNER_KINDS if LEARNER_KINDS[kind] is cls), cls.__name__)


def learner_problems(config: dict) -> list[str]:
    """Unknown or invalid parameters of built-in learners, found by building each learner once."""
    problems = []
    for name, entry in config["learners"].items():
        cls = LEARNER_KINDS.get(entry["kind"])
        if cls is not None:
            problems += param_problems(cls, dict(entry.get("params", {})), f"learners.{name}.params")
    return problems


def sweep_problems(config: dict, learners: list[str], param: str, values: list) -> list[str]:
    """The swept parameter exists for every swept built-in learner, and every value builds the learner."""
    problems = []
    for name in learners:
        entry = config["learners"].get(name)
        cls = LEARNER_KINDS.get(entry["kind"]) if entry else None
        if cls is None:
            continue  # unknown names and bags are reported by the study's own checks
        if param not in accepted_params(cls):
            problems.append(f"biasvar.sweep.param: {param!r} is not a parameter of learner {name!r} "
                            f"(kind {entry['kind']!r}); accepted: {sorted(accepted_params(cls))}")
            continue
        for value in values:
            try:
                checked_learner(cls, {**entry.get("params", {}), param: value})
            except (TypeError, ValueError) as error:
                problems.append(f"biasvar.sweep.values: {value!r} for learner {name!r}: {error}")
    return problems


def non_finite_values(node, where: str = "") -> list[str]:
    """Every NaN or infinite number in the config (YAML's .nan, .inf), by key path."""
    if isinstance(node, float) and not math.isfinite(node):
        return [f"{where or 'config'}: {node!r} is not a finite number"]
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in non_finite_values(value, f"{where}.{key}" if where else str(key))]
    if isinstance(node, (list, tuple)):
        return [p for i, value in enumerate(node) for p in non_finite_values(value, f"{where}[{i}]")]
    return []


class _DuplicateKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that records keys given twice in one mapping (PyYAML keeps the last silently)."""

    def __init__(self, stream):
        super().__init__(stream)
        self.duplicates: list[tuple[str, int]] = []

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == MERGE_TAG:  # ``<<: *anchor``: merged keys may be overridden, never a duplicate
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                if key in seen:
                    self.duplicates.append((str(key), key_node.start_mark.line + 1))
                seen.add(key)
            except TypeError:  # unhashable key: the constructor below reports it
                pass
        return super().construct_mapping(node, deep=deep)


_DuplicateKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _DuplicateKeyLoader.construct_mapping
)

MERGE_TAG = "tag:yaml.org,2002:merge"
FLOAT_TAG = "tag:yaml.org,2002:float"
#: YAML 1.2's floats (core schema) that YAML 1.1, and so PyYAML and Snakemake, read as strings: no dot, or an
#: exponent without a sign (``1e-1``, ``5e3``, ``1.0e5``); 1.1's own floats and ints resolve first
YAML12_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")


class _Yaml12Loader(_DuplicateKeyLoader):
    """The duplicate-key loader, reading YAML 1.2 floats such as ``1e-1`` as numbers."""


_Yaml12Loader.add_implicit_resolver(FLOAT_TAG, re.compile(f"^(?:{YAML12_FLOAT.pattern})$"), list("-+0123456789."))


#: plain scalars that YAML 1.1 (PyYAML, Snakemake) reads as numbers other than YAML 1.2 does: a leading-zero
#: octal (``010``: 8 against 10), base 60 (``1:30``: 90 against the string '1:30', also with a fraction) and
#: binary (``0b1000``: 8 against a string)
YAML11_ONLY_NUMBER = re.compile(r"[-+]?(?:0[0-7_]+|0b[01_]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)")


def _yaml11_numbers(node, where: list[str], found: list) -> None:
    """(key path, line, text) of every plain scalar under ``node`` that YAML 1.1 and 1.2 read as different values."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _yaml11_numbers(value, where + [str(key.value)], found)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _yaml11_numbers(item, where + [f"[{i}]"], found)
    elif isinstance(node, yaml.ScalarNode) and node.style is None and YAML11_ONLY_NUMBER.fullmatch(node.value):
        if _yaml12_reading(node.value) != repr(yaml.safe_load(node.value)):  # 07 is 7 either way
            found.append((".".join(where).replace(".[", "["), node.start_mark.line + 1, node.value))


def config_file_problems(path) -> list[str]:
    """YAML errors (with file and line), duplicate keys, and numbers that YAML 1.1 (Snakemake's reader) and YAML 1.2
    read differently (``010``, ``1:30``, ``0b1000``) in one config file."""
    try:
        with open(path, encoding="utf-8") as handle:
            loader = _DuplicateKeyLoader(handle)
            try:
                node = loader.get_single_node()
                data = loader.construct_document(node) if node is not None else None
            finally:
                loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}, line {mark.line + 1}" if mark is not None else str(path)
        return [f"{where}: not valid YAML ({getattr(error, 'problem', None) or error})"]
    except (OSError, UnicodeDecodeError) as error:
        return [f"{path}: cannot be read ({error})"]
    if data is None:
        return [f"{path}: empty config file (no keys); give the config's keys, e.g. copy config/demo.yaml"]
    if not isinstance(data, dict):
        return [f"{path}: a config file is a mapping of keys at the top level, not a {type(data).__name__}"]
    ambiguous = []
    _yaml11_numbers(node, [], ambiguous)
    return [f"{path}, line {line}: key {key!r} is given twice in the same mapping (YAML would silently keep the "
            "last one)" for key, line in sorted(loader.duplicates, key=lambda item: item[1])] + [
        f"{path}, line {line}: {key}: {text} is read as {yaml.safe_load(text)!r} by YAML 1.1 (Snakemake's reader) but "
        f"as {_yaml12_reading(text)} by YAML 1.2; write the number plainly (no leading zero, no ':' or '0b'), or "
        "quote it if it is text" for key, line, text in ambiguous]


def _yaml12_reading(text: str) -> str:
    """What YAML 1.2's core schema reads a YAML-1.1-only number as."""
    digits = text.replace("_", "")
    if re.fullmatch(r"[-+]?[0-9]+", digits) and "_" not in text:
        return repr(int(digits, 10))
    return f"the string {text!r}"


def _yaml12_view(path):
    with open(path, encoding="utf-8") as handle:
        loader = _Yaml12Loader(handle)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()


def _take_yaml12_floats(config, view) -> None:
    if isinstance(view, dict) and isinstance(config, dict):
        for key, value in view.items():
            if key not in config:
                continue
            given = config[key]
            if isinstance(value, float) and isinstance(given, str) and YAML12_FLOAT.fullmatch(given):
                config[key] = value
            else:
                _take_yaml12_floats(given, value)
    elif isinstance(view, list) and isinstance(config, list) and len(view) == len(config):
        for i, value in enumerate(view):
            if isinstance(value, float) and isinstance(config[i], str) and YAML12_FLOAT.fullmatch(config[i]):
                config[i] = value
            else:
                _take_yaml12_floats(config[i], value)


def read_yaml12_floats(config: dict, config_files) -> dict:
    """``config`` with every number a config file writes as YAML 1.2 allows (``1e-1``) read as a number.

    Snakemake reads config files as YAML 1.1, where ``1e-1`` is the string '1e-1'; each file is read again
    here with YAML 1.2's float syntax, and a value that is still that file's unquoted text becomes its
    number, whatever the key (a quoted ``'1e-1'`` stays a string, as in YAML)."""
    for path in config_files:
        _take_yaml12_floats(config, _yaml12_view(path))
    return config
