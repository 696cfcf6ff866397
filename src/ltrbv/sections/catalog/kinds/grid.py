"""``grid``: a grid search (Ganjisaffar et al. 2011, Table 2): one learner over every combination of the values of
several parameters, each a generated learner.  The job ranks the combinations by validation metric (Table 3) and
gives the expected validation and test metric of the best of k combinations drawn at random, for each k of
``sizes`` (Fig. 1), exactly: the i-th by validation is chosen with probability C(n-1-i, k-1)/C(n, k), ties split
evenly (the paper estimates it from 10,000 draws).

Claims (descriptive: one curve, one best combination): ``overfits`` (the expected test metric of the best of k
peaks before the largest k) and ``best_below`` (the best combination by validation has ``param`` below ``value``).
"""

from __future__ import annotations

import itertools
import math
import textwrap

import numpy as np
import pandas as pd

from ....compare import claims as engine
from ....learners import LEARNER_KINDS, checked_learner
from ....learners.bag import BAG_KIND
from ....metrics.names import parse_metric
from ....tables import markdown_table
from ....workflow.validation import sweep_problems
from .. import claims
from ..entries import run_files, split_files
from ..generated import learner_for, printed_alike
from ..pages import claims_section, heading, params_section
from ..tables import Made, per_query_values
from . import _trained

NAME = "grid"
FIGURE = True
#: the report's caption of its figure
CAPTION = ("A grid search of the reproduction catalog (``results/{dataset}/catalog/<entry>.md`` names the paper's "
           'table and figure it mirrors, Ganjisaffar et al. 2011 Table 3 and Fig. 1): for k combinations of the grid '
           'drawn at random, the expected validation (left) and test (right) metric of the combination with the best '
           'validation value, computed exactly over all draws; the dotted line marks where the test curve peaks. A '
           'test curve that peaks before the largest k shows the search overfitting the validation sets.')
