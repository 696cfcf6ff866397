"""Rule validation_split: carve a fold's validation queries from its training file by seed, and record them."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.validation_split import carve_validation, query_ids_of_file
from ltrbv.workflow.logs import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    source = snakemake.input[0]  # noqa: F821
    carve = snakemake.params.carve  # noqa: F821
    split = carve_validation(query_ids_of_file(source), carve["fraction"], carve["seed"])
    Path(snakemake.output[0]).write_text(json.dumps(split.as_record(source), indent=1) + "\n")  # noqa: F821
    log.info("%s: %d training and %d validation queries (fraction %s, seed %d)", source, len(split.train),
             len(split.vali), carve["fraction"], carve["seed"])
