# Fetched data sets: one rule per dataset with a `fetch` entry (datasets.<name>.fetch: url, sha256, format)
# downloads the public archive, checks its SHA-256 and unpacks it into results/<name>/download (the dataset's
# root is that folder or one below it).  A wrong digest, a truncated download or an archive without the files
# the config reads is refused and leaves nothing behind (ltrbv.data.fetch).

from ltrbv.workflow.datasets import all_raw_files


def _fetch_rule(name):
    dataset = config["datasets"][name]
    folder = paths.FETCHED.format(dataset=name)

    rule:
        name:
            f"fetch_{name}"
        output:
            record=paths.FETCH_RECORD.format(dataset=name),
            files=all_raw_files(dataset),
        params:
            url=dataset["fetch"]["url"],
            sha256=dataset["fetch"]["sha256"],
            format=dataset["fetch"]["format"],
            folder=folder,
            expected=[os.path.relpath(path, folder) for path in all_raw_files(dataset)],
        log:
            paths.log("fetch_dataset").format(dataset=name),
        benchmark:
            paths.benchmark("fetch_dataset").format(dataset=name)
        threads: 1
        resources:
            mem_mb=rule_resources("fetch_dataset", "mem_mb"),
            runtime=rule_resources("fetch_dataset", "runtime"),
        conda:
            "../envs/ltrbv.yaml"
        script:
            "../src/scripts/fetch_dataset.py"


for _name in config["run"]["datasets"]:
    if config["datasets"][_name].get("fetch"):
        _fetch_rule(_name)
