"""Rule parse_split: parse one raw LETOR text file into the binary cache."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import save_cache
from ltrbv.data.letor import read_letor
from ltrbv.workflow.logs import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    lo, hi = snakemake.params.label_range  # noqa: F821
    n_features = snakemake.params.n_features  # noqa: F821
    data = read_letor(snakemake.input[0], n_features=n_features, max_feature=n_features, label_range=(lo, hi))  # noqa: F821
    if snakemake.input.carved:  # noqa: F821  a validation set carved from the training queries
        import json

        from ltrbv.data.validation_split import take_part

        data = take_part(data, json.loads(Path(snakemake.input.carved[0]).read_text()), snakemake.wildcards.split)  # noqa: F821
    save_cache(data, snakemake.output[0])  # noqa: F821
    log.info("%s: %d queries, %d documents, %d features", snakemake.input[0], data.n_queries, data.n_docs, data.n_features)  # noqa: F821
