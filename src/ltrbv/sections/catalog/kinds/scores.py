"""``scores``: the validation scores of two (or more) sub-models of a bag, each trained on its own sample of the
training queries (rule ``train_bag_<n>`` or ``bag_submodel``), on the first fold (Ganjisaffar et al. 2011, Fig. 3): their
distributions and a two-sample Kolmogorov-Smirnov test (table and figure).

Claim: ``differ`` (the first two sub-models' score distributions differ: the test's p-value, in the family).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ....compare import claims as engine
from ....learners.bag import BAG_KIND
from ....tables import markdown_table
from ....workflow import paths
from ...core import grid as core_grid
from .. import claims
from ..entries import entry_job
from ..pages import claims_section, heading
from ..tables import Made

NAME = "scores"
FIGURE = True
#: the report's caption of its figure
CAPTION = ('Validation score distributions of sub-models of a bag, each trained on its own sample of the training '
           "queries (Ganjisaffar et al. 2011, Fig. 3): differing scales are why BL-MART normalises each sub-model's "
           'scores per query before averaging. ``results/{dataset}/catalog/<entry>.md`` has the quantiles and a two- '
           'sample Kolmogorov-Smirnov test.')
FIELDS = {
    "bag": {"description": "a learner of kind bag whose sub-models' validation scores are compared", "type": "string"},
    "submodels": {"description": "the sub-models compared (indices from 0; each trained on its own sample of the "
                                 "queries)", "type": "array", "items": {"type": "integer", "minimum": 0},
                  "minItems": 2, "uniqueItems": True, "default": [0, 1]},
}
REQUIRED = ("bag",)
CLAIMS = {"differ": ()}


def learners(config: dict, entry: dict) -> list[str]:
    return []


def problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    """A bag of the config with at least as many sub-models as the entry names."""
    bag = config["learners"].get(entry["bag"])
    if bag is None or bag["kind"] != BAG_KIND:
        return [f"{key}.bag {entry['bag']!r} is not a learner of kind {BAG_KIND!r} under learners"]
    n_models = int(bag["params"]["n_models"])
    return [f"{key}.submodels: {k} is not below the bag's n_models ({n_models})"
            for k in entry["submodels"] if k >= n_models]


def claim_problems(where: str, claim: dict, entry: dict, config: dict) -> list[str]:
    return []


def params(config: dict, dataset: str, entry: dict) -> dict:
    return {"bag": entry["bag"]}


def _first_run(config: dict, dataset: str) -> tuple[str, str]:
    """(fold, run) whose sub-models are compared: the bag's first training run (seed 1) on the first fold."""
    return config["datasets"][dataset]["folds"][0], paths.seed_run(1)


def files(config: dict, dataset: str, name: str, entry: dict) -> dict:
    """``{"scores": {"sub<k>": validation scores}, "data": validation split}``."""
    fold, run = _first_run(config, dataset)
    return {"scores": {f"sub{k}": paths.SUBMODEL.format(dataset=dataset, learner=entry["bag"], fold=fold, run=run,
                                                         k=k, file="vali.scores") for k in entry["submodels"]},
            "data": paths.parsed(dataset, fold, "vali")}


def benchmarks(config: dict, dataset: str, name: str, entry: dict) -> list[str]:
    """The jobs that trained the compared sub-models (the bag's run, all its sub-models, where they train in one job)
    and the entry's own."""
    fold, run = _first_run(config, dataset)
    return [*core_grid.bag_training_benchmarks(config, dataset, entry["bag"], fold, run, submodels=entry["submodels"]),
            paths.benchmark(entry_job(NAME)).format(dataset=dataset, entry=name)]


# -- the job ---------------------------------------------------------------------------------------------------


def score_distributions(scores: dict) -> pd.DataFrame:
    """One row per model of ``scores`` ({name: validation scores}): count, mean, std, quantiles; plus, on every
    row, the two-sample Kolmogorov-Smirnov statistic and p-value of the first two models' scores."""
    from scipy.stats import ks_2samp

    names = list(scores)
    test = ks_2samp(scores[names[0]], scores[names[1]])
    rows = []
    for name, values in scores.items():
        values = np.asarray(values, dtype=float)
        q = np.quantile(values, [0.0, 0.05, 0.5, 0.95, 1.0])
        rows.append({"model": name, "n": values.size, "mean": values.mean(), "std": values.std(ddof=1),
                     "min": q[0], "q05": q[1], "median": q[2], "q95": q[3], "max": q[4],
                     "ks_pair": f"{names[0]} vs {names[1]}", "ks_statistic": float(test.statistic),
                     "ks_p": float(test.pvalue)})
    return pd.DataFrame(rows)


def claim_row(claim: dict, table: pd.DataFrame) -> dict:
    """``differ``: the two-sample Kolmogorov-Smirnov test of the first two models."""
    a, b = table.iloc[0], table.iloc[1]
    measured = (f"{a['ks_pair']}: Kolmogorov-Smirnov D = {a['ks_statistic']:.3f}; means {a['mean']:.3g} vs "
                f"{b['mean']:.3g}, std {a['std']:.3g} vs {b['std']:.3g}")
    return claims.row(claim, measured, engine.tested_p(engine.DIFFER, float(a["ks_p"]), float(a["ks_statistic"])))


def markdown(table: pd.DataFrame, entry: dict, dataset: str, tests: pd.DataFrame) -> str:
    """Each sub-model's validation score distribution and the claims."""
    return "".join([
        heading(entry, dataset, f"Sub-models {', '.join(table['model'])} of `{entry['bag']}` (seed 1, first fold), "
                                "each trained on its own sample of the training queries; raw validation scores."),
        markdown_table(table, "{:.4g}"), claims_section(tests),
    ])


def plot(scores: dict, outputs, title: str = "") -> None:
    """Histograms (step outlines, common bins) of each model's validation scores (Ganjisaffar et al., Fig. 3)."""
    from ..figures import finish_single, plt

    values = {name: np.asarray(v, dtype=float) for name, v in scores.items()}
    everything = np.concatenate(list(values.values()))
    bins = np.linspace(everything.min(), everything.max(), 60)
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for i, (name, v) in enumerate(values.items()):
        ax.hist(v, bins=bins, histtype="step", linewidth=1.4, color=f"C{i}", label=name)
    ax.set_xlabel("validation score")
    ax.set_ylabel("documents")
    finish_single(fig, ax, title, outputs)


def make(files: dict, entry: dict, seed: int, dataset: str) -> Made:
    from ....data.cache import load_cache
    from ....io import read_scores
    from ....workflow.digests import verify_run_file

    vali = load_cache(files["data"])
    for path in files["scores"].values():
        verify_run_file(path, files["data"])
    scores = {name: read_scores(path, n_expected=vali.n_docs) for name, path in files["scores"].items()}
    table = score_distributions(scores)
    tests = claims.claim_tests(entry, lambda claim, claim_seed: claim_row(claim, table), seed)
    return Made(table, tests, markdown(table, entry, dataset, tests),
                lambda outputs: plot(scores, outputs, title=f"{dataset}: {entry['paper']}, {entry['artefact']}"))
