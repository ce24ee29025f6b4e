"""The usual training-set filters (Sabato & Shalev-Shwartz 2008, section 2, Eqs. 2-3).

Misclassification error, Gini index, information gain, Quinlan's gain ratio and the paper's
estimator, scored for every feature of a table at once (:func:`filter_scores`), and a ranking.

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import entr

from .._validation import as_float_array
from .counts import _check_counts, _flat_counts, estimated_probabilities
from .gini_estimator import gini_error_estimate


#: The training-set filters of :func:`filter_scores`, in display order.
FILTERS = ("misclassification", "gini", "information_gain", "gain_ratio", "gini_estimate")
#: Filters for which a larger score means a more relevant feature (the others: smaller).
LARGER_IS_BETTER = frozenset({"information_gain", "gain_ratio"})


def misclassification_error(counts, positive_counts) -> np.ndarray:
    """Eq. (2): ``sum_v p_hat_v min(q_hat_v, 1 - q_hat_v)``, the training error of h_Bayes.

    Counts along the last axis; returns one number per row. Smaller = more relevant.

    See Also
    --------
    gini_index : The training errors of h_Bayes and h_Gini (Eqs. 2-3).
    information_gain, gain_ratio : The entropy-based filters.
    gini_error_estimate : The paper's estimate of the Gini hypothesis' generalization error.
    filter_scores : All filters over all columns at once.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> float(cat.misclassification_error(counts, positive_counts))  # (1 + 0 + 0) / 8
    0.125
    """
    p_hat, q_hat = estimated_probabilities(counts, positive_counts)
    return np.sum(p_hat * np.minimum(q_hat, 1.0 - q_hat), axis=-1)


def gini_index(counts, positive_counts) -> np.ndarray:
    """Eq. (3): ``2 sum_v p_hat_v q_hat_v (1 - q_hat_v)``, the training error of h_Gini.

    See Also
    --------
    misclassification_error : The training errors of h_Bayes and h_Gini (Eqs. 2-3).
    information_gain, gain_ratio : The entropy-based filters.
    gini_error_estimate : The paper's estimate of the Gini hypothesis' generalization error.
    filter_scores : All filters over all columns at once.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> round(float(cat.gini_index(counts, positive_counts)), 4)  # 2 (3/8)(2/3)(1/3)
    0.1667
    """
    p_hat, q_hat = estimated_probabilities(counts, positive_counts)
    return 2.0 * np.sum(p_hat * q_hat * (1.0 - q_hat), axis=-1)


def _binary_entropy_bits(q: np.ndarray) -> np.ndarray:
    return (entr(q) + entr(1.0 - q)) / math.log(2.0)


def information_gain(counts, positive_counts) -> np.ndarray:
    """Information gain ``H(Y) - sum_v p_hat_v H(Y | X = v)`` in bits (Sec. 1, [12]).

    Larger = more relevant.

    See Also
    --------
    misclassification_error, gini_index : The training errors of h_Bayes and h_Gini (Eqs. 2-3).
    gain_ratio : The entropy-based filters.
    gini_error_estimate : The paper's estimate of the Gini hypothesis' generalization error.
    filter_scores : All filters over all columns at once.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> round(float(cat.information_gain(counts, positive_counts)), 4)
    0.6101
    """
    c, cp = _check_counts(counts, positive_counts)
    p_hat, q_hat = estimated_probabilities(c, cp)
    base_rate = cp.sum(axis=-1) / c.sum(axis=-1)
    return _binary_entropy_bits(base_rate) - np.sum(p_hat * _binary_entropy_bits(q_hat), axis=-1)


def gain_ratio(counts, positive_counts) -> np.ndarray:
    """Quinlan's information gain ratio: information gain / split information ``H(p_hat)``.

    Where the sample shows a single value (split information 0) the gain is 0 too and
    the ratio is defined as 0. Larger = more relevant.

    See Also
    --------
    misclassification_error, gini_index : The training errors of h_Bayes and h_Gini (Eqs. 2-3).
    information_gain : The entropy-based filters.
    gini_error_estimate : The paper's estimate of the Gini hypothesis' generalization error.
    filter_scores : All filters over all columns at once.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> round(float(cat.gain_ratio(counts, positive_counts)), 4)
    0.434
    """
    c, cp = _check_counts(counts, positive_counts)
    gain = information_gain(c, cp)
    p_hat = c / c.sum(axis=-1, keepdims=True)
    split = np.sum(entr(p_hat), axis=-1) / math.log(2.0)
    return np.divide(gain, split, out=np.zeros(np.shape(gain)), where=split > 1e-12)


_FILTER_FUNCTIONS: dict[str, Callable] = {
    "misclassification": misclassification_error,
    "gini": gini_index,
    "information_gain": information_gain,
    "gain_ratio": gain_ratio,
    "gini_estimate": gini_error_estimate,
}


def filter_scores(X, y, filters=FILTERS) -> dict[str, np.ndarray]:
    """Score every column of ``X`` with each filter (vectorized over features).

    All columns are counted in one :func:`numpy.bincount` over (feature, value) pairs and
    each filter's per-value terms are summed per feature with another, so a column with
    many values costs nothing extra for the others (no padding). The formulas are those of
    :func:`misclassification_error` (Eq. 2), :func:`gini_index` (Eq. 3),
    :func:`information_gain`, :func:`gain_ratio` and :func:`gini_error_estimate` (Eq. 9).

    Parameters
    ----------
    X : array, shape (m, n_features)
        Categorical columns (any codes). Within a column, values of different types that are
        equal (``1``, ``1.0``, ``True``) or print alike (``1`` and ``"1"``, ``"a"`` and ``b"a"``)
        are refused with a ValueError naming both, never merged (:func:`count_tables`).
    y : array of {0, 1}, shape (m,)
    filters : iterable of str
        Names from :data:`FILTERS`.

    Returns
    -------
    dict
        filter name -> array of shape (n_features,).

    See Also
    --------
    misclassification_error, gini_index : The training errors of h_Bayes and h_Gini (Eqs. 2-3).
    information_gain, gain_ratio : The entropy-based filters.
    gini_error_estimate : The paper's estimate of the Gini hypothesis' generalization error.
    feature_ranking : Feature indices, most relevant first.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> rng = np.random.default_rng(0)
    >>> code = rng.integers(0, 50, 200)                    # 50 values, about 4 examples each
    >>> flag = rng.integers(0, 2, 200)
    >>> y = np.where(rng.random(200) < 0.8, flag, 1 - flag)  # the flag predicts y 80% of the time
    >>> scores = cat.filter_scores(np.column_stack([flag, code]), y)
    >>> {name: np.round(s, 3).tolist() for name, s in sorted(scores.items())}
    {'gain_ratio': [0.236, 0.042], 'gini': [0.342, 0.363], 'gini_estimate': [0.346, 0.476], 'information_gain': [0.235, 0.233], 'misclassification': [0.22, 0.285]}
    >>> cat.feature_ranking(scores["gini"], "gini"), cat.feature_ranking(scores["gini_estimate"], "gini_estimate")  # the code: train 0.363, estimate 0.476
    (array([0, 1]), array([0, 1]))
    """
    filters = list(filters)
    unknown = [f for f in filters if f not in _FILTER_FUNCTIONS]
    if unknown:
        raise ValueError(f"unknown filter(s) {unknown}; known: {', '.join(FILTERS)}")
    counts, positives, feature, n_features = _flat_counts(X, y)
    m = float(np.asarray(y).size)
    p_hat = counts / m
    q_hat = positives / counts  # every entry is a value seen at least once
    per_feature = lambda terms: np.bincount(feature, weights=terms, minlength=n_features)
    scores = {}
    if "misclassification" in filters:
        scores["misclassification"] = per_feature(p_hat * np.minimum(q_hat, 1 - q_hat))
    if "gini" in filters:
        scores["gini"] = 2 * per_feature(p_hat * q_hat * (1 - q_hat))
    if "information_gain" in filters or "gain_ratio" in filters:
        base_rate = np.full(n_features, positives.sum() / (n_features * m))  # each example counted once per feature
        gain = _binary_entropy_bits(base_rate) - per_feature(p_hat * _binary_entropy_bits(q_hat))
        if "information_gain" in filters:
            scores["information_gain"] = gain
        if "gain_ratio" in filters:
            split = per_feature(entr(p_hat)) / math.log(2.0)
            scores["gain_ratio"] = np.divide(gain, split, out=np.zeros(n_features), where=split > 1e-12)
    if "gini_estimate" in filters:
        repeated = np.divide(2 * positives * (counts - positives), counts - 1, out=np.zeros(counts.size), where=counts >= 2)
        scores["gini_estimate"] = per_feature(np.where(counts == 1, 0.5, repeated) / m)
    return {name: scores[name] for name in filters}


def feature_ranking(scores, filter_name: str) -> np.ndarray:
    """Feature indices, most relevant first, for the scores of filter ``filter_name``.

    Ties keep the column order (stable sort).

    See Also
    --------
    filter_scores : The scores it ranks.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> cat.feature_ranking(np.array([0.3, 0.1, 0.2]), "gini")  # smaller Gini = more relevant
    array([1, 2, 0])
    """
    if filter_name not in _FILTER_FUNCTIONS and filter_name not in ("true_gini_error", "true_bayes_error"):
        raise ValueError(f"unknown filter {filter_name!r}; known: {', '.join(FILTERS)}")
    scores = as_float_array(scores, "scores", 1)
    key = -scores if filter_name in LARGER_IS_BETTER else scores
    return np.argsort(key, kind="stable")
