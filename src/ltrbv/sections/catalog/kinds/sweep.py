"""``sweep``: one learner parameter over values.  Each (learner, value) is a generated learner
(``rf-point+min_samples_split-5``, :mod:`ltrbv.sections.catalog.generated`) trained like any other; the job
writes, per (learner, value), each metric over the pooled test queries of all folds (mean over seeds) with its
bootstrap interval over queries, and the seconds per tree (table and figure).

Claims: ``trend`` of a metric (the per-query change along the swept values, tested over queries), ``trend`` of
``seconds_per_tree`` and ``faster`` (timings, from the entry's dedicated timing job: described, not tests).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from ....biasvar.uncertainty import query_bootstrap_interval
from ....compare import claims as engine
from ....learners.bag import BAG_KIND
from ....seeding import derive_seed
from ....tables import markdown_table
from ....workflow.validation import sweep_problems
from .. import claims
from ..generated import bag_param_problems, learner_for, printed_alike, same_value
from ..pages import claims_section, heading, params_section
from ..tables import SECONDS_PER_TREE, Made, fit_seconds, per_query_values
from ..timing import describe, seconds_per_tree
from . import _trained

NAME = "sweep"
FIGURE = True
#: the report's caption of its figure
CAPTION = ("A sweep of the reproduction catalog (``results/{dataset}/catalog/<entry>.md`` names the paper's figure "
           'or table it mirrors): each metric over the pooled test queries of the folds against the swept parameter, '
           'with its 95% bootstrap interval over queries (shaded), and the training seconds per tree (last panel).')
FIELDS = {
    "learners": _trained.learners_field("the learners swept (names under learners:)"),
    "param": {"description": "the learner parameter swept", "type": "string"},
    "values": {"description": "its values", "type": "array", "minItems": 2, "uniqueItems": True},
    **_trained.RUN_FIELDS,
}
REQUIRED = ("learners", "param", "values")
CLAIMS = {"trend": ("learner", "direction"), "faster": ("learner", "at", "than_value")}


def sweep_learners(config: dict, entry: dict) -> dict:
    """``{learner: {value: trained learner}}``: a value gives the base learner itself at its own value, an identical
    learner of the config when there is one, and a generated learner otherwise (their files are shared)."""
    return {base: {value: learner_for(config, base, {entry["param"]: value}) for value in entry["values"]}
            for base in entry["learners"]}


def learners(config: dict, entry: dict) -> list[str]:
    return [name for by_value in sweep_learners(config, entry).values() for name in by_value.values()]


def generated(config: dict, entry: dict) -> list[tuple[str, dict]]:
    return [(base, {entry["param"]: value}) for base in entry["learners"] for value in entry["values"]]


def timed(config: dict, entry: dict) -> list[str]:
    """The learners its timing claims compare (its dedicated timing job fits them): a ``faster`` claim's two values,
    a ``trend`` of seconds per tree's every value."""
    mapping = sweep_learners(config, entry)
    out = []
    for claim in entry["claims"]:
        by_value = mapping[claim["learner"]]
        if claim["kind"] == "faster":
            out += [learner for value, learner in by_value.items()
                    if same_value(value, claim["at"]) or same_value(value, claim["than_value"])]
        elif claim["metric"] == SECONDS_PER_TREE:
            out += list(by_value.values())
    return list(dict.fromkeys(out))


def value_problems(config: dict, key: str, entry: dict) -> list[str]:
    """The swept parameter and values, checked by building each (learner, value) once (a bag: against the schema of
    a bag's parameters), naming the entry's key."""
    swept = [learner for learner in entry["learners"] if learner in config["learners"]]
    bags = [learner for learner in swept if config["learners"][learner]["kind"] == BAG_KIND]
    found = [problem.replace("biasvar.sweep", key) for problem in sweep_problems(
        config, [learner for learner in swept if learner not in bags], entry["param"], entry["values"])]
    for bag in bags:
        for value in entry["values"]:
            given = {**config["learners"][bag]["params"], entry["param"]: value}
            found += [f"{key}.values: {value!r} for bag {bag!r}: {problem}" for problem in bag_param_problems(given)]
    return found


def problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    return _trained.learner_problems(config, key, entry) + printed_alike(f"{key}.values", entry["values"])


def claim_problems(where: str, claim: dict, entry: dict, config: dict) -> list[str]:
    found = []
    if claim.get("learner") not in entry["learners"]:
        return [f"{where}.learner {claim.get('learner')!r} is not among the entry's learners {entry['learners']}"]
    if claim["kind"] == "trend":
        metrics = config.get("metrics", [])
        if claim["metric"] not in metrics + [SECONDS_PER_TREE]:
            found.append(f"{where}.metric {claim['metric']!r} is not in metrics {metrics} nor {SECONDS_PER_TREE!r}")
        return found
    for field in ("at", "than_value"):
        if not any(same_value(claim.get(field), v) for v in entry["values"]):
            found.append(f"{where}.{field} {claim.get(field)!r} is not among the entry's values {entry['values']}")
    paper = claim.get("paper")
    if paper is not None and (not isinstance(paper, (int, float)) or isinstance(paper, bool) or paper <= 0):
        found.append(f"{where}.paper: the paper's speed-up, a number > 0")
    return found


