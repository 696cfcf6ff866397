"""Metric names, read in the namespace of a convention: a name means what the tool behind the convention means.

Two namespaces, so that no accepted name means two things:

* **trec_eval** (the ``trec_eval`` convention, the command line's default): the names of trec_eval and
  ir_measures, with their definitions (gain = the label, trec_eval's tie order, see
  :mod:`ltrbv.metrics.conventions`).  Written as ir_measures writes them (the canonical spelling):

  ===========================  =======================================================  ======================
  canonical                    also accepted                                            tool and definition
  ===========================  =======================================================  ======================
  ``nDCG@10``                  ``NDCG@10``, ``ndcg_cut.10``, ``ndcg_cut_10``            trec_eval ndcg_cut: gain = label
  ``nDCG``                     ``NDCG`` (trec_eval's ``ndcg``: see below)               trec_eval ndcg
  ``nDCG(dcg='exp-log2')@10``  (ranx's ``ndcg_burges@10``: see below)                   gdeval: gain 2^label-1
  ``AP``, ``AP@10``            ``MAP``, ``map``, ``map_cut.10``, ``map_cut_10``         trec_eval map, map_cut
  ``P@10``                     ``Precision@10``, ``P.10``, ``P_10``                     trec_eval P
  ``RR``, ``RR@10``            ``MRR``, ``recip_rank``                                  trec_eval recip_rank
  ``R@100``                    ``Recall@100``, ``recall.100``, ``recall_100``           trec_eval recall
  ``ERR@10``                                                                            gdeval: R = (2^l-1)/16
  ===========================  =======================================================  ======================

  ir_measures' parameters ``rel=N`` (AP, P, RR, R: relevant iff label >= N) and ``dcg='log2'|'exp-log2'``
  (nDCG) are accepted, e.g. ``AP(rel=2)``, ``P(rel=2)@10``; ``gains=`` and ``judged_only=True`` are refused.

* **LTR** (the conventions ``letor4``, ``letor4-mslr``, ``standard``, ``yahoo``; the workflow's): the LETOR
  evaluation scripts' names, lower case, gain ``2**label - 1``: ``ndcg@k``, ``ndcg``, ``dcg@k``, ``dcg``,
  ``err@k``, ``err``, ``map``, ``p@k``, ``rr``, ``rr@k``, ``r@k``.

A name of the other namespace is refused with the name to use: ``nDCG@10`` or ``ndcg_cut_10`` under ``letor4``
(trec_eval's linear-gain NDCG, not the LETOR one), ``ndcg@10`` under ``trec_eval`` (linear gain in ranx and
scikit-learn, ``2**label - 1`` in LETOR, XGBoost and LightGBM: ambiguous), and ``ndcg`` under ``trec_eval``
(trec_eval's name, but the LTR conventions' exponential-gain NDCG: write ``nDCG``).  ranx's names
(``ndcg_burges@10``, ``mrr``, ``precision@10``, ``recall@10``) are refused naming the ir_measures one.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

METRIC_KINDS = ("dcg", "ndcg", "err", "ap", "p", "rr", "r")
GAINS = {"exp": "2^label - 1", "linear": "label"}


@dataclass(frozen=True)
class MetricSpec:
    """What a metric name means: the measure (``kind``), its cutoff, its gain and its relevance threshold.

    ``rel=None`` means the convention's ``map_threshold``; ``namespace`` is ``"ltr"`` or ``"trec_eval"``."""

    name: str
    kind: str
    cutoff: int | None = None
    gain: str = "exp"
    rel: int | None = None
    namespace: str = "ltr"

    def describe(self, convention=None) -> str:
        """E.g. ``"nDCG@10 = trec_eval's ndcg_cut.10, gain = label"``; ``"ndcg@10: gain = 2^label - 1"``."""
        parts = [self.name + (f" = {TOOL_OF_KIND[(self.kind, self.gain)]}" if self.namespace == "trec_eval" else ":")]
        if self.kind in ("dcg", "ndcg", "err"):
            parts.append(f"gain = {GAINS[self.gain]}")
        if self.kind in ("ap", "p", "rr", "r"):
            if self.rel is None and convention is not None:
                from .conventions import get_convention

                parts.append(f"relevant iff label >= {get_convention(convention).map_threshold}")
            else:
                parts.append("relevant iff label >= " + (str(self.rel) if self.rel else "the convention's threshold"))
        head, rest = parts[0], ", ".join(parts[1:])
        return f"{head} {rest}" if head.endswith(":") else f"{head}, {rest}"


