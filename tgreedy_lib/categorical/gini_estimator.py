"""The estimator of the Gini hypothesis' generalization error, and the errors it estimates.

Section 3 of Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization
Properties", JMLR 9 (2008). The Gini hypothesis predicts 1 for the value ``v`` with probability
``q_hat_v`` (Eq. 5), the Bayes hypothesis takes the majority (Eq. 7); Eq. (4) is the
generalization error of any hypothesis and Eq. (8) the missing masses ``M_k``. The paper's
estimator (Eqs. 9-11) corrects the Gini index, the Gini hypothesis' training error, by
validating each example's label on the other examples of its value. The paper derives Eq. (9) by
leave-one-out (the remark after it) and by conditional cross-validation, counting the differing
pairs of each value (Eq. 10); the two functions that compute these example by example and pair by
pair are independent checks of the closed form.
"""
from __future__ import annotations

import numpy as np

from ..validation import check_finite, factorize
from .counts import check_counts, check_distribution, check_feature_labels, estimated_probabilities


def gini_error_estimate(counts, positive_counts) -> np.ndarray:
    r"""The paper's estimator l_hat of the Gini hypothesis' generalization error, Eqs. (9)/(11).

    Per value, ``l_hat_v = p_hat_v / 2`` if ``c_v = 1`` (0 if ``c_v = 0``) and
    ``2 c_v^+ (c_v - c_v^+) / (m (c_v - 1))`` if ``c_v >= 2``; ``l_hat = sum_v l_hat_v``, i.e.

    .. math::

        \hat\ell = \frac{|\{v : c_v = 1\}|}{2m}
        + \sum_{v : c_v > 1} \frac{2 c_v}{c_v - 1} \hat p_v \hat q_v (1 - \hat q_v).

    Counts lie along the last axis (one estimate per row). With ``m = 1`` every sample gives 1/2
    (degenerate but defined). Smaller = more relevant.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> round(float(cat.gini_error_estimate(counts, positive_counts)), 4)
    0.3125
    >>> round(float(cat.gini_index(counts, positive_counts)), 4)  # the training error is optimistic
    0.1667
    """
    c, cp = check_counts(counts, positive_counts)
    m = c.sum(axis=-1, keepdims=True)
    repeated = np.divide(2.0 * cp * (c - cp), c - 1, out=np.zeros(c.shape), where=c >= 2)
    per_value = np.where(c == 1, 0.5, repeated) / m
    return per_value.sum(axis=-1)


def _sum_over_values(x, y, term) -> float:
    """Eq. (10)'s ``sum_v p_hat_v term(labels of v)``; values seen once give ``1/(2m)`` (Eq. 11)."""
    x, y = check_feature_labels(x, y)
    _, codes = factorize(x, "x", allow_none=True)
    order = np.argsort(codes, kind="stable")
    starts = np.flatnonzero(np.diff(codes[order])) + 1
    m = y.size
    total = 0.0
    for labels in np.split(y[order], starts):
        c = labels.size
        total += 0.5 / m if c == 1 else (c / m) * term(labels)
    return total


def gini_error_estimate_leave_one_out(x, y) -> float:
    """Eq. (9) by leave-one-out: each example's label, as h_Gini, validated on the other examples of its value.

    ``x`` holds any hashable values, grouped as in :func:`count_tables`; the loop over examples
    checks the closed form, Eq. (9), independently.
    """
    def held_out_error(labels):
        return float(np.mean([np.mean(np.delete(labels, i) != labels[i]) for i in range(labels.size)]))

    return _sum_over_values(x, y, held_out_error)


def gini_error_estimate_pairs(x, y) -> float:
    """Eq. (10) as printed, ``p_hat_v / (c_v (c_v - 1)) * #{ordered pairs i != j in S(v): y_i != y_j}``."""
    def differing_pair_share(labels):
        c = labels.size
        return np.count_nonzero(labels[:, None] != labels[None, :]) / (c * (c - 1))  # diagonal never differs

    return _sum_over_values(x, y, differing_pair_share)


def gini_hypothesis(counts, positive_counts) -> np.ndarray:
    """Eq. (5): ``h_Gini(v) = q_hat_v`` (1/2 for values never seen)."""
    return estimated_probabilities(counts, positive_counts)[1]


def bayes_hypothesis(counts, positive_counts) -> np.ndarray:
    """Eq. (7): ``h_Bayes(v)`` = 1 if ``q_hat_v > 1/2``, 0 if ``< 1/2``, 1/2 on a tie (and if unseen)."""
    c, cp = check_counts(counts, positive_counts)
    twice_positives_minus_count = 2 * cp - c  # sign of q_hat - 1/2, exactly in integers
    return np.where(twice_positives_minus_count > 0, 1.0, np.where(twice_positives_minus_count < 0, 0.0, 0.5))


def generalization_error(h, p, q) -> np.ndarray:
    """Eq. (4): ``l(h) = sum_v p_v (q_v (1 - h(v)) + (1 - q_v) h(v))``; ``h`` = Pr[predict 1] along its last axis."""
    p, q = check_distribution(p, q)
    h = np.asarray(h, dtype=np.float64)
    if h.shape[-1:] != p.shape:
        raise ValueError(f"h must have |V| = {p.size} entries along its last axis, got shape {h.shape}")
    check_finite(h, "h")
    if np.any((h < 0) | (h > 1)):
        raise ValueError("h must lie in [0, 1] (a probability of predicting the label 1)")
    return np.sum(p * (q * (1.0 - h) + (1.0 - q) * h), axis=-1)


def bayes_optimal_error(p, q) -> float:
    """``l(h_Bayes_inf) = sum_v p_v min(q_v, 1 - q_v)``, the Bayes optimal error (section 2)."""
    p, q = check_distribution(p, q)
    return float(np.sum(p * np.minimum(q, 1.0 - q)))


def missing_mass(counts, p, k: int = 0) -> np.ndarray:
    """Eq. (8): ``M_k = sum_{v: c_v = k} p_v`` (``M_0`` is the missing mass); counts along the last axis."""
    p, _ = check_distribution(p)
    c = np.asarray(counts)
    if c.shape[-1:] != p.shape:
        raise ValueError(f"counts must have |V| = {p.size} entries along the last axis, got shape {c.shape}")
    return np.sum(np.where(c == int(k), p, 0.0), axis=-1)
