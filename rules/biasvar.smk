# The bias-variance study (Ibrahim 2021; Zhang et al. 2013), switched on by the config section `biasvar`:
#   biasvar_sample       one training set of a fold's queries: bootstrap (63%, w/o replacement) or a two-fold half
#   train_biasvar_*      one learner (at one sweep setting) on each training set of a scheme -> test prediction files
#   reduce_biasvar       the B (or 2J) prediction files of a run -> bias², variance, SRE, VRE, ranking error + CIs
#   biasvar_tables       sweep table (Figs. 5-7 data) and comparison table (Table 5)
#   plot_biasvar         Figs. 5, 6, 7 analogues
#   zhang_table          Zhang et al. (2013) bias/variance of AP and NDCG across queries, Figs. 1-2 analogue
#   significance_table   performance with paired t and randomisation tests over test queries
#   biasvar_summary      each paper claim next to what this run measured

from ltrbv.sections.biasvar import grid as bvg

_BV = bvg.settings(config) or {}


rule biasvar_sample:
    """One training set of a fold's queries: bootstrap replicate i, or half a/b of two-fold repetition j."""
    input:
        fill(paths.PARSED, split="train"),
    output:
        bvg.STUDY_SAMPLE,
    params:
        fraction=lambda w: bvg.scheme_fraction(config, w.scheme),
        seed=config["seed"],
    wildcard_constraints:
        scheme="bootstrap|twofold",
        replicate=r"\d+[ab]?",
    log:
        log("biasvar_sample"),
    benchmark:
        benchmark("biasvar_sample")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/biasvar_sample.py"


# Rule train_biasvar_<scheme>: one job per run (learner, fold, setting, scheme) fits the run's B (or 2J) models
# one after another, each on its own training set, with its own seed (the replicate's wildcards, as if it
# were a job of its own).  A study model on the demo's data trains in a fraction of a second, less than a
# job's start-up (Python, imports, loading the compiled kernels: about a second), so one job per model
# spent most of the study's CPU time starting up.  The outputs are the same per-replicate files.
for _scheme in bvg.SCHEMES if _BV else ():

    rule:
        name:
            f"train_biasvar_{_scheme}"
        input:
            train=fill(paths.PARSED, split="train"),
            vali=fill(paths.PARSED, split="vali"),
            test=fill(paths.PARSED, split="test"),
            # queries_<replicate>: each model's training queries
            **bvg.named_replicate_files(config, bvg.STUDY_SAMPLE, _scheme, "queries"),
        output:
            # test_<replicate>, meta_<replicate>: each model's test scores and record
            **bvg.named_replicate_files(config, fill(bvg.STUDY_PREDICTION, file="test.scores"), _scheme, "test"),
            **bvg.named_replicate_files(config, fill(bvg.STUDY_PREDICTION, file="meta.json"), _scheme, "meta"),
        params:
            learner=lambda w: bvg.learner_spec(config, w.learner, w.setting),
            scheme=_scheme,
            replicates=bvg.replicates(config, _scheme),
            # each model's seed keys; a bag's sub-model k derives its seeds from them as in the core run
            seed_keys=lambda w, scheme=_scheme: {r: [config["seed"], w.dataset, w.fold, w.learner, w.setting, scheme, r]
                                                 for r in bvg.replicates(config, scheme)},
            random_states=lambda w, scheme=_scheme: {
                r: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.setting, scheme, r)
                for r in bvg.replicates(config, scheme)},
        wildcard_constraints:
            learner=_alternatives(bvg.trained_here(config)),
            setting=r"base|[A-Za-z0-9_]+=[A-Za-z0-9_.+-]+",
        log:
            log(f"train_biasvar_{_scheme}"),
        benchmark:
            benchmark(f"train_biasvar_{_scheme}")
        threads: learner_threads
        resources:
            mem_mb=learner_resource("mem_mb"),
            # the learner's runtime is per model; this job fits the run's models one after another
            runtime=learner_resource("runtime", per_job=len(bvg.replicates(config, _scheme))),
        conda:
            "../envs/ltrbv.yaml"
        script:
            "../src/scripts/biasvar/train_biasvar.py"


rule reduce_biasvar:
    """Pointwise bias²/variance (eq. 5-8), SRE/VRE (eq. 14-17), ranking error and CIs of one run's models."""
    input:
        test=fill(paths.PARSED, split="test"),
        scores=lambda w: bvg.replicate_score_files(config, w.dataset, w.learner, w.fold, w.setting, w.scheme),
    output:
        summary=fill(bvg.STUDY_REDUCED, ext="json"),
        per_query=fill(bvg.STUDY_REDUCED, ext="csv"),
    params:
        metrics=_BV.get("metrics"),
        convention=_BV.get("convention"),
        uncertainty=_BV.get("uncertainty"),
        seed=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.setting, w.scheme, "ci"),
    wildcard_constraints:
        scheme="bootstrap|twofold",
        setting=r"base|[A-Za-z0-9_]+=[A-Za-z0-9_.+-]+",
    log:
        log("reduce_biasvar"),
    benchmark:
        benchmark("reduce_biasvar")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/reduce_biasvar.py"


