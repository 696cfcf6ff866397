# The reproduction catalog (config section `catalog:`, entries in config/catalog.yaml; job grid:
# ltrbv.sections.catalog.grid; one module per entry kind, ltrbv.sections.catalog.kinds).  Training is the core
# run's (a sweep's values and a grid's combinations are generated learners):
#   catalog_<kind>   one entry of a kind with a job (compare, sweep, curve, grid, scores): its table, page, figure
#                    and its claims' tests (catalog/<entry>.claims.csv)
#   catalog_timing   an entry's timing claims: its learners fitted repeatedly by a job that holds every core
#   catalog_page     results/{dataset}/catalog.md: every entry's claims, numbers, verdict and CPU time; the page
#                    judges every tested claim as one family

from ltrbv.sections.catalog import grid as cg
from ltrbv.sections.catalog.kinds import KINDS, WITH_JOB


for _kind in WITH_JOB:

    rule:
        name:
            f"catalog_{_kind}"
        input:
            lambda w: paths.flat(cg.entry_files(config, w.dataset, w.entry)),
        output:
            **{name: report(path, caption="captions/catalog_figure.rst", category=cg.CATEGORY, subcategory="{dataset}")
               if name == "png" else path for name, path in cg.outputs(_kind).items()},
        params:
            entry=lambda w: cg.entry_params(config, w.dataset, w.entry),
            files=lambda w: cg.entry_files(config, w.dataset, w.entry),
            seed=config["seed"],
            caption=getattr(KINDS[_kind], "CAPTION", ""),
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


rule catalog_timing:
    """An entry's timing claims, measured on their own: each timed learner fitted `repeats` times on the first fold by
    a job that holds every core of the run (no other job beside it); CPU and wall seconds, the load average."""
    input:
        train=lambda w: cg.timing_inputs(config, w.dataset)["train"],
        vali=lambda w: cg.timing_inputs(config, w.dataset)["vali"],
    output:
        cg.catalog_file("{entry}", cg.TIMING_EXT),
    params:
        timing=lambda w: cg.timing_params(config, w.entry),
        seed=config["seed"],
    wildcard_constraints:
        entry=_alternatives(cg.timed_entries(config)),
    log:
        log("catalog_timing"),
    benchmark:
        benchmark("catalog_timing")
    threads: run_cores()  # every core of a local run: no other job runs beside a timing (1 on a cluster)
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/catalog/catalog_timing.py"


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
