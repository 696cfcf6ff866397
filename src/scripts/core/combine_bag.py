"""Rule combine_bag: the bag's prediction files from its sub-models' (Ganjisaffar et al. 2011, §3.5.1)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.data.cache import load_cache
from ltrbv.io import write_json, write_scores
from ltrbv.learners.bag import Bag
from ltrbv.provenance import package_versions, run_provenance
from ltrbv.workflow.digests import DIGESTS, read_run_scores, run_digests
from ltrbv.workflow.logs import rule_log
from ltrbv.workflow.run_files import publishing

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    bag = Bag.from_spec(spec)
    combined = {}
    for split in ("test", "vali"):
        data = load_cache(sm.input[split])
        paths = list(sm.input[f"{split}_scores"])
        matrix = np.array([read_run_scores(p, data, sm.input[split]) for p in paths])
        combined[split] = data.to_file_order(bag.combine_scores(matrix, data.query_offsets))
        log.info("%s: combined %d sub-models (%s) over %d queries", split, len(paths), spec["combine"], data.n_queries)
    metas = [json.loads(Path(p).read_text()) for p in sm.input.metas]
    w = sm.wildcards
    with publishing(sm.output.test, sm.output.vali, sm.output.meta) as (test_tmp, vali_tmp, meta_tmp):
        write_scores(test_tmp, combined["test"])
        write_scores(vali_tmp, combined["vali"])
        digests = run_digests({Path(sm.output.test).name: test_tmp, Path(sm.output.vali).name: vali_tmp},
                              {split: sm.input[split] for split in ("test", "vali")})
        write_json(meta_tmp, {
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
            DIGESTS: digests,
            "versions": package_versions(),
            "provenance": run_provenance(),
        })
