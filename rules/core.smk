# The core run: raw folds -> parsed folds -> per-seed training (built-in learners and bags) -> prediction files
# -> per-query metrics -> performance tables and figures (job grid: ltrbv.sections.core.grid).

# -- data: raw folds -> parsed binary caches ------------------------------------------------------------

rule synthetic_folds:
    """Write all five folds of a synthetic LETOR dataset (generator in ltrbv.data.synthetic)."""
    output:
        expand(paths.SYNTHETIC_RAW, dataset="{dataset}", fold=SYNTHETIC_FOLDS, split=SPLITS),
    params:
        root=lambda w: config["datasets"][w.dataset]["root"],
        spec=lambda w: dict(sorted(config["datasets"][w.dataset]["synthetic"].items())),
    log:
        log("synthetic_folds"),
    benchmark:
        benchmark("synthetic_folds")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/synthetic_folds.py"


rule validation_split:
    """Carve a fold's validation queries from its training file by seed (datasets.<name>.validation_from_train)."""
    input:
        lambda w: core_grid.raw_input(config, w.dataset, w.fold, "train"),
    output:
        paths.VALIDATION_SPLIT,
    params:
        carve=lambda w: config["datasets"][w.dataset]["validation_from_train"],
    log:
        log("validation_split"),
    benchmark:
        benchmark("validation_split")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/validation_split.py"


rule parse_split:
    """Parse one raw LETOR/MSLR/Yahoo text file once into a binary cache (.npz); a carved dataset's training and
    validation caches hold their part of the training file's queries."""
    input:
        lambda w: core_grid.raw_input(config, w.dataset, w.fold, w.split),
        carved=lambda w: core_grid.validation_split_input(config, w.dataset, w.fold, w.split),
    output:
        paths.PARSED,
    params:
        n_features=lambda w: config["datasets"][w.dataset]["n_features"],
        label_range=lambda w: config["datasets"][w.dataset]["label_range"],
    log:
        log("parse_split"),
    benchmark:
        benchmark("parse_split")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/parse_split.py"

# -- fetched data sets --------------------------------------------------------------------------------
# Fetched data sets: one rule per dataset of the run with a `fetch` entry (datasets.<name>.fetch: url, sha256,
# format) downloads the public archive, checks its SHA-256 and unpacks it into results/<name>/download (the
# dataset's root is that folder or one below it).  A wrong digest, a truncated download or an archive without
# the files the config reads is refused and leaves nothing behind (ltrbv.data.fetch; docs/data.md).

from ltrbv.workflow.datasets import all_raw_files, fetched_datasets


for _name in fetched_datasets(config):

    rule:
        name:
            f"fetch_{_name}"
        output:
            record=paths.FETCH_RECORD.format(dataset=_name),
            files=all_raw_files(config["datasets"][_name]),
        params:
            **{key: config["datasets"][_name]["fetch"][key] for key in ("url", "sha256", "format")},
            folder=paths.FETCHED.format(dataset=_name),
            expected=[os.path.relpath(path, paths.FETCHED.format(dataset=_name))
                      for path in all_raw_files(config["datasets"][_name])],
        log:
            log("fetch_dataset").format(dataset=_name),
        benchmark:
            benchmark("fetch_dataset").format(dataset=_name)
        threads: 1
        conda:
            "../envs/ltrbv.yaml"
        script:
            "../src/scripts/core/fetch_dataset.py"

# -- training: one prediction file per (learner, fold, seed) ----------------------------------------

