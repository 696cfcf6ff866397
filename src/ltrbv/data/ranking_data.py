"""The in-memory form of one parsed LETOR file: documents grouped by query.

Every other module (metrics, learners, reducers) works on this one shape:

* ``X``              float32, shape (n_docs, n_features), C-contiguous.
* ``labels``         int8, shape (n_docs,): graded relevance labels.
* ``query_offsets``  int64, shape (n_queries + 1,): documents of query ``i`` are
                     rows ``query_offsets[i]:query_offsets[i + 1]``.
* ``qids``           str array, shape (n_queries,): the qid tokens as written.
* ``line_numbers``   int64, shape (n_docs,): the 1-based input line of each row.

Queries appear in order of their first line in the file; inside a query the
rows keep input-line order, so "tied scores keep input order" is simply
"tied scores keep row order".  ``line_numbers`` maps rows back to the file, so
a score file written in file order (one score per line, as the LETOR Perl
scripts read it) is ``scores_in_file_order[argsort(line_numbers)]``... see
:meth:`RankingData.to_file_order` and :meth:`RankingData.from_file_order`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class RankingData:
    X: np.ndarray
    labels: np.ndarray
    query_offsets: np.ndarray
    qids: np.ndarray
    line_numbers: np.ndarray
    source: str = ""
    _file_order: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = self.X.shape[0]
        if self.labels.shape != (n,) or self.line_numbers.shape != (n,):
            raise ValueError("labels and line_numbers must have one entry per row of X")
        if self.query_offsets.ndim != 1 or self.query_offsets[0] != 0 or self.query_offsets[-1] != n:
            raise ValueError("query_offsets must start at 0 and end at n_docs")
        if self.qids.shape != (self.query_offsets.size - 1,):
            raise ValueError("qids must have one entry per query")

    # -- sizes ---------------------------------------------------------------
    @property
    def n_docs(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_queries(self) -> int:
        return int(self.query_offsets.size - 1)

    @property
    def query_sizes(self) -> np.ndarray:
        return np.diff(self.query_offsets)

    @property
    def query_index(self) -> np.ndarray:
        """Query number (0..n_queries-1) of every row."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.query_sizes)

    # -- file order <-> row order ---------------------------------------------
    @property
    def file_order(self) -> np.ndarray:
        """Row index of the i-th line of the file (a permutation of rows)."""
        order = self._file_order
        if order is None:
            order = np.argsort(self.line_numbers, kind="stable")
            object.__setattr__(self, "_file_order", order)
        return order

    def to_file_order(self, row_values: np.ndarray) -> np.ndarray:
        """Reorder a per-row array into the file's line order."""
        return np.asarray(row_values)[self.file_order]

    def from_file_order(self, file_values: np.ndarray) -> np.ndarray:
        """Reorder a per-line array (file order) into row order."""
        file_values = np.asarray(file_values)
        if file_values.shape[0] != self.n_docs:
            raise ValueError(
                f"{self.source or 'data'}: expected {self.n_docs} values (one per document), "
                f"got {file_values.shape[0]}"
            )
        out = np.empty_like(file_values)
        out[self.file_order] = file_values
        return out

    # -- subsets --------------------------------------------------------------
    def subset_features(self, columns: np.ndarray) -> "RankingData":
        """The same documents with only the given feature columns, in that order."""
        return RankingData(X=np.ascontiguousarray(self.X[:, np.asarray(columns, dtype=np.int64)]),
                           labels=self.labels, query_offsets=self.query_offsets, qids=self.qids,
                           line_numbers=self.line_numbers, source=self.source, _file_order=self._file_order)

    def subset_queries(self, query_ids: np.ndarray) -> "RankingData":
        """A new RankingData holding the given queries (by query number), in that order."""
        query_ids = np.asarray(query_ids, dtype=np.int64)
        starts = self.query_offsets[query_ids]
        sizes = self.query_offsets[query_ids + 1] - starts
        offsets = np.zeros(query_ids.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        rows = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1], dtype=np.int64)
        return RankingData(
            X=np.ascontiguousarray(self.X[rows]),
            labels=self.labels[rows],
            query_offsets=offsets,
            qids=self.qids[query_ids],
            line_numbers=self.line_numbers[rows],
            source=self.source,
        )


def concatenate_queries(parts: "list[RankingData] | tuple[RankingData, ...]") -> RankingData:
    """The queries of several data sets, one after another, as one RankingData.

    Query ids are renumbered ``1..n`` (two parts may use the same qid); the scores of the result split
    back into the parts' row order with :func:`split_rows`.
    """
    if not parts:
        raise ValueError("nothing to concatenate")
    widths = {part.n_features for part in parts}
    if len(widths) != 1:
        raise ValueError(f"the parts have different numbers of features: {sorted(widths)}")
    offsets = [np.asarray([0], dtype=np.int64)]
    start = 0
    for part in parts:
        offsets.append(part.query_offsets[1:] + start)
        start += part.n_docs
    return RankingData(
        X=np.ascontiguousarray(np.concatenate([part.X for part in parts])),
        labels=np.concatenate([part.labels for part in parts]),
        query_offsets=np.concatenate(offsets),
        qids=np.arange(1, sum(part.n_queries for part in parts) + 1).astype(str),
        line_numbers=np.concatenate([part.line_numbers for part in parts]),
    )


def split_rows(values: np.ndarray, parts) -> list[np.ndarray]:
    """Per-row values of a :func:`concatenate_queries` result, split back into one array per part."""
    bounds = np.cumsum([part.n_docs for part in parts])[:-1]
    return np.split(np.asarray(values), bounds)
