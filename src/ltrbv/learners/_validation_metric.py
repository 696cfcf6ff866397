"""The check of a learner's validation measure: this package's metric name under a named convention."""

from __future__ import annotations


def check_validation_metric(metric, convention) -> None:
    """Raise ``ValueError`` naming ``eval_metric`` or ``eval_convention`` when either is not a known one."""
    from ..metrics import get_convention, parse_metric

    for name, value, check in (("eval_convention", convention, get_convention),
                               ("eval_metric", metric, lambda value: parse_metric(value, convention))):
        try:
            check(value)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{name}: {error}") from None
    if get_convention(convention).names == "trec_eval":
        raise ValueError("eval_convention: the trec_eval convention orders tied scores by document id, which a "
                         "learner's validation data does not carry; use an LTR convention (letor4, standard, ...)")
