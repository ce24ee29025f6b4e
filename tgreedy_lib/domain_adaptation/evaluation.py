"""Exact AUROC and the evaluation of a whole selection path on held-out data.

The paper reports the area under the ROC curve (AUROC) of the linear score w.x on held-out
source-domain data and on the target domain, after every step of the path (Figures 1-4).

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import numpy as np

from ..validation import as_data_matrix, as_float_array, check_finite, check_labels, is_sparse
from .selection import SelectionPath

__all__ = ["roc_auc", "mann_whitney_u", "path_scores", "path_auroc", "path_squared_loss"]


def roc_auc(y_true, scores) -> np.ndarray | float:
    r"""Exact area under the ROC curve, ties counted one half: the metric of section 4 (Figures 1-4).

    ``Pr[s(X+) > s(X-)] + 1/2 Pr[s(X+) = s(X-)]`` over all positive/negative pairs, the Mann-Whitney U
    over n+ n- (:func:`mann_whitney_u`), exact for any ties. ``y_true``: binary labels in {0, 1},
    {-1, 1} or booleans, both classes present; ``scores`` (n_samples,) or (n_samples, n_columns): one
    AUROC per column (e.g. one per step of a path).
    """
    positive = check_labels(y_true, "y_true", signed=True, both_classes=True)
    scores = as_float_array(scores, "scores", (1, 2))
    if scores.shape[0] != positive.size:
        raise ValueError(f"scores has {scores.shape[0]} rows but y_true has {positive.size} labels")
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    auc = mann_whitney_u(positive, scores.reshape(scores.shape[0], -1)) / (n_pos * n_neg)
    return float(auc[0]) if scores.ndim == 1 else auc


def mann_whitney_u(positive: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The Mann-Whitney U, #{s+ > s-} + #{s+ = s-} / 2, of every column of ``scores`` (n, m), exact, in one
    sort a column; ``positive`` is a boolean vector (n,). Unchecked: :func:`roc_auc` is the checked entry.

    Twice U sums, over the positives, the negatives below a positive's group of tied scores and those up to
    the group's end (integers, so U is exact); tie groups are formed only for columns with ties.
    """
    rows = np.ascontiguousarray(scores.T)
    n = rows.shape[1]
    order = np.argsort(rows, axis=1)
    ordered = np.take_along_axis(rows, order, axis=1)
    negative = ~positive[order]
    negatives_up_to = np.cumsum(negative, axis=1)
    twice_u = 2 * np.where(negative, 0, negatives_up_to).sum(axis=1)  # right where a column has no ties
    first = np.empty(ordered.shape, dtype=bool)  # first of its group of equal scores
    first[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=first[:, 1:])
    tied = np.flatnonzero(~first.all(axis=1))
    if tied.size:
        first, negative, negatives_up_to = first[tied], negative[tied], negatives_up_to[tied]
        last = np.empty(first.shape, dtype=bool)
        last[:, -1] = True
        last[:, :-1] = first[:, 1:]
        position = np.arange(n)[None, :]
        group_start = np.maximum.accumulate(np.where(first, position, 0), axis=1)
        group_end = np.minimum.accumulate(np.where(last, position, n)[:, ::-1], axis=1)[:, ::-1]
        below = np.take_along_axis(negatives_up_to - negative, group_start, axis=1)
        at_or_below = np.take_along_axis(negatives_up_to, group_end, axis=1)
        twice_u[tied] = np.where(negative, 0, below + at_or_below).sum(axis=1)
    return 0.5 * twice_u


def path_scores(path: SelectionPath, X) -> np.ndarray:
    """Linear scores ``X @ w_s`` (n_samples, n_steps) after every step s of ``path``, in one product over the
    path's support; ``X`` (dense, a DataFrame or scipy.sparse, not densified) has the path's features.
    """
    return _scores(path, _held_out(X))


def _held_out(X, n_rows: int | None = None, what: str = ""):
    """Held-out ``X`` as a finite float matrix (dense, or sparse CSR/CSC, not densified) of ``n_rows`` rows."""
    X = as_data_matrix(X, "X")
    check_finite(X.data if is_sparse(X) else X, "X")
    if n_rows is not None and X.shape[0] != n_rows:
        raise ValueError(f"X has {X.shape[0]} rows but y has {n_rows} {what}")
    return X


def _scores(path: SelectionPath, X) -> np.ndarray:
    if X.shape[1] != path.n_features:
        raise ValueError(f"X has {X.shape[1]} features, the path was fitted with {path.n_features}")
    support = np.unique(path.features)
    return np.asarray(X[:, support] @ path.coef[:, support].T)


def path_auroc(path: SelectionPath, X, y) -> np.ndarray:
    """AUROC (:func:`roc_auc`) of the score after every step of ``path`` on held-out rows ``X`` with binary
    labels ``y``: the curves of Figures 1-4.
    """
    positive = check_labels(y, "y", signed=True, both_classes=True)
    scores = as_float_array(_scores(path, _held_out(X, positive.size, "labels")), "scores", 2)
    n_positive = int(positive.sum())
    return mann_whitney_u(positive, scores) / (n_positive * (positive.size - n_positive))


def path_squared_loss(path: SelectionPath, X, y) -> np.ndarray:
    """Mean squared error ``(y - w_s.x)^2`` over the held-out rows after every step of ``path``: the
    paper's loss L(w) (section 2).
    """
    X = _held_out(X)
    y = as_float_array(y, "y", 1)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
    return ((y[:, None] - _scores(path, X)) ** 2).mean(axis=0)
