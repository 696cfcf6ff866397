"""A training run's files, as the core run's training rules write them (train_model, train_trial, train_bag_<n>,
bag_submodel).

A run's files are published together: written under temporary names beside their targets, then renamed,
after :func:`ltrbv.workflow.job_guard.check_owner` (a job whose Snakemake run is gone publishes nothing).
``meta.json`` records the digests of the score files and of the parsed data (:mod:`ltrbv.workflow.digests`).
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from pathlib import Path

from ..io import atomic_path, write_json, write_scores
from ..provenance import package_versions, run_provenance
from .digests import DIGESTS, run_digests
from .job_guard import check_owner


@contextmanager
def publishing(*targets):
    """Yield one temporary path beside each target (:func:`ltrbv.io.atomic_path`: a target that exists and is not a
    regular file is refused); when the block succeeds and the job's Snakemake run is still there, rename them onto
    the targets (else remove them: nothing is published)."""
    with ExitStack() as stack:
        temps = [stack.enter_context(atomic_path(target)) for target in targets]
        yield temps
        check_owner()


def write_run(output, test, vali, scores, meta: dict, fit_seconds: float, learner, data_files: dict) -> None:
    """``output.test`` / ``output.vali``: the two score files in file order; ``output.meta``: ``meta`` (the run's
    own keys, in order), then the fit time, the learner's ``fit_info_``, the digests of the score files and of
    ``data_files`` (``{split: parsed cache}``), the package versions and the run's provenance (the code's commit
    and the config files: :func:`ltrbv.provenance.run_provenance`)."""
    test_scores, vali_scores = scores
    with publishing(output.test, output.vali, output.meta) as (test_tmp, vali_tmp, meta_tmp):
        write_scores(test_tmp, test.to_file_order(test_scores))
        write_scores(vali_tmp, vali.to_file_order(vali_scores))
        digests = run_digests({Path(output.test).name: test_tmp, Path(output.vali).name: vali_tmp}, data_files)
        write_json(meta_tmp, {**meta, "fit_seconds": round(fit_seconds, 3),
                              "fit_info": getattr(learner, "fit_info_", {}), DIGESTS: digests,
                              "versions": package_versions(), "provenance": run_provenance()})
