# The reproduction catalog (config section `catalog:`, entries in config/catalog.yaml; job grid:
# ltrbv.sections.catalog.grid).  Training is rule train_model's (a sweep's values are generated learners):
#   catalog_compare  one compare entry: mean ± std over folds, paired tests against its baseline, seconds per model
#   catalog_sweep    one sweep entry: metric and seconds per tree against the swept value (table and figure)
#   catalog_curve    one curve entry: boosted learners' training and validation metric per round (table and figure)
#   catalog_grid     one grid entry: combinations ranked by validation metric, and the best of k (table and figure)
#   catalog_scores   one scores entry: validation score distributions of a bag's sub-models (table and figure)
#   catalog_page     results/{dataset}/catalog.md: every entry's claims, numbers, verdict and CPU time; each entry
#                    job writes its claims' tests (catalog/<entry>.claims.csv), the page judges them as one family

from ltrbv.sections.catalog import grid as cg


for _kind in cg.TRAINED:

    rule:
        name:
            f"catalog_{_kind}"
        input:
            scores=lambda w: paths.flat(cg.prediction_files(config, w.dataset, w.entry)),
            meta=lambda w: paths.flat(cg.prediction_files(config, w.dataset, w.entry, "meta.json")),
            data=lambda w: paths.flat(cg.test_files(config, w.dataset, w.entry)),
            # a grid ranks its combinations on validation: their validation scores and the validation folds
            vali=lambda w: [*paths.flat(cg.validation_files(config, w.dataset, w.entry)[0]),
                            *cg.validation_files(config, w.dataset, w.entry)[1].values()],
        output:
            **({"csv": cg.catalog_file("{entry}", "csv"), "md": cg.catalog_file("{entry}", "md"),
                "claims": cg.catalog_file("{entry}", cg.CLAIMS_EXT)}
               | ({"png": report(cg.catalog_file("{entry}", "png"), caption=f"captions/catalog_{_kind}.rst",
                                 category=cg.CATEGORY, subcategory="{dataset}"),
                   "svg": cg.catalog_file("{entry}", "svg")} if _kind in (cg.SWEEP, cg.CURVE, cg.GRID) else {})),
        params:
            entry=lambda w: cg.entry_params(config, w.dataset, w.entry),
            scores=lambda w: cg.prediction_files(config, w.dataset, w.entry),
            meta=lambda w: cg.prediction_files(config, w.dataset, w.entry, "meta.json"),
            data=lambda w: cg.test_files(config, w.dataset, w.entry),
            vali_scores=lambda w: cg.validation_files(config, w.dataset, w.entry)[0],
            vali_data=lambda w: cg.validation_files(config, w.dataset, w.entry)[1],
            learner_params=lambda w: cg.learner_params(config, w.entry),
            seed=config["seed"],
        wildcard_constraints:
            entry=_alternatives(cg.names_of_kind(config, _kind)),
        log:
            log(f"catalog_{_kind}"),
        benchmark:
            benchmark(f"catalog_{_kind}")
        threads: 1
        conda:
            "../envs/ltrbv.yaml"
        script:
            "../src/scripts/catalog/catalog_entry.py"


rule catalog_scores:
    """One scores entry: validation score distributions of a bag's sub-models (Ganjisaffar et al., Fig. 3)."""
    input:
        scores=lambda w: list(cg.submodel_score_files(config, w.dataset, w.entry).values()),
        data=lambda w: cg.submodel_data(config, w.dataset),
    output:
        csv=cg.catalog_file("{entry}", "csv"),
        md=cg.catalog_file("{entry}", "md"),
        claims=cg.catalog_file("{entry}", cg.CLAIMS_EXT),
        png=report(cg.catalog_file("{entry}", "png"), caption="captions/catalog_scores.rst",
                   category=cg.CATEGORY, subcategory="{dataset}"),
        svg=cg.catalog_file("{entry}", "svg"),
    params:
        entry=lambda w: cg.entry_params(config, w.dataset, w.entry),
        scores=lambda w: cg.submodel_score_files(config, w.dataset, w.entry),
    wildcard_constraints:
        entry=_alternatives(cg.names_of_kind(config, cg.SCORES)),
    log:
        log("catalog_scores"),
    benchmark:
        benchmark("catalog_scores")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/catalog/catalog_scores.py"


rule catalog_page:
    """results/{dataset}/catalog.md: one row per paper artefact with the claim, this run's number, the verdict and CPU time."""
    input:
        lambda w: list(cg.page_inputs(config, w.dataset, SECTIONS).values()),
        lambda w: list(cg.claim_files(config, w.dataset).values()),
    output:
        cg.CATALOG,
    params:
        entries=lambda w: cg.entries(config),
        files=lambda w: cg.page_inputs(config, w.dataset, SECTIONS),
        claims=lambda w: cg.claim_files(config, w.dataset),
        benchmarks=lambda w: cg.page_benchmarks(config, w.dataset),
        policy=cg.policy(config),
        data=lambda w: cg.data_description(config, w.dataset),
    log:
        log("catalog_page"),
    benchmark:
        benchmark("catalog_page")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/catalog/catalog_page.py"
