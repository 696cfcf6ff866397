"""Cost models of the workflow's rules: a job's CPU seconds as a power law of its sizes, fitted on calibration runs.

A job costs its start-up (the interpreter, the Snakemake preamble and the script's imports: the rule's median
over its calibration jobs, read from their logs) plus its work, modelled as

    work = w0 + exp(a_key) * prod_f x_f ** e_f                                               (1)

over the size features ``x_f`` of :data:`FEATURES`: the documents the job's work scales with, the mean list
length (documents per query of the training set), the trees (or boosting rounds) of its learner, the models it
fits one after another and its input files.  ``w0`` is the work that does not grow with any of them (loading
the compiled kernels, importing XGBoost, reading a config), one per *group*; ``a_key`` is one intercept per
*key* (rule, learner, setting, data set: a learner's own parameters and a data set's shape set its cost per
unit); the exponents ``e_f`` are shared by the group, the keys of one rule whose learners are of one cost family
(``forest-list``, ``xgboost``, ``bag-xgboost`` ...; a rule without a learner is a group of its own).  A key
measured at few sizes borrows the exponents its group's other keys were measured at several sizes for.

Fitting (:func:`fit_group`), in logs: ``log y = log(w0 + exp(a_key + sum_f e_f log x_f))``.  With ``w0 = 0``
this is linear, solved by least squares with one dummy per key (the keys' differences are absorbed by their
intercepts; an exponent is learned only from sizes *of one key*); where a key has three or more sizes, ``w0``
is fitted too (bounded by the group's smallest work), from that start (scipy's ``least_squares``).  A fitted
exponent is shrunk towards its :data:`DEFAULT_EXPONENTS` value (a normal prior of sd :data:`EXPONENT_PRIOR`, one
pseudo-observation weighted by the ratio of a job's log-time scatter :data:`LOG_NOISE` to it: the estimate is the
posterior mode) and bounded by :data:`EXPONENT_BOUNDS` (scipy's ``lsq_linear`` without ``w0``).  At calibration
sizes where a job's work is mostly its constant part, the data hardly tell ``w0`` from the exponent: a free fit
priced a 500-tree MSLR-WEB10K forest at millions of core-hours (``docs^8.05`` from three noisy sizes of one key);
with the prior such an exponent stays near linear, while one the data measure (RF-list's ~1.4) is kept.  An exponent
whose feature never varies within a key (by more than :data:`VARIED_RATIO`) keeps its
:data:`DEFAULT_EXPONENTS` prior (trees, models, inputs linear: a job fits or reads them one after another;
list length 0) and is marked assumed.

Uncertainty (a factor, printed by ``ltrbv plan``): the fit's residual scatter, plus for each feature the
exponent's uncertainty times how far the prediction extrapolates (``|log(x / x_calibrated)|``).  An exponent's
uncertainty is measured where the group has a size more than its fit needs (refitted without its largest
size, the error at that size over the log distance predicted across) and a prior otherwise
(:data:`EXPONENT_PRIOR_SD`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: the size features of a job (ltrbv.workflow.plan.job_features computes them)
FEATURES = ("docs", "list_length", "trees", "models", "inputs")
#: an exponent's value where the calibration does not vary its feature within a key
DEFAULT_EXPONENTS = {"docs": 1.0, "list_length": 0.0, "trees": 1.0, "models": 1.0, "inputs": 1.0}
#: the standard deviation of an exponent fitted without a size to check it on, or assumed
EXPONENT_PRIOR_SD = {"fitted": 0.1, "assumed": 0.25}
#: an uncalibrated intercept's spread (log units) where a group has a single key to take the spread from
INTERCEPT_PRIOR_SD = math.log(3.0)
#: the work of a job, floored: CPU times below it are timer noise (a log of 0 would be -inf)
MIN_WORK_SECONDS = 0.01
#: a feature counts as varied within a key when two of its values differ by more than this ratio (the realised
#: list length of synthetic data of one shape moves by a few per cent between sizes: not a variation)
VARIED_RATIO = 1.25
#: the range of a fitted exponent: no rule's work falls as its sizes grow, nor grows faster than their square (a
#: tree sorts its documents, O(n log n); an RF-list tree measured 4 -> 164 CPU-s from 5% to 63% of MSLR-450k, an
#: exponent of 1.47 in documents, and the calibration fitted 1.40; trees, models and inputs are fitted or read one
#: after another, 1)
EXPONENT_BOUNDS = (0.0, 2.0)
#: the sd of the prior a fitted exponent is shrunk towards its DEFAULT_EXPONENTS value with
EXPONENT_PRIOR = 0.5
#: a job's scatter of log CPU time about its cost model (calibration runs' residuals: 0.1-0.2), which weighs the prior
LOG_NOISE = 0.15
#: columns of a calibration table besides the features
KEY_COLUMNS = ("rule", "learner", "setting", "dataset")


def _log(x) -> float:
    return math.log(max(float(x), 1e-300))


@dataclass(frozen=True)
class GroupModel:
    """Eq. 1 for the keys of one group: the constant work, the intercepts, the shared exponents, what they rest on."""

    group: tuple                       # (rule, family)
    w0: float                          # constant work (seconds)
    intercepts: dict                   # {key: a_key}, key = (rule, learner, setting, dataset)
    exponents: dict                    # {feature: e_f}
    fitted: frozenset                  # features whose exponent was fitted (the others: DEFAULT_EXPONENTS)
    exponent_sd: dict                  # {feature: sd of e_f}
    exponent_sd_source: str            # "held-out size" or "prior"
    residual_sd: float                 # of log work over the fit's degrees of freedom (0 without any)
    reference: dict                    # {key: {feature: geometric mean of the key's calibrated x_f}}
    sizes: int                         # distinct calibrated sizes (docs) of the group
    jobs: int

    def intercept(self, key) -> tuple[float, float, str]:
        """(a_key, its extra log-sd, source): the key's own; a key measured on another data set (the mean over
        them); or the group's median."""
        if key in self.intercepts:
            return self.intercepts[key], 0.0, "key"
        same = [a for k, a in self.intercepts.items() if k[:3] == key[:3]]
        if same:
            return float(np.mean(same)), INTERCEPT_PRIOR_SD, "another data set"
        values = list(self.intercepts.values())
        spread = float(np.std(values)) if len(values) > 2 else INTERCEPT_PRIOR_SD
        return float(np.median(values)), spread, "group median"

    def work(self, key, x: dict, anchored_sd: float | None = None) -> tuple[float, float, str]:
        """(work seconds, log-sd, intercept source) of eq. 1 at ``x``; ``anchored_sd``: the log-sd of a full-size
        anchor's transfer, in place of the extrapolation's (:meth:`_log_sd`)."""
        a, extra, source = self.intercept(key)
        variable = math.exp(a + sum(self.exponents[f] * _log(x[f]) for f in FEATURES))
        return self.w0 + variable, self._log_sd(key, x, extra, variable, anchored_sd), source

    def _log_sd(self, key, x: dict, extra: float, variable: float, anchored_sd: float | None = None) -> float:
        """Residual scatter, each exponent's error times the log distance extrapolated from the key's calibrated
        sizes (the group's median where the key has none) -- or, for a job anchored at full size, the anchor's
        transfer error instead (the price no longer extrapolates) -- and an uncalibrated intercept's spread; on the
        variable part only (``w0`` is measured)."""
        variance = self.residual_sd ** 2 + extra ** 2
        if anchored_sd is not None:
            variance += anchored_sd ** 2
        else:
            reference = self.reference.get(key) or {
                f: math.exp(float(np.median([_log(r[f]) for r in self.reference.values()]))) for f in FEATURES}
            for f in FEATURES:
                variance += (self.exponent_sd[f] * abs(_log(x[f]) - _log(reference[f]))) ** 2
        share = variable / (self.w0 + variable)
        return math.sqrt(variance) * share


