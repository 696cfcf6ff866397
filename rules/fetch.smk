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
            paths.log("fetch_dataset").format(dataset=_name),
        benchmark:
            paths.benchmark("fetch_dataset").format(dataset=_name)
        threads: 1
        resources:
            mem_mb=rule_resources("fetch_dataset", "mem_mb"),
            runtime=rule_resources("fetch_dataset", "runtime"),
        conda:
            "../envs/ltrbv.yaml"
        script:
            "../src/scripts/fetch_dataset.py"
