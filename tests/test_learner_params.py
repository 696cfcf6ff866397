"""A learner's parameters are declared once (issue 27, item 3): its class's ``_parameter_constraints`` table.

The table checks the estimator (``_validate_params``, called by ``fit``) and the workflow's config (the generated
schema branch ``$defs/<kind>_params``, then the learner built once), so a bad value of any parameter of any kind
is refused before any job, named by its key ``learners.<name>.params.<param>``.  The cases are made by walking the
tables (no list of parameters here): for each constraint, values just outside it by construction (a bound, the
wrong type, a bool for an int, 10.5 and 500.0 for an int, NaN and infinities, an option misspelt, a list with a
bad or repeated item), kept when no other constraint of the parameter admits them (judged here, not by
``ltrbv.checks``)."""

from __future__ import annotations

import copy
import dataclasses
import math
from numbers import Integral

import numpy as np
import pytest
import yaml

from conftest import REPO, tiny_config
from ltrbv.checks import Interval, ListOf, Options, ParameterError, RealNotInt, make_constraint
from ltrbv.learners import RUN_PARAMETERS
from ltrbv.workflow.config_checks import ConfigError, check_config
from ltrbv.workflow.learner_schema import SCHEMA, definition_name, schema_text, table_kinds

KINDS = table_kinds()
SPECIALS = [True, False, None, math.nan, math.inf, -math.inf, "1", [], {}]


def params_of(cls) -> dict:
    """A class's config parameters and their constraints (the table but the run parameters)."""
    return {name: constraints for name, constraints in cls._parameter_constraints.items() if name not in RUN_PARAMETERS}


# -- the judge: is a value inside one constraint? (the test's own reading of the declaration) ----------------------

def inside(constraint, value) -> bool:
    constraint = make_constraint(constraint)
    kind = type(constraint).__name__
    if kind == "_NoneConstraint":
        return value is None
    if kind == "_Boolean":
        return type(value) is bool
    if kind == "InstanceOf":
        return type(value) is constraint.kind
    if isinstance(constraint, Interval):
        if type(value) is int:
            right_type = constraint.kind is not RealNotInt
        elif type(value) is float:
            right_type = constraint.kind is not Integral and math.isfinite(value)
        else:
            right_type = False
        low, high = constraint.left, constraint.right
        return (right_type and (low is None or (value >= low if constraint.left_closed else value > low))
                and (high is None or (value <= high if constraint.right_closed else value < high)))
    if isinstance(constraint, Options):
        wanted = str if constraint.kind is str else int
        return type(value) is wanted and value in constraint.options
    if isinstance(constraint, ListOf):
        return (type(value) is list and len(value) >= constraint.min_items
                and all(inside(constraint.item, v) for v in value)
                and (not constraint.unique or len(set(value)) == len(value)))
    raise AssertionError(f"no judge for {constraint!r}")


def outside_values(constraint) -> list:
    """Values outside ``constraint`` by construction (YAML can give each of them)."""
    constraint = make_constraint(constraint)
    values = list(SPECIALS)
    if isinstance(constraint, Interval):
        low, high, integral = constraint.left, constraint.right, constraint.kind is Integral
        step = 1 if integral else 0.5
        if low is not None:
            values.append(low - step if constraint.left_closed else low)
        if high is not None:
            values.append(high + step if constraint.right_closed else high)
        if integral:  # an integral float (500.0) is not an integer either
            values += [10.5, float(low + 1 if low is not None else 1)]
        else:  # far outside
            values += ([-1e300] if low is not None else []) + ([1e300] if high is not None else [])
    elif isinstance(constraint, Options):
        for option in constraint.options:
            values += [option + "x", option.upper() + "_"] if isinstance(option, str) else [option - 1, float(option)]
        values.append(1)
    elif isinstance(constraint, ListOf):
        values += [[], [0.1, 0.1], "0.1"]
        values += [[0.1, bad] for bad in outside_values(constraint.item) if not isinstance(bad, (list, dict))]
    else:  # boolean, a type
        values += [1, 0, "true", 1.5]
    return values


def bad_cases(cls) -> list[tuple[str, object]]:
    cases = []
    for param, constraints in params_of(cls).items():
        seen = []
        for constraint in constraints:
            for value in outside_values(constraint):
                if not any(inside(c, value) for c in constraints) and not any(_same(value, s) for s in seen):
                    seen.append(value)
        cases += [(param, value) for value in seen]
    return cases


