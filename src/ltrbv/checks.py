"""Parameter constraints: a learner declares each parameter's allowed values once, in a table.

In the spirit of scikit-learn's ``_parameter_constraints`` (``sklearn.utils._param_validation``; not imported:
a training job does not pay for scikit-learn): a table maps a parameter's name to a list of constraints, and a
value is valid when it satisfies at least one of them::

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "eval_convention": [StrOptions(("letor4", "standard")), None],
        "eval_train": ["boolean"],
    }

A constraint is a :class:`Constraint`, ``None`` (the value None), ``"boolean"`` or a type (``str``: an instance).
The same table gives the check (:func:`validate_params`, a :class:`ParameterError` naming the parameter) and the
JSON schema of the parameters (:func:`params_schema`; ``config/schema/core.schema.yaml`` holds it, generated).

Numbers from a config file arrive as YAML scalars.  One rule for every parameter: an integer is a
``numbers.Integral`` and not a bool (``10.5``, ``500.0`` and ``true`` are refused, never rounded); a real is a
finite ``numbers.Real`` and not a bool (``.nan`` and ``.inf`` are refused, never clamped).
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Callable, Iterable

import numpy as np

Integral, Real = numbers.Integral, numbers.Real


class RealNotInt:
    """The type of :class:`Interval` for a real that is not an integer (``0.5``, ``1.0``; not ``1``), as
    scikit-learn's ``RealNotInt``: a parameter that is a count as an integer and a share as a float."""


class ParameterError(ValueError):
    """A parameter's value is refused.  ``param`` names it (None for a rule over several parameters); the
    message names it too, as the user reads it (``n_estimators must be an integer >= 1, got 0``)."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param

    @property
    def reason(self) -> str:
        """The message without the parameter's name in front (for a line that names the key already)."""
        text = str(self)
        if self.param and text.startswith(self.param):
            text = text[len(self.param):].lstrip(" :")
        return text


class Constraint:
    """One kind of allowed value: ``satisfied_by(value)``, a description (``str``) and a JSON schema."""

    def satisfied_by(self, value) -> bool:
        raise NotImplementedError

    def schema(self) -> dict:
        raise NotImplementedError


