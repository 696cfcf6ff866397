"""Rule catalog_scores: a scores entry of the catalog (Ganjisaffar et al. 2011, Fig. 3): the validation score
distributions of sub-models of a bag, each trained on its own sample of the training queries."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.sections.catalog.figures import plot_score_histograms
from ltrbv.io import atomic_path, read_scores, write_text
from ltrbv.sections.catalog.tables import score_distributions
from ltrbv.sections.catalog.claims import claim_tests
from ltrbv.sections.catalog.pages import scores_markdown
from ltrbv.workflow.digests import verify_run_file
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    entry = sm.params.entry
    vali = load_cache(sm.input.data)
    for path in sm.params.scores.values():
        verify_run_file(path, sm.input.data)
    scores = {name: read_scores(path, n_expected=vali.n_docs) for name, path in sm.params.scores.items()}
    table = score_distributions(scores)
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.12g")
    tests = claim_tests("scores", table, entry["claims"])
    with atomic_path(sm.output.claims) as tmp:
        tests.to_csv(tmp, index=False, float_format="%.12g")
    write_text(sm.output.md, scores_markdown(table, entry, sm.wildcards.dataset, tests))
    plot_score_histograms(scores, [sm.output.png, sm.output.svg],
                          title=f"{sm.wildcards.dataset}: {entry['paper']}, {entry['artefact']}")
    log.info("%s: %d models, %d documents each", sm.wildcards.entry, len(scores), vali.n_docs)
