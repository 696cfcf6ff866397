"""Rule combine_bag: the bag's prediction files from its sub-models' (Ganjisaffar et al. 2011, §3.5.1)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

import numpy as np

from ltrbv.data.cache import load_cache
from ltrbv.io import read_scores, write_json, write_scores
from ltrbv.learners.bag import Bag
from ltrbv.provenance import package_versions, run_provenance
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    bag = Bag.from_spec(spec)
    for split in ("test", "vali"):
        data = load_cache(sm.input[split])
        paths = list(sm.input[f"{split}_scores"])
        matrix = np.array([data.from_file_order(read_scores(p, n_expected=data.n_docs)) for p in paths])
        scores = bag.combine_scores(matrix, data.query_offsets)
        write_scores(sm.output[split], data.to_file_order(scores))
        log.info("%s: combined %d sub-models (%s) over %d queries", split, len(paths), spec["combine"], data.n_queries)
    metas = [json.loads(Path(p).read_text()) for p in sm.input.metas]
    w = sm.wildcards
    write_json(sm.output.meta, {
        "learner": spec["name"],
        "kind": "bag",
        "params": spec,
        "run": sm.params.run,
        "replicate": sm.params.replicate,
        "dataset": w.dataset,
        "fold": w.fold,
        "n_models": len(metas),
        "combine": spec["combine"],
        "submodels": [str(p) for p in sm.input.test_scores],
        "submodel_random_states": [m["random_state"] for m in metas],
        "submodel_train_queries": [m["train_queries"] for m in metas],
        "submodel_trees_kept": [m.get("fit_info", {}).get("trees_kept") for m in metas],
        "fit_seconds_total": round(sum(m["fit_seconds"] for m in metas), 3),
        "versions": package_versions(),
        "provenance": run_provenance(),
    })
