"""Rule synthetic_folds: write Fold1..Fold5/{train,vali,test}.txt of a synthetic LETOR dataset."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821 (the ltrbv package beside this folder)

from ltrbv.data.synthetic import SyntheticSpec, write_letor_folds
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = SyntheticSpec.from_dict(sm.params.spec)
    root = Path(sm.params.root)
    written = write_letor_folds(root, spec)
    expected = {Path(p) for p in sm.output}
    assert set(written) == expected, f"generator wrote {sorted(written)}, rule expects {sorted(expected)}"
    log.info("wrote %d files under %s from %s", len(written), root, spec)