def params(config: dict, dataset: str, entry: dict) -> dict:
    return {"param": entry["param"], "values": entry["values"], "sweep": sweep_learners(config, entry)}


def files(config: dict, dataset: str, name: str, entry: dict) -> dict:
    """Its runs' scores, records and test splits, and its timing table when it has timing claims."""
    return _trained.timed_run_files(config, dataset, name, entry, learners(config, entry), timed(config, entry))


def benchmarks(config: dict, dataset: str, name: str, entry: dict) -> list[str]:
    return _trained.training_benchmarks(config, dataset, name, entry, learners(config, entry))


# -- the job ---------------------------------------------------------------------------------------------------


def sweep_table(per_query: pd.DataFrame, sweep: dict, seconds: pd.DataFrame, n_resamples: int = 1000,
                seed: int = 0) -> pd.DataFrame:
    """Per (learner, value, metric): the mean over the pooled test queries (mean over seeds per query) with its
    95% bootstrap interval over queries, the std of the fold means, the trained learner, seconds per model and
    per tree.  ``sweep``: ``{learner: {value: trained learner}}``."""
    rows = []
    per_seed_mean = per_query.groupby(["learner", "metric", "fold", "qid"], sort=False)["value"].mean()
    for learner, by_value in sweep.items():
        for value, trained in by_value.items():
            time = seconds[seconds["learner"] == trained]
            fit = float(time["fit_seconds"].mean())
            trees = time["trees"].astype(float)
            per_tree = float((time["fit_seconds"] / trees).mean()) if trees.notna().all() else np.nan
            for metric in dict.fromkeys(per_query["metric"]):
                values = per_seed_mean.loc[(trained, metric)].dropna()
                low, high = query_bootstrap_interval(values.to_numpy(), n_resamples=n_resamples, seed=seed)
                fold_means = values.groupby(level="fold").mean()
                rows.append({"learner": learner, "value": value, "trained": trained, "metric": metric,
                             "mean": float(values.mean()), "ci_low": low, "ci_high": high,
                             "std_over_folds": float(fold_means.std()) if len(fold_means) > 1 else np.nan,
                             "n_queries": int(values.size), "fit_seconds": fit, SECONDS_PER_TREE: per_tree})
    return pd.DataFrame(rows)


def claim_row(claim: dict, values: pd.Series, table: pd.DataFrame, sweep: dict, permutations: int, seed,
              timing: pd.DataFrame | None = None) -> dict:
    """A metric's ``trend`` tested over queries; timings, from the dedicated timing job (``timing``), described."""
    if claim["kind"] == "faster" or claim["metric"] == SECONDS_PER_TREE:
        per_learner = seconds_per_tree(timing)
        ordered = sorted(sweep[claim["learner"]].items(), key=lambda item: float(item[0]))
        per_value = {float(value): per_learner[learner][0] for value, learner in ordered if learner in per_learner}
        how = describe(timing[timing["learner"].isin([learner for _, learner in ordered])])
        if claim["kind"] == "faster":
            at, than = per_value[float(claim["at"])], per_value[float(claim["than_value"])]
            measured = (f"{claim['learner']}: {at:.3g} s per tree at {claim['at']} vs {than:.3g} s at "
                        f"{claim['than_value']} (speed-up {than / at:.2f}x; {how})")
            return claims.row(claim, measured, untested=engine.untested(engine.TIMING, at < than))
        from scipy.stats import spearmanr

        sign = 1 if claim["direction"] == "increasing" else -1
        x, y = np.array(list(per_value), dtype=float), np.array(list(per_value.values()), dtype=float)
        rho = float(spearmanr(x, y).statistic) if np.ptp(y) > 0 else 0.0
        measured = (f"seconds per tree from {y[0]:.4g} (at {x[0]:g}) to {y[-1]:.4g} (at {x[-1]:g}); Spearman rho "
                    f"{rho:+.2f} ({how})")
        return claims.row(claim, measured, untested=engine.untested(engine.TIMING, sign * rho > 0))
    sign = 1 if claim["direction"] == "increasing" else -1
    ordered = sorted(sweep[claim["learner"]].items(), key=lambda item: float(item[0]))
    metric = claim["metric"]
    columns = [values.loc[(trained, metric)].rename(str(value)) for value, trained in ordered]
    matrix = pd.concat(columns, axis=1, join="inner").dropna()
    tested = engine.trend_test(matrix.to_numpy(), sign, np.nan, permutations, seed)
    means = matrix.mean()
    measured = (f"{metric} of {claim['learner']} from {means.iloc[0]:.4f} (at {ordered[0][0]:g}) to "
                f"{means.iloc[-1]:.4f} (at {ordered[-1][0]:g}), {len(ordered)} values, {len(matrix)} queries; "
                f"estimate: the per-query fitted change first to last, {claim['direction']} positive")
    return claims.row(claim, measured, tested)


