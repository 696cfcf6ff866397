"""Write a RankingData as a LETOR / SVMlight text file (what external rankers such as RankLib read).

Rows are written in the RankingData's row order (query by query), dense, with 9 significant digits,
which reads back to the same float32 values.  ``qids`` gives the query ids to write (default: the
data's own); a ``#docid = ...`` comment keeps each row's line in the original file.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .ranking_data import RankingData

#: rows formatted per write call (bounds memory for MSLR-sized files)
_BLOCK_ROWS = 4096


def write_letor(path: str | os.PathLike, data: RankingData, qids=None) -> Path:
    """Write ``data`` to ``path`` as ``label qid:Q 1:v ... #docid = L<line>`` lines; return the path."""
    path = Path(path)
    qids = np.asarray(data.qids if qids is None else qids)
    if qids.shape != (data.n_queries,):
        raise ValueError(f"qids must have one entry per query ({data.n_queries}), got shape {qids.shape}")
    row_qids = np.repeat(qids.astype(str), data.query_sizes)
    row_format = "%d qid:%s " + " ".join(f"{j + 1}:%.9g" for j in range(data.n_features)) + " #docid = L%d\n"
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for lo in range(0, data.n_docs, _BLOCK_ROWS):
            hi = min(lo + _BLOCK_ROWS, data.n_docs)
            values = data.X[lo:hi].tolist()
            out.write("".join(
                row_format % (label, qid, *row, line)
                for label, qid, row, line in zip(data.labels[lo:hi].tolist(), row_qids[lo:hi].tolist(), values,
                                                 data.line_numbers[lo:hi].tolist())
            ))
    return path