rule biasvar_tables:
    """The sweep table (data of Figs. 5-7), paired trend tests over test queries, and the comparison (Table 5)."""
    input:
        summaries=lambda w: bvg.reduced_files(config, w.dataset),
        per_query=lambda w: bvg.reduced_files(config, w.dataset, "csv"),
    output:
        trends=paths.table("biasvar_trends", "csv"),
        sweep=paths.table("biasvar_sweep", "csv"),
        comparison=paths.table("biasvar_comparison", "csv"),
        comparison_md=paths.table("biasvar_comparison", "md"),
    params:
        runs=lambda w: bvg.reduced_runs(config, w.dataset),
        compare=_BV.get("compare"),
        sweep=_BV.get("sweep"),
        uncertainty=_BV.get("uncertainty"),
        seed=lambda w: derive_seed(config["seed"], w.dataset, "trends"),
    log:
        log("biasvar_tables"),
    benchmark:
        benchmark("biasvar_tables")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/biasvar_tables.py"


rule plot_biasvar:
    """Figs. 5-7 analogues: pointwise bias² and variance, SRE and VRE, and ranking error against the swept value."""
    input:
        sweep=paths.table("biasvar_sweep", "csv"),
        trends=paths.table("biasvar_trends", "csv"),
    output:
        pointwise=report(paths.figure("biasvar_pointwise", "png"), caption="captions/biasvar_pointwise.rst",
                         category=bvg.CATEGORY, subcategory="{dataset}"),
        pointwise_svg=paths.figure("biasvar_pointwise", "svg"),
        listwise=report(paths.figure("biasvar_listwise", "png"), caption="captions/biasvar_listwise.rst",
                        category=bvg.CATEGORY, subcategory="{dataset}"),
        listwise_svg=paths.figure("biasvar_listwise", "svg"),
        error=report(paths.figure("biasvar_ranking_error", "png"), caption="captions/biasvar_ranking_error.rst",
                     category=bvg.CATEGORY, subcategory="{dataset}"),
        error_svg=paths.figure("biasvar_ranking_error", "svg"),
    params:
        param=lambda w: _BV.get("sweep")["param"],
        metric=lambda w: _BV.get("metrics")[0],
    log:
        log("plot_biasvar"),
    benchmark:
        benchmark("plot_biasvar")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/plot_biasvar.py"


rule zhang_table:
    """Zhang et al. (2013): Bias, Var and Bias² + Var of AP and NDCG across test queries for the run's learners."""
    input:
        lambda w: paths.flat(bvg.zhang_inputs(config, w.dataset)),
    output:
        csv=paths.table("zhang", "csv"),
        md=paths.table("zhang", "md"),
        png=report(paths.figure("zhang_bias_variance", "png"), caption="captions/zhang.rst",
                   category=bvg.CATEGORY, subcategory="{dataset}"),
        svg=paths.figure("zhang_bias_variance", "svg"),
    params:
        files=lambda w: bvg.zhang_inputs(config, w.dataset),
        zhang=_BV.get("zhang"),
        convention=_BV.get("convention"),
    log:
        log("zhang_table"),
    benchmark:
        benchmark("zhang_table")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/zhang_table.py"


rule significance_table:
    """Performance (mean ± std over folds) with paired t and randomisation tests against the baseline learner."""
    input:
        lambda w: core_grid.metrics_files(config, w.dataset),
    output:
        csv=paths.table("significance", "csv"),
        md=paths.table("significance", "md"),
    params:
        significance=_BV.get("significance"),
        learners=config["run"]["learners"],
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
        seed=lambda w: derive_seed(config["seed"], w.dataset, "significance"),
    log:
        log("significance_table"),
    benchmark:
        benchmark("significance_table")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/significance_table.py"


rule biasvar_summary:
    """results/{dataset}/summary.md: each paper claim next to what this run measured, with CIs."""
    input:
        sweep=paths.table("biasvar_sweep", "csv"),
        trends=paths.table("biasvar_trends", "csv"),
        comparison=paths.table("biasvar_comparison", "csv"),
        zhang=paths.table("zhang", "csv"),
        significance=paths.table("significance", "csv"),
    output:
        bvg.SUMMARY,
    params:
        param=lambda w: _BV.get("sweep")["param"],
        metric=lambda w: _BV.get("metrics")[0],
        dataset=lambda w: w.dataset,
    log:
        log("biasvar_summary"),
    benchmark:
        benchmark("biasvar_summary")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar/biasvar_summary.py"
