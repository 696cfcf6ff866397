"""Rule reduce_biasvar: one run's B (bootstrap) or 2J (two-fold) test prediction files -> bias-variance estimates.

Pointwise bias² and variance of the scores (Ibrahim 2021, eq. 5-8), systematic ranking error and
variability (eq. 14-17), ranking error, the rejected VRE variants, and a bootstrap-over-test-queries
confidence interval for each (:func:`ltrbv.biasvar.decompose`).  Writes the summary (JSON) and the
per-query values (CSV), so one can see which queries drive VRE.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.biasvar import decompose
from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path, write_json
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    data = load_cache(sm.input.test)
    paths = list(sm.input.scores)
    scores = np.array([read_run_scores(p, data, sm.input.test) for p in paths])
    result = decompose(data, scores, sm.wildcards.scheme, metrics=tuple(sm.params.metrics),
                       convention=sm.params.convention, n_resamples=sm.params.uncertainty["resamples"],
                       level=sm.params.uncertainty["level"], seed=sm.params.seed)
    w = sm.wildcards
    write_json(sm.output.summary, {
        "dataset": w.dataset, "learner": w.learner, "fold": w.fold, "setting": w.setting, "scheme": w.scheme,
        "convention": sm.params.convention, "prediction_files": paths, "ci_seed": sm.params.seed,
        **result.summary,
    })
    with atomic_path(sm.output.per_query) as tmp:
        result.per_query.to_csv(tmp, index=False, float_format="%.10g")
    log.info("%s %s %s %s: %d models, bias2 %.5f, variance %.5f", w.learner, w.fold, w.setting, w.scheme,
             len(paths), result.summary["bias2"], result.summary["variance"])
