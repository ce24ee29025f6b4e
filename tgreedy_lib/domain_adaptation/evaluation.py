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

from .._validation import as_data_matrix, as_float_array, check_binary_labels, check_finite, is_sparse
from .selection import SelectionPath

__all__ = ["roc_auc", "mann_whitney_u", "path_scores", "path_auroc", "path_squared_loss"]


def roc_auc(y_true, scores) -> np.ndarray | float:
    r"""Exact area under the ROC curve, ties counted one half: the metric of section 4 (Figures 1-4) of [1]_.

    AUROC = Pr[s(X+) > s(X-)] + 1/2 Pr[s(X+) = s(X-)] over all positive/negative pairs: the
    Mann-Whitney U statistic divided by n+ n-, counted exactly (ties one half) by sorting the
    scores of each column once and counting, for every positive, the negatives below it and tied
    with it. Exact for any ties: U is a sum of integers and halves, exact in floating point.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in {0, 1}, {-1, 1} or booleans; both classes must occur.
    scores : array-like of shape (n_samples,) or (n_samples, n_columns)
        Scores; a 2-D array gives one AUROC per column (e.g. one per step of a path).

    Returns
    -------
    auroc : float or ndarray of shape (n_columns,)
        The area under the ROC curve of each column of ``scores``.

    Notes
    -----
    With :math:`R_+` the sum of the (average) ranks of the :math:`n_+` positives among all scores,

    .. math::

        \mathrm{AUROC} = \frac{R_+ - n_+ (n_+ + 1) / 2}{n_+ n_-}
        = \frac{\#\{s_+ > s_-\} + \tfrac12 \#\{s_+ = s_-\}}{n_+ n_-},

    and the right-hand count is what is computed, from one sort of each column (no average
    ranks). The two sides are equal exactly, also in floating point.
    """
    positive, _ = check_binary_labels(y_true, "y_true")
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

    After sorting each column, a positive's score has below it the negatives before its group of
    tied scores, and at or below it those up to the group's end; twice U is the sum of the two
    counts over the positives (integers, so U is exact). In a column without ties both counts are
    the negatives before the positive, and the tie groups are formed only for columns with ties.
    The columns are sorted as the contiguous rows of the transpose (a strided sort a column is
    several times slower).
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
    """Linear scores X @ w_s after every step s of a selection path (section 3.3 of [1]_).

    One matrix product over the path's support: ``X[:, support] @ coef[:, support].T``,
    instead of recomputing each step's score from scratch. ``X`` may be a scipy.sparse matrix
    (it is not densified) or a DataFrame.

    Parameters
    ----------
    path : SelectionPath
        A path from :func:`tgreedy_path` or :func:`greedy_path`.
    X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
        Rows to score, with the path's features.

    Returns
    -------
    scores : ndarray of shape (n_samples, n_steps)
        Column s is the score after step s + 1.
    """
    X = _held_out(X)
    if X.shape[1] != path.n_features:
        raise ValueError(f"X has {X.shape[1]} features, the path was fitted with {path.n_features}")
    support = np.unique(path.features)
    return np.asarray(X[:, support] @ path.coef[:, support].T)


def _held_out(X):
    """Held-out ``X`` as a finite float matrix: dense, or sparse (CSR/CSC, not densified)."""
    X = as_data_matrix(X, "X")
    check_finite(X.data if is_sparse(X) else X, "X")
    return X


def path_auroc(path: SelectionPath, X, y) -> np.ndarray:
    """AUROC after every step of a selection path on held-out data: the curves of Figures 1-4 of [1]_.

    Parameters
    ----------
    path : SelectionPath
        A path from :func:`tgreedy_path` or :func:`greedy_path`.
    X : array-like of shape (n_samples, n_features)
        Held-out rows (a source domain's test rows or a target domain).
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, {-1, 1} or booleans.

    Returns
    -------
    auroc : ndarray of shape (n_steps,)
        The AUROC of the score ``X @ w_s`` after each step (:func:`roc_auc`, ties one half).
    """
    positive, _ = check_binary_labels(y, "y")
    X = _held_out(X)
    if X.shape[0] != positive.size:
        raise ValueError(f"X has {X.shape[0]} rows but y has {positive.size} labels")
    return roc_auc(y, path_scores(path, X))


def path_squared_loss(path: SelectionPath, X, y) -> np.ndarray:
    """Mean squared error (y - w_s.x)^2 after every step of a selection path: the paper's loss L(w) (section 2 of [1]_).

    Parameters
    ----------
    path : SelectionPath
        A path from :func:`tgreedy_path` or :func:`greedy_path`.
    X : array-like of shape (n_samples, n_features)
        Held-out rows.
    y : array-like of shape (n_samples,)
        Real-valued targets.

    Returns
    -------
    loss : ndarray of shape (n_steps,)
        The mean of (y - w_s . x)^2 over the rows, after each step.
    """
    X = _held_out(X)
    y = as_float_array(y, "y", 1)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
    return ((y[:, None] - path_scores(path, X)) ** 2).mean(axis=0)