#: the metric a grid selects on (validation) and reports (test) by default: Ganjisaffar et al.'s
DEFAULT_METRIC = "ndcg@3"
#: the two parts of a grid entry's table
COMBINATION, BEST_OF_K = "combination", "best of k"
FIELDS = {
    "learners": _trained.learners_field("the one learner whose parameters are searched"),
    "grid": {"description": "the learner's parameters searched, each with its values (every combination is trained)",
             "type": "object", "minProperties": 1,
             "additionalProperties": {"type": "array", "minItems": 1, "uniqueItems": True}},
    "sizes": {"description": "numbers k of combinations drawn at random; for each, the expected validation and test "
                             "metric of the best of k by validation (Ganjisaffar et al. Fig. 1)",
              "type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "uniqueItems": True},
    "metric": {"description": "the metric combinations are selected on (validation) and reported on (test)",
               "type": "string", "default": DEFAULT_METRIC},
    **_trained.RUN_FIELDS,
}
REQUIRED = ("learners", "grid", "sizes")
CLAIMS = {"overfits": (), "best_below": ("param", "value")}


def combinations(entry: dict) -> list[dict]:
    """Every combination of the grid's values, ``{param: value}``, in the grid's order (last param fastest)."""
    grid = entry["grid"]
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


def grid_learners(config: dict, entry: dict) -> list[tuple[dict, str]]:
    """``[(combination, trained learner)]`` of the grid's one learner over every combination."""
    base = entry["learners"][0]
    return [(combination, learner_for(config, base, combination)) for combination in combinations(entry)]


def learners(config: dict, entry: dict) -> list[str]:
    return [name for _, name in grid_learners(config, entry)]


def generated(config: dict, entry: dict) -> list[tuple[str, dict]]:
    return [(entry["learners"][0], combination) for combination in combinations(entry)]


def value_problems(config: dict, key: str, entry: dict) -> list[str]:
    """The one built-in learner (not a bag), its parameters and values (each value, then each combination, builds
    the learner), its sizes (at most the number of combinations) and its metric."""
    learners_given = entry["learners"]
    if len(learners_given) != 1:
        return [f"{key}.learners: a grid searches one learner's parameters, got {learners_given}"]
    base = learners_given[0]
    if base not in config["learners"]:
        return []  # reported by problems()
    if config["learners"][base]["kind"] == BAG_KIND:
        return [f"{key}.learners: {base!r} is a bag; a grid searches a built-in learner's parameters"]
    found = []
    for param, values in entry["grid"].items():
        found += [problem.replace("biasvar.sweep.values", f"{key}.grid.{param}").replace("biasvar.sweep.param",
                                                                                          f"{key}.grid")
                  for problem in sweep_problems(config, [base], param, values)]
        found += printed_alike(f"{key}.grid.{param}", values)
    every = combinations(entry)
    if not found:
        cls = LEARNER_KINDS[config["learners"][base]["kind"]]
        for combination in every:
            try:
                checked_learner(cls, {**config["learners"][base].get("params", {}), **combination})
            except (TypeError, ValueError) as error:
                found.append(f"{key}.grid: the combination {combination} of learner {base!r}: {error}")
    found += [f"{key}.sizes: {size} is more than the grid's {len(every)} combinations"
              for size in entry["sizes"] if size > len(every)]
    try:
        parse_metric(entry["metric"])
    except ValueError as error:
        found.append(f"{key}.metric: {error}")
    return found


def problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    return _trained.learner_problems(config, key, entry)


def claim_problems(where: str, claim: dict, entry: dict, config: dict) -> list[str]:
    if claim["kind"] == "best_below" and claim.get("param") not in entry["grid"]:
        return [f"{where}.param {claim.get('param')!r} is not among the grid's parameters {list(entry['grid'])}"]
    return []


def params(config: dict, dataset: str, entry: dict) -> dict:
    base = entry["learners"][0]
    return {"grid": [{"learner": learner, "params": combination} for combination, learner in grid_learners(config, entry)],
            "grid_base": base, "grid_values": entry["grid"], "sizes": entry["sizes"], "grid_metric": entry["metric"]}


def files(config: dict, dataset: str, name: str, entry: dict) -> dict:
    """Its runs' test and validation scores and the folds' test and validation splits (the combinations are
    ranked on validation)."""
    trained = learners(config, entry)
    return {**_trained.test_run_files(config, dataset, entry, trained),
            "vali_scores": run_files(config, dataset, entry, trained, "vali.scores"),
            "vali_data": split_files(config, dataset, entry, "vali")}


def benchmarks(config: dict, dataset: str, name: str, entry: dict) -> list[str]:
    return _trained.training_benchmarks(config, dataset, name, entry, learners(config, entry))


# -- the job ---------------------------------------------------------------------------------------------------


def grid_table(validation: pd.DataFrame, test: pd.DataFrame, grid: list[dict], metric: str) -> pd.DataFrame:
    """Per combination (``grid``: ``[{"learner", "params"}]``): the mean over runs (folds x seeds) of the mean over
    queries of ``metric``, on validation and on test (``per_query_values`` tables), and its rank by validation (1:
    best; ties share the better rank)."""
    def run_means(per_query: pd.DataFrame) -> pd.Series:
        rows = per_query[per_query["metric"] == metric]
        return rows.groupby(["learner", "fold", "seed"])["value"].mean().groupby(level="learner").mean()

    valid, tested = run_means(validation), run_means(test)
    rows = [{"part": COMBINATION, "learner": g["learner"], **{f"param:{k}": v for k, v in g["params"].items()},
             "validation": float(valid[g["learner"]]), "test": float(tested[g["learner"]])} for g in grid]
    table = pd.DataFrame(rows)
    table["rank"] = table["validation"].rank(ascending=False, method="min").astype(int)
    return table


def best_of_k(validation: np.ndarray, test: np.ndarray, k: int) -> tuple[float, float]:
    """(E[validation], E[test]) of the combination with the best validation among k of n drawn uniformly without
    replacement; a tie for the best is broken uniformly at random.

    Sorted by validation (descending), the i-th (0-based) is the best of the draw when it is drawn and none of the
    i before it is: probability C(n - 1 - i, k - 1) / C(n, k).  Within a group of equal validation values each
    member is equally likely to be the one picked, so each takes the group's mean test value.
    """
    validation = np.asarray(validation, dtype=float)
    test = np.asarray(test, dtype=float)
    n = validation.size
    if not 1 <= k <= n:
        raise ValueError(f"k = {k} combinations of {n}")
    order = np.argsort(-validation, kind="stable")
    v, t = validation[order], test[order].copy()
    for level in np.unique(v):
        tied = v == level
        t[tied] = t[tied].mean()
    total = math.comb(n, k)
    p = np.array([math.comb(n - 1 - i, k - 1) / total for i in range(n)])
    return float(p @ v), float(p @ t)


def best_of_k_table(table: pd.DataFrame, sizes) -> pd.DataFrame:
    """The ``best of k`` rows: for each k of ``sizes``, the expected validation and test metric."""
    combined = table[table["part"] == COMBINATION]
    rows = []
    for k in sorted(sizes):
        v, t = best_of_k(combined["validation"].to_numpy(), combined["test"].to_numpy(), int(k))
        rows.append({"part": BEST_OF_K, "k": int(k), "validation": v, "test": t})
    return pd.DataFrame(rows)


def claim_row(claim: dict, table: pd.DataFrame) -> dict:
    """``overfits`` or ``best_below``: descriptive (one curve, one best combination)."""
    if claim["kind"] == "overfits":
        curve = table[table["part"] == BEST_OF_K].sort_values("k", kind="stable")
        peak = curve.loc[curve["test"].idxmax()]
        last, first = curve.iloc[-1], curve.iloc[0]
        measured = (f"expected test value of the best of k (by validation) peaks at {peak['test']:.4f} (k = "
                    f"{int(peak['k'])}) and is {last['test']:.4f} at k = {int(last['k'])}; validation "
                    f"{first['validation']:.4f} (k = {int(first['k'])}) to {last['validation']:.4f}")
        holds = int(peak["k"]) < int(last["k"]) and last["test"] < peak["test"]
        return claims.row(claim, measured, untested=engine.untested(engine.DESCRIPTIVE, holds))
    ranked = table[table["part"] == COMBINATION].sort_values("rank", kind="stable")
    best = ranked.iloc[0]
    values = {c.split(":", 1)[1]: best[c] for c in ranked.columns if c.startswith("param:")}
    value = float(values[claim["param"]])
    measured = (f"best by validation: {', '.join(f'{k} {v:g}' for k, v in values.items())} (validation "
                f"{best['validation']:.4f}, test {best['test']:.4f}); {claim['param']} {value:g} vs bound "
                f"{claim['value']:g}")
    return claims.row(claim, measured, untested=engine.untested(engine.DESCRIPTIVE, value < float(claim["value"])))


def markdown(table: pd.DataFrame, entry: dict, dataset: str, base_params: dict, tests: pd.DataFrame,
             top: int = 10) -> str:
    """The best combinations by validation (Table 3) and the best of k (Fig. 1)."""
    ranked = table[table["part"] == COMBINATION].sort_values("rank", kind="stable")
    columns = [c for c in ranked.columns if c.startswith("param:")]
    best = ranked.head(top)[["rank", *columns, "validation", "test", "learner"]].rename(
        columns={c: c.split(":", 1)[1] for c in columns})
    best["rank"] = best["rank"].astype(int)
    for c in columns:  # a grid's values as given (the CSV holds them as numbers, next to the curve's empty cells)
        best[c.split(":", 1)[1]] = [f"{v:g}" if isinstance(v, float) else str(v) for v in best[c.split(":", 1)[1]]]
    curve = table[table["part"] == BEST_OF_K][["k", "validation", "test"]].astype({"k": int})
    metric = entry["grid_metric"]
    return "".join([
        heading(entry, dataset),
        f"{len(ranked)} combinations of {', '.join(entry['grid'][0]['params'])} "
        f"({' x '.join(str(ranked[c].nunique()) for c in columns)}); each trained on every fold with the "
        f"entry's seeds. `{metric}` is the mean over folds and seeds of the mean over queries.\n\n",
        f"## The best {min(top, len(ranked))} combinations by validation {metric} (Table 3)\n\n",
        markdown_table(best),
        f"\n\n## Best of k combinations drawn at random (Fig. 1)\n\nThe expected validation and test {metric} of "
        "the combination with the best validation value among k drawn uniformly without replacement, computed "
        "exactly over all draws (the paper averages 10,000 random draws).\n\n",
        markdown_table(curve), claims_section(tests), params_section(base_params),
    ])


def plot(curve: pd.DataFrame, metric: str, outputs, title: str = "") -> None:
    """Ganjisaffar et al.'s Fig. 1: the expected validation (left) and test (right) metric of the best of k
    combinations by validation, against k (log scale); the test panel marks its peak."""
    from ..figures import plt, save_figure

    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.4))
    for ax, split, colour in zip(axes, ("validation", "test"), ("C0", "C1")):
        ax.plot(curve["k"], curve[split], marker="o", color=colour)
        ax.set_xscale("log")
        ax.set_xticks(curve["k"], [str(int(k)) for k in curve["k"]])
        ax.minorticks_off()
        ax.set_xlabel("combinations tried, k (log scale)")
        ax.set_ylabel(f"{split} {metric}, best of k by validation")
        ax.grid(alpha=0.3)
    peak = curve.loc[curve["test"].idxmax()]
    axes[1].axvline(peak["k"], color="grey", linestyle=":", label=f"test peak at k = {int(peak['k'])}")
    axes[1].legend(fontsize=8)
    if title:
        fig.suptitle(textwrap.fill(title, 80), fontsize=10)
    fig.tight_layout()
    save_figure(fig, outputs)


def make(files: dict, entry: dict, seed: int, dataset: str) -> Made:
    metric = [entry["grid_metric"]]
    test = per_query_values(*_trained.read_scores(files["scores"], files["data"]), metric, entry["convention"])
    vali = per_query_values(*_trained.read_scores(files["vali_scores"], files["vali_data"]), metric,
                            entry["convention"])
    ranked = grid_table(vali, test, entry["grid"], entry["grid_metric"])
    curve = best_of_k_table(ranked, entry["sizes"])
    table = pd.concat([ranked, curve], ignore_index=True)
    tests = claims.claim_tests(entry, lambda claim, claim_seed: claim_row(claim, table), seed)
    base = entry["grid_base"]
    page = markdown(table, entry, dataset, {base: {**entry["learner_params"][base], "grid": entry["grid_values"]}},
                    tests)
    title = f"{dataset}: {entry['paper']}, {entry['artefact']} ({entry['convention']})"
    return Made(table, tests, page, lambda outputs: plot(curve, entry["grid_metric"], outputs, title=title))
