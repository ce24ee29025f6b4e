"""The usual training-set filters, and the paper's estimator, for every feature of a table at once.

Section 2 of Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization
Properties", JMLR 9 (2008): the misclassification error (Eq. 2) and the Gini index (Eq. 3) are
the training errors of h_Bayes and h_Gini; information gain and Quinlan's gain ratio (section 1)
are the entropy-based filters. Each takes count tables (counts along the last axis, one score a
row); :func:`filter_scores` scores every column of a table with one count of all (feature,
value) pairs, and :func:`feature_ranking` orders the features.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import entr

from ..validation import as_float_array
from .counts import check_counts, estimated_probabilities, flat_counts

#: The filters of :func:`filter_scores`, in display order.
FILTERS = ("misclassification", "gini", "information_gain", "gain_ratio", "gini_estimate")
#: Filters for which a larger score means a more relevant feature (the others: smaller).
LARGER_IS_BETTER = frozenset({"information_gain", "gain_ratio"})


def misclassification_error(counts, positive_counts) -> np.ndarray:
    """Eq. (2): ``sum_v p_hat_v min(q_hat_v, 1 - q_hat_v)``, the training error of h_Bayes. Smaller = more relevant."""
    p_hat, q_hat = estimated_probabilities(counts, positive_counts)
    return np.sum(p_hat * np.minimum(q_hat, 1.0 - q_hat), axis=-1)


def gini_index(counts, positive_counts) -> np.ndarray:
    """Eq. (3): ``2 sum_v p_hat_v q_hat_v (1 - q_hat_v)``, the training error of h_Gini. Smaller = more relevant."""
    p_hat, q_hat = estimated_probabilities(counts, positive_counts)
    return 2.0 * np.sum(p_hat * q_hat * (1.0 - q_hat), axis=-1)


def _binary_entropy_bits(q: np.ndarray) -> np.ndarray:
    return (entr(q) + entr(1.0 - q)) / math.log(2.0)


def _gain_and_split(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Information gain and split information ``H(p_hat)``, in bits."""
    c, cp = check_counts(counts, positive_counts)
    p_hat = c / c.sum(axis=-1, keepdims=True)
    q_hat = np.divide(cp, c, out=np.full(c.shape, 0.5), where=c > 0)  # Eq. (1)
    gain = _binary_entropy_bits(cp.sum(axis=-1) / c.sum(axis=-1)) - np.sum(p_hat * _binary_entropy_bits(q_hat), axis=-1)
    return gain, np.sum(entr(p_hat), axis=-1) / math.log(2.0)


def information_gain(counts, positive_counts) -> np.ndarray:
    """Information gain ``H(Y) - sum_v p_hat_v H(Y | X = v)`` in bits. Larger = more relevant."""
    return _gain_and_split(counts, positive_counts)[0]


def gain_ratio(counts, positive_counts) -> np.ndarray:
    """Quinlan's gain ratio: information gain / split information ``H(p_hat)``; 0 where a single value is seen."""
    gain, split = _gain_and_split(counts, positive_counts)
    return np.divide(gain, split, out=np.zeros(np.shape(gain)), where=split > 1e-12)


def filter_scores(X, y, filters=FILTERS) -> dict[str, np.ndarray]:
    """Score every column of ``X`` with each filter: ``{filter name: array of shape (n_features,)}``.

    ``X`` holds categorical columns of any hashable values, as :func:`count_tables` reads them;
    ``filters`` names some of :data:`FILTERS`. All columns are counted in one
    :func:`numpy.bincount` over (feature, value) pairs and each filter's per-value terms summed
    per feature with another, so a column with many values costs the others nothing.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> rng = np.random.default_rng(0)
    >>> code = rng.integers(0, 50, 200)                      # 50 values, about 4 examples each
    >>> flag = rng.integers(0, 2, 200)
    >>> y = np.where(rng.random(200) < 0.8, flag, 1 - flag)  # the flag predicts y 80% of the time
    >>> scores = cat.filter_scores(np.column_stack([flag, code]), y)
    >>> np.round(scores["gini"], 3), np.round(scores["gini_estimate"], 3)  # the code's training error is optimistic
    (array([0.342, 0.363]), array([0.346, 0.476]))
    """
    filters = list(filters)
    unknown = [f for f in filters if f not in FILTERS]
    if unknown:
        raise ValueError(f"unknown filter(s) {unknown}; known: {', '.join(FILTERS)}")
    counts, positives, feature, n_features = flat_counts(X, y)
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
    if "gini_estimate" in filters:  # Eqs. (9)/(11)
        repeated = np.divide(2 * positives * (counts - positives), counts - 1, out=np.zeros(counts.size),
                             where=counts >= 2)
        scores["gini_estimate"] = per_feature(np.where(counts == 1, 0.5, repeated) / m)
    return {name: scores[name] for name in filters}


def feature_ranking(scores, filter_name: str) -> np.ndarray:
    """Feature indices, most relevant first, for the scores of filter ``filter_name`` (ties keep column order)."""
    if filter_name not in FILTERS and filter_name not in ("true_gini_error", "true_bayes_error"):
        raise ValueError(f"unknown filter {filter_name!r}; known: {', '.join(FILTERS)}")
    scores = as_float_array(scores, "scores", 1)
    key = -scores if filter_name in LARGER_IS_BETTER else scores
    return np.argsort(key, kind="stable")
