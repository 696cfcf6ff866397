"""Rule fetch_<dataset>: download a public archive, check its SHA-256, unpack it into the dataset's download folder."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.fetch import fetch_archive
from ltrbv.workflow.logs import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params  # noqa: F821
    fetched = fetch_archive(p.url, p.sha256, p.format, p.folder, expected=list(p.expected))
    Path(snakemake.output.record).write_text(json.dumps(fetched, indent=1) + "\n")  # noqa: F821
    log.info("%s: %d bytes, sha256 %s, %d files unpacked into %s", p.url, fetched["bytes"], p.sha256,
             len(fetched["files"]), p.folder)
