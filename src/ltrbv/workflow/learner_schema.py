"""The config schema's ``learners.<name>.params`` of each built-in learner kind, generated from its class's table.

``config/schema/core.schema.yaml`` ends with one definition per kind, ``$defs/<kind>_params``, below the line
:data:`MARKER`: each is :meth:`~ltrbv.estimator.RankerAPI.params_schema` of the kind's class (its
``_parameter_constraints``, its defaults and notes), so the file a user reads holds every parameter, its type,
range and default, and the class stays the one place they are declared.  After a change to a table::

    python -m ltrbv.workflow.learner_schema     # rewrites the definitions below the marker

``tests/test_learner_params.py`` checks that the file holds what this generates.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

MARKER = ("  # ---- generated from each learner class's _parameter_constraints (ltrbv.checks) by "
          "`python -m ltrbv.workflow.learner_schema`: do not edit below ----")
SCHEMA = Path(__file__).resolve().parents[3] / "config" / "schema" / "core.schema.yaml"


def definition_name(kind: str) -> str:
    """``$defs`` name of a kind's params (``xgboost`` -> ``xgboost_params``)."""
    return f"{kind}_params"


def table_kinds() -> dict:
    """``{kind: class}`` of the built-in kinds declared by a constraint table (not command/python: their own
    schemas are written in the file)."""
    from ..learners import LEARNER_KINDS

    return {kind: LEARNER_KINDS[kind] for kind in LEARNER_KINDS if hasattr(LEARNER_KINDS[kind], "params_schema")}


def generated_definitions() -> dict[str, dict]:
    """``{definition name: schema}`` of every table kind's params."""
    return {definition_name(kind): {"description": f"the parameters of kind {kind} (ltrbv.learners.{cls.__name__}); "
                                                   "random_state and n_threads come from the job",
                                    **cls.params_schema()}
            for kind, cls in table_kinds().items()}


def _flow(value) -> str:
    """``value`` as one line of YAML (a plain scalar without the end-of-document mark)."""
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10**6)
    return text.removesuffix("\n...\n").strip()


def render(definitions: dict[str, dict]) -> str:
    """The definitions as YAML under ``$defs`` (two spaces in), one line per parameter."""
    lines = []
    for name, schema in definitions.items():
        lines.append(f"  {name}:")
        for key, value in schema.items():
            if key == "properties":
                lines.append("    properties:")
                lines += [f"      {param}: {_flow(spec)}" for param, spec in value.items()]
            else:
                lines.append(f"    {key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def schema_text(text: str) -> str:
    """``text`` (the config schema) with everything below :data:`MARKER` generated anew."""
    if MARKER not in text:
        raise ValueError(f"the config schema has no line {MARKER.strip()!r} (the end of $defs) to generate below")
    return text[:text.index(MARKER) + len(MARKER)] + "\n" + render(generated_definitions())


def main(path: Path = SCHEMA) -> int:
    text = path.read_text(encoding="utf-8")
    new = schema_text(text)
    if new == text:
        print(f"{path}: up to date")
    else:
        path.write_text(new, encoding="utf-8")
        print(f"{path}: learner params regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
