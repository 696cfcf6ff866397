# Active estimation of ranking performance (Sawade et al. 2013), switched on by the config section `active`
# (see config/active-demo.yaml, config/active-mq2008.yaml).  Partition = one fold's test split; the other
# folds' test splits form the pool of unlabeled queries.
#   active_train      one relevance model / ranking function on one partition -> pool scores (+ label probs)
#   active_simulate   one experiment on one partition: q (eq. 16/17), Algorithm 1 x repetitions x budgets
#   active_aggregate  one experiment: mean over partitions + figure (Figs. 2-5)
#   active_savings    label savings of active over passive at the largest budget (table)
#   active_sampling   Fig. 6: q over (cost, expected performance) and queries drawn per method

from functools import partial

from ltrbv.active import workflow as avw

_active_problems = avw.problems(config)
if _active_problems:
    raise WorkflowError("invalid config:\n  " + "\n  ".join(_active_problems))


active_targets = partial(avw.targets, config)
_ACTIVE = avw.settings(config) or {}


rule active_train:
    """Train one relevance model or ranking function on a partition; score every pool document."""
    input:
        lambda w: avw.partition_files(config, w.dataset).values(),
    output:
        "results/{dataset}/active/models/{partition}/{model}.npz",
    params:
        files=lambda w: avw.partition_files(config, w.dataset),
        spec=lambda w: _ACTIVE["models"][w.model],
        n_labels=lambda w: avw.n_labels(config, w.dataset),
        train_fraction=lambda w: _ACTIVE["train_fraction"],
        min_label_prob=lambda w: _ACTIVE["min_label_prob"],
        split_seed=lambda w: derive_seed(config["seed"], w.dataset, w.partition, "active-split"),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.partition, w.model),
    log:
        "results/{dataset}/logs/active_train/{partition}/{model}.log",
    benchmark:
        "results/{dataset}/benchmarks/active_train/{partition}/{model}.tsv"
    threads: lambda w: _ACTIVE["models"][w.model].get("threads", 1)
    resources:
        mem_mb=rule_resources("active_train", "mem_mb", 2000),
        runtime=rule_resources("active_train", "runtime", 60),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active_train.py"


rule active_simulate:
    """One experiment on one partition: sampling distributions and repetitions of Algorithm 1."""
    input:
        parts=lambda w: avw.partition_files(config, w.dataset).values(),
        models=lambda w: avw.model_files(config, w.dataset, w.experiment, w.partition).values(),
    output:
        table="results/{dataset}/active/simulations/{experiment}/{partition}.csv",
        distributions="results/{dataset}/active/simulations/{experiment}/{partition}.npz",
    params:
        files=lambda w: avw.partition_files(config, w.dataset),
        models=lambda w: avw.model_files(config, w.dataset, w.experiment, w.partition),
        spec=lambda w: _ACTIVE["experiments"][w.experiment],
        settings=lambda w: {key: _ACTIVE[key] for key in
                            ("budgets", "repetitions", "measures", "methods", "length_feature")}
                           | {"n_labels": avw.n_labels(config, w.dataset)},
        seed=config["seed"],
    log:
        "results/{dataset}/logs/active_simulate/{experiment}/{partition}.log",
    benchmark:
        "results/{dataset}/benchmarks/active_simulate/{experiment}/{partition}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("active_simulate", "mem_mb", 2000),
        runtime=rule_resources("active_simulate", "runtime", 30),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active_simulate.py"


rule active_aggregate:
    """One experiment: mean over partitions and repetitions, standard errors, error-vs-budget figure."""
    input:
        lambda w: expand("results/{{dataset}}/active/simulations/{{experiment}}/{partition}.csv",
                         partition=avw.partitions(config, w.dataset)),
    output:
        table="results/{dataset}/active/tables/{experiment}.csv",
        png=report("results/{dataset}/active/figures/{experiment}.png", caption="captions/active_error.rst",
                   category=report_grid.ACTIVE, subcategory="{dataset}"),
        svg="results/{dataset}/active/figures/{experiment}.svg",
    params:
        spec=lambda w: _ACTIVE["experiments"][w.experiment],
    wildcard_constraints:
        experiment=_alternatives(_ACTIVE.get("experiments", {})),
    log:
        "results/{dataset}/logs/active_aggregate/{experiment}.log",
    benchmark:
        "results/{dataset}/benchmarks/active_aggregate/{experiment}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("active_aggregate", "mem_mb", 1000),
        runtime=rule_resources("active_aggregate", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active_aggregate.py"


rule active_savings:
    """Label savings of active over passive at the largest budget, every experiment and measure."""
    input:
        lambda w: expand("results/{{dataset}}/active/tables/{experiment}.csv", experiment=_ACTIVE["experiments"]),
    output:
        csv="results/{dataset}/active/tables/savings.csv",
        md="results/{dataset}/active/tables/savings.md",
    params:
        experiments=lambda w: list(_ACTIVE["experiments"]),
        kinds=lambda w: {name: spec["kind"] for name, spec in _ACTIVE["experiments"].items()},
    log:
        "results/{dataset}/logs/active_savings.log",
    benchmark:
        "results/{dataset}/benchmarks/active_savings.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("active_savings", "mem_mb", 1000),
        runtime=rule_resources("active_savings", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active_savings.py"


rule active_sampling:
    """Fig. 6: the active sampling distribution over (cost, expected performance); queries drawn per method."""
    input:
        distributions=lambda w: "results/{dataset}/active/simulations/{experiment}/{partition}.npz".format(
            dataset=w.dataset, experiment=_ACTIVE["heatmap"]["experiment"],
            partition=avw.partitions(config, w.dataset)[0]),
        table=lambda w: "results/{dataset}/active/tables/{experiment}.csv".format(
            dataset=w.dataset, experiment=_ACTIVE["heatmap"]["experiment"]),
    output:
        png=report("results/{dataset}/active/figures/sampling_distribution.png",
                   caption="captions/active_sampling.rst", category=report_grid.ACTIVE, subcategory="{dataset}"),
        svg="results/{dataset}/active/figures/sampling_distribution.svg",
    params:
        heatmap=lambda w: _ACTIVE["heatmap"],
        partition=lambda w: avw.partitions(config, w.dataset)[0],
    log:
        "results/{dataset}/logs/active_sampling.log",
    benchmark:
        "results/{dataset}/benchmarks/active_sampling.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("active_sampling", "mem_mb", 1000),
        runtime=rule_resources("active_sampling", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/active_sampling.py"
