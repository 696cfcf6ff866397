"""How the R score vectors of one study are grouped into repetitions.

Both resampling schemes of Ibrahim (2021, §5.2) fit one shape, ``(G, M, n_docs)``:
G groups ("repetitions") of M models each, a systematic prediction per group (the
mean of its M models) and a spread factor ``1/(M - 1)``.

* ``"bootstrap"``: one group of the B models (G = 1, M = B), eq. 5-6 and 14-15.
* ``"twofold"``:   J groups of the pair trained on the two halves of repetition j
  (G = J, M = 2, models ordered 1a, 1b, 2a, 2b, ...), eq. 7-8 and 16-17.
"""

from __future__ import annotations

import numpy as np

METHODS = ("bootstrap", "twofold")


def grouped_scores(scores, method: str) -> np.ndarray:
    """``scores`` (R, n_docs) -> float64 view (G, M, n_docs) for ``method``; clear ValueErrors.

    bootstrap needs R = B >= 2; twofold needs an even R = 2J >= 2 ordered 1a, 1b, 2a, 2b, ...
    """
    if method not in METHODS:
        raise ValueError(f"unknown bias-variance method {method!r}; known: {', '.join(METHODS)}")
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(
            f"scores must have shape (n_models, n_docs), one row per model; got shape {scores.shape}"
        )
    n_models = scores.shape[0]
    if n_models < 2:
        raise ValueError(f"{method} needs at least 2 models (variance has a 1/(M-1) factor); got {n_models}")
    if not np.all(np.isfinite(scores)):
        model, doc = np.argwhere(~np.isfinite(scores))[0]
        raise ValueError(f"score of model {model + 1} for document row {doc} is not finite")
    if method == "bootstrap":
        return scores[np.newaxis, :, :]
    if n_models % 2:
        raise ValueError(
            f"twofold needs an even number of models (pairs 1a 1b 2a 2b ...); got {n_models}"
        )
    return scores.reshape(n_models // 2, 2, scores.shape[1])