TOOL_OF_KIND = {("ndcg", "linear"): "trec_eval's ndcg / ndcg_cut", ("ndcg", "exp"): "gdeval's nDCG",
                ("err", "exp"): "gdeval's ERR (R = gain/16)", ("ap", "exp"): "trec_eval's map / map_cut",
                ("p", "exp"): "trec_eval's P", ("rr", "exp"): "trec_eval's recip_rank",
                ("r", "exp"): "trec_eval's recall"}

# -- the LTR namespace --------------------------------------------------------------------------

_LTR = re.compile(r"(?P<word>ndcg|dcg|err|rr|p|r|map)(?:@(?P<cutoff>[1-9][0-9]*))?")
_NEEDS_CUTOFF, _NO_CUTOFF = {"p", "r"}, {"map"}
LTR_FORMS = "ndcg@k, ndcg, dcg@k, dcg, err@k, err, map, p@k, rr, rr@k, r@k"
# the spellings this package accepted as LTR aliases before the namespaces (now refused naming the LTR name)
_OLD_ALIAS = re.compile(r"(?P<word>[a-z]+)(?:(?:@|_cut_|_cut\.|_|\.)(?P<cutoff>[1-9][0-9]*))?")
_OLD_WORDS = {"ndcg": "ndcg", "dcg": "dcg", "err": "err", "ap": "map", "map": "map", "p": "p", "precision": "p",
              "mrr": "rr", "recall": "r", "recip_rank": "rr"}


def _ltr_spec(name: str) -> MetricSpec | None:
    match = _LTR.fullmatch(name)
    if match is None:
        return None
    word, cutoff = match["word"], match["cutoff"]
    if (word in _NEEDS_CUTOFF and cutoff is None) or (word in _NO_CUTOFF and cutoff is not None):
        return None
    kind = "ap" if word == "map" else word
    return MetricSpec(name=name, kind=kind, cutoff=None if cutoff is None else int(cutoff))


def _ltr_name_of(spec: MetricSpec) -> str | None:
    """The LTR name of the same measure (gain aside), or None."""
    if spec.kind == "ap":
        return "map" if spec.cutoff is None else None
    word = spec.kind
    return word if spec.cutoff is None else f"{word}@{spec.cutoff}"


# -- the trec_eval namespace --------------------------------------------------------------------

_IRM = re.compile(r"(?P<word>[A-Za-z]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[0-9]+))?")
_IRM_WORDS = {"nDCG": "ndcg", "NDCG": "ndcg", "AP": "ap", "MAP": "ap", "P": "p", "Precision": "p", "RR": "rr",
              "MRR": "rr", "R": "r", "Recall": "r", "ERR": "err"}
_CANONICAL_WORD = {"ndcg": "nDCG", "ap": "AP", "p": "P", "rr": "RR", "r": "R", "err": "ERR"}
_TREC_EVAL = re.compile(r"(?P<word>ndcg_cut|map_cut|map|P|recip_rank|recall)(?:[._](?P<cutoff>[1-9][0-9]*))?")
_TREC_EVAL_WORDS = {"ndcg_cut": "ndcg", "map_cut": "ap", "map": "ap", "P": "p", "recip_rank": "rr", "recall": "r"}
_CUTOFF_REQUIRED = {"p", "r", "err"}
_RANX = re.compile(r"(?P<word>ndcg_burges|mrr|precision|recall)(?:@(?P<cutoff>[1-9][0-9]*))?")
TREC_FORMS = ("nDCG@k, nDCG, nDCG(dcg='exp-log2')@k, AP, AP@k, P@k, RR, RR@k, R@k, ERR@k, with rel=N for "
              "AP/P/RR/R (e.g. AP(rel=2)); trec_eval's ndcg_cut.k, map, P.k, recip_rank, recall.k")


def _trec_spec(word: str, kind: str, cutoff: int | None, params: dict) -> MetricSpec:
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"the cutoff must be a positive integer, got {cutoff}")
    if kind in _CUTOFF_REQUIRED and cutoff is None:
        raise ValueError(f"{_CANONICAL_WORD[kind]} needs a cutoff, e.g. {_CANONICAL_WORD[kind]}@10")
    gain, rel = "exp", None
    allowed = {"ndcg": {"dcg"}, "err": set()}.get(kind, {"rel"}) | {"judged_only"}
    for key, value in params.items():
        if key not in allowed:
            raise ValueError(f"parameter {key!r} of {word} is not supported here (supported: "
                             f"{', '.join(sorted(allowed))})")
        if key == "judged_only" and value is not False:
            raise ValueError("judged_only=True is not supported (unjudged documents count as not relevant)")
        if key == "dcg" and value not in ("log2", "exp-log2"):
            raise ValueError(f"dcg={value!r}: ir_measures' nDCG takes dcg='log2' or dcg='exp-log2'")
        if key == "rel" and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ValueError(f"rel={value!r}: the relevance threshold must be an integer >= 1")
    if kind == "ndcg":
        gain = "exp" if params.get("dcg") == "exp-log2" else "linear"
    if params.get("rel", 1) != 1:
        rel = params["rel"]
    shown = [f"dcg='exp-log2'"] if kind == "ndcg" and gain == "exp" else []
    shown += [f"rel={rel}"] if rel is not None else []
    name = _CANONICAL_WORD[kind] + (f"({', '.join(shown)})" if shown else "") + (f"@{cutoff}" if cutoff else "")
    return MetricSpec(name=name, kind=kind, cutoff=cutoff, gain=gain, rel=rel or 1, namespace="trec_eval")