def _is_number(value, kind) -> bool:
    """``value`` is an instance of ``kind`` (Integral, Real or RealNotInt), never a bool; a real is finite."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return False
    if kind is Integral:
        return isinstance(value, Integral)
    if kind is RealNotInt and isinstance(value, Integral):
        return False
    return math.isfinite(value)


class Interval(Constraint):
    """A number of type ``kind`` (Integral, Real or RealNotInt) between ``left`` and ``right`` (None: unbounded),
    ``closed`` at "left", "right", "both" or "neither" (an unbounded end is open)."""

    _NOUN = {Integral: "an integer", Real: "a finite number", RealNotInt: "a float"}

    def __init__(self, kind, left, right, *, closed: str):
        if kind not in self._NOUN:
            raise TypeError(f"Interval: kind must be Integral, Real or RealNotInt, got {kind!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval: closed must be 'left', 'right', 'both' or 'neither', got {closed!r}")
        if left is not None and right is not None and left > right:
            raise ValueError(f"Interval: left {left} > right {right}")
        self.kind, self.left, self.right = kind, left, right
        self.left_closed = left is not None and closed in ("left", "both")
        self.right_closed = right is not None and closed in ("right", "both")

    def satisfied_by(self, value) -> bool:
        if not _is_number(value, self.kind):
            return False
        if self.left is not None and (value < self.left if self.left_closed else value <= self.left):
            return False
        return self.right is None or (value <= self.right if self.right_closed else value < self.right)

    def _bound(self, bound) -> str:
        return str(int(bound)) if self.kind is Integral else f"{bound:g}"

    def __str__(self) -> str:
        noun = self._NOUN[self.kind]
        if self.left is not None and self.right is not None:
            return (f"{noun.replace('finite ', '')} in {'[' if self.left_closed else '('}{self._bound(self.left)}, "
                    f"{self._bound(self.right)}{']' if self.right_closed else ')'}")
        if self.left is not None:
            return f"{noun} {'>=' if self.left_closed else '>'} {self._bound(self.left)}"
        if self.right is not None:
            return f"{noun} {'<=' if self.right_closed else '<'} {self._bound(self.right)}"
        return noun

    def schema(self) -> dict:
        out = {"type": "integer" if self.kind is Integral else "number"}
        if self.left is not None:
            out["minimum" if self.left_closed else "exclusiveMinimum"] = self.left
        if self.right is not None:
            out["maximum" if self.right_closed else "exclusiveMaximum"] = self.right
        return out


class Options(Constraint):
    """One of ``options``, each an instance of ``kind`` (never a bool unless ``kind`` is bool).  ``options`` may be
    a function returning them, called when first needed (a registry that is costly to import)."""

    def __init__(self, kind, options: Iterable | Callable[[], Iterable]):
        self.kind = kind
        self._options = options if callable(options) else tuple(options)

    @property
    def options(self) -> tuple:
        if callable(self._options):
            self._options = tuple(self._options())
        return self._options

    def satisfied_by(self, value) -> bool:
        if not isinstance(value, self.kind) or (isinstance(value, bool) and self.kind is not bool):
            return False
        return value in self.options

    def __str__(self) -> str:
        options = [repr(option) for option in self.options]
        return options[0] if len(options) == 1 else "one of " + ", ".join(options)

    def schema(self) -> dict:
        return {"enum": list(self.options)}


class StrOptions(Options):
    """One of the strings ``options`` (or of those a function returns)."""

    def __init__(self, options: Iterable[str] | Callable[[], Iterable[str]]):
        super().__init__(str, options)


class ListOf(Constraint):
    """A list (or tuple) of at least ``min_items`` values, each satisfying ``item``; all distinct if ``unique``."""

    def __init__(self, item: Constraint, *, min_items: int = 1, unique: bool = True):
        self.item, self.min_items, self.unique = make_constraint(item), min_items, unique

    def satisfied_by(self, value) -> bool:
        if not isinstance(value, (list, tuple)) or len(value) < self.min_items:
            return False
        if not all(self.item.satisfied_by(v) for v in value):
            return False
        return not self.unique or len(set(value)) == len(value)

    def __str__(self) -> str:
        size = "a non-empty list" if self.min_items == 1 else f"a list of at least {self.min_items} values"
        return f"{size} of{' distinct' if self.unique else ''} values, each {self.item}"

    def schema(self) -> dict:
        out = {"type": "array", "items": self.item.schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        if self.unique:
            out["uniqueItems"] = True
        return out


class _NoneConstraint(Constraint):
    def satisfied_by(self, value) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"

    def schema(self) -> dict:
        return {"type": "null"}


class _Boolean(Constraint):
    def satisfied_by(self, value) -> bool:
        return isinstance(value, (bool, np.bool_))

    def __str__(self) -> str:
        return "a boolean"

    def schema(self) -> dict:
        return {"type": "boolean"}


class InstanceOf(Constraint):
    """An instance of ``kind`` (``str``: any string; a finer check is the class's own, e.g. a metric name)."""

    _SCHEMA = {str: ("a string", "string"), dict: ("a mapping", "object")}

    def __init__(self, kind: type):
        if kind not in self._SCHEMA:
            raise TypeError(f"InstanceOf: kind must be one of {[k.__name__ for k in self._SCHEMA]}, got {kind!r}")
        self.kind = kind

    def satisfied_by(self, value) -> bool:
        return isinstance(value, self.kind)

    def __str__(self) -> str:
        return self._SCHEMA[self.kind][0]

    def schema(self) -> dict:
        return {"type": self._SCHEMA[self.kind][1]}


def make_constraint(constraint) -> Constraint:
    """A table's entry as a Constraint: itself, ``None``, ``"boolean"`` or a type."""
    if isinstance(constraint, Constraint):
        return constraint
    if constraint is None:
        return _NoneConstraint()
    if constraint == "boolean":
        return _Boolean()
    if isinstance(constraint, type):
        return InstanceOf(constraint)
    raise TypeError(f"unknown parameter constraint {constraint!r}")


def describe(constraints) -> str:
    """``an integer >= 1 or None``: what a parameter with these constraints must be."""
    parts = [str(make_constraint(c)) for c in constraints]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def check_param(name: str, value, constraints) -> None:
    """Refuse ``value`` (ParameterError naming ``name``) unless it satisfies one of ``constraints``."""
    if not any(make_constraint(c).satisfied_by(value) for c in constraints):
        raise ParameterError(f"{name} must be {describe(constraints)}, got {value!r}", name)


def validate_params(table: dict, params: dict) -> None:
    """Check each parameter of ``table`` (name -> constraints) that ``params`` holds, in the table's order."""
    for name, constraints in table.items():
        if name in params:
            check_param(name, params[name], constraints)


def schema_of(constraints) -> dict:
    """The JSON schema of one parameter: its constraints' schemas, a None merged in where it reads simpler
    (``{type: [integer, "null"], minimum: 1}``, ``{enum: [a, b, null]}``), otherwise ``anyOf``."""
    constraints = [make_constraint(c) for c in constraints]
    nullable = any(isinstance(c, _NoneConstraint) for c in constraints)
    schemas = [c.schema() for c in constraints if not isinstance(c, _NoneConstraint)]
    if not schemas:
        return {"type": "null"}
    if len(schemas) > 1:
        return {"anyOf": schemas + ([{"type": "null"}] if nullable else [])}
    (out,) = schemas
    if nullable and "enum" in out:
        out = {**out, "enum": [*out["enum"], None]}
    elif nullable:
        out = {**out, "type": [out["type"], "null"]}
    return out


def params_schema(table: dict, defaults: dict, notes: dict | None = None) -> dict:
    """The JSON schema of a mapping of parameters: each parameter of ``table`` (and no other), described by its
    note and its default (no ``default`` keyword: the workflow's validator would fill it into the config)."""
    notes = notes or {}
    properties = {}
    for name, constraints in table.items():
        default = defaults.get(name)
        text = "required" if name not in defaults else f"default {default if isinstance(default, str) else json.dumps(default)}"
        properties[name] = {**schema_of(constraints),
                            "description": f"{notes[name]} ({text})" if name in notes else text}
    return {"type": "object", "additionalProperties": False, "properties": properties}
