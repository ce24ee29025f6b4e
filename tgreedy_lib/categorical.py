"""Ranking categorical features by the generalization error of a predictor.

The paper with the SSN example (``papers/003``): a feature ``X`` takes values in
a finite set ``V`` with ``p_v = Pr[X = v]`` and ``q_v = Pr[Y = 1 | X = v]``. A
training set ``S`` of ``m`` examples gives the counts ``c_v`` (examples with
``X = v``) and ``c_v^+`` (those of them labelled 1).

Conventions used throughout
---------------------------
* A feature's values are coded ``0 .. |V|-1``; count arrays hold one entry per
  value, along the **last axis**, so that a 2-D array of counts (features x
  values, or samples x values) is handled in one call. Zero-padded values
  (``c_v = 0``) contribute nothing to any training-set filter.
* Labels are 0/1 (booleans accepted); anything else is a ``ValueError``.
* ``m = 1`` is allowed: the estimator of Eq. (9) is then the constant 1/2 (the
  only example is a value seen once), which is degenerate but defined. An empty
  sample (``m = 0``) is a ``ValueError``.

What is here
------------
* Training-set filters: misclassification error (Eq. 2), Gini index (Eq. 3),
  information gain and Quinlan's gain ratio, and the paper's estimator of the
  Gini hypothesis' generalization error (Eqs. 9-11), with the leave-one-out /
  pairwise reading of Eq. (10) computed independently.
* The hypotheses h_Gini (Eq. 5) and h_Bayes (Eq. 7), the generalization error
  of any hypothesis (Eq. 4) and the missing masses ``M_k`` (Eq. 8).
* Exact expectations over training sets (binomial sums with
  :data:`scipy.stats.binom`): E[l_hat] (Lemma 1, Eq. 14), E[l(h_Gini)]
  (Lemma 2), E[l(h_Bayes)] and of any symmetric hypothesis (Thm. 3), E[M_k].
* The explicit constants of the proofs of Theorems 2 and 4 (Lemmas 3, 6-9,
  11-13), so that they can be compared with simulations.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.special import entr
from scipy.stats import binom

from ._validation import as_float_array, check_finite

__all__ = [
    "count_table",
    "count_tables",
    "sample_counts",
    "estimated_probabilities",
    "misclassification_error",
    "gini_index",
    "information_gain",
    "gain_ratio",
    "gini_error_estimate",
    "gini_error_estimate_leave_one_out",
    "gini_error_estimate_pairs",
    "filter_scores",
    "feature_ranking",
    "FILTERS",
    "LARGER_IS_BETTER",
    "gini_hypothesis",
    "bayes_hypothesis",
    "generalization_error",
    "bayes_optimal_error",
    "missing_mass",
    "count_probabilities",
    "expected_missing_mass",
    "expected_gini_estimate",
    "expected_gini_estimate_eq14",
    "expected_gini_error",
    "gini_estimate_bias",
    "expected_bayes_error",
    "expected_symmetric_error",
    "symmetric_rule_table",
    "bayes_rule_table",
    "gini_rule_table",
    "smoothed_rule_table",
    "bayes_regret_per_count",
    "bayes_bias_bound",
    "lemma3_bound",
    "lemma6_bound",
    "lemma7_bound",
    "theorem2_bound",
    "lemma8_bound",
    "lemma9_bound",
    "lemma11_bound",
    "lemma11_exceedance",
    "lemma11_deviation_quantile",
    "lemma12_bound",
    "lemma13_bound",
    "theorem4_bound",
    "CategoricalPopulation",
    "ssn_population",
    "flag_versus_code_population",
    "ranking_study",
    "bayes_error_decomposition",
]

#: The training-set filters of :func:`filter_scores`, in display order.
FILTERS = ("misclassification", "gini", "information_gain", "gain_ratio", "gini_estimate")
#: Filters for which a larger score means a more relevant feature (the others: smaller).
LARGER_IS_BETTER = frozenset({"information_gain", "gain_ratio"})

_SUM_TOLERANCE = 1e-9
_FLUSH_BELOW = 1e-290


# ----------------------------------------------------------------------------- input checks


def _check_labels(y, name: str = "y") -> np.ndarray:
    """``y`` as a 1-D int array of 0/1 labels; ValueError naming anything else."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {y.shape}")
    if y.size == 0:
        raise ValueError(f"{name} is empty: the sample needs at least one example (m >= 1)")
    if y.dtype == bool:
        return y.astype(np.int64)
    if y.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold 0/1 labels, got dtype {y.dtype}")
    if y.dtype.kind == "f":
        check_finite(y, name)
    bad = (y != 0) & (y != 1)
    if np.any(bad):
        raise ValueError(
            f"{name} must hold labels in {{0, 1}}; found {np.unique(y[bad])[:5].tolist()} "
            f"(first at index {int(np.flatnonzero(bad)[0])})"
        )
    return y.astype(np.int64)