def _parse_params(text: str | None) -> dict:
    if not text:
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if call.args:
            raise ValueError
        return {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    except (SyntaxError, ValueError, TypeError):
        raise ValueError(f"parameters ({text}) are not key=value pairs, e.g. AP(rel=2)") from None


def _trec_eval_spec(name: str) -> MetricSpec | None:
    """The measure of an ir_measures or trec_eval name, None if it is neither; ValueError for bad parameters."""
    match = _TREC_EVAL.fullmatch(name)
    if match and not (match["word"] in ("ndcg_cut", "map_cut", "P", "recall") and match["cutoff"] is None):
        kind = _TREC_EVAL_WORDS[match["word"]]
        cutoff = None if match["cutoff"] is None else int(match["cutoff"])
        if match["word"] == "map" and cutoff is not None:
            return None
        return _trec_spec(match["word"], kind, cutoff, {})
    match = _IRM.fullmatch(name)
    if match and match["word"] in _IRM_WORDS:
        cutoff = None if match["cutoff"] is None else int(match["cutoff"])
        return _trec_spec(match["word"], _IRM_WORDS[match["word"]], cutoff, _parse_params(match["params"]))
    return None


# -- reading a name -----------------------------------------------------------------------------

def _namespace(convention) -> tuple[str, str]:
    from .conventions import get_convention

    if convention is None:
        return "ltr", "LTR conventions'"
    convention = get_convention(convention)
    return convention.names, f"{convention.name} convention's"


def _refuse_in_ltr(name: str, convention_name: str) -> str:
    try:
        trec = _trec_eval_spec(name)
    except ValueError:
        trec = None
    lowered = _OLD_ALIAS.fullmatch(name.lower())
    ltr_name = None
    if lowered and lowered["word"] in _OLD_WORDS:
        word, cutoff = _OLD_WORDS[lowered["word"]], lowered["cutoff"]
        candidate = word if cutoff is None else f"{word}@{cutoff}"
        ltr_name = candidate if _ltr_spec(candidate) else None
    if trec is not None:
        ltr_name = ltr_name or _ltr_name_of(trec)
        exp = " (gain 2^label - 1)" if trec.kind in ("ndcg", "err") else ""
        hint = f"; the {convention_name} own measure is {ltr_name!r}{exp}" if _ltr_spec(ltr_name or "") else ""
        gain = f", gain {GAINS[trec.gain]}" if trec.kind in ("ndcg", "err") else ""
        return (f"metric {name!r} is trec_eval's / ir_measures' {trec.name}{gain}: it needs the trec_eval "
                f"convention{hint}")
    if ltr_name:
        return f"unknown metric {name!r} under the {convention_name} names; write {ltr_name!r}"
    return (f"unknown metric {name!r}{_did_you_mean(name, _LTR_SUGGESTIONS, _ltr_spec)}; known under the "
            f"{convention_name} names: {LTR_FORMS}")


def _refuse_in_trec_eval(name: str) -> str:
    ltr = _ltr_spec(name)
    ranx = _RANX.fullmatch(name)
    cutoff = f"@{ltr.cutoff}" if ltr and ltr.cutoff else ""
    if ranx:
        cutoff = f"@{ranx['cutoff']}" if ranx["cutoff"] else ""
        use = {"ndcg_burges": f"nDCG(dcg='exp-log2'){cutoff}", "mrr": f"RR{cutoff}", "precision": f"P{cutoff}",
               "recall": f"R{cutoff}"}[ranx["word"]]
        return f"metric {name!r} is ranx's name; under the trec_eval convention write {use!r}"
    if ltr is not None and ltr.kind == "ndcg":
        why = ("trec_eval's ndcg, but the LTR conventions' NDCG with gain 2^label - 1" if ltr.cutoff is None
               else "gain = label in ranx and scikit-learn, 2^label - 1 in LETOR, XGBoost, LightGBM and "
               "this package's LTR conventions")
        return (f"metric {name!r} is ambiguous ({why}); under the trec_eval convention write 'nDCG{cutoff}' "
                f"(gain = label, trec_eval's ndcg{'_cut' if cutoff else ''}) or \"nDCG(dcg='exp-log2'){cutoff}\" "
                "(gain 2^label - 1), or use an LTR convention (letor4, standard, ...) for "
                f"{name!r}")
    if ltr is not None and ltr.kind == "dcg":
        return (f"metric {name!r} is an LTR convention's (letor4, standard, ...); trec_eval and ir_measures "
                "have no unnormalised DCG")
    if ltr is not None:
        use = _CANONICAL_WORD[ltr.kind] + cutoff
        return (f"metric {name!r} is the LTR conventions' name; under the trec_eval convention write {use!r} "
                "(ir_measures' name)")
    return (f"unknown metric {name!r}{_did_you_mean(name, _TREC_SUGGESTIONS, _trec_eval_spec)}; known under the "
            f"trec_eval convention: {TREC_FORMS}")


_LTR_SUGGESTIONS = {word: word for word in ("ndcg", "dcg", "err", "rr", "p", "r", "map")}
_TREC_SUGGESTIONS = {word.lower(): _CANONICAL_WORD[kind] for word, kind in _IRM_WORDS.items()}


def _did_you_mean(name, words: dict[str, str], parses) -> str:
    """`` (did you mean 'ndcg@10'?)`` for a misspelt metric word such as ``ndgc@10`` (``words``: a lower-case
    word -> the spelling to suggest), if the suggestion is a name of the namespace (``parses``), else ``""``."""
    text = str(name).strip()
    word = re.match(r"[A-Za-z]*", text).group()
    close = difflib.get_close_matches(word.lower(), list(words), n=1, cutoff=0.75) if word else []
    if not close:
        return ""
    suggestion = words[close[0]] + text[len(word):]
    try:
        ok = parses(suggestion) is not None
    except ValueError:
        ok = False
    return f" (did you mean {suggestion!r}?)" if ok else ""


def parse_measure(name: str, convention=None) -> MetricSpec:
    """The :class:`MetricSpec` of ``name`` read in the namespace of ``convention`` (None: the LTR one, what
    the workflow's configs use).  A name of another namespace or an unknown one raises ValueError naming it
    and the name to use."""
    text = str(name).strip()
    namespace, convention_name = _namespace(convention)
    if namespace == "trec_eval":
        try:
            spec = _trec_eval_spec(text)
        except ValueError as error:
            raise ValueError(f"metric {name!r}: {error}") from None
        if spec is None or text == "ndcg":
            raise ValueError(_refuse_in_trec_eval(text))
        return spec
    spec = _ltr_spec(text)
    if spec is None:
        raise ValueError(_refuse_in_ltr(text, convention_name))
    return spec


def parse_metric(name: str, convention=None) -> tuple[str, int | None]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; ``"ndcg"`` -> ``("ndcg", None)`` (untruncated); ``"map"`` ->
    ``("ap", None)`` (the LTR namespace, or ``convention``'s).  An unknown name raises ValueError naming it."""
    spec = parse_measure(name, convention)
    return spec.kind, spec.cutoff


def canonical_metric(name: str, convention=None) -> str:
    """The one spelling of a metric name used in every output: ``" ndcg@10 "`` -> ``"ndcg@10"``; under the
    trec_eval convention ``"ndcg_cut_10"`` -> ``"nDCG@10"``, ``"map"`` -> ``"AP"``."""
    return parse_measure(name, convention).name


def canonical_metrics(names, convention=None) -> list[str]:
    """:func:`canonical_metric` of each name of a list or a comma-separated string, duplicates dropped
    (trec_eval convention: ``"nDCG@10, ndcg_cut_10, map"`` -> ``["nDCG@10", "AP"]``).  A comma inside
    parentheses (``"AP(rel=2, judged_only=False)"``) does not split."""
    given = names
    if isinstance(names, str):
        names = re.split(r",(?![^()]*\))", names)
    canonical = [canonical_metric(name, convention) for name in names if str(name).strip()]
    if not canonical:
        raise ValueError(f"{given!r} names no metric")
    return list(dict.fromkeys(canonical))


def default_metrics(convention=None) -> str:
    """The command line's default metrics under ``convention``: NDCG@10 and AP in its namespace."""
    return "nDCG@10,AP" if _namespace(convention)[0] == "trec_eval" else "ndcg@10,map"
