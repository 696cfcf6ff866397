# The bias-variance study (Ibrahim 2021; Zhang et al. 2013), switched on by the config section `biasvar`:
#   biasvar_sample       one training set of a fold's queries: bootstrap (63%, w/o replacement) or a two-fold half
#   train_biasvar        one learner (at one sweep setting) on one training set -> test prediction file
#   reduce_biasvar       the B (or 2J) prediction files of a run -> bias², variance, SRE, VRE, ranking error + CIs
#   biasvar_tables       sweep table (Figs. 5-7 data) and comparison table (Table 5)
#   plot_biasvar         Figs. 5, 6, 7 analogues
#   zhang_table          Zhang et al. (2013) bias/variance of AP and NDCG across queries, Figs. 1-2 analogue
#   significance_table   performance with paired t and randomisation tests over test queries
#   biasvar_summary      each paper claim next to what this run measured

from functools import partial

from ltrbv.workflow import biasvar_grid as bvg

_bv_problems = bvg.problems(config)
if _bv_problems:
    raise WorkflowError("invalid config:\n  " + "\n  ".join(_bv_problems))

biasvar_targets = partial(bvg.targets, config)
_BV = bvg.settings(config) or {}


rule biasvar_sample:
    """One training set of a fold's queries: bootstrap replicate i, or half a/b of two-fold repetition j."""
    input:
        "results/{dataset}/parsed/{fold}/train.npz",
    output:
        "results/{dataset}/biasvar/samples/{fold}/{scheme}/rep{replicate}.json",
    params:
        fraction=lambda w: bvg.scheme_fraction(config, w.scheme),
        seed=config["seed"],
    wildcard_constraints:
        scheme="bootstrap|twofold",
        replicate=r"\d+[ab]?",
    log:
        "results/{dataset}/logs/biasvar_sample/{fold}/{scheme}/rep{replicate}.log",
    benchmark:
        "results/{dataset}/benchmarks/biasvar_sample/{fold}/{scheme}/rep{replicate}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("biasvar_sample", "mem_mb", 1000),
        runtime=rule_resources("biasvar_sample", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar_sample.py"


rule train_biasvar:
    """Train one learner (at one setting of the sweep, or as configured) on one training set; score the test set."""
    input:
        train="results/{dataset}/parsed/{fold}/train.npz",
        vali="results/{dataset}/parsed/{fold}/vali.npz",
        test="results/{dataset}/parsed/{fold}/test.npz",
        queries="results/{dataset}/biasvar/samples/{fold}/{scheme}/rep{replicate}.json",
    output:
        test="results/{dataset}/biasvar/predictions/{learner}/{fold}/{setting}/{scheme}/rep{replicate}/test.scores",
        meta="results/{dataset}/biasvar/predictions/{learner}/{fold}/{setting}/{scheme}/rep{replicate}/meta.json",
    params:
        learner=lambda w: bvg.learner_spec(config, w.learner, w.setting),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.setting, w.scheme,
                                           w.replicate),
    wildcard_constraints:
        learner=_alternatives(bvg.trained_here(config)),
        scheme="bootstrap|twofold",
        replicate=r"\d+[ab]?",
        setting=r"base|[A-Za-z0-9_]+=[A-Za-z0-9_.+-]+",
    log:
        "results/{dataset}/logs/train_biasvar/{learner}/{fold}/{setting}/{scheme}/rep{replicate}.log",
    benchmark:
        "results/{dataset}/benchmarks/train_biasvar/{learner}/{fold}/{setting}/{scheme}/rep{replicate}.tsv"
    threads: lambda w: config["learners"][w.learner].get("threads", 1)
    resources:
        mem_mb=lambda w: config["learners"][w.learner].get("mem_mb", 2000),
        runtime=lambda w: config["learners"][w.learner].get("runtime", 60),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/train_biasvar.py"


rule reduce_biasvar:
    """Pointwise bias²/variance (eq. 5-8), SRE/VRE (eq. 14-17), ranking error and CIs of one run's models."""
    input:
        test="results/{dataset}/parsed/{fold}/test.npz",
        scores=lambda w: bvg.replicate_score_files(config, w.dataset, w.learner, w.fold, w.setting, w.scheme),
    output:
        summary="results/{dataset}/biasvar/reduced/{learner}/{fold}/{setting}/{scheme}.json",
        per_query="results/{dataset}/biasvar/reduced/{learner}/{fold}/{setting}/{scheme}.csv",
    params:
        metrics=_BV.get("metrics"),
        convention=_BV.get("convention"),
        uncertainty=_BV.get("uncertainty"),
        seed=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.setting, w.scheme, "ci"),
    wildcard_constraints:
        scheme="bootstrap|twofold",
        setting=r"base|[A-Za-z0-9_]+=[A-Za-z0-9_.+-]+",
    log:
        "results/{dataset}/logs/reduce_biasvar/{learner}/{fold}/{setting}/{scheme}.log",
    benchmark:
        "results/{dataset}/benchmarks/reduce_biasvar/{learner}/{fold}/{setting}/{scheme}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("reduce_biasvar", "mem_mb", 2000),
        runtime=rule_resources("reduce_biasvar", "runtime", 20),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/reduce_biasvar.py"