def _check_counts(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``c_v`` and ``c_v^+`` as int arrays of one shape with 0 <= c^+ <= c."""
    c = np.asarray(counts)
    cp = np.asarray(positive_counts)
    if c.shape != cp.shape:
        raise ValueError(f"counts and positive_counts have different shapes: {c.shape} vs {cp.shape}")
    if c.ndim == 0:
        raise ValueError("counts must have at least one dimension (one entry per value v)")
    for arr, name in ((c, "counts"), (cp, "positive_counts")):
        if arr.dtype.kind == "f":
            check_finite(arr, name)
            if np.any(arr != np.round(arr)):
                raise ValueError(f"{name} must be whole numbers")
        elif arr.dtype.kind not in "iub":
            raise ValueError(f"{name} must be integer counts, got dtype {arr.dtype}")
    c = c.astype(np.int64)
    cp = cp.astype(np.int64)
    if np.any(c < 0) or np.any(cp < 0):
        raise ValueError("counts and positive_counts must be non-negative")
    if np.any(cp > c):
        raise ValueError("positive_counts exceed counts for some value (c_v^+ > c_v)")
    if np.any(c.sum(axis=-1) == 0):
        raise ValueError("empty sample: the counts sum to m = 0; at least one example is needed")
    return c, cp


def _check_distribution(p, q=None) -> tuple[np.ndarray, np.ndarray | None]:
    """``p`` a probability vector over V (sums to 1) and ``q`` in [0, 1] of the same length."""
    p = as_float_array(p, "p", 1)
    if p.size == 0:
        raise ValueError("p is empty: the feature needs at least one value")
    if np.any(p < 0):
        raise ValueError(f"p must be non-negative; found {p[p < 0][:3].tolist()}")
    total = float(p.sum())
    if abs(total - 1.0) > _SUM_TOLERANCE:
        raise ValueError(f"p must sum to 1 (it is a distribution over the values v), got sum {total!r}")
    # Masses below 1e-290 are flushed to 0 (they change nothing at double precision):
    # scipy's binom.pmf overflows for p near the smallest normal double (about 1e-308).
    p = np.where(p < _FLUSH_BELOW, 0.0, p)
    if q is None:
        return p, None
    q = as_float_array(q, "q", 1)
    if q.shape != p.shape:
        raise ValueError(f"p and q must have the same length (one entry per value), got {p.size} and {q.size}")
    if np.any((q < 0) | (q > 1)):
        raise ValueError(f"q must lie in [0, 1] (q_v = Pr[Y=1 | X=v]); found {q[(q < 0) | (q > 1)][:3].tolist()}")
    return p, q


def _check_sample_size(m) -> int:
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)):
        if isinstance(m, (float, np.floating)) and float(m).is_integer():
            m = int(m)
        else:
            raise ValueError(f"the sample size m must be a whole number, got {m!r}")
    m = int(m)
    if m < 1:
        raise ValueError(f"the sample size m must be at least 1, got {m}")
    return m


def _check_delta(delta) -> float:
    delta = float(delta)
    if not 0 < delta < 1:
        raise ValueError(f"the confidence parameter delta must lie in (0, 1), got {delta}")
    return delta


# ----------------------------------------------------------------------------- counting


def count_table(x, y, n_values: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``c_v`` and ``c_v^+`` of one feature coded ``0 .. n_values-1`` (Sec. 2).

    Parameters
    ----------
    x : array of int, shape (m,)
        The feature's value for each example, coded ``0 .. n_values-1``.
    y : array of {0, 1}, shape (m,)
    n_values : int, optional
        ``|V|``; values never seen in the sample get ``c_v = 0``. Default ``max(x) + 1``.

    Returns
    -------
    counts, positive_counts : int arrays of shape (n_values,)
    """
    y = _check_labels(y)
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"x must be one-dimensional, got shape {x.shape}")
    if x.shape != y.shape:
        raise ValueError(f"x and y have different lengths: {x.size} vs {y.size}")
    if x.dtype.kind not in "iu":
        raise ValueError(f"x must hold integer value codes 0..|V|-1, got dtype {x.dtype}")
    if np.any(x < 0):
        raise ValueError("x must hold integer value codes 0..|V|-1; found negative codes")
    n = int(x.max()) + 1 if n_values is None else int(n_values)
    if np.any(x >= n):
        raise ValueError(f"x holds the code {int(x.max())}, outside 0..n_values-1 = 0..{n - 1}")
    return np.bincount(x, minlength=n), np.bincount(x, weights=y, minlength=n).astype(np.int64)


