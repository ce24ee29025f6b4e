"""Exact AUROC and the evaluation of a whole selection path on held-out data.

The paper reports the area under the ROC curve (AUROC) of the linear score w.x on held-out
source-domain data and on the target domain, after every step of the path (Figures 1-4).
"""
from __future__ import annotations

import numpy as np
from scipy import stats as scipy_stats

from .._validation import as_float_array, check_binary_labels
from .selection import SelectionPath

__all__ = ["roc_auc", "path_scores", "path_auroc", "path_squared_loss"]


def roc_auc(y_true, scores) -> np.ndarray | float:
    """Exact area under the ROC curve, ties counted one half.

    AUROC = Pr[s(X+) > s(X-)] + 1/2 Pr[s(X+) = s(X-)] over all positive/negative pairs,
    computed through the Mann-Whitney U statistic with average ranks (``scipy.stats.rankdata``):
    AUROC = (R+ - n+(n+ + 1)/2) / (n+ n-), where R+ is the rank sum of the positives.
    Exact for any ties (half-integer rank sums are exact in floating point).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in {0, 1}, {-1, 1} or booleans; both classes must occur.
    scores : array-like of shape (n_samples,) or (n_samples, n_columns)
        Scores; a 2-D array gives one AUROC per column (e.g. one per step of a path).

    Returns
    -------
    float or ndarray of shape (n_columns,)
    """
    positive, _ = check_binary_labels(y_true, "y_true")
    scores = as_float_array(scores, "scores", (1, 2))
    if scores.shape[0] != positive.size:
        raise ValueError(f"scores has {scores.shape[0]} rows but y_true has {positive.size} labels")
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    ranks = scipy_stats.rankdata(scores, axis=0, method="average")
    rank_sum = ranks[positive].sum(axis=0)
    auc = (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    return float(auc) if scores.ndim == 1 else auc


def path_scores(path: SelectionPath, X) -> np.ndarray:
    """Scores X @ w_s for every step s of ``path``, shape (n_samples, n_steps).

    One matrix product over the path's support: ``X[:, support] @ coef[:, support].T``,
    instead of recomputing each step's score from scratch.
    """
    X = as_float_array(X, "X", 2)
    if X.shape[1] != path.n_features:
        raise ValueError(f"X has {X.shape[1]} features, the path was fitted with {path.n_features}")
    support = np.unique(path.features)
    return X[:, support] @ path.coef[:, support].T


def path_auroc(path: SelectionPath, X, y) -> np.ndarray:
    """AUROC of the score after each step of ``path`` on held-out ``(X, y)``, shape (n_steps,)."""
    positive, _ = check_binary_labels(y, "y")
    X = as_float_array(X, "X", 2)
    if X.shape[0] != positive.size:
        raise ValueError(f"X has {X.shape[0]} rows but y has {positive.size} labels")
    return roc_auc(y, path_scores(path, X))


def path_squared_loss(path: SelectionPath, X, y) -> np.ndarray:
    """Mean squared error (y - w_s.x)^2 after each step of ``path`` on held-out data, shape (n_steps,)."""
    X = as_float_array(X, "X", 2)
    y = as_float_array(y, "y", 1)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
    return ((y[:, None] - path_scores(path, X)) ** 2).mean(axis=0)
