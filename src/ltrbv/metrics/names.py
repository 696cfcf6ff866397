"""Metric names as users type them, normalised to this package's one spelling.

Accepted, case-insensitive, with surrounding spaces ignored:

============================  =========================================  =============
canonical (what outputs say)  also accepted                              kind, cutoff
============================  =========================================  =============
``ndcg@10``                   ``nDCG@10``, ``ndcg_cut_10``, ``ndcg_cut.10``  ndcg, 10
``ndcg``                      ``nDCG`` (untruncated)                      ndcg, None
``dcg@10``, ``dcg``           ``DCG@10``, ``dcg_cut_10``                  dcg
``err@10``, ``err``           ``ERR@10``, ``err_cut_10``                  err
``p@10``                      ``P@10``, ``P_10``, ``P.10``, ``precision@10``  p, 10
``map``                       ``MAP``, ``AP``                             ap, None
============================  =========================================  =============

The cutoff separators are ``@`` (ir_measures, this package), ``_cut_`` / ``_cut.`` (trec_eval's
``ndcg_cut_10`` and ``-m ndcg_cut.10``) and ``_`` / ``.`` (trec_eval's ``P_10`` and ``-m P.10``).
Parameters such as ir_measures' ``AP(rel=2)`` are a convention here (``letor4-mslr``), not part of
the name, and are refused like any unknown name.
"""

from __future__ import annotations

import difflib
import re

METRIC_KINDS = ("dcg", "ndcg", "err", "ap", "p")
_KIND_OF_WORD = {"dcg": "dcg", "ndcg": "ndcg", "err": "err", "ap": "ap", "map": "ap", "p": "p", "precision": "p"}
_NAME = re.compile(r"(?P<word>[a-z]+)(?:(?P<separator>@|_cut_|_cut\.|_|\.)(?P<cutoff>.*))?")
KNOWN_FORMS = ("ndcg@k, ndcg, dcg@k, dcg, err@k, err, map (or ap), p@k; also nDCG@10, ndcg_cut_10, "
               "P_10, P@10, AP, ERR@10")


def parse_metric(name: str) -> tuple[str, int | None]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; ``"ndcg"`` -> ``("ndcg", None)`` (untruncated);
    ``"map"``/``"AP"`` -> ``("ap", None)``; ``"ndcg_cut_10"``, ``"P_10"`` as trec_eval writes them.
    An unknown name raises ValueError naming it."""
    match = _NAME.fullmatch(str(name).strip().lower())
    kind = _KIND_OF_WORD.get(match["word"]) if match else None
    if kind is None:
        raise ValueError(f"unknown metric {name!r}{_did_you_mean(name)}; known: {KNOWN_FORMS}")
    cutoff = match["cutoff"]
    if cutoff is None:
        if kind == "p":
            raise ValueError(f"metric {name!r} needs a cutoff, e.g. 'p@10'; known: {KNOWN_FORMS}")
        return kind, None
    if kind == "ap":
        raise ValueError(f"metric {name!r}: AP/MAP takes no cutoff; known: {KNOWN_FORMS}")
    if not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"metric {name!r}: the cutoff must be a positive integer; known: {KNOWN_FORMS}")
    return kind, int(cutoff)


def _did_you_mean(name) -> str:
    """`` (did you mean 'ndcg@10'?)`` for a misspelt metric word such as ``ndgc@10``, else ``""``."""
    text = str(name).strip().lower()
    word = re.match(r"[a-z]*", text).group()
    close = difflib.get_close_matches(word, list(_KIND_OF_WORD), n=1, cutoff=0.75) if word else []
    return f" (did you mean {close[0] + text[len(word):]!r}?)" if close else ""


def canonical_metric(name: str) -> str:
    """The one spelling of a metric name used in every output: ``"nDCG@10"`` -> ``"ndcg@10"``,
    ``"P_10"`` -> ``"p@10"``, ``"AP"`` -> ``"map"``.  An unknown name raises ValueError naming it."""
    kind, cutoff = parse_metric(name)
    if kind == "ap":
        return "map"
    return kind if cutoff is None else f"{kind}@{cutoff}"


def canonical_metrics(names) -> list[str]:
    """:func:`canonical_metric` of each name of a list or a comma-separated string, duplicates dropped
    (``"nDCG@10, ndcg_cut_10, AP"`` -> ``["ndcg@10", "map"]``)."""
    if isinstance(names, str):
        names = names.split(",")
    canonical = [canonical_metric(name) for name in names if str(name).strip()]
    if not canonical:
        raise ValueError("no metric given")
    return list(dict.fromkeys(canonical))
