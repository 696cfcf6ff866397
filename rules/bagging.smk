# The bagging experiments of Ganjisaffar et al. (2011), switched on under `bagging:` in the config
# (job grid: ltrbv.sections.bagging.grid; the bags' own rules, train_bag_<n> (or bag_submodel) and combine_bag, are
# the core run's):
#   bag_size        Fig. 4   validation MAP of bags of m sub-models drawn from each fold's pool
#   variance_trials Table 5  mean and variance of test metrics across 10 random 67% samples of one fold's queries
#   bagging_table   Table 4  NDCG@1, @3, @5, mean NDCG and MAP per fold and over folds

from ltrbv.sections.bagging import grid as bagging_grid
from ltrbv.sections.bagging.grid import (
    bag_pools,
    bag_size_data,
    bag_size_settings,
    bagging_table_predictions,
    trial_predictions,
    variance_settings,
)


rule trial_queries:
    """Trial t's training sample: a share of the fold's training queries, without replacement (Table 5)."""
    input:
        fill(paths.PARSED, split="train"),
    output:
        paths.TRIAL_QUERIES,
    params:
        fraction=lambda w: variance_settings(config, w.dataset)["fraction"],
        seed=config["seed"],
    wildcard_constraints:
        trial=r"\d+",
    log:
        log("trial_queries"),
    benchmark:
        benchmark("trial_queries")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging/trial_queries.py"


rule train_trial:
    """Train one built-in learner on trial t's sample of the training queries; score test and validation."""
    input:
        train=fill(paths.PARSED, split="train"),
        vali=fill(paths.PARSED, split="vali"),
        test=fill(paths.PARSED, split="test"),
        queries=paths.TRIAL_QUERIES,
    output:
        test=fill(paths.PREDICTION, run=paths.TRIAL_RUN, file="test.scores"),
        vali=fill(paths.PREDICTION, run=paths.TRIAL_RUN, file="vali.scores"),
        meta=fill(paths.PREDICTION, run=paths.TRIAL_RUN, file="meta.json"),
    params:
        learner=lambda w: core_grid.learner_rule_params(config, w.learner),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, paths.trial_run(w.trial)),
        run=lambda w: paths.trial_run(w.trial),
    wildcard_constraints:
        learner=_alternatives(core_grid.built_in_learners(config)),
        trial=r"\d+",
    log:
        log("train_trial"),
    benchmark:
        benchmark("train_trial")
    threads: learner_threads
    resources:
        mem_mb=learner_resource("mem_mb"),
        runtime=learner_resource("runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging/train_trial.py"


rule variance_table:
    """Table 5: mean and variance across trials of test NDCG@1, NDCG@3, mean NDCG, MAP (CSV + Markdown)."""
    input:
        scores=lambda w: paths.flat(trial_predictions(config, w.dataset)),
        test=lambda w: paths.parsed(w.dataset, variance_settings(config, w.dataset)["fold"], "test"),
    output:
        csv=paths.table("variance_trials", "csv"),
        md=paths.table("variance_trials", "md"),
        runs=paths.table("variance_trials_runs", "csv"),
    params:
        settings=lambda w: variance_settings(config, w.dataset),
        scores=lambda w: trial_predictions(config, w.dataset),
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        log("variance_table"),
    benchmark:
        benchmark("variance_table")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging/variance_table.py"


rule bag_size_table:
    """Fig. 4's data: mean over random draws of the validation MAP of bags of m sub-models from each fold's pool."""
    input:
        scores=lambda w: paths.flat(bag_pools(config, w.dataset)),
        data=lambda w: paths.flat(bag_size_data(config, w.dataset)),
    output:
        csv=paths.table("bag_size", "csv"),
    params:
        settings=lambda w: bag_size_settings(config, w.dataset),
        pools=lambda w: bag_pools(config, w.dataset),
        data=lambda w: bag_size_data(config, w.dataset),
        seed=config["seed"],
    log:
        log("bag_size_table"),
    benchmark:
        benchmark("bag_size_table")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging/bag_size_table.py"


rule plot_bag_size:
    """Fig. 4: accuracy against the number of sub-models, without and with overfitting tolerance."""
    input:
        paths.table("bag_size", "csv"),
    output:
        png=report(
            paths.figure("bag_size", "png"),
            caption="captions/bag_size.rst",
            category=bagging_grid.CATEGORY,
            subcategory="{dataset}",
        ),
        svg=paths.figure("bag_size", "svg"),
    log:
        log("plot_bag_size"),
    benchmark:
        benchmark("plot_bag_size")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging/plot_bag_size.py"


rule bagging_table:
    """Table 4: NDCG@1, @3, @5, mean NDCG (mean of NDCG@1..10) and MAP per fold and over folds."""
    input:
        scores=lambda w: paths.flat(bagging_table_predictions(config, w.dataset)),
        data=lambda w: paths.flat(core_grid.parsed_files(config, w.dataset, "test")),
    output:
        csv=paths.table("bagging_performance", "csv"),
        md=paths.table("bagging_performance", "md"),
    params:
        scores=lambda w: bagging_table_predictions(config, w.dataset),
        data=lambda w: core_grid.parsed_files(config, w.dataset, "test"),
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        log("bagging_table"),
    benchmark:
        benchmark("bagging_table")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bagging/bagging_table.py"
