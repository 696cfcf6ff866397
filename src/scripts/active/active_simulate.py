"""Rule active_simulate: one experiment on one partition (eq. 16/17, Algorithm 1, eq. 6)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.active.experiments import mixture, simulate
from ltrbv.active.pool import load_partition_and_pool
from ltrbv.io import atomic_path
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    w = sm.wildcards
    spec = sm.params.spec
    _, pool = load_partition_and_pool(sm.params.files, w.partition)
    loaded = {name: np.load(path) for name, path in sm.params.models.items()}
    for name, arrays in loaded.items():
        if not np.array_equal(arrays["query_offsets"], pool.query_offsets):
            raise ValueError(f"{sm.params.models[name]} was made for another pool; rerun active_train")
    scores = {name: arrays["scores"] for name, arrays in loaded.items()}
    label_probs = mixture([loaded[name]["label_probs"] for name in spec["label_models"]])
    table, distributions = simulate(spec, pool, scores, label_probs, sm.params.settings, sm.params.seed,
                                    (w.dataset, w.experiment, w.partition))
    table.insert(0, "partition", w.partition)
    table.insert(0, "experiment", w.experiment)
    with atomic_path(sm.output.table) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g")
    flat = {f"{measure}_{key}": value for measure, arrays in distributions.items() for key, value in arrays.items()}
    with atomic_path(sm.output.distributions) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **flat)
    last = table[table["budget"] == table["budget"].max()]
    log.info("at the largest budget:\n%s", last[["measure", "method", "truth", "abs_error", "selection_error",
                                                  "n_draws"]].to_string(index=False))