rule biasvar_tables:
    """The sweep table (data of Figs. 5-7), paired trend tests over test queries, and the comparison (Table 5)."""
    input:
        summaries=lambda w: bvg.reduced_files(config, w.dataset),
        per_query=lambda w: bvg.reduced_files(config, w.dataset, "csv"),
    output:
        trends="results/{dataset}/tables/biasvar_trends.csv",
        sweep="results/{dataset}/tables/biasvar_sweep.csv",
        comparison="results/{dataset}/tables/biasvar_comparison.csv",
        comparison_md="results/{dataset}/tables/biasvar_comparison.md",
    params:
        compare=_BV.get("compare"),
        sweep=_BV.get("sweep"),
        uncertainty=_BV.get("uncertainty"),
        seed=lambda w: derive_seed(config["seed"], w.dataset, "trends"),
    log:
        "results/{dataset}/logs/biasvar_tables.log",
    benchmark:
        "results/{dataset}/benchmarks/biasvar_tables.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("biasvar_tables", "mem_mb", 1000),
        runtime=rule_resources("biasvar_tables", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar_tables.py"


rule plot_biasvar:
    """Figs. 5-7 analogues: pointwise bias² and variance, SRE and VRE, and ranking error against the swept value."""
    input:
        sweep="results/{dataset}/tables/biasvar_sweep.csv",
        trends="results/{dataset}/tables/biasvar_trends.csv",
    output:
        pointwise=report("results/{dataset}/figures/biasvar_pointwise.png", caption="captions/biasvar_pointwise.rst",
                         category=report_grid.BIAS_VARIANCE, subcategory="{dataset}"),
        pointwise_svg="results/{dataset}/figures/biasvar_pointwise.svg",
        listwise=report("results/{dataset}/figures/biasvar_listwise.png", caption="captions/biasvar_listwise.rst",
                        category=report_grid.BIAS_VARIANCE, subcategory="{dataset}"),
        listwise_svg="results/{dataset}/figures/biasvar_listwise.svg",
        error=report("results/{dataset}/figures/biasvar_ranking_error.png",
                     caption="captions/biasvar_ranking_error.rst", category=report_grid.BIAS_VARIANCE, subcategory="{dataset}"),
        error_svg="results/{dataset}/figures/biasvar_ranking_error.svg",
    params:
        param=lambda w: _BV.get("sweep")["param"],
        metric=lambda w: _BV.get("metrics")[0],
    log:
        "results/{dataset}/logs/plot_biasvar.log",
    benchmark:
        "results/{dataset}/benchmarks/plot_biasvar.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("plot_biasvar", "mem_mb", 1000),
        runtime=rule_resources("plot_biasvar", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/plot_biasvar.py"


rule zhang_table:
    """Zhang et al. (2013): Bias, Var and Bias² + Var of AP and NDCG across test queries for the run's learners."""
    input:
        scores=lambda w: [f"results/{w.dataset}/predictions/{learner}/{fold}/seed{config['run']['seeds'][0]}/test.scores"
                          for learner in config["run"]["learners"] for fold in config["datasets"][w.dataset]["folds"]],
        data=lambda w: expand("results/{dataset}/parsed/{fold}/test.npz", dataset=w.dataset,
                              fold=config["datasets"][w.dataset]["folds"]),
    output:
        csv="results/{dataset}/tables/zhang.csv",
        md="results/{dataset}/tables/zhang.md",
        png=report("results/{dataset}/figures/zhang_bias_variance.png", caption="captions/zhang.rst",
                   category=report_grid.BIAS_VARIANCE, subcategory="{dataset}"),
        svg="results/{dataset}/figures/zhang_bias_variance.svg",
    params:
        learners=config["run"]["learners"],
        folds=lambda w: config["datasets"][w.dataset]["folds"],
        zhang=_BV.get("zhang"),
        convention=_BV.get("convention"),
    log:
        "results/{dataset}/logs/zhang_table.log",
    benchmark:
        "results/{dataset}/benchmarks/zhang_table.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("zhang_table", "mem_mb", 2000),
        runtime=rule_resources("zhang_table", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/zhang_table.py"


rule significance_table:
    """Performance (mean ± std over folds) with paired t and randomisation tests against the baseline learner."""
    input:
        lambda w: metrics_files(config, w.dataset),
    output:
        csv="results/{dataset}/tables/significance.csv",
        md="results/{dataset}/tables/significance.md",
    params:
        significance=_BV.get("significance"),
        learners=config["run"]["learners"],
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
        seed=lambda w: derive_seed(config["seed"], w.dataset, "significance"),
    log:
        "results/{dataset}/logs/significance_table.log",
    benchmark:
        "results/{dataset}/benchmarks/significance_table.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("significance_table", "mem_mb", 1000),
        runtime=rule_resources("significance_table", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/significance_table.py"


rule biasvar_summary:
    """results/{dataset}/summary.md: each paper claim next to what this run measured, with CIs."""
    input:
        sweep="results/{dataset}/tables/biasvar_sweep.csv",
        trends="results/{dataset}/tables/biasvar_trends.csv",
        comparison="results/{dataset}/tables/biasvar_comparison.csv",
        zhang="results/{dataset}/tables/zhang.csv",
        significance="results/{dataset}/tables/significance.csv",
    output:
        "results/{dataset}/summary.md",
    params:
        param=lambda w: _BV.get("sweep")["param"],
        metric=lambda w: _BV.get("metrics")[0],
        dataset=lambda w: w.dataset,
    log:
        "results/{dataset}/logs/biasvar_summary.log",
    benchmark:
        "results/{dataset}/benchmarks/biasvar_summary.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("biasvar_summary", "mem_mb", 1000),
        runtime=rule_resources("biasvar_summary", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/biasvar_summary.py"
