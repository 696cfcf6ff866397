"""Import the boosting libraries without their optional scikit-learn wrappers.

``xgboost`` and ``lightgbm`` import scikit-learn when it is installed, only to define their
scikit-learn-style estimators (XGBRanker, LGBMRanker), which this package does not use.  That import
costs about 1.2 s of CPU in every training job.  Here scikit-learn is hidden while the library is
first imported and made importable again right after, so that a learner that needs it (the Ranking
SVM) still imports it in the same process.
"""

from __future__ import annotations

import importlib
import sys


def import_without_sklearn(name: str):
    """``importlib.import_module(name)`` with scikit-learn hidden during its first import."""
    if name in sys.modules:
        return sys.modules[name]
    hide = "sklearn" not in sys.modules
    if hide:
        sys.modules["sklearn"] = None  # makes "import sklearn" raise ImportError, which both libraries catch
    try:
        return importlib.import_module(name)
    finally:
        if hide and sys.modules.get("sklearn", 0) is None:
            del sys.modules["sklearn"]
