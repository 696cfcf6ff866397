"""When to stop boosting, and how many trees to keep: early stopping and overfitting tolerance.

Ganjisaffar, Caruana & Lopes (2011), "Bagging gradient-boosted trees for high
precision, low variance ranking models", SIGIR:

* §3.4 (last paragraphs): boosting continues until the validation accuracy has
  not improved for a number of iterations (250 in the paper, ``patience`` here;
  XGBoost's ``early_stopping_rounds``) and the model keeps the trees up to the
  iteration of the validation maximum (the *first* maximum; an iteration counts
  as an improvement only if it is strictly better).
* §3.5.2, overfitting tolerance: "we add more trees after this maximum point
  until accuracy drop is more than a threshold value" (2%), and "allow a maximum
  of 250 trees to be added after the maximum point".  The drop is measured
  relative to the validation maximum: iteration ``j > best`` is a drop "by more
  than the threshold" when ``v[best] - v[j] > tolerance * v[best]``.  The kept model
  ends just before the first such iteration, and at most ``max_extra`` trees
  after the maximum.

The maximum point is the one early stopping found (§3.4): the overfitted model is
the non-overfitted one plus extra trees, so the two share their first
``best + 1`` trees.  A value above the maximum found after early stopping has
fired is not a drop and is simply kept as part of the extension.

Indices are 0-based boosting iterations: keeping iteration ``k`` means keeping
``k + 1`` trees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


def first_maximum_with_patience(history: Sequence[float], patience: int | None) -> tuple[int, int]:
    """Replay early stopping over a whole validation curve.

    Returns ``(best, stop)``: the iteration of the first maximum seen before
    early stopping fires, and the iteration at which it fires (``len - 1`` if it
    never does).  ``patience=None`` means no early stopping: the best is the
    first maximum over the whole curve.
    """
    if len(history) == 0:
        raise ValueError("empty validation history")
    best = 0
    for i, value in enumerate(history):
        if value > history[best]:
            best = i
        if patience is not None and i - best >= patience:
            return best, i
    return best, len(history) - 1


def overfit_extension(history: Sequence[float], best: int, tolerance: float, max_extra: int) -> int:
    """Last kept iteration under the overfitting tolerance of §3.5.2.

    Starting after ``best``, keep adding iterations while the validation value
    has not dropped by more than ``tolerance`` (relative to ``history[best]``),
    at most ``max_extra`` of them, and at most to the end of ``history``.
    """
    if tolerance < 0 or max_extra < 0:
        raise ValueError("tolerance and max_extra must be >= 0")
    top = history[best]
    last = best
    for j in range(best + 1, min(len(history), best + max_extra + 1)):
        if top - history[j] > tolerance * top:
            break
        last = j
    return last


@dataclass
class StoppingRule:
    """Online form of the two rules above, fed one validation value per boosting iteration.

    ``update(value)`` returns True when training can stop: early stopping has
    fired (``patience`` iterations without a strict improvement) and, with a
    ``tolerance``, the extension of §3.5.2 is decided (a drop beyond the
    tolerance was seen, or ``max_extra`` iterations past the maximum exist).
    :meth:`kept_iteration` is then the last iteration to keep; it equals
    :func:`overfit_extension` (or ``best``) applied to the full curve, since the
    iterations after the stop cannot change it.

    ``patience=None`` never stops early; the model then keeps every iteration
    trained (XGBoost's behaviour without early stopping), unless a tolerance is
    set, in which case the maximum over the curve and its extension are used.
    """

    patience: int | None
    tolerance: float | None = None
    max_extra: int = 250
    history: list[float] = field(default_factory=list)
    best: int = -1
    stopped_early_at: int | None = None

    def __post_init__(self) -> None:
        if self.patience is not None and self.patience < 1:
            raise ValueError("patience must be >= 1 (or None)")
        if self.tolerance is not None and not 0.0 <= self.tolerance < 1.0:
            raise ValueError("tolerance must be in [0, 1)")
        if self.max_extra < 0:
            raise ValueError("max_extra must be >= 0")

    def update(self, value: float) -> bool:
        i = len(self.history)
        self.history.append(float(value))
        if self.stopped_early_at is None:
            if self.best < 0 or value > self.history[self.best]:
                self.best = i
            if self.patience is not None and i - self.best >= self.patience:
                self.stopped_early_at = i
        if self.stopped_early_at is None:
            return False
        if self.tolerance is None:
            return True
        if i - self.best >= self.max_extra:
            return True
        top = self.history[self.best]
        return any(top - v > self.tolerance * top for v in self.history[self.best + 1:])

    def kept_iteration(self) -> int:
        if not self.history:
            raise ValueError("no iteration was trained")
        if self.patience is None and self.tolerance is None:
            return len(self.history) - 1
        if self.tolerance is None:
            return self.best
        return overfit_extension(self.history, self.best, self.tolerance, self.max_extra)
