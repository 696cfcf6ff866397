"""Bias-variance decomposition of an evaluation metric across queries (Zhang, Song, Wang &
Hou 2013, "Bias-variance decomposition of IR evaluation", SIGIR '13).

A family of models (systems) is evaluated on the same queries: ``values[s, q]`` is the
per-query metric (AP, NDCG, ...) of model s, and a target model T gives ``target[q]``.
Expectations are plain means over the (uniformly weighted) queries and variances divide
by the number of queries, as in the paper's Table 1 (``Var(A) = [(0.3-0.2)^2 +
(0.1-0.2)^2] / 2 = 0.01``).

Columns of :func:`zhang_bias_variance` (m = the metric, M = its mean over queries):

=======================  ==========================================================  ======
column                   definition                                                  eq.
=======================  ==========================================================  ======
mean                     M = E(m)  (MAP for AP)
target_mean              M_T = E(m_T)
bias                     Bias(m) = E(m_T - m) = M_T - M                              1, 5
bias2                    Bias(m)^2
variance                 Var(m) = E(m - M)^2                                         2
bias2_plus_variance      Bias^2(m) + Var(m) = E(m - M_T)^2                           3
rho_variance             Var(rho) = E(rho - E rho)^2 with rho = m_T - m              4, 6
rho_bias2_plus_variance  Bias^2(rho) + Var(rho) = E(m - m_T)^2                       7
target_error             E(m_T - 1)^2, the target's own error                        8
error_to_one             E(m - 1)^2 = (1 - M)^2 + Var(m)                             8, 9
=======================  ==========================================================  ======

(``Bias(rho) = E(rho) - rho_T`` with ``rho_T = 0`` equals ``bias``, eq. 5.)

Note: two cells of the paper's Table 1 disagree with its own definitions (model B:
Var 0.0646 but (0.6-0.34)^2 = (0.08-0.34)^2 = 0.0676, and its Bias^2+Var 0.0797 =
0.0121 + 0.0676; model C: Bias^2+Var 0.182 but 0.0121 + 0.0961 = 0.1082); this module
follows the definitions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TARGETS = ("perfect", "best")


def target_values(values: np.ndarray, target, model_names, ideal=None) -> np.ndarray:
    """The target model's per-query metric ``m_T`` (Zhang et al. 2013 §2.5).

    * ``"perfect"``: the ideal ranking's value, 1 per query (the paper's first setting), or
      ``ideal`` (n_queries,) if given, e.g. 0 for queries without relevant documents;
    * ``"best"``: the per-query maximum over the family (the second setting, "the best AP
      among evaluated retrieval models");
    * a name in ``model_names``: that model (a real target model, the third setting);
    * an array (n_queries,): given per-query target values.
    """
    n_queries = values.shape[1]
    if isinstance(target, str):
        if target == "perfect":
            out = np.ones(n_queries) if ideal is None else np.asarray(ideal, dtype=np.float64)
        elif target == "best":
            out = values.max(axis=0)
        elif target in model_names:
            out = values[list(model_names).index(target)]
        else:
            raise ValueError(
                f"unknown target {target!r}: use 'perfect', 'best', a model name "
                f"({', '.join(map(str, model_names))}) or an array of per-query values"
            )
    else:
        out = np.asarray(target, dtype=np.float64)
    if out.shape != (n_queries,):
        raise ValueError(f"target values must have shape ({n_queries},), got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError("target values must be finite")
    return out


def zhang_bias_variance(values, target="perfect", model_names=None, ideal=None) -> pd.DataFrame:
    """One row per model of the Zhang et al. (2013) bias-variance figures (module docstring).

    ``values`` (n_models, n_queries): per-query metric of each model on the same queries
    (finite; drop or fill undefined queries first).  ``target``: see :func:`target_values`.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[np.newaxis, :]
    if values.ndim != 2 or values.shape[1] < 1:
        raise ValueError(f"values must have shape (n_models, n_queries), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite: drop or fill queries with an undefined metric first")
    if model_names is None:
        model_names = [f"model{i + 1}" for i in range(values.shape[0])]
    model_names = list(model_names)
    if len(model_names) != values.shape[0]:
        raise ValueError(f"{len(model_names)} model names for {values.shape[0]} models")
    target_per_query = target_values(values, target, model_names, ideal)

    mean = values.mean(axis=1)
    target_mean = target_per_query.mean()
    bias = target_mean - mean                                                  # eq. 1
    variance = ((values - mean[:, np.newaxis]) ** 2).mean(axis=1)              # eq. 2
    rho = target_per_query[np.newaxis, :] - values                             # eq. 4
    rho_variance = ((rho - rho.mean(axis=1, keepdims=True)) ** 2).mean(axis=1)  # eq. 6
    return pd.DataFrame({
        "model": model_names,
        "mean": mean,
        "target_mean": target_mean,
        "bias": bias,
        "bias2": bias**2,
        "variance": variance,
        "bias2_plus_variance": bias**2 + variance,                             # eq. 3
        "rho_variance": rho_variance,
        "rho_bias2_plus_variance": bias**2 + rho_variance,                     # eq. 7
        "target_error": np.mean((target_per_query - 1.0) ** 2),                 # eq. 8
        "error_to_one": (1.0 - mean) ** 2 + variance,                          # eq. 9
    })
