"""Rule bag_size_table: Fig. 4 of Ganjisaffar et al. (2011) as a table (validation MAP against bag size)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np
import pandas as pd

from ltrbv.learners.bagging import bag_size_curve
from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path
from ltrbv.seeding import derive_seed
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    s = sm.params.settings
    dataset = sm.wildcards.dataset
    rows = []
    for fold, data_file in sm.params.data.items():
        data = load_cache(data_file)
        for learner in s["learners"]:
            paths = sm.params.pools[fold][learner]
            pool = np.array([read_run_scores(p, data, data_file) for p in paths])
            curve = bag_size_curve(pool, data.labels, data.query_offsets, s["sizes"], int(s["draws"]),
                                   derive_seed(sm.params.seed, dataset, "bag_size", learner, fold),
                                   metric=s["metric"], convention=s["convention"], method=s["combine"][learner])
            for m, values in curve.items():
                rows.append({"dataset": dataset, "learner": learner, "fold": fold, "n_models": m,
                             "split": s["split"], "metric": s["metric"], "convention": s["convention"],
                             "value": values.mean(), "std": values.std(ddof=1) if values.size > 1 else 0.0,
                             "draws": values.size, "pool_size": pool.shape[0]})
            log.info("%s %s: pool of %d, %d sizes x %d draws", learner, fold, pool.shape[0], len(curve), s["draws"])
    table = pd.DataFrame(rows)
    means = (table.groupby(["dataset", "learner", "n_models", "split", "metric", "convention"], sort=False)
             .agg(value=("value", "mean"), std=("std", "mean"), draws=("draws", "min"), pool_size=("pool_size", "min"))
             .reset_index())
    means["fold"] = "mean"
    table = pd.concat([table, means[table.columns]], ignore_index=True)
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.8g")
