"""Generated learners: a config learner with some of its parameters set to other values (a sweep's value, a
grid's combination), trained by the core run like any learner of the config.

A value equal to the base learner's own (given, or its class's default) gives the base learner itself, and a
learner of the config that trains the same models gives that learner: their files are shared.  Otherwise the
generated learner is named after its base and its parameters (:func:`combination_name`), in name order, so
that the name does not depend on the order of the config's keys.
"""

from __future__ import annotations

import copy
import dataclasses

from ...learners import LEARNER_KINDS
from ...workflow.paths import format_value

_NO_DEFAULT = object()


def combination_name(base: str, params: dict) -> str:
    """A generated learner: ``lambdamart-rand+learning_rate-0.1+max_leaves-4``."""
    return base + "".join(f"+{param}-{format_value(params[param])}" for param in sorted(params))


def same_value(a, b) -> bool:
    """Two parameter values that train alike (``5`` and ``5.0``; a bool is never a number)."""
    try:
        return float(a) == float(b) and type(a) is not bool and type(b) is not bool
    except (TypeError, ValueError):
        return a == b


def generated_entry(config: dict, base: str, params: dict) -> dict:
    """The config entry of ``base`` with ``params`` set."""
    generated = copy.deepcopy(config["learners"][base])
    generated["params"] = {**generated.get("params", {}), **params}
    return generated


def _default(kind: str, param: str):
    """A built-in learner class's default for ``param`` (a dataclass field), or a sentinel when it has none."""
    cls = LEARNER_KINDS.get(kind) if kind in LEARNER_KINDS else None
    if cls is not None and dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if f.name == param and f.default is not dataclasses.MISSING:
                return f.default
    return _NO_DEFAULT


def _trains_like(a: dict, b: dict) -> bool:
    """Two learner entries that fit the same models (kind and parameters; threads and resources aside)."""
    return a.get("kind") == b.get("kind") and dict(a.get("params", {})) == dict(b.get("params", {}))


def learner_for(config: dict, base: str, params: dict) -> str:
    """The learner that trains ``base`` with ``params`` set: ``base`` itself when each is its own value (given,
    or its class's default), an identical learner of the config when there is one, else the generated one."""
    learners = config["learners"]
    generated_name = combination_name(base, params)
    if base not in learners:
        return generated_name
    own_params = learners[base].get("params", {})
    own = {param: own_params[param] if param in own_params else _default(learners[base]["kind"], param)
           for param in params}
    if all(own[param] is not _NO_DEFAULT and same_value(own[param], value) for param, value in params.items()):
        return base
    generated = generated_entry(config, base, params)
    same = [name for name, other in learners.items() if name != generated_name and _trains_like(other, generated)]
    return same[0] if same else generated_name


def printed_alike(where: str, values: list) -> list[str]:
    """Values that print alike would name one generated learner twice."""
    printed = [format_value(v) for v in values]
    return [f"{where}: {values} name the same learner twice ({printed})"] if len(set(printed)) < len(printed) else []


def bag_param_problems(params: dict) -> list[str]:
    """A bag's parameters against the core schema's ``$defs/bag_params`` (a generated bag is not schema-checked)."""
    import jsonschema

    from ...workflow.schema_errors import _load
    from ...workflow.section import SCHEMA_DIR

    schema = _load(SCHEMA_DIR / "core.schema.yaml")["$defs"]["bag_params"]
    return [error.message for error in jsonschema.Draft202012Validator(schema).iter_errors(params)]