def markdown(table: pd.DataFrame, entry: dict, dataset: str, tests: pd.DataFrame) -> str:
    """Per learner and value, each metric with its interval, and the seconds per tree."""
    wide = []
    for (learner, value), rows in table.groupby(["learner", "value"], sort=False):
        row = {"learner": learner, entry["param"]: value}
        for r in rows.itertuples():
            row[r.metric] = f"{r.mean:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]"
        row["s/model"] = f"{rows['fit_seconds'].iloc[0]:.2f}"
        row["s/tree"] = f"{rows[SECONDS_PER_TREE].iloc[0]:.4f}"
        wide.append(row)
    return "".join([
        heading(entry, dataset),
        "Mean over the pooled test queries of the folds (each query's value averaged over seeds) with its 95% "
        "bootstrap interval over queries; training seconds per model and per tree, mean over folds and seeds.\n\n",
        markdown_table(pd.DataFrame(wide)), claims_section(tests), params_section(entry["learner_params"]),
    ])


def plot(table: pd.DataFrame, metrics: list[str], param: str, outputs, title: str = "") -> None:
    """One panel per metric (mean over the pooled test queries with its 95% interval over queries, one line
    per learner) and a last panel of the training seconds per tree (per model when a model does not count its
    trees, e.g. a bag); the x-axis is the swept ``param``."""
    from ..figures import plt, save_figure

    if table.empty:
        raise ValueError("no rows to plot")
    numeric = pd.api.types.is_numeric_dtype(table["value"])
    panels = len(metrics) + 1
    # seconds per tree when every model counts its trees (forests, boosting), else per model (e.g. bags)
    time_column = "seconds_per_tree" if table["seconds_per_tree"].notna().all() else "fit_seconds"
    fig, axes = plt.subplots(1, panels, figsize=(3.6 * panels, 3.4))
    for i, (learner, rows) in enumerate(table.groupby("learner", sort=False)):
        colour = f"C{i}"
        for ax, metric in zip(axes, metrics):
            m = rows[rows["metric"] == metric]
            x = m["value"] if numeric else range(len(m))
            ax.plot(x, m["mean"], marker="o", color=colour, label=learner)
            ax.fill_between(x, m["ci_low"], m["ci_high"], color=colour, alpha=0.15, linewidth=0)
            ax.set_ylabel(metric)
        t = rows.drop_duplicates("value")
        axes[-1].plot(t["value"] if numeric else range(len(t)), t[time_column], marker="o", color=colour,
                      label=learner)
    axes[-1].set_ylabel("training seconds per " + ("tree" if time_column == "seconds_per_tree" else "model"))
    values = table["value"].astype(float) if numeric else None
    wide_range = numeric and values.min() > 0 and values.max() / values.min() >= 20  # e.g. 100 ... 2000 trees
    for ax in axes:
        ax.set_xlabel(param + (" (log scale)" if wide_range else ""))
        ax.grid(alpha=0.3)
        if wide_range:
            ax.set_xscale("log")
        if not numeric:
            values = list(dict.fromkeys(table["value"]))
            ax.set_xticks(range(len(values)), [str(v) for v in values])
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(textwrap.fill(title, 40 * panels), fontsize=10)
    fig.tight_layout()
    save_figure(fig, outputs)


def make(files: dict, entry: dict, seed: int, dataset: str) -> Made:
    scores, data = _trained.read_scores(files["scores"], files["data"])
    per_query = per_query_values(scores, data, entry["metrics"], entry["convention"])
    table = sweep_table(per_query, entry["sweep"], fit_seconds(_trained.read_meta(files["meta"])),
                        seed=derive_seed(seed, dataset, entry["entry"]))
    values = claims.per_query_means(per_query, entry["convention"])
    timing = pd.read_csv(files["timing"]) if "timing" in files else None
    tests = claims.claim_tests(entry, lambda claim, claim_seed: claim_row(
        claim, values, table, entry["sweep"], entry["permutations"], claim_seed, timing), seed)
    title = f"{dataset}: {entry['paper']}, {entry['artefact']} ({entry['convention']})"
    return Made(table, tests, markdown(table, entry, dataset, tests),
                lambda outputs: plot(table, entry["metrics"], entry["param"], outputs, title=title))
