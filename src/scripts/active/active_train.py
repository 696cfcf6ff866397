"""Rule active_train: one relevance model / ranking function on a partition, scores for the pool (§5)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.active.models import train_model, training_halves
from ltrbv.active.pool import load_partition_and_pool
from ltrbv.io import atomic_path
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    w = sm.wildcards
    partition, pool = load_partition_and_pool(sm.params.files, w.partition)
    train, valid = training_halves(partition, sm.params.train_fraction, sm.params.split_seed)
    log.info("partition %s: %d training, %d validation queries; pool %d queries, %d documents",
             w.partition, train.n_queries, valid.n_queries, pool.n_queries, pool.n_docs)
    model = train_model(sm.params.spec, train, valid, pool, sm.params.n_labels, sm.params.random_state,
                        sm.threads, sm.params.min_label_prob)
    log.info("model %s: %s", w.model, model["info"])
    arrays = {"scores": model["scores"], "qids": pool.qids.astype(str), "query_offsets": pool.query_offsets}
    if model["label_probs"] is not None:
        arrays["label_probs"] = model["label_probs"]
    with atomic_path(sm.output[0]) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **arrays)