def _encode_columns(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate ``(X, y)`` and code each column's values as 0..width-1: ``(X, y, codes, widths)``."""
    y = _check_labels(y)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional (examples x features), got shape {X.shape}")
    if X.shape[0] != y.size:
        raise ValueError(f"X and y have different numbers of examples: {X.shape[0]} vs {y.size}")
    if X.shape[1] == 0:
        raise ValueError("X has no feature columns")
    if X.dtype.kind == "f":
        check_finite(X, "X")
    codes = np.empty(X.shape, dtype=np.int64)
    widths = np.empty(X.shape[1], dtype=np.int64)
    for j in range(X.shape[1]):
        uniques, codes[:, j] = np.unique(X[:, j], return_inverse=True)
        widths[j] = uniques.size
    return X, y, codes, widths


def count_tables(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Counts of every column of a categorical table, padded to a common width.

    Each column may hold any hashable codes (ints, strings); its distinct values are
    found with :func:`numpy.unique` and all columns are counted in one
    :func:`numpy.bincount`.

    Parameters
    ----------
    X : array, shape (m, n_features)
    y : array of {0, 1}, shape (m,)

    Returns
    -------
    counts, positive_counts : int arrays of shape (n_features, max_distinct_values)
        Row ``j`` holds ``c_v`` and ``c_v^+`` for the values seen in column ``j``,
        zero-padded on the right (padding does not change any filter).
    """
    X, y, codes, widths = _encode_columns(X, y)
    width = int(widths.max())
    flat = (codes + np.arange(X.shape[1]) * width).ravel()
    size = X.shape[1] * width
    counts = np.bincount(flat, minlength=size).reshape(X.shape[1], width)
    positives = np.bincount(flat, weights=np.repeat(y, X.shape[1]), minlength=size)
    return counts, positives.reshape(X.shape[1], width).astype(np.int64)


def sample_counts(p, q, m: int, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``size`` training sets of ``m`` i.i.d. examples and return their counts.

    ``(c_v)_v ~ Multinomial(m, p)`` and ``c_v^+ | c_v ~ Binomial(c_v, q_v)`` — the
    sampling model of Sec. 2, without materializing the examples.

    Returns
    -------
    counts, positive_counts : int arrays of shape (size, |V|)
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    counts = rng.multinomial(m, p / p.sum(), size=int(size))
    positives = rng.binomial(counts, q)
    return counts, positives


# ----------------------------------------------------------------------------- filters


def estimated_probabilities(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (1): ``p_hat_v = c_v / m`` and ``q_hat_v = c_v^+ / c_v`` (1/2 where ``c_v = 0``)."""
    c, cp = _check_counts(counts, positive_counts)
    m = c.sum(axis=-1, keepdims=True)
    q_hat = np.divide(cp, c, out=np.full(c.shape, 0.5), where=c > 0)
    return c / m, q_hat


def misclassification_error(counts, positive_counts) -> np.ndarray:
    """Eq. (2): ``sum_v p_hat_v min(q_hat_v, 1 - q_hat_v)``, the training error of h_Bayes.

    Counts along the last axis; returns one number per row. Smaller = more relevant.
    """
    p_hat, q_hat = estimated_probabilities(counts, positive_counts)
    return np.sum(p_hat * np.minimum(q_hat, 1.0 - q_hat), axis=-1)


def gini_index(counts, positive_counts) -> np.ndarray:
    """Eq. (3): ``2 sum_v p_hat_v q_hat_v (1 - q_hat_v)``, the training error of h_Gini."""
    p_hat, q_hat = estimated_probabilities(counts, positive_counts)
    return 2.0 * np.sum(p_hat * q_hat * (1.0 - q_hat), axis=-1)


def _binary_entropy_bits(q: np.ndarray) -> np.ndarray:
    return (entr(q) + entr(1.0 - q)) / math.log(2.0)


def information_gain(counts, positive_counts) -> np.ndarray:
    """Information gain ``H(Y) - sum_v p_hat_v H(Y | X = v)`` in bits (Sec. 1, [12]).

    Larger = more relevant.
    """
    c, cp = _check_counts(counts, positive_counts)
    p_hat, q_hat = estimated_probabilities(c, cp)
    base_rate = cp.sum(axis=-1) / c.sum(axis=-1)
    return _binary_entropy_bits(base_rate) - np.sum(p_hat * _binary_entropy_bits(q_hat), axis=-1)


def gain_ratio(counts, positive_counts) -> np.ndarray:
    """Quinlan's information gain ratio: information gain / split information ``H(p_hat)``.

    Where the sample shows a single value (split information 0) the gain is 0 too and
    the ratio is defined as 0. Larger = more relevant.
    """
    c, cp = _check_counts(counts, positive_counts)
    gain = information_gain(c, cp)
    p_hat = c / c.sum(axis=-1, keepdims=True)
    split = np.sum(entr(p_hat), axis=-1) / math.log(2.0)
    return np.divide(gain, split, out=np.zeros(np.shape(gain)), where=split > 1e-12)


def gini_error_estimate(counts, positive_counts) -> np.ndarray:
    """The paper's estimator l_hat of the Gini hypothesis' generalization error, Eqs. (9)/(11).

    ``l_hat = |{v : c_v = 1}| / (2m) + sum_{v: c_v > 1} 2 c_v/(c_v - 1) p_hat_v q_hat_v (1 - q_hat_v)``,
    i.e. per value ``l_hat_v = p_hat_v / 2`` if ``c_v <= 1`` (zero when ``c_v = 0``) and
    ``2 c_v^+ (c_v - c_v^+) / (m (c_v - 1))`` if ``c_v >= 2``.

    With ``m = 1`` every sample gives 1/2 (degenerate but defined). Smaller = more relevant.
    """
    c, cp = _check_counts(counts, positive_counts)
    m = c.sum(axis=-1, keepdims=True)
    repeated = np.divide(2.0 * cp * (c - cp), c - 1, out=np.zeros(c.shape), where=c >= 2)
    per_value = np.where(c == 1, 0.5, repeated) / m
    return per_value.sum(axis=-1)


def _groups(x, y):
    y = _check_labels(y)
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"x must be one-dimensional, got shape {x.shape}")
    if x.shape != y.shape:
        raise ValueError(f"x and y have different lengths: {x.size} vs {y.size}")
    order = np.argsort(x, kind="stable")
    values, starts = np.unique(x[order], return_index=True)
    return y, np.split(y[order], starts[1:])


def gini_error_estimate_leave_one_out(x, y) -> float:
    """Eq. (10) read as leave-one-out cross-validation, computed example by example.

    For each value ``v`` seen at least twice and each example ``i`` with ``x_i = v``,
    the Gini hypothesis is "the label of example i"; it is validated on the other
    ``c_v - 1`` examples of ``v``. The average over ``i``, times ``p_hat_v``, is
    ``l_hat_v``; values seen once contribute ``1/(2m)`` (Eq. 11). This loops over
    examples on purpose: it is the independent check of the closed form, Eq. (9).
    """
    y, groups = _groups(x, y)
    m = y.size
    total = 0.0
    for labels in groups:
        c = labels.size
        if c == 1:
            total += 0.5 / m
            continue
        held_out_errors = [np.mean(np.delete(labels, i) != labels[i]) for i in range(c)]
        total += (c / m) * float(np.mean(held_out_errors))
    return total


def gini_error_estimate_pairs(x, y) -> float:
    """Eq. (10) as printed: ``p_hat_v / (c_v (c_v - 1)) * #{ordered pairs i != j in S(v): y_i != y_j}``.

    Pairs are counted from an explicit ``c_v x c_v`` comparison matrix; values seen once
    contribute ``1/(2m)`` (Eq. 11).
    """
    y, groups = _groups(x, y)
    m = y.size
    total = 0.0
    for labels in groups:
        c = labels.size
        if c == 1:
            total += 0.5 / m
            continue
        differing_pairs = np.count_nonzero(labels[:, None] != labels[None, :])  # diagonal never differs
        total += (c / m) * differing_pairs / (c * (c - 1))
    return total


_FILTER_FUNCTIONS: dict[str, Callable] = {
    "misclassification": misclassification_error,
    "gini": gini_index,
    "information_gain": information_gain,
    "gain_ratio": gain_ratio,
    "gini_estimate": gini_error_estimate,
}


def _flat_counts(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Counts of every (feature, seen value) pair, flat: ``(counts, positives, feature_of_entry, n_features)``."""
    X, y, codes, widths = _encode_columns(X, y)
    offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
    flat = (codes + offsets).ravel()
    total = int(widths.sum())
    counts = np.bincount(flat, minlength=total)
    positives = np.bincount(flat, weights=np.repeat(y, X.shape[1]), minlength=total)
    return counts, positives, np.repeat(np.arange(X.shape[1]), widths), X.shape[1]


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
        Categorical columns (any codes).
    y : array of {0, 1}, shape (m,)
    filters : iterable of str
        Names from :data:`FILTERS`.

    Returns
    -------
    dict
        filter name -> array of shape (n_features,).
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
    """
    if filter_name not in _FILTER_FUNCTIONS and filter_name not in ("true_gini_error", "true_bayes_error"):
        raise ValueError(f"unknown filter {filter_name!r}; known: {', '.join(FILTERS)}")
    scores = as_float_array(scores, "scores", 1)
    key = -scores if filter_name in LARGER_IS_BETTER else scores
    return np.argsort(key, kind="stable")


# ----------------------------------------------------------------------------- hypotheses and errors


def gini_hypothesis(counts, positive_counts) -> np.ndarray:
    """Eq. (5): ``h_Gini(v) = q_hat_v`` (1/2 for values never seen)."""
    return estimated_probabilities(counts, positive_counts)[1]


def bayes_hypothesis(counts, positive_counts) -> np.ndarray:
    """Eq. (7): ``h_Bayes(v)`` = 1 if ``q_hat_v > 1/2``, 0 if ``< 1/2``, 1/2 on a tie (and if unseen)."""
    c, cp = _check_counts(counts, positive_counts)
    twice_positives_minus_count = 2 * cp - c  # sign of q_hat - 1/2, exactly in integers
    return np.where(twice_positives_minus_count > 0, 1.0, np.where(twice_positives_minus_count < 0, 0.0, 0.5))


def generalization_error(h, p, q) -> np.ndarray:
    """Eq. (4): ``l(h) = sum_v p_v (q_v (1 - h(v)) + (1 - q_v) h(v))``.

    Parameters
    ----------
    h : array, shape (..., |V|)
        Probability of predicting 1 for each value (one row per hypothesis).
    p, q : arrays of shape (|V|,)
    """
    p, q = _check_distribution(p, q)
    h = np.asarray(h, dtype=np.float64)
    if h.shape[-1:] != p.shape:
        raise ValueError(f"h must have |V| = {p.size} entries along its last axis, got shape {h.shape}")
    check_finite(h, "h")
    if np.any((h < 0) | (h > 1)):
        raise ValueError("h must lie in [0, 1] (a probability of predicting the label 1)")
    return np.sum(p * (q * (1.0 - h) + (1.0 - q) * h), axis=-1)


def bayes_optimal_error(p, q) -> float:
    """``l(h_Bayes_inf) = sum_v p_v min(q_v, 1 - q_v)``, the Bayes optimal error (Sec. 2)."""
    p, q = _check_distribution(p, q)
    return float(np.sum(p * np.minimum(q, 1.0 - q)))


def missing_mass(counts, p, k: int = 0) -> np.ndarray:
    """Eq. (8): ``M_k = sum_{v: c_v = k} p_v`` (``M_0`` is the missing mass).

    ``counts`` has |V| entries along its last axis (one row per sample).
    """
    p, _ = _check_distribution(p)
    c = np.asarray(counts)
    if c.shape[-1:] != p.shape:
        raise ValueError(f"counts must have |V| = {p.size} entries along the last axis, got shape {c.shape}")
    return np.sum(np.where(c == int(k), p, 0.0), axis=-1)


# ----------------------------------------------------------------------------- exact expectations


def count_probabilities(p, m: int) -> np.ndarray:
    """``Pr[c_v = k]`` for every value and ``k = 0..m``: ``binom.pmf(k, m, p_v)``, shape (|V|, m+1)."""
    p, _ = _check_distribution(p)
    m = _check_sample_size(m)
    return binom.pmf(np.arange(m + 1)[None, :], m, p[:, None])


def expected_missing_mass(p, m: int, k=0):
    """``E[M_k] = sum_v p_v Pr[c_v = k]`` (Eq. 8 and [8]); ``k`` may be an array."""
    p, _ = _check_distribution(p)
    m = _check_sample_size(m)
    k = np.asarray(k)
    return np.sum(p * binom.pmf(k[..., None], m, p), axis=-1)


def expected_gini_estimate(p, q, m: int) -> float:
    """``E[l_hat]`` as the binomial sum of Eq. (13): ``sum_v sum_k Pr[c_v = k] E[l_hat_v | c_v = k]``.

    ``E[l_hat_v | c_v = k]`` is 0 for ``k = 0``, ``1/(2m)`` for ``k = 1`` and
    ``(k/m) 2 q_v (1 - q_v)`` for ``k >= 2`` (Lemma 1).
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    k = np.arange(m + 1)
    conditional = np.where(k >= 2, (k / m)[None, :] * (2 * q * (1 - q))[:, None], 0.0)
    conditional[:, 1:2] = 0.5 / m if m >= 1 else 0.0
    return float(np.sum(count_probabilities(p, m) * conditional))


def expected_gini_estimate_eq14(p, q, m: int) -> float:
    """``E[l_hat]`` from the closed form Eq. (14): ``sum_v (1/m)(1/2 - 2q_v(1-q_v)) Pr[c_v=1] + p_v 2q_v(1-q_v)``."""
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    gini = 2 * q * (1 - q)
    return float(np.sum((0.5 - gini) * binom.pmf(1, m, p) / m + p * gini))


def expected_gini_error(p, q, m: int) -> float:
    """``E[l(h_Gini)]`` (Lemma 2): ``sum_v p_v (1/2 - 2q_v(1-q_v)) Pr[c_v = 0] + p_v 2 q_v (1 - q_v)``.

    Computed as ``sum_v p_v (q_v + (1 - 2q_v) E[h_Gini(v)])`` with
    ``E[h_Gini(v)] = q_v + (1/2 - q_v) Pr[c_v = 0]`` (Eqs. 15-16).
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    expected_h = q + (0.5 - q) * binom.pmf(0, m, p)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def gini_estimate_bias(p, q, m: int) -> float:
    """``E[l_hat] - E[l(h_Gini)] = sum_v (1/2 - 2q_v(1-q_v)) p_v^2 (1-p_v)^(m-1)`` (proof of Thm. 1).

    Always in ``[0, 1/(2m)]``.
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    return float(np.sum((0.5 - 2 * q * (1 - q)) * p * binom.pmf(1, m, p) / m))


def symmetric_rule_table(rule: Callable[[np.ndarray, np.ndarray], np.ndarray], m: int) -> np.ndarray:
    """Tabulate a symmetric rule ``f(k, i)`` (Thm. 3's H_S) for ``0 <= i <= k <= m``.

    ``f(k, i)`` is the probability of predicting 1 for a value seen ``k`` times, ``i``
    of them labelled 1. The rule is called once with broadcast integer arrays
    ``k`` (column) and ``i`` (row). Entries with ``i > k`` are set to 0 and ignored.

    Raises ValueError if ``f`` leaves [0, 1] or breaks ``f(k, i) = 1 - f(k, k - i)``.
    """
    m = _check_sample_size(m)
    k = np.arange(m + 1)[:, None]
    i = np.arange(m + 1)[None, :]
    valid = i <= k
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.asarray(rule(k, np.minimum(i, k)), dtype=np.float64) * np.ones((m + 1, m + 1))
    table = np.where(valid, table, 0.0)
    _check_symmetric_table(table)
    return table


def _check_symmetric_table(table: np.ndarray) -> int:
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] != table.shape[1] or table.shape[0] < 2:
        raise ValueError(f"a rule table must be square of shape (m+1, m+1) with m >= 1, got {table.shape}")
    m = table.shape[0] - 1
    k = np.arange(m + 1)[:, None]
    i = np.arange(m + 1)[None, :]
    valid = i <= k
    check_finite(np.where(valid, table, 0.0), "rule table")
    if np.any(valid & ((table < 0) | (table > 1))):
        raise ValueError("a rule table must lie in [0, 1] (probabilities of predicting 1)")
    mirrored = table[k, np.clip(k - i, 0, m)]
    if np.any(valid & (np.abs(table + mirrored - 1.0) > 1e-12)):
        raise ValueError("the rule is not symmetric: f(k, i) = 1 - f(k, k - i) fails (Thm. 3's class H_S)")
    return m


def bayes_rule_table(m: int) -> np.ndarray:
    """h_Bayes (Eq. 7) as a rule table: 1 if ``i > k/2``, 0 if ``i < k/2``, 1/2 on a tie."""
    return symmetric_rule_table(lambda k, i: np.sign(2 * i - k) * 0.5 + 0.5, m)


def gini_rule_table(m: int) -> np.ndarray:
    """h_Gini (Eq. 5) as a rule table: ``i / k`` (1/2 for ``k = 0``)."""
    return symmetric_rule_table(lambda k, i: np.where(k > 0, i / np.maximum(k, 1), 0.5), m)


def smoothed_rule_table(m: int, pseudo_count: float = 1.0) -> np.ndarray:
    """A Laplace-smoothed Gini rule ``(i + a) / (k + 2a)``, symmetric for every ``a >= 0``."""
    a = float(pseudo_count)
    if not a >= 0:
        raise ValueError(f"pseudo_count must be non-negative, got {pseudo_count}")
    return symmetric_rule_table(lambda k, i: np.where(k + 2 * a > 0, (i + a) / np.maximum(k + 2 * a, 1e-300), 0.5), m)


def expected_symmetric_error(p, q, m: int, table) -> float:
    """``E[l(h)]`` for a symmetric hypothesis ``h(v) = f(c_v, c_v^+)`` given as a rule table (Thm. 3).

    ``E[h(v)] = sum_k Pr[c_v = k] sum_i binom.pmf(i, k, q_v) f(k, i)`` and
    ``E[l(h)] = sum_v p_v (q_v + (1 - 2 q_v) E[h(v)])`` (proof of Thm. 3).
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    if np.shape(table) != (m + 1, m + 1):
        raise ValueError(f"the rule table must have shape (m+1, m+1) = {(m + 1, m + 1)}, got {np.shape(table)}")
    _check_symmetric_table(table)
    k = np.arange(m + 1)
    label_pmf = binom.pmf(k[None, None, :], k[None, :, None], q[:, None, None])  # (V, k, i)
    expected_given_count = np.sum(label_pmf * np.asarray(table)[None, :, :], axis=-1)  # (V, k)
    expected_h = np.sum(count_probabilities(p, m) * expected_given_count, axis=-1)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def _bayes_prediction_given_count(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``E[h_Bayes(v) | c_v = k] = Pr[Bin(k, q) > k/2] + Pr[Bin(k, q) = k/2] / 2``."""
    above = binom.sf(np.floor(k / 2), k, q)
    tie = np.where(k % 2 == 0, binom.pmf(k // 2, k, q), 0.0)
    return above + 0.5 * tie


def expected_bayes_error(p, q, m: int) -> float:
    """``E[l(h_Bayes)]`` exactly, by binomial sums over ``c_v`` and ``c_v^+`` (Eq. 7, Thm. 3)."""
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    k = np.arange(m + 1)[None, :]
    expected_h = np.sum(count_probabilities(p, m) * _bayes_prediction_given_count(q[:, None], k), axis=-1)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def bayes_regret_per_count(q, k) -> np.ndarray:
    """``t_k(q) = |2q - 1| (Pr[h_Bayes wrong | c_v = k] + Pr[tie | c_v = k] / 2)``.

    The excess error of h_Bayes at one value, per unit of ``p_v``, given ``c_v = k``
    (proof of Thm. 3); ``t_0(q) = |2q - 1| / 2``. Broadcasts over ``q`` and ``k``.
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k)
    majority = np.maximum(q, 1 - q)
    above = _bayes_prediction_given_count(majority, k)  # Pr[right] + tie/2
    return (2 * majority - 1) * (1.0 - above)


def bayes_bias_bound(p, m: int, first_sqrt_index: int = 3) -> float:
    """The right-hand side of Thm. 3's bias bound.

    ``E[M_0]/2 + E[M_1]/8 + E[M_2]/8 + sum_{k=first}^{m} E[M_k] / sqrt(e k)``.
    ``first_sqrt_index=3`` is the theorem as printed; ``1`` is the last display of its
    proof (which adds ``1/sqrt(e k)`` terms for k = 1, 2 on top of the 1/8's).
    """
    m = _check_sample_size(m)
    if first_sqrt_index < 1:
        raise ValueError("first_sqrt_index must be at least 1")
    expected_masses = expected_missing_mass(p, m, np.arange(m + 1))
    k = np.arange(m + 1)
    coefficients = np.zeros(m + 1)
    coefficients[0] = 0.5
    coefficients[1:3] = 1 / 8
    sqrt_terms = k >= first_sqrt_index
    coefficients[sqrt_terms] += 1 / np.sqrt(math.e * k[sqrt_terms])
    return float(np.sum(coefficients * expected_masses))


# ----------------------------------------------------------------------------- explicit constants


def lemma3_bound(m, delta):
    """Lemma 3: w.p. >= 1 - delta, ``|l_hat - E[l_hat]| <= 12 sqrt(ln(2/delta) / (2m))``."""
    delta = _check_delta(delta)
    return 12.0 * np.sqrt(np.log(2 / delta) / (2 * np.asarray(m, dtype=float)))


def lemma6_bound(m, delta):
    """Lemma 6: ``|l(h^delta_S) - E l(h^delta_S)| <= 12 ln(2m/delta) sqrt(ln(2/delta)) / sqrt(2m)``."""
    delta = _check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 12.0 * np.log(2 * m / delta) * np.sqrt(np.log(2 / delta)) / np.sqrt(2 * m)


def lemma7_bound(m, delta):
    """Lemma 7: ``|l(h_Gini) - E l(h_Gini)| <= 1/m + 12 ln(4m/delta) sqrt(ln(4/delta)) / sqrt(2m)``."""
    delta = _check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 1 / m + 12.0 * np.log(4 * m / delta) * np.sqrt(np.log(4 / delta)) / np.sqrt(2 * m)


def theorem2_bound(m, delta):
    """The explicit bound at the end of the proof of Thm. 2.

    ``2/m + 12 ln(8m/delta) sqrt(ln(8/delta)) / sqrt(2m) + 12 sqrt(ln(4/delta) / (2m))``.
    """
    delta = _check_delta(delta)
    m = np.asarray(m, dtype=float)
    return (2 / m + 12.0 * np.log(8 * m / delta) * np.sqrt(np.log(8 / delta)) / np.sqrt(2 * m)
            + 12.0 * np.sqrt(np.log(4 / delta) / (2 * m)))


def lemma8_bound(m, delta):
    """Lemma 8 (A_1): ``12 ln(2m/delta) m^(-1/6) sqrt(ln(2/delta) / 2)``."""
    delta = _check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 12.0 * np.log(2 * m / delta) * m ** (-1 / 6) * np.sqrt(0.5 * np.log(2 / delta))


def lemma9_bound(m, delta):
    """Lemma 9 (A_2): ``sqrt(3 ln(2m/delta) ln(2/delta)) / m^(1/4)``."""
    delta = _check_delta(delta)
    m = np.asarray(m, dtype=float)
    return np.sqrt(3 * np.log(2 * m / delta) * np.log(2 / delta)) / m ** 0.25


def lemma12_bound(m):
    """Lemma 12 (A_3, with probability 1 - 2 delta, m >= 4): ``m^(-1/4)``."""
    return np.asarray(m, dtype=float) ** -0.25


def lemma13_bound(m):
    """Lemma 13 (A_4, m >= 8): ``1/m + m^(-1/6)``."""
    m = np.asarray(m, dtype=float)
    return 1 / m + m ** (-1 / 6)


def theorem4_bound(m, delta):
    """Thm. 4's bound assembled from Lemmas 8, 9, 12, 13 with a union bound.

    The four lemmas fail with probabilities delta, delta, 2 delta and delta (Lemma 13
    through Lemma 4), so each is taken at ``delta/5`` for an overall ``1 - delta``.
    """
    delta = _check_delta(delta)
    d = delta / 5
    return lemma8_bound(m, d) + lemma9_bound(m, d) + lemma12_bound(m) + lemma13_bound(m)


def lemma11_bound(k, delta, corrected: bool = False):
    """Lemma 11's deviation bound: ``sqrt(2 ln(1/delta) / (e k))`` as printed.

    ``corrected=True`` gives ``sqrt(2 ln(1/delta) / k)``, what the proof's first case
    (``2q - 1 <= sqrt(2 ln(1/delta)/k)``) actually supports.
    """
    delta = np.asarray(delta, dtype=float)
    k = np.asarray(k, dtype=float)
    factor = 1.0 if corrected else 1 / math.e
    return np.sqrt(2 * np.log(1 / delta) * factor / k)


def lemma11_exceedance(k, q, delta, corrected: bool = False) -> np.ndarray:
    """Exact ``Pr[|f(Z) - E f| > bound] - delta`` in Lemma 11 (positive = the lemma fails).

    ``Z_1..Z_k`` i.i.d. Bernoulli(q), q >= 1/2; ``f`` is ``1-q``, ``q`` or ``1/2`` as the
    majority of Z is 1, 0 or tied. Broadcasts over ``k``, ``q`` and ``delta``.
    """
    k = np.asarray(k)
    q = np.asarray(q, dtype=float)
    if np.any(q < 0.5) or np.any(q > 1):
        raise ValueError("Lemma 11 assumes q in [1/2, 1]")
    alpha = binom.sf(np.floor(k / 2), k, q)
    gamma = np.where(k % 2 == 0, binom.pmf(k // 2, k, q), 0.0)
    beta = 1.0 - alpha - gamma
    values = np.stack(np.broadcast_arrays(1 - q, q, np.full_like(q, 0.5)))
    probabilities = np.stack(np.broadcast_arrays(alpha, beta, gamma))
    mean = np.sum(values * probabilities, axis=0)
    bound = lemma11_bound(k, delta, corrected)
    exceed = np.sum(np.where(np.abs(values - mean) > bound * (1 + 1e-12), probabilities, 0.0), axis=0)
    return exceed - np.asarray(delta, dtype=float)


def lemma11_deviation_quantile(k, q, delta) -> np.ndarray:
    """The exact ``(1 - delta)``-quantile of ``|f(Z) - E f|`` in Lemma 11.

    The smallest ``t`` with ``Pr[|f(Z) - E f| > t] <= delta``; Lemma 11 claims it is at
    most :func:`lemma11_bound`. Broadcasts over ``k``, ``q`` (in [1/2, 1]) and ``delta``.
    """
    k, q, delta = np.broadcast_arrays(np.asarray(k), np.asarray(q, dtype=float), np.asarray(delta, dtype=float))
    if np.any(q < 0.5) or np.any(q > 1):
        raise ValueError("Lemma 11 assumes q in [1/2, 1]")
    alpha = binom.sf(np.floor(k / 2), k, q)
    gamma = np.where(k % 2 == 0, binom.pmf(k // 2, k, q), 0.0)
    beta = np.clip(1.0 - alpha - gamma, 0.0, 1.0)
    values = np.stack([1 - q, q, np.full(q.shape, 0.5)])
    probabilities = np.stack([alpha, beta, gamma])
    deviations = np.abs(values - np.sum(values * probabilities, axis=0))
    order = np.argsort(-deviations, axis=0)
    sorted_deviations = np.take_along_axis(deviations, order, axis=0)
    tail = np.cumsum(np.take_along_axis(probabilities, order, axis=0), axis=0)  # Pr[dev >= sorted value]
    # the quantile is the first (largest) deviation whose upper tail already exceeds delta
    first = np.argmax(tail > delta * (1 + 1e-12), axis=0)
    return np.take_along_axis(sorted_deviations, first[None], axis=0)[0]


# ----------------------------------------------------------------------------- simulated populations (notebook 01)


class CategoricalPopulation:
    """A finite population of people with categorical features and a 0/1 label.

    The population *is* the distribution of Sec. 2: a training set is ``m`` people drawn
    uniformly with replacement, so ``p_v`` and ``q_v`` of every feature are exact
    population frequencies (:meth:`distribution`).

    Parameters
    ----------
    names : sequence of str
        One name per feature column.
    codes : int array, shape (n_people, n_features)
        Value codes ``0 .. |V_j| - 1`` of each feature.
    labels : array of {0, 1}, shape (n_people,)
    n_values : sequence of int, optional
        ``|V_j|`` (values may be absent from the population); default ``max code + 1``.
    """

    def __init__(self, names, codes, labels, n_values=None):
        codes = np.asarray(codes)
        if codes.ndim != 2 or codes.dtype.kind not in "iu":
            raise ValueError(f"codes must be a 2-D integer array (people x features), got {codes.dtype} {codes.shape}")
        if len(names) != codes.shape[1]:
            raise ValueError(f"{len(names)} names for {codes.shape[1]} feature columns")
        self.labels = _check_labels(labels, "labels")
        if self.labels.size != codes.shape[0]:
            raise ValueError(f"codes and labels have different lengths: {codes.shape[0]} vs {self.labels.size}")
        self.names = tuple(names)
        self.codes = codes
        self.n_values = np.asarray(codes.max(axis=0) + 1 if n_values is None else n_values, dtype=np.int64)
        self._distributions = [None] * codes.shape[1]

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def distribution(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """``(p_v, q_v)`` of feature ``j`` over its ``|V_j|`` values (q_v = 1/2 where p_v = 0)."""
        if self._distributions[j] is None:
            counts, positives = count_table(self.codes[:, j], self.labels, int(self.n_values[j]))
            p = counts / counts.sum()
            q = np.divide(positives, counts, out=np.full(counts.shape, 0.5), where=counts > 0)
            self._distributions[j] = (p, q)
        return self._distributions[j]

    def sample(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """A training set: ``m`` people drawn uniformly with replacement; returns ``(X, y)``."""
        m = _check_sample_size(m)
        rows = rng.integers(0, self.codes.shape[0], m)
        return self.codes[rows], self.labels[rows]

    def bayes_optimal_errors(self) -> np.ndarray:
        """``l(h_Bayes_inf)`` of each feature."""
        return np.array([bayes_optimal_error(*self.distribution(j)) for j in range(self.n_features)])

    def expected_gini_errors(self, m: int) -> np.ndarray:
        """``E[l(h_Gini)]`` of each feature at sample size ``m`` (Lemma 2): the ranking we want."""
        return np.array([expected_gini_error(*self.distribution(j), m) for j in range(self.n_features)])

    def sample_errors(self, X, y) -> dict[str, np.ndarray]:
        """True generalization errors ``l(h_Gini_S)`` and ``l(h_Bayes_S)`` of each feature (Eqs. 4-7)."""
        X = np.asarray(X)
        out = {"gini": np.empty(self.n_features), "bayes": np.empty(self.n_features)}
        for j in range(self.n_features):
            p, q = self.distribution(j)
            counts, positives = count_table(X[:, j], y, int(self.n_values[j]))
            out["gini"][j] = generalization_error(gini_hypothesis(counts, positives), p, q)
            out["bayes"][j] = generalization_error(bayes_hypothesis(counts, positives), p, q)
        return out


def ssn_population(rng: np.random.Generator, n_people: int = 100_000) -> CategoricalPopulation:
    """The SSN example of Sec. 2 as a simulated population.

    ``unemployed`` (the label, about 40% positive: think of the applicants of a job programme) depends on ``mortgage`` (2 values, strongly),
    ``education`` (5 values), ``region`` (20 values, mildly) and ``zip_code`` (2,000 values, weakly);
    ``birthday`` (365 values) is pure noise and ``ssn`` is a unique identifier (one value per person).
    """
    n = int(n_people)
    if n < 2:
        raise ValueError(f"n_people must be at least 2, got {n_people}")
    mortgage = (rng.uniform(size=n) < 0.4).astype(np.int64)
    education = rng.choice(5, size=n, p=[0.1, 0.3, 0.3, 0.2, 0.1])
    region = rng.integers(0, 20, n)
    zip_code = rng.integers(0, 2000, n)
    birthday = rng.integers(0, 365, n)
    ssn = rng.permutation(n)
    logit = (0.5 - 2.4 * mortgage + np.array([0.9, 0.45, 0.0, -0.45, -0.9])[education]
             + rng.normal(0, 0.3, 20)[region] + rng.normal(0, 0.3, 2000)[zip_code])
    unemployed = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    names = ("ssn", "mortgage", "education", "region", "birthday", "zip_code")
    codes = np.column_stack([ssn, mortgage, education, region, birthday, zip_code])
    return CategoricalPopulation(names, codes, unemployed, n_values=[n, 2, 5, 20, 365, 2000])


def flag_versus_code_population(n_values: int, rng: np.random.Generator, n_people: int = 50_000) -> CategoricalPopulation:
    """Two features: a binary ``flag`` and a ``code`` with ``n_values`` values that fixes the label.

    Each code value carries a label shared by everyone with that code (about 35% of the
    values, at least one and not all, are labelled 1): with few values ``code`` is the
    perfect feature, with many it is an SSN. The ``flag`` is a noisy readout of the label (Pr[flag = 1] is 0.2 if labelled 1, 0.6 if 0).
    """
    n = int(n_people)
    code = rng.integers(0, int(n_values), n)
    n_positive = min(max(1, round(0.35 * int(n_values))), int(n_values) - 1) if int(n_values) > 1 else 1
    label_of_code = rng.permutation(np.arange(int(n_values)) < n_positive).astype(np.int64)
    labels = label_of_code[code]
    flag = (rng.uniform(size=n) < np.where(labels == 1, 0.2, 0.6)).astype(np.int64)
    return CategoricalPopulation(("flag", "code"), np.column_stack([flag, code]), labels, n_values=[2, int(n_values)])


def ranking_study(population: CategoricalPopulation, sizes, repetitions: int, rng: np.random.Generator,
                  filters=FILTERS, focus: int = 0) -> dict[str, dict[str, np.ndarray]]:
    """How well each filter ranks the features, against the ranking by ``E[l(h_Gini)]`` at each m.

    Returns, for each filter, arrays over ``sizes`` of: ``kendall_tau`` (mean Kendall tau
    between the filter's ranking and the true one), ``picks_best`` (fraction of training sets
    whose top feature is the truly best one) and ``focus_first`` (fraction ranking feature
    ``focus`` first, e.g. the identifier).
    """
    from scipy.stats import kendalltau

    sizes = [int(m) for m in sizes]
    result = {f: {k: np.zeros(len(sizes)) for k in ("kendall_tau", "picks_best", "focus_first")} for f in filters}
    for index, m in enumerate(sizes):
        truth = population.expected_gini_errors(m)
        best = int(np.argmin(truth))
        for _ in range(int(repetitions)):
            X, y = population.sample(m, rng)
            scores = filter_scores(X, y, filters)
            for name in filters:
                oriented = -scores[name] if name in LARGER_IS_BETTER else scores[name]
                tau = kendalltau(oriented, truth).statistic if population.n_features > 2 else (
                    1.0 if (oriented[0] < oriented[1]) == (truth[0] < truth[1]) else -1.0)
                top = int(feature_ranking(scores[name], name)[0])
                result[name]["kendall_tau"][index] += (0.0 if np.isnan(tau) else tau) / repetitions
                result[name]["picks_best"][index] += (top == best) / repetitions
                result[name]["focus_first"][index] += (top == focus) / repetitions
    return result


def bayes_error_decomposition(counts, positive_counts, p, q, delta: float) -> dict[str, np.ndarray]:
    """The four terms A_1..A_4 of Eq. (26) in the proof of Thm. 4, exactly, for each sample.

    ``V_1, V_2, V_3`` split the values by ``p_v`` at ``6 ln(2m/delta) m^(-2/3)`` and
    ``6 ln(2m/delta) m^(-1/2)``; with ``l_i(S)`` the part of ``l(h_Bayes_S)`` on ``V_i``:

    * ``A1 = |l_1(S) - E[l_1]|`` (Lemma 8),
    * ``A2 = |l_2(S) - E[l_2(S') | same counts]|`` (Lemma 9),
    * ``A3 = |l_3(S) - E[l_3(S') | same counts]|`` (Lemma 12),
    * ``A4 = |E[l_2 + l_3 | same counts] - E[l_2 + l_3]|`` (Lemma 13).

    Conditional expectations given the counts use ``E[h_Bayes(v) | c_v = k]`` (binomial in
    ``q_v``); unconditional ones are the binomial sums of :func:`expected_bayes_error`.
    Also returns ``deviation = |l(h_Bayes_S) - E l(h_Bayes_S)|`` (at most A1 + A2 + A3 + A4).

    Parameters
    ----------
    counts, positive_counts : int arrays, shape (n_samples, |V|)
    p, q : arrays of shape (|V|,)
    delta : float in (0, 1)
    """
    p, q = _check_distribution(p, q)
    c, cp = _check_counts(counts, positive_counts)
    delta = _check_delta(delta)
    if c.shape[-1] != p.size:
        raise ValueError(f"counts must have |V| = {p.size} entries along the last axis, got shape {c.shape}")
    m_values = np.unique(c.sum(axis=-1))
    if m_values.size != 1:
        raise ValueError("all samples must have the same size m")
    m = int(m_values[0])
    level = 6 * math.log(2 * m / delta)
    part = np.where(p <= level * m ** (-2 / 3), 1, np.where(p <= level * m ** -0.5, 2, 3))
    per_value_error = p * (q * (1 - bayes_hypothesis(c, cp)) + (1 - q) * bayes_hypothesis(c, cp))
    conditional = p * (q + (1 - 2 * q) * _bayes_prediction_given_count(q, c))
    k = np.arange(m + 1)[None, :]
    expected_h = np.sum(count_probabilities(p, m) * _bayes_prediction_given_count(q[:, None], k), axis=-1)
    unconditional = p * (q + (1 - 2 * q) * expected_h)
    on = {i: part == i for i in (1, 2, 3)}
    total = lambda values, mask: np.sum(np.where(mask, values, 0.0), axis=-1)
    return {
        "A1": np.abs(total(per_value_error, on[1]) - total(unconditional, on[1])),
        "A2": np.abs(total(per_value_error, on[2]) - total(conditional, on[2])),
        "A3": np.abs(total(per_value_error, on[3]) - total(conditional, on[3])),
        "A4": np.abs(total(conditional, on[2] | on[3]) - total(unconditional, on[2] | on[3])),
        "deviation": np.abs(per_value_error.sum(axis=-1) - unconditional.sum()),
        "n_values_in_part": np.array([on[i].sum() for i in (1, 2, 3)]),
    }
