# Forest diagnostics (Ibrahim & Carman 2016): progressive strength of individual trees (Fig. 7).
# Switched on by the config section `diagnostics: {tree_strength: {...}}` (off when absent):
#   tree_strength       grow n_trees trees of one random-forest learner on a fold's training set; mean over
#                       trees of the expected NDCG after every node expansion, on the training and test sets
#   plot_tree_strength  one figure per dataset: one colour per learner, solid = train, dashed = test

from ltrbv.sections.diagnostics import grid as dgg

_ts = dgg.tree_strength_settings(config) or {}


rule tree_strength:
    """Fig. 7 data for one learner: mean over n_trees trees of the expected NDCG after each node expansion."""
    input:
        train=lambda w: dgg.tree_strength_input(config, w.dataset, "train"),
        test=lambda w: dgg.tree_strength_input(config, w.dataset, "test"),
    output:
        dgg.TREE_STRENGTH,
    params:
        params=lambda w: dgg.tree_strength_params(config, w.learner),
        n_trees=_ts.get("n_trees"),
        max_expansions=_ts.get("max_expansions"),
        fold=lambda w: dgg.tree_strength_fold(config, w.dataset),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, dgg.tree_strength_fold(config, w.dataset),
                                           w.learner, "strength"),
    wildcard_constraints:
        learner=_alternatives(_ts.get("learners", [])),
    log:
        log("tree_strength"),
    benchmark:
        benchmark("tree_strength")
    threads: learner_threads
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/diagnostics/tree_strength.py"


rule plot_tree_strength:
    """Fig. 7: strength of single trees against the order of node expansion, train (solid) and test (dashed)."""
    input:
        lambda w: dgg.tree_strength_files(config, w.dataset).values(),
    output:
        png=report(
            paths.figure("tree_strength", "png"),
            caption="captions/tree_strength.rst",
            category=dgg.CATEGORY,
            subcategory="{dataset}",
        ),
        svg=paths.figure("tree_strength", "svg"),
    params:
        tables=lambda w: dgg.tree_strength_files(config, w.dataset),
        n_trees=_ts.get("n_trees"),
        fold=lambda w: dgg.tree_strength_fold(config, w.dataset),
    log:
        log("plot_tree_strength"),
    benchmark:
        benchmark("plot_tree_strength")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/diagnostics/plot_tree_strength.py"