def _same(a, b) -> bool:
    return type(a) is type(b) and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))


CASES = [(kind, param, value) for kind, cls in KINDS.items() for param, value in bad_cases(cls)]
IDS = [f"{kind}-{param}-{value!r}" for kind, param, value in CASES]


def test_every_kind_and_parameter_has_bad_cases():
    """The walk covers every parameter of every table kind with several kinds of bad value."""
    assert set(KINDS) == {"xgboost", "lightgbm", "random_forest", "ranking-svm"}
    for kind, cls in KINDS.items():
        for param, constraints in params_of(cls).items():
            values = [value for k, p, value in CASES if (k, p) == (kind, param)]
            assert len(values) >= 5, (kind, param, values)
            if any(isinstance(make_constraint(c), Interval) and make_constraint(c).kind is Integral for c in constraints):
                assert any(v == 10.5 for v in values) and any(v is True for v in values), (kind, param)
                assert any(type(v) is float and v.is_integer() for v in values), (kind, param)
            if any(isinstance(make_constraint(c), Interval) for c in constraints):
                assert any(type(v) is float and math.isnan(v) for v in values), (kind, param)
                assert any(v == math.inf for v in values if type(v) is float), (kind, param)
    assert len(CASES) >= 400, len(CASES)


# -- refused by the estimator ----------------------------------------------------------------------------------

def tiny_arrays():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 6)
    X = rng.random((qid.size, 4)).astype(np.float32)
    y = (X[:, 0] * 3).astype(int)
    return X, y, qid


@pytest.mark.parametrize(("kind", "param", "value"), CASES, ids=IDS)
def test_the_estimator_refuses_a_bad_value_naming_it(kind, param, value):
    learner = KINDS[kind](**{param: value})  # stored unchanged, as scikit-learn's clone expects
    with pytest.raises(ParameterError, match=rf"^{param} must be ") as caught:
        learner._validate_params()
    assert caught.value.param == param
    X, y, qid = tiny_arrays()
    with pytest.raises(ParameterError, match=rf"^{param} must be "):
        learner.fit(X, y, qid=qid)  # refused before any training


# -- refused by the workflow's config check, before any job -----------------------------------------------------

def checked(learners: dict) -> list[str]:
    config = copy.deepcopy(tiny_config(learners=learners))
    try:
        check_config(config)
    except ConfigError as error:
        return error.problems
    return []


def _schema_passes(kind: str, param: str, value) -> bool:
    import jsonschema

    return jsonschema.Draft202012Validator(KINDS[kind].params_schema()).is_valid({param: value})


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stage", ["schema", "after the schema"])
def test_the_config_check_refuses_every_bad_value_naming_its_key(kind, stage):
    """One learner entry per case, in one config per kind and stage (the check stops at the first stage that
    finds a problem): every entry has its line, keyed ``learners.<entry>.params.<param>``, and no line is
    about anything else."""
    cases = [(param, value) for k, param, value in CASES
             if k == kind and _schema_passes(kind, param, value) == (stage != "schema")]
    assert cases or stage != "schema"
    if not cases:
        return
    learners = {f"e{i}": {"kind": kind, "params": {param: value}} for i, (param, value) in enumerate(cases)}
    problems = checked(learners)
    keys = {f"learners.e{i}.params.{param}": (param, value) for i, (param, value) in enumerate(cases)}

    def key_of(problem):
        head = problem.split(":", 1)[0].split("[", 1)[0]
        return head if head in keys else None

    missing = [keys[key] for key in keys if not any(key_of(p) == key for p in problems)]
    assert not missing, f"{len(missing)} of {len(cases)} bad values not refused by name: {missing[:10]}"
    assert all(key_of(p) for p in problems), [p for p in problems if not key_of(p)]


@pytest.mark.parametrize("kind", KINDS)
def test_every_parameter_of_a_bag_base_is_checked_with_its_key(kind):
    """A bag's ``base_params`` override its base's params: each value is checked by the base's table too."""
    for param in params_of(KINDS[kind]):
        param_, value = next((p, v) for k, p, v in CASES if (k, p) == (kind, param))
        learners = {"base": {"kind": kind, "params": {}},
                    "bag": {"kind": "bag", "params": {"base": "base", "base_params": {param_: value}}}}
        problems = checked(learners)
        key = f"learners.bag.params.base_params.{param}:"
        assert len(problems) == 1 and problems[0].startswith(key), (param, value, problems)


