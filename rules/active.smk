# Active estimation of ranking performance (Sawade et al. 2013), switched on by the config section `active`
# (see config/active-demo.yaml, config/active-mq2008.yaml).  Partition = one fold's test split; the other
# folds' test splits form the pool of unlabeled queries.
#   active_train      one relevance model / ranking function on one partition -> pool scores (+ label probs)
#   active_simulate   one experiment on one partition: q (eq. 16/17), Algorithm 1 x repetitions x budgets
#   active_aggregate  one experiment: mean over partitions + figure (Figs. 2-5)
#   active_savings    label savings of active over passive at the largest budget (table)
#   active_sampling   Fig. 6: q over (cost, expected performance) and queries drawn per method
#   active_training_size  Fig. 5 bottom row: error at one budget against the second ranker's training-set size

from ltrbv.sections.active import grid as avw

_ACTIVE = avw.settings(config) or {}


rule active_train:
    """Train one relevance model or ranking function on a partition; score every pool document."""
    input:
        lambda w: avw.partition_files(config, w.dataset).values(),
    output:
        avw.ACTIVE_MODEL,
    params:
        files=lambda w: avw.partition_files(config, w.dataset),
        spec=lambda w: _ACTIVE["models"][w.model],
        n_labels=lambda w: avw.n_labels(config, w.dataset),
        train_fraction=lambda w: _ACTIVE["train_fraction"],
        min_label_prob=lambda w: _ACTIVE["min_label_prob"],
        split_seed=lambda w: derive_seed(config["seed"], w.dataset, w.partition, "active-split"),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.partition, w.model),
    log:
        log("active_train"),
    benchmark:
        benchmark("active_train")
    threads: lambda w: _ACTIVE["models"][w.model].get("threads", 1)
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active/active_train.py"


rule active_simulate:
    """One experiment on one partition: sampling distributions and repetitions of Algorithm 1."""
    input:
        parts=lambda w: avw.partition_files(config, w.dataset).values(),
        models=lambda w: avw.model_files(config, w.dataset, w.experiment, w.partition).values(),
    output:
        table=fill(avw.ACTIVE_SIMULATION, ext="csv"),
        distributions=fill(avw.ACTIVE_SIMULATION, ext="npz"),
    params:
        files=lambda w: avw.partition_files(config, w.dataset),
        models=lambda w: avw.model_files(config, w.dataset, w.experiment, w.partition),
        spec=lambda w: _ACTIVE["experiments"][w.experiment],
        settings=lambda w: {key: _ACTIVE[key] for key in
                            ("budgets", "repetitions", "measures", "methods", "length_feature")}
                           | {"n_labels": avw.n_labels(config, w.dataset)},
        seed=config["seed"],
    log:
        log("active_simulate"),
    benchmark:
        benchmark("active_simulate")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active/active_simulate.py"


rule active_aggregate:
    """One experiment: mean over partitions and repetitions, standard errors, error-vs-budget figure."""
    input:
        lambda w: avw.simulation_tables(config, w.dataset, w.experiment),
    output:
        table=fill(avw.ACTIVE_TABLE, name="{experiment}", ext="csv"),
        png=report(fill(avw.ACTIVE_FIGURE, name="{experiment}", ext="png"), caption="captions/active_error.rst",
                   category=avw.CATEGORY, subcategory="{dataset}"),
        svg=fill(avw.ACTIVE_FIGURE, name="{experiment}", ext="svg"),
    params:
        spec=lambda w: _ACTIVE["experiments"][w.experiment],
    wildcard_constraints:
        experiment=_alternatives(_ACTIVE.get("experiments", {})),
    log:
        log("active_aggregate"),
    benchmark:
        benchmark("active_aggregate")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active/active_aggregate.py"


rule active_savings:
    """Label savings of active over passive at the largest budget, every experiment and measure."""
    input:
        lambda w: avw.experiment_tables(config, w.dataset).values(),
    output:
        csv=fill(avw.ACTIVE_TABLE, name="savings", ext="csv"),
        md=fill(avw.ACTIVE_TABLE, name="savings", ext="md"),
    params:
        tables=lambda w: avw.experiment_tables(config, w.dataset),
        kinds=lambda w: {name: spec["kind"] for name, spec in _ACTIVE["experiments"].items()},
    log:
        log("active_savings"),
    benchmark:
        benchmark("active_savings")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active/active_savings.py"


rule active_sampling:
    """Fig. 6: the active sampling distribution over (cost, expected performance); queries drawn per method."""
    input:
        unpack(lambda w: avw.heatmap_inputs(config, w.dataset)),
    output:
        png=report(fill(avw.ACTIVE_FIGURE, name="sampling_distribution", ext="png"),
                   caption="captions/active_sampling.rst", category=avw.CATEGORY, subcategory="{dataset}"),
        svg=fill(avw.ACTIVE_FIGURE, name="sampling_distribution", ext="svg"),
    params:
        heatmap=lambda w: _ACTIVE["heatmap"],
        partition=lambda w: avw.partitions(config, w.dataset)[0],
    log:
        log("active_sampling"),
    benchmark:
        benchmark("active_sampling")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active/active_sampling.py"


rule active_training_size:
    """Fig. 5, bottom row: the error at one budget of each training-size experiment, against the second's share."""
    input:
        lambda w: avw.training_size_tables(config, w.dataset).values(),
    output:
        csv=fill(avw.ACTIVE_TABLE, name=avw.TRAINING_SIZE, ext="csv"),
        md=fill(avw.ACTIVE_TABLE, name=avw.TRAINING_SIZE, ext="md"),
        png=report(fill(avw.ACTIVE_FIGURE, name=avw.TRAINING_SIZE, ext="png"),
                   caption="captions/active_training_size.rst", category=avw.CATEGORY, subcategory="{dataset}"),
        svg=fill(avw.ACTIVE_FIGURE, name=avw.TRAINING_SIZE, ext="svg"),
    params:
        tables=lambda w: avw.training_size_tables(config, w.dataset),
        sweep=lambda w: _ACTIVE["training_size"],
        first_share=lambda w: _ACTIVE["models"][_ACTIVE["training_size"]["first"]].get("query_fraction", 1.0),
    log:
        log("active_training_size"),
    benchmark:
        benchmark("active_training_size")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active/active_training_size.py"
