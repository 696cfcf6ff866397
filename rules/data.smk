# Raw folds -> parsed binary caches.


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
    resources:
        mem_mb=rule_resources("synthetic_folds", "mem_mb"),
        runtime=rule_resources("synthetic_folds", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/synthetic_folds.py"


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
    resources:
        mem_mb=rule_resources("validation_split", "mem_mb"),
        runtime=rule_resources("validation_split", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/validation_split.py"


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
    resources:
        mem_mb=rule_resources("parse_split", "mem_mb"),
        runtime=rule_resources("parse_split", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/parse_split.py"
