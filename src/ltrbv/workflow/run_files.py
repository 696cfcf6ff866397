"""A training run's files, as the core run's training rules write them (train_model, train_trial, bag_submodel)."""

from __future__ import annotations

from ..io import write_json, write_scores
from ..provenance import package_versions, run_provenance


def write_run(output, test, vali, scores, meta: dict, fit_seconds: float, learner) -> None:
    """``output.test`` / ``output.vali``: the two score files in file order; ``output.meta``: ``meta`` (the run's
    own keys, in order), then the fit time, the learner's ``fit_info_``, the package versions and the run's provenance
    (the code's commit and the config files: :func:`ltrbv.provenance.run_provenance`)."""
    test_scores, vali_scores = scores
    write_scores(output.test, test.to_file_order(test_scores))
    write_scores(output.vali, vali.to_file_order(vali_scores))
    write_json(output.meta, {**meta, "fit_seconds": round(fit_seconds, 3),
                             "fit_info": getattr(learner, "fit_info_", {}), "versions": package_versions(),
                             "provenance": run_provenance()})
