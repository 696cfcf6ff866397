# Optional experiments of Ganjisaffar et al. (2011), switched on under `experiments:` in the config:
#   bag_size        Fig. 4   validation MAP of bags of m sub-models drawn from each fold's pool
#   variance_trials Table 5  mean and variance of test metrics across 10 random 67% samples of one fold's queries
#   bagging_table   Table 4  NDCG@1, @3, @5, mean NDCG and MAP per fold and over folds

from ltrbv.workflow.grid import (
    bag_pool_files,
    bag_size_settings,
    bagging_table_files,
    bagging_table_settings,
    built_in_learners,
    trial_prediction_files,
    variance_settings,
)


rule trial_queries:
    """Trial t's training sample: a share of the fold's training queries, without replacement (Table 5)."""
    input:
        "results/{dataset}/parsed/{fold}/train.npz",
    output:
        "results/{dataset}/trials/{fold}/trial{trial}.json",
    params:
        fraction=lambda w: variance_settings(config, w.dataset)["fraction"],
        seed=config["seed"],
    wildcard_constraints:
        trial=r"\d+",
    log:
        "results/{dataset}/logs/trial_queries/{fold}/trial{trial}.log",
    benchmark:
        "results/{dataset}/benchmarks/trial_queries/{fold}/trial{trial}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("trial_queries", "mem_mb", 1000),
        runtime=rule_resources("trial_queries", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/trial_queries.py"


rule train_trial:
    """Train one built-in learner on trial t's sample of the training queries; score test and validation."""
    input:
        train="results/{dataset}/parsed/{fold}/train.npz",
        vali="results/{dataset}/parsed/{fold}/vali.npz",
        test="results/{dataset}/parsed/{fold}/test.npz",
        queries="results/{dataset}/trials/{fold}/trial{trial}.json",
    output:
        test="results/{dataset}/predictions/{learner}/{fold}/trial{trial}/test.scores",
        vali="results/{dataset}/predictions/{learner}/{fold}/trial{trial}/vali.scores",
        meta="results/{dataset}/predictions/{learner}/{fold}/trial{trial}/meta.json",
    params:
        learner=lambda w: learner_rule_params(config, w.learner),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, f"trial{w.trial}"),
        sample_seed=None,
    wildcard_constraints:
        learner=_alternatives(built_in_learners(config)),
        trial=r"\d+",
    log:
        "results/{dataset}/logs/train_trial/{learner}/{fold}/trial{trial}.log",
    benchmark:
        "results/{dataset}/benchmarks/train_trial/{learner}/{fold}/trial{trial}.tsv"
    threads: lambda w: config["learners"][w.learner].get("threads", 1)
    resources:
        mem_mb=lambda w: config["learners"][w.learner].get("mem_mb", 2000),
        runtime=lambda w: config["learners"][w.learner].get("runtime", 60),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/train_subset.py"


rule variance_table:
    """Table 5: mean and variance across trials of test NDCG@1, NDCG@3, mean NDCG, MAP (CSV + Markdown)."""
    input:
        scores=lambda w: trial_prediction_files(config, w.dataset),
        test=lambda w: f"results/{w.dataset}/parsed/{variance_settings(config, w.dataset)['fold']}/test.npz",
    output:
        csv="results/{dataset}/tables/variance_trials.csv",
        md="results/{dataset}/tables/variance_trials.md",
        runs="results/{dataset}/tables/variance_trials_runs.csv",
    params:
        settings=lambda w: variance_settings(config, w.dataset),
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        "results/{dataset}/logs/variance_table.log",
    benchmark:
        "results/{dataset}/benchmarks/variance_table.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("variance_table", "mem_mb", 1000),
        runtime=rule_resources("variance_table", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/variance_table.py"


rule bag_size_table:
    """Fig. 4's data: mean over random draws of the validation MAP of bags of m sub-models from each fold's pool."""
    input:
        scores=lambda w: bag_pool_files(config, w.dataset),
        data=lambda w: expand(
            "results/{dataset}/parsed/{fold}/{split}.npz",
            dataset=w.dataset,
            fold=config["datasets"][w.dataset]["folds"],
            split=bag_size_settings(config, w.dataset)["split"],
        ),
    output:
        csv="results/{dataset}/tables/bag_size.csv",
    params:
        settings=lambda w: bag_size_settings(config, w.dataset),
        folds=lambda w: config["datasets"][w.dataset]["folds"],
        seed=config["seed"],
    log:
        "results/{dataset}/logs/bag_size_table.log",
    benchmark:
        "results/{dataset}/benchmarks/bag_size_table.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("bag_size_table", "mem_mb", 2000),
        runtime=rule_resources("bag_size_table", "runtime", 30),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bag_size_table.py"


rule plot_bag_size:
    """Fig. 4: accuracy against the number of sub-models, without and with overfitting tolerance."""
    input:
        "results/{dataset}/tables/bag_size.csv",
    output:
        png=report(
            "results/{dataset}/figures/bag_size.png",
            caption="captions/bag_size.rst",
            category=report_grid.BAGGING,
            subcategory="{dataset}",
        ),
        svg="results/{dataset}/figures/bag_size.svg",
    log:
        "results/{dataset}/logs/plot_bag_size.log",
    benchmark:
        "results/{dataset}/benchmarks/plot_bag_size.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("plot_bag_size", "mem_mb", 1000),
        runtime=rule_resources("plot_bag_size", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/plot_bag_size.py"


rule bagging_table:
    """Table 4: NDCG@1, @3, @5, mean NDCG (mean of NDCG@1..10) and MAP per fold and over folds."""
    input:
        scores=lambda w: bagging_table_files(config, w.dataset),
        data=lambda w: expand("results/{dataset}/parsed/{fold}/test.npz", dataset=w.dataset,
                              fold=config["datasets"][w.dataset]["folds"]),
    output:
        csv="results/{dataset}/tables/bagging_performance.csv",
        md="results/{dataset}/tables/bagging_performance.md",
    params:
        learners=bagging_table_settings(config)["learners"] if bagging_table_settings(config) else [],
        folds=lambda w: config["datasets"][w.dataset]["folds"],
        seeds=config["run"]["seeds"],
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        "results/{dataset}/logs/bagging_table.log",
    benchmark:
        "results/{dataset}/benchmarks/bagging_table.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("bagging_table", "mem_mb", 1000),
        runtime=rule_resources("bagging_table", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging_table.py"
