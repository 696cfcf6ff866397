"""The validation measure of a learner: this package's metric name under a named convention."""

from __future__ import annotations

from ..checks import ParameterError, StrOptions


def validation_conventions() -> tuple[str, ...]:
    """The conventions a learner validates in: the LTR ones (trec_eval's orders tied scores by document id, which
    a learner's validation data does not carry)."""
    from ..metrics import CONVENTIONS

    return tuple(name for name, convention in CONVENTIONS.items() if convention.names != "trec_eval")


#: the constraint of ``eval_convention`` (the registry is read when first needed: ltrbv.metrics compiles kernels)
EVAL_CONVENTION = StrOptions(validation_conventions)


def check_validation_metric(metric, convention) -> None:
    """Raise ``ParameterError`` (a ValueError) naming ``eval_metric`` or ``eval_convention`` when either is not a
    known one."""
    from ..metrics import get_convention, parse_metric

    for name, value, check in (("eval_convention", convention, get_convention),
                               ("eval_metric", metric, lambda value: parse_metric(value, convention))):
        try:
            check(value)
        except (ValueError, TypeError) as error:
            raise ParameterError(f"{name}: {error}", name) from None
    if get_convention(convention).names == "trec_eval":
        raise ParameterError("eval_convention: the trec_eval convention orders tied scores by document id, which a "
                             "learner's validation data does not carry; use an LTR convention (letor4, standard, "
                             "...)", "eval_convention")