def _keys(rows: pd.DataFrame) -> list[tuple]:
    return [tuple(row) for row in rows[list(KEY_COLUMNS)].itertuples(index=False)]


def fit_group(rows: pd.DataFrame, group: tuple = ("", ""), check_held_out: bool = True) -> GroupModel:
    """Eq. 1 fitted on ``rows`` (columns :data:`KEY_COLUMNS`, ``work`` and :data:`FEATURES`)."""
    rows = rows.reset_index(drop=True)
    row_keys = _keys(rows)
    keys = sorted(set(row_keys))
    index = {k: i for i, k in enumerate(keys)}
    key_of = np.array([index[k] for k in row_keys])
    logs = {f: np.log(rows[f].to_numpy(dtype=float)) for f in FEATURES}
    varied = [f for f in FEATURES if _varies_within_key(logs[f], key_of)]
    y = np.log(np.maximum(rows["work"].to_numpy(dtype=float), MIN_WORK_SECONDS))
    fixed = {f: DEFAULT_EXPONENTS[f] for f in FEATURES if f not in varied}
    offset = sum(e * logs[f] for f, e in fixed.items()) if fixed else np.zeros(len(rows))
    design = np.zeros((len(rows), len(keys) + len(varied)))
    design[np.arange(len(rows)), key_of] = 1.0
    for j, f in enumerate(varied):
        design[:, len(keys) + j] = logs[f]
    prior = np.array([DEFAULT_EXPONENTS[f] for f in varied])
    coef = _bounded_lstsq(design, y - offset, len(keys), prior)
    sizes = max(len({round(v, 3) for v in logs["docs"][key_of == i]}) for i in range(len(keys)))
    w0 = 0.0
    if sizes >= 3 and "docs" in varied:
        w0, coef = _fit_constant(design, offset, y, coef, len(keys), prior)
    predicted = np.log(w0 + np.exp(design @ coef + offset))
    dof = len(rows) - np.linalg.matrix_rank(design) - (1 if w0 > 0 else 0)
    residual_sd = float(np.sqrt(np.sum((y - predicted) ** 2) / dof)) if dof > 0 else 0.0
    exponents = {**fixed, **{f: float(coef[len(keys) + j]) for j, f in enumerate(varied)}}
    reference = {k: {f: float(np.exp(np.mean(logs[f][key_of == i]))) for f in FEATURES} for k, i in index.items()}
    exponent_sd = {f: EXPONENT_PRIOR_SD["fitted" if f in varied else "assumed"] for f in FEATURES}
    source = "prior"
    if check_held_out and "docs" in varied and sizes >= (4 if w0 > 0 else 3):
        measured = held_out_exponent_error(rows, group)
        if measured is not None:
            exponent_sd["docs"] = max(measured, 0.02)
            source = "held-out size"
    return GroupModel(group=group, w0=float(w0), intercepts={k: float(coef[i]) for k, i in index.items()},
                      exponents=exponents, fitted=frozenset(varied), exponent_sd=exponent_sd,
                      exponent_sd_source=source, residual_sd=residual_sd, reference=reference, sizes=sizes,
                      jobs=len(rows))