rule train_model:
    """Train one built-in learner (config learners.<name>.kind) on one fold with one seed."""
    input:
        train=fill(paths.PARSED, split="train"),
        vali=fill(paths.PARSED, split="vali"),
        test=fill(paths.PARSED, split="test"),
    output:
        test=fill(paths.PREDICTION, run=paths.SEED_RUN, file="test.scores"),
        vali=fill(paths.PREDICTION, run=paths.SEED_RUN, file="vali.scores"),
        meta=fill(paths.PREDICTION, run=paths.SEED_RUN, file="meta.json"),
    params:
        learner=lambda w: core_grid.learner_rule_params(config, w.learner),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.seed),
    wildcard_constraints:
        learner=_alternatives(core_grid.built_in_learners(config)),
    log:
        log("train_model"),
    benchmark:
        benchmark("train_model")
    threads: learner_threads
    resources:
        mem_mb=learner_resource("mem_mb"),
        runtime=learner_resource("runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/train_model.py"

# -- bags ------------------------------------------------------------------------------------------------
# Bagged learners (BL-MART, Ganjisaffar et al. 2011 §3.5; ltrbv.learners.bag): one job per training run
# fitting its sub-models one after another (train_bag_<n>, one rule per bag size n: its outputs are the n
# sub-models' files), or one job per sub-model (bag_submodel, for a learner with `jobs: submodel`: a cluster
# spreads a large bag over its nodes); then one job combining them.  The same files either way.  A training
# run ({run}) is seed<n> (the fold's whole training set, as train_model) or trial<t> (the bagging section's
# sample of the training queries, rules/bagging.smk).  An MQ2008 sub-model trains in less than a job's
# start-up: one job per sub-model made the bags' 960 jobs half of the MQ2008 catalog run's.


for _n, _bags in core_grid.bag_run_sizes(config).items():

    rule:
        name:
            f"train_bag_{_n}"
        input:
            train=fill(paths.PARSED, split="train"),
            vali=fill(paths.PARSED, split="vali"),
            test=fill(paths.PARSED, split="test"),
            queries=lambda w: core_grid.trial_input(w.dataset, w.fold, w.run),
        output:
            # test_<k>, vali_<k>, meta_<k>: sub-model k's files
            **core_grid.named_submodel_files(_n, "test.scores", "test"),
            **core_grid.named_submodel_files(_n, "vali.scores", "vali"),
            **core_grid.named_submodel_files(_n, "meta.json", "meta"),
        params:
            learner=lambda w: core_grid.bag_spec(config, w.learner),
            seed_keys=lambda w: [config["seed"], w.dataset, w.fold, w.learner, *paths.run_seed_keys(w.run)],
            run=lambda w: w.run,
            submodels=list(range(_n)),
        wildcard_constraints:
            learner=_alternatives(_bags),
            run=r"(seed|trial)\d+",
        log:
            log("train_bag"),
        benchmark:
            benchmark("train_bag")
        threads: learner_threads
        resources:
            mem_mb=learner_resource("mem_mb"),
            # the learner's runtime is per sub-model; this job fits the run's sub-models one after another
            runtime=learner_resource("runtime", per_job=_n),
        conda:
            "../envs/ltrbv.yaml"
        script:
            "../src/scripts/core/bag_submodels.py"


rule bag_submodel:
    """Train sub-model k of a bag on a random share of the run's training queries (without replacement)."""
    input:
        train=fill(paths.PARSED, split="train"),
        vali=fill(paths.PARSED, split="vali"),
        test=fill(paths.PARSED, split="test"),
        queries=lambda w: core_grid.trial_input(w.dataset, w.fold, w.run),
    output:
        test=fill(paths.SUBMODEL, file="test.scores"),
        vali=fill(paths.SUBMODEL, file="vali.scores"),
        meta=fill(paths.SUBMODEL, file="meta.json"),
    params:
        learner=lambda w: core_grid.bag_spec(config, w.learner),
        seed_keys=lambda w: [config["seed"], w.dataset, w.fold, w.learner, *paths.run_seed_keys(w.run)],
        run=lambda w: w.run,
        submodels=lambda w: [int(w.k)],
    wildcard_constraints:
        learner=_alternatives(core_grid.submodel_job_learners(config)),
        run=r"(seed|trial)\d+",
        k=r"\d+",
    log:
        log("bag_submodel"),
    benchmark:
        benchmark("bag_submodel")
    threads: learner_threads
    resources:
        mem_mb=learner_resource("mem_mb"),
        runtime=learner_resource("runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/bag_submodels.py"


rule combine_bag:
    """The bag's prediction files: per-query min-max normalised sub-model scores averaged (or Borda count)."""
    input:
        test_scores=lambda w: core_grid.submodel_files(config, w.dataset, w.learner, w.fold, w.run, "test.scores"),
        vali_scores=lambda w: core_grid.submodel_files(config, w.dataset, w.learner, w.fold, w.run, "vali.scores"),
        metas=lambda w: core_grid.submodel_files(config, w.dataset, w.learner, w.fold, w.run, "meta.json"),
        test=fill(paths.PARSED, split="test"),
        vali=fill(paths.PARSED, split="vali"),
    output:
        test=fill(paths.PREDICTION, file="test.scores"),
        vali=fill(paths.PREDICTION, file="vali.scores"),
        meta=fill(paths.PREDICTION, file="meta.json"),
    params:
        learner=lambda w: core_grid.bag_spec(config, w.learner),
        run=lambda w: w.run,
        replicate=lambda w: paths.run_replicate(w.run),
    wildcard_constraints:
        learner=_alternatives(core_grid.bag_learners(config)),
        run=r"(seed|trial)\d+",
    log:
        log("combine_bag"),
    benchmark:
        benchmark("combine_bag")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/combine_bag.py"

# -- metrics, tables, figures ------------------------------------------------------------------------

rule evaluate:
    """Per-query metrics of one learner's test-set predictions (every fold and seed) under each of the dataset's conventions."""
    input:
        lambda w: paths.flat(core_grid.evaluation_inputs(config, w.dataset, w.learner)),
    output:
        paths.METRICS,
    params:
        files=lambda w: core_grid.evaluation_inputs(config, w.dataset, w.learner),
        metrics=config["metrics"],
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        log("evaluate"),
    benchmark:
        benchmark("evaluate")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/evaluate.py"

rule performance_table:
    """One row per (learner, fold, metric, convention) plus fold=mean rows; CSV and Markdown."""
    input:
        lambda w: core_grid.metrics_files(config, w.dataset),
    output:
        csv=paths.table("performance", "csv"),
        md=paths.table("performance", "md"),
    log:
        log("performance_table"),
    benchmark:
        benchmark("performance_table")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/performance_table.py"


rule plot_performance:
    """Per-fold and mean performance of every learner, for the configured metric and convention."""
    input:
        paths.table("performance", "csv"),
    output:
        png=report(
            paths.figure("performance", "png"),
            caption="captions/performance.rst",
            category=core_grid.CATEGORY,
            subcategory="{dataset}",
        ),
        svg=paths.figure("performance", "svg"),
    params:
        metric=config["figures"]["metric"],
        convention=config["figures"].get("convention"),
    log:
        log("plot_performance"),
    benchmark:
        benchmark("plot_performance")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/core/plot_performance.py"
