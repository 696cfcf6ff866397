"""A config checked against a JSON schema: one line per problem, by key path, with a did-you-mean.

jsonschema's own message of a failed check prints the whole schema under it (832 lines for a
misspelt top-level key).  Here every error becomes one line: the key path (``learners.gbm.params``,
``metrics[2]``), the value, and what was expected; an unknown key is named with the closest known
keys (difflib), and a required key that an unknown key misspells is folded into that key's line.
Errors under ``anyOf``/``oneOf`` are reduced to jsonschema's ``best_match``.

:func:`schema_problems` checks ``config`` (on a copy) with the defaults of the schema filled in,
as Snakemake's ``validate`` does; :func:`fill_schema_defaults` then fills them into ``config`` itself.
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
import reprlib
from pathlib import Path

import yaml

#: at most this many known keys are listed when an unknown key has no close match
_KNOWN_KEYS_LISTED = 12

_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxlist, _short.maxdict, _short.maxlevel = 40, 40, 6, 4, 2


def key_path(parts, prefix: str = "") -> str:
    """``("learners", "gbm", "params")`` -> ``learners.gbm.params``; a list index as ``[i]``."""
    text = prefix
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


def _validator_class():
    """Draft 2020-12 with defaults filled in while validating (as snakemake.utils.validate does)."""
    from jsonschema import Draft202012Validator, validators

    validate_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if validator.is_type(instance, "object"):
            for name, subschema in properties.items():
                if isinstance(subschema, dict) and "default" in subschema:
                    instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(Draft202012Validator, {"properties": set_defaults})


def _load(schema) -> dict:
    """A schema: given as a dict, or the path of its YAML file, parsed once per version of the file (read-only: do
    not change it)."""
    if isinstance(schema, dict):
        return schema
    path = Path(schema).resolve()
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=32)
def _parsed(path: Path, mtime_ns: int, size: int) -> dict:
    """libyaml's safe loader where PyYAML has it (7x faster on the main schema), the same mapping as safe_load."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _unknown_keys(error) -> list[str]:
    """The keys an ``additionalProperties: false`` error is about."""
    schema, instance = error.schema, error.instance
    known = set(schema.get("properties", {}))
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    return [key for key in instance if key not in known and not any(p.search(str(key)) for p in patterns)]


def _closest(word, candidates) -> list[str]:
    return difflib.get_close_matches(str(word), [str(c) for c in candidates], n=2, cutoff=0.6)


def _misspelt_required(error) -> set[tuple]:
    """(path, key) of each required key that is missing and that an unknown key beside it misspells."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return set()
    known = sorted(error.schema.get("properties", {}))
    missing = {key for key in error.schema.get("required", []) if key not in error.instance}
    closest = (_closest(key, known) for key in _unknown_keys(error))
    return {(tuple(error.absolute_path), close[0]) for close in closest if close and close[0] in missing}


def _evaluated_keys(schema: dict, instance: dict) -> set:
    """The keys a schema with ``unevaluatedProperties: false`` takes for ``instance``: its properties and those of
    each ``if``/``then`` branch whose condition holds."""
    from jsonschema import Draft202012Validator

    keys = set(schema.get("properties", {}))
    for branch in schema.get("allOf", []):
        if "then" in branch and Draft202012Validator(branch.get("if", {})).is_valid(instance):
            keys |= set(branch["then"].get("properties", {}))
    return keys


def format_schema_error(error, prefix: str = "", misspelt: set[tuple] = frozenset()) -> list[str]:
    """One line per problem of one jsonschema ``ValidationError``: an additionalProperties error gives one line
    per unknown key, with the closest known keys; a required key in ``misspelt`` (see :func:`_misspelt_required`)
    is left to the line of the unknown key that misspells it; anyOf/oneOf are reduced to ``best_match``."""
    from jsonschema.exceptions import best_match

    while error.context:  # anyOf / oneOf: the branch that came closest, preferring one of the value's type
        same_type = [e for e in error.context if e.validator != "type"]
        if not same_type:  # the value has none of the types the branches want
            types = [t for e in error.context for t in ([e.validator_value] if isinstance(e.validator_value, str)
                                                        else e.validator_value)]
            expected = " or ".join(repr(t) for t in dict.fromkeys(types))
            return [f"{key_path(error.absolute_path, prefix)}: {_short.repr(error.instance)} is not of type {expected}"]
        error = best_match(same_type)
    path = list(error.absolute_path)
    where = key_path(path, prefix)
    kind, value = error.validator, error.instance
    if kind == "additionalProperties" and isinstance(value, dict):
        known = sorted(error.schema.get("properties", {}))
        lines = []
        for key in _unknown_keys(error):
            close = _closest(key, known)
            if close:
                required = " (a required key, missing)" if (tuple(path), close[0]) in misspelt else ""
                hint = f"did you mean {close[0]!r}{required}?"
            elif len(known) <= _KNOWN_KEYS_LISTED:
                hint = f"known keys here: {', '.join(known)}"
            else:
                hint = f"{len(known)} keys are known here (see the schema under config/schema/)"
            lines.append(f"{key_path([*path, key], prefix)}: unknown key; {hint}")
        return lines
    if kind == "unevaluatedProperties" and isinstance(value, dict):  # fields of another branch (a catalog kind's)
        allowed = _evaluated_keys(error.schema, value)
        lines = []
        for key in sorted(set(value) - allowed, key=str):
            owners = [branch["if"]["properties"]["kind"]["const"] for branch in error.schema.get("allOf", [])
                      if key in branch.get("then", {}).get("properties", {})
                      and "const" in branch.get("if", {}).get("properties", {}).get("kind", {})]
            close = _closest(key, sorted(allowed))
            if owners:
                hint = f"; a field of kind {' or '.join(map(repr, owners))}"
            else:
                hint = f"; did you mean {close[0]!r}?" if close else f"; its fields: {', '.join(sorted(allowed))}"
            owner = f" of kind {value['kind']!r}" if "kind" in value else ""
            lines.append(f"{key_path([*path, key], prefix)}: not a field{owner}{hint}")
        return lines
    if kind == "required" and isinstance(value, dict):
        return [f"{key_path([*path, key], prefix)}: required key missing" for key in error.validator_value
                if key not in value and (tuple(path), key) not in misspelt]
    if kind == "enum":
        close = _closest(value, error.validator_value) if isinstance(value, str) else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return [f"{where}: {_short.repr(value)} is not one of {_short.repr(list(error.validator_value))}{hint}"]
    if kind == "pattern":
        expected = error.schema.get("description") or f"a string matching {error.validator_value!r}"
        return [f"{where}: {_short.repr(value)} is not {expected.strip()}"]
    message = error.message
    if len(message) > 200:  # the value's own repr made it long: say it short
        message = message.replace(repr(value), _short.repr(value))
    return [f"{where}: {message}"]


def schema_problems(config: dict, schema_path, prefix: str = "") -> list[str]:
    """Every problem of ``config`` against the schema (a dict, or the path of its file), one line each (config
    unchanged)."""
    schema = _load(schema_path)
    validator = _validator_class()(schema)
    errors = list(validator.iter_errors(copy.deepcopy(config)))
    misspelt = set().union(*(_misspelt_required(error) for error in errors))
    return sorted({line for error in errors for line in format_schema_error(error, prefix, misspelt)})


def fill_schema_defaults(config: dict, schema_path) -> dict:
    """Fill the schema's defaults into ``config`` (in place; call after :func:`schema_problems` found none)."""
    for _ in _validator_class()(_load(schema_path)).iter_errors(config):
        pass
    return config
