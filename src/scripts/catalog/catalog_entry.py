"""Rules catalog_compare, catalog_sweep, catalog_curve and catalog_grid: one such entry of the reproduction catalog.

compare: mean ± std over folds and paired tests against the entry's baseline (pooled over folds and per fold),
seconds per model and the forests' mean tree, optionally a random ranking's expected metric.
sweep: per (learner, value) the metrics over the pooled test queries with 95% intervals over queries and the
training seconds per tree (table and figure).
curve: boosted learners' training and validation metric per round, mean over runs (table and figure).
grid: per combination the validation and test metric (mean over runs), ranked by validation, and the expected
validation and test metric of the best of k combinations (table and figure).
Each writes its claims' tests too (catalog/<entry>.claims.csv; the page judges them as one family)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path, write_text
from ltrbv.seeding import derive_seed
from ltrbv.sections.catalog.tables import RANDOM_RANKING, best_of_k_table, compare_table, curve_table, fit_seconds, grid_table, per_query_values, random_ranking_values, sweep_table
from ltrbv.sections.catalog.claims import claim_tests
from ltrbv.sections.catalog.pages import compare_markdown, curve_markdown, grid_markdown, sweep_markdown
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    entry = sm.params.entry
    meta = {learner: {fold: {seed: json.loads(Path(path).read_text()) for seed, path in by_seed.items()}
                      for fold, by_seed in by_fold.items()} for learner, by_fold in sm.params.meta.items()}
    def read_all(score_files: dict, data_files: dict) -> tuple[dict, dict]:
        data = {fold: load_cache(path) for fold, path in data_files.items()}
        return {learner: {fold: {seed: read_run_scores(path, data[fold], data_files[fold])
                                 for seed, path in by_seed.items()} for fold, by_seed in by_fold.items()}
                for learner, by_fold in score_files.items()}, data

    if entry["kind"] in ("compare", "sweep"):  # a curve reads only the recorded histories; a grid, below
        scores, data = read_all(sm.params.scores, sm.params.data)
        per_query = per_query_values(scores, data, entry["metrics"], entry["convention"])
    if entry["kind"] == "grid":
        from ltrbv.sections.catalog.figures import plot_best_of_k

        metric = [entry["grid_metric"]]
        test = per_query_values(*read_all(sm.params.scores, sm.params.data), metric, entry["convention"])
        vali = per_query_values(*read_all(sm.params.vali_scores, sm.params.vali_data), metric, entry["convention"])
        combinations = grid_table(vali, test, entry["grid"], entry["grid_metric"])
        curve = best_of_k_table(combinations, entry["sizes"])
        table = pd.concat([combinations, curve], ignore_index=True)
        base = entry["grid_base"]
        tests = claim_tests("grid", table, entry["claims"])
        markdown = grid_markdown(table, entry, sm.wildcards.dataset,
                                 {base: {**sm.params.learner_params[base], "grid": entry["grid_values"]}}, tests=tests)
        plot_best_of_k(curve, entry["grid_metric"], [sm.output.png, sm.output.svg],
                       title=f"{sm.wildcards.dataset}: {entry['paper']}, {entry['artefact']} ({entry['convention']})")
    elif entry["kind"] == "compare":
        learners = list(scores)
        if entry["random_ranking"]:
            per_query = pd.concat([per_query, random_ranking_values(data, entry["metrics"], entry["convention"])],
                                  ignore_index=True)
            learners.append(RANDOM_RANKING)
        baseline = entry["baseline"]
        pairs = []  # claims between two learners besides the baseline are tested too
        for claim in entry["claims"]:
            pair = (claim.get("learner"), claim.get("than"))
            if claim["kind"] in ("better", "similar") and baseline not in pair and pair not in pairs \
                    and pair[::-1] not in pairs:
                pairs.append(pair)
        table = compare_table(per_query, learners, entry["metrics"], baseline, entry["convention"],
                              entry["permutations"], sm.params.seed, fit_seconds(meta), pairs=pairs)
        tests = claim_tests("compare", table, entry["claims"], per_query, entry["convention"],
                            permutations=entry["permutations"], seed=sm.params.seed, entry=sm.wildcards.entry)
        markdown = compare_markdown(table, entry, sm.wildcards.dataset, sm.params.learner_params, tests)
    elif entry["kind"] == "curve":
        from ltrbv.sections.catalog.figures import plot_curve

        table = curve_table(meta)
        tests = claim_tests("curve", table, [])
        markdown = curve_markdown(table, entry, sm.wildcards.dataset, sm.params.learner_params)
        plot_curve(table, [sm.output.png, sm.output.svg],
                   title=f"{sm.wildcards.dataset}: {entry['paper']}, {entry['artefact']}")
    else:
        from ltrbv.sections.catalog.figures import plot_sweep

        table = sweep_table(per_query, entry["sweep"], fit_seconds(meta),
                            seed=derive_seed(sm.params.seed, sm.wildcards.dataset, sm.wildcards.entry))
        tests = claim_tests("sweep", table, entry["claims"], per_query, entry["convention"], entry["sweep"],
                            entry["permutations"], sm.params.seed, sm.wildcards.entry)
        markdown = sweep_markdown(table, entry, sm.wildcards.dataset, sm.params.learner_params, tests)
        title = f"{sm.wildcards.dataset}: {entry['paper']}, {entry['artefact']} ({entry['convention']})"
        plot_sweep(table, entry["metrics"], entry["param"], [sm.output.png, sm.output.svg], title=title)
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.12g")
    with atomic_path(sm.output.claims) as tmp:
        tests.to_csv(tmp, index=False, float_format="%.12g")
    write_text(sm.output.md, markdown)
    log.info("%s (%s): %d rows", sm.wildcards.entry, entry["kind"], len(table))
