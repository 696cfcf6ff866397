"""A validation set carved from a training file's queries by seed (for releases without one: istella LETOR).

The training file's distinct query ids are put in a canonical order (numeric where every id is a number,
else by text), shuffled by ``numpy.random.Generator(PCG64(seed))`` and the first ``round(fraction * n)``
become the validation queries; the rest stay training queries.  So the split depends only on the set of
query ids, the fraction and the seed: not on the file's line order, the machine or the job order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CarvedSplit:
    train: tuple[str, ...]
    vali: tuple[str, ...]
    fraction: float
    seed: int

    def queries(self, part: str) -> tuple[str, ...]:
        if part not in ("train", "vali"):
            raise ValueError(f"a carved split has parts 'train' and 'vali', not {part!r}")
        return self.train if part == "train" else self.vali

    def as_record(self, source: str) -> dict:
        return {"source": source, "fraction": self.fraction, "seed": self.seed,
                "n_train": len(self.train), "n_vali": len(self.vali), "train": list(self.train),
                "vali": list(self.vali)}


def _canonical(qids: set[str]) -> list[str]:
    if all(q.isdigit() for q in qids):
        return sorted(qids, key=lambda q: (int(q), q))
    return sorted(qids)


def carve_validation(qids, fraction: float, seed: int) -> CarvedSplit:
    """Split distinct query ids into training and validation queries (each part in canonical order)."""
    distinct = _canonical({str(q) for q in qids})
    n_vali = round(fraction * len(distinct))
    if not 0 < fraction < 1 or n_vali < 1 or n_vali >= len(distinct):
        raise ValueError(f"validation_from_train: fraction {fraction} of {len(distinct)} training queries leaves "
                         f"{n_vali} validation and {len(distinct) - n_vali} training queries; both need at least one")
    order = np.random.Generator(np.random.PCG64(seed)).permutation(len(distinct))
    chosen = set(order[:n_vali].tolist())
    vali = tuple(q for i, q in enumerate(distinct) if i in chosen)
    train = tuple(q for i, q in enumerate(distinct) if i not in chosen)
    return CarvedSplit(train=train, vali=vali, fraction=float(fraction), seed=int(seed))


def query_ids_of_file(path) -> list[str]:
    """The distinct query ids of a LETOR text file, in order of first appearance (a light scan, no parse)."""
    seen: dict[str, None] = {}
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            tokens = line.split(None, 2)
            if not tokens or tokens[0].startswith(b"#"):
                continue
            if len(tokens) < 2 or not tokens[1].startswith(b"qid:"):
                raise ValueError(f"{path}, line {number}: no 'qid:' token after the label")
            seen.setdefault(tokens[1][4:].decode("ascii", "replace"), None)
    return list(seen)


def take_part(data, record: dict, part: str):
    """The queries of ``part`` ('train' or 'vali') of a recorded split, from the parsed training file; refused
    when the file's queries are not exactly the recorded ones (the file changed after the split was carved)."""
    split = CarvedSplit(train=tuple(record["train"]), vali=tuple(record["vali"]), fraction=record["fraction"],
                        seed=record["seed"])
    index = {str(q): i for i, q in enumerate(data.qids)}
    if set(index) != set(split.train) | set(split.vali):
        raise ValueError(f"{data.source}: its queries differ from those of the carved split "
                         f"({record['source']}); delete the split record to carve it again")
    return data.subset_queries(sorted(index[q] for q in split.queries(part)))