@pytest.mark.parametrize("kind", KINDS)
def test_the_defaults_and_the_bounds_are_accepted(kind):
    """The other side: every default passes, and so does each closed bound of an interval."""
    cls = KINDS[kind]
    cls()._validate_params()
    for param, constraints in params_of(cls).items():
        for constraint in map(make_constraint, constraints):
            if isinstance(constraint, Interval):
                for bound, closed in ((constraint.left, constraint.left_closed),
                                      (constraint.right, constraint.right_closed)):
                    if bound is not None and closed and not (kind == "xgboost" and param in ("max_depth", "max_leaves")
                                                             and bound == 0):
                        cls(**{param: bound})._validate_params()
    ok = {"xgboost": {"n_estimators": 10, "subsample": 1, "overfit_tolerance": 0.0, "eval_convention": "letor4"},
          "lightgbm": {"max_depth": -1, "eval_convention": None}, "random_forest": {"max_features": 1.0},
          "ranking-svm": {"C": [0.1, 1]}}[kind]
    assert checked({"good": {"kind": kind, "params": ok}}) == []


# -- the table is the class's whole declaration --------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_every_field_has_a_constraint_and_every_constraint_a_field(kind):
    cls = KINDS[kind]
    fields = [f.name for f in dataclasses.fields(cls) if f.init]
    assert set(fields) - set(RUN_PARAMETERS) == set(params_of(cls))
    assert set(fields) >= set(RUN_PARAMETERS)  # the job's seed and threads, checked by the shared table
    assert set(cls._parameter_notes) <= set(params_of(cls))
    assert list(params_of(cls)) == [name for name in fields if name in params_of(cls)]  # in the fields' order


# -- the schema a user reads is the tables' ----------------------------------------------------------------------

def test_the_config_schema_holds_the_generated_learner_params():
    """config/schema/core.schema.yaml ends with what `python -m ltrbv.workflow.learner_schema` generates."""
    text = SCHEMA.read_text(encoding="utf-8")
    assert schema_text(text) == text, "run: python -m ltrbv.workflow.learner_schema"


def test_every_kind_has_its_params_schema():
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    entry = schema["properties"]["learners"]["additionalProperties"]
    branches = {branch["if"]["properties"]["kind"]["const"]: branch["then"]["properties"]["params"]
                for branch in entry["allOf"]}
    assert set(branches) == set(entry["properties"]["kind"]["enum"])
    for kind, cls in KINDS.items():
        assert branches[kind] == {"$ref": f"#/$defs/{definition_name(kind)}"}
        assert schema["$defs"][definition_name(kind)]["properties"] == cls.params_schema()["properties"]
    for kind, params in branches.items():  # no built-in kind's params are a bare object
        params = schema["$defs"][params["$ref"].rsplit("/", 1)[1]] if "$ref" in params else params
        if kind == "external":
            assert "free" in params["description"]
        else:
            assert params.get("additionalProperties") is False and params["properties"], kind
    assert "lambdamart_params" not in schema["$defs"]


def test_the_schema_is_the_table_on_every_value():
    """jsonschema on the generated branch agrees with the table on every case, except 500.0 for an integer (JSON
    Schema calls 500.0 an integer) and non-finite numbers (JSON Schema has none): those the config check refuses
    after the schema, by the table and by its finite-number check."""
    import jsonschema

    for kind, cls in KINDS.items():
        validator = jsonschema.Draft202012Validator(cls.params_schema())
        for k, param, value in CASES:
            if k != kind:
                continue
            if validator.is_valid({param: value}):
                assert _integral_float_or_non_finite(value), (kind, param, value)
        defaults = {name: list(value) if isinstance(value, tuple) else value
                    for name, value in cls().get_params().items() if name not in RUN_PARAMETERS}
        validator.validate(defaults)


def _integral_float_or_non_finite(value) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value) or value.is_integer()
    if isinstance(value, list):
        return any(_integral_float_or_non_finite(v) for v in value)
    return False