def _exponent_bounds(n_columns: int, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of the coefficients of a design with ``n_keys`` intercepts (free) before the fitted exponents."""
    low = np.full(n_columns, -np.inf)
    high = np.full(n_columns, np.inf)
    low[n_keys:], high[n_keys:] = EXPONENT_BOUNDS
    return low, high


def _prior_weight() -> float:
    """The weight of the prior's pseudo-observation of an exponent, against a job's residual in logs."""
    return LOG_NOISE / EXPONENT_PRIOR


def _prior_rows(n_columns: int, n_keys: int, prior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The prior's pseudo-observations: one row per exponent, weighted :func:`_prior_weight`."""
    weight = _prior_weight()
    rows = np.zeros((prior.size, n_columns))
    rows[np.arange(prior.size), n_keys + np.arange(prior.size)] = weight
    return rows, weight * prior


def _bounded_lstsq(design: np.ndarray, target: np.ndarray, n_keys: int, prior: np.ndarray) -> np.ndarray:
    """Least squares with the prior's rows, the exponents in :data:`EXPONENT_BOUNDS` (numpy's solution where it is
    inside them)."""
    extra, extra_target = _prior_rows(design.shape[1], n_keys, prior)
    design, target = np.vstack([design, extra]), np.concatenate([target, extra_target])
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    low, high = _exponent_bounds(design.shape[1], n_keys)
    if np.all((coef >= low) & (coef <= high)):
        return coef
    from scipy.optimize import lsq_linear

    return lsq_linear(design, target, bounds=(low, high)).x


def _fit_constant(design: np.ndarray, offset: np.ndarray, y: np.ndarray, start: np.ndarray,
                  n_keys: int, prior: np.ndarray) -> tuple[float, np.ndarray]:
    """``w0`` and the coefficients of ``log y = log(w0 + exp(design @ coef + offset))`` (least squares in logs,
    ``0 <= w0 <= min y``, exponents in :data:`EXPONENT_BOUNDS`), from the power law's coefficients ``start``;
    where the constant does not lower the squared error, ``w0 = 0`` and ``start``."""
    from scipy.optimize import least_squares

    ceiling = float(np.exp(y.min()))
    low, high = _exponent_bounds(design.shape[1], n_keys)
    weight = _prior_weight()

    def residuals(theta):
        fit = np.log(theta[0] + np.exp(design @ theta[1:] + offset)) - y
        return np.concatenate([fit, weight * (theta[1 + n_keys:] - prior)])

    def sse(theta):
        return float(np.sum(residuals(theta) ** 2))

    best = np.concatenate([[0.0], start])
    for share in (0.25, 0.5, 0.9):
        theta0 = np.concatenate([[share * ceiling], start])
        fit = least_squares(residuals, theta0, bounds=(np.concatenate([[0.0], low]), np.concatenate([[ceiling], high])))
        if sse(fit.x) < sse(best) - 1e-12:
            best = fit.x
    return float(best[0]), best[1:]


def _varies_within_key(values: np.ndarray, key_of: np.ndarray) -> bool:
    for key in np.unique(key_of):
        mine = values[key_of == key]
        if mine.max() - mine.min() > math.log(VARIED_RATIO):
            return True
    return False


def held_out_exponent_error(rows: pd.DataFrame, group: tuple) -> float | None:
    """The docs exponent's error measured on the group's largest size: the model refitted without that size
    predicts it; the log error over the log distance from the key's fitted sizes to it (the median over keys;
    None where no key has the largest size and others)."""
    largest = rows["docs"].max()
    kept = rows[rows["docs"] < largest / VARIED_RATIO]
    if kept.empty:
        return None
    model = fit_group(kept, group, check_held_out=False)
    if "docs" not in model.fitted:
        return None
    errors = []
    held_out = rows[rows["docs"] >= largest / VARIED_RATIO]
    for key, (_, row) in zip(_keys(held_out), held_out.iterrows()):
        if key not in model.intercepts:
            continue
        predicted, _, _ = model.work(key, {f: row[f] for f in FEATURES})
        distance = abs(_log(row["docs"]) - _log(model.reference[key]["docs"]))
        if distance > 0:
            errors.append(abs(_log(predicted) - _log(max(row["work"], MIN_WORK_SECONDS))) / distance)
    return float(np.median(errors)) if errors else None


#: the anchor variant of a bag's jobs in a variance trial's run (:func:`ltrbv.workflow.plan.anchor_variant`)
TRIAL_RUN_VARIANT = "trial run"
#: the part of a forest bag's anchor variant that names its sample of the queries (``sample_fraction=0.5``)
SAMPLE_FRACTION_VARIANT = "sample_fraction="


def measurement_name(learner: str, setting: str | None = "") -> str:
    """What a full-size measurement measured, within its (data set, rule, family, variant): the learner, and the study
    run's setting where it has one other than ``base`` (another setting is another model)."""
    return learner if setting in (None, "", "base") else f"{learner} ({setting})"


def model_variant(variant: str) -> str:
    """The ``train_model`` variant a job's anchor variant borrows from: without a bag's trial run and sample
    fraction parts."""
    return ", ".join(part for part in variant.split(", ")
                     if part and part != TRIAL_RUN_VARIANT and not part.startswith(SAMPLE_FRACTION_VARIANT))


@dataclass
class CostModels:
    """Every group's model, the rules' start-up, and the fallbacks for keys and rules the calibration lacks."""

    groups: dict = field(default_factory=dict)     # {(rule, family): GroupModel}
    startup: dict = field(default_factory=dict)    # {rule: median start-up seconds}
    startup_all: float = 0.0
    training_rules: frozenset = frozenset()
    #: {(dataset, rule, learner family, variant): factor}: a training job's work scaled by what a job of the rule and
    #: family (and variant: a forest's subsample) measured at the data set's full size against its price
    #: (:func:`ltrbv.workflow.plan.anchor_factors`)
    anchors: dict = field(default_factory=dict)
    #: the log-sd of an anchored job's price in place of the extrapolation's: the anchors' leave-one-out error
    #: (:func:`ltrbv.workflow.plan.anchor_spread`); None keeps the calibration's
    anchor_sd: float | None = None
    #: added (in quadrature) for a job whose factor is borrowed from the family's ``train_model``: how far measured
    #: rules' factors lie from it; None keeps the calibration's extrapolation term for those jobs
    anchor_rule_sd: float | None = None
    #: {(dataset, rule, learner family, variant, measurement_name): factor}: a measured learner's (study run's) own
    #: factor, which prices its jobs in place of its group's (:func:`ltrbv.workflow.plan.read_anchors`)
    own_anchors: dict = field(default_factory=dict)
    #: the log-sd of a job priced by its own measurement: how far repeated measurements of one learner lie apart
    #: (:func:`ltrbv.workflow.plan.anchor_spread`); None: ``anchor_sd``'s
    anchor_own_sd: float | None = None

    def predict(self, rule: str, family: str, learner: str, setting: str, dataset: str, x: dict,
                variant: str = "") -> dict:
        """CPU seconds of one job: ``{"seconds", "low", "high", "source"}``, ``low``/``high`` one log-sd apart;
        ``variant`` picks the job's anchor (:meth:`anchor`)."""
        model, fallback = self._model(rule, family)
        own = self.own_anchors.get((dataset, rule, family, variant, measurement_name(learner, setting))) \
            if rule in self.training_rules and family else None
        factor, borrowed = (own, False) if own is not None else (self.anchor(rule, family, dataset, variant)
                                                                 or (None, False))
        anchored_sd = self.anchor_sd if factor is not None else None
        if own is not None and self.anchor_own_sd is not None:
            anchored_sd = self.anchor_own_sd
        if borrowed and anchored_sd is not None:
            anchored_sd = None if self.anchor_rule_sd is None else math.hypot(anchored_sd, self.anchor_rule_sd)
        work, sd, intercept = model.work((rule, learner, setting, dataset), x, anchored_sd=anchored_sd)
        if fallback:
            sd = math.sqrt(sd ** 2 + INTERCEPT_PRIOR_SD ** 2)
            label = fallback
        else:
            label = "calibrated" if intercept == "key" else f"calibrated: {intercept}"
        if factor is not None:
            work *= factor
            label += f", {'measured' if own is not None else 'anchored'} x{factor:.2f}"
        startup = self.startup.get(rule, self.startup_all)
        return {"seconds": startup + work, "low": startup + work * math.exp(-sd),
                "high": startup + work * math.exp(sd), "source": label}

    def anchor(self, rule: str, family: str, dataset: str, variant: str = "") -> tuple[float, bool] | None:
        """(factor, borrowed) of a training rule's job of ``family`` and ``variant`` on ``dataset`` at full size:
        the rule's own where a job of it was measured (a bag's sub-model of a seed or a trial run, a variance trial),
        else (``borrowed``) ``train_model``'s of the family (a bag's: its base's; a trial run's: of the same
        forest variant); None where neither was measured."""
        if rule not in self.training_rules or not family:
            return None
        own = self.anchors.get((dataset, rule, family, variant))
        if own is not None:
            return own, False
        borrowed = self.anchors.get((dataset, "train_model", family.removeprefix("bag-"), model_variant(variant)))
        return None if borrowed is None else (borrowed, True)

    def _model(self, rule: str, family: str) -> tuple[GroupModel, str]:
        if (rule, family) in self.groups:
            return self.groups[(rule, family)], ""
        same_rule = [m for (r, _), m in self.groups.items() if r == rule]
        if same_rule:
            return max(same_rule, key=lambda m: m.jobs), "another family's model"
        training = rule in self.training_rules
        same_class = [m for (r, _), m in self.groups.items() if (r in self.training_rules) == training]
        return max(same_class or list(self.groups.values()), key=lambda m: m.jobs), "rule not calibrated"


def fit_models(table: pd.DataFrame, training_rules=()) -> CostModels:
    """Fit eq. 1 per (rule, family) group of a calibration table (one row per job: :data:`KEY_COLUMNS`, family,
    startup, work and :data:`FEATURES`)."""
    if table.empty:
        raise ValueError("no calibration jobs to fit")
    table = table.fillna({column: "" for column in (*KEY_COLUMNS, "family")})
    models = CostModels(training_rules=frozenset(training_rules))
    for group, rows in table.groupby(["rule", "family"], sort=True):
        models.groups[tuple(group)] = fit_group(rows, tuple(group))
    models.startup = table.groupby("rule")["startup"].median().to_dict()
    models.startup_all = float(table["startup"].median())
    return models
