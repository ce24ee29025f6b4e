"""The corrected Gini estimator of the generalization error (Sabato & Shalev-Shwartz 2008, section 3).

The hypotheses h_Gini (Eq. 5) and h_Bayes (Eq. 7), the generalization error of any hypothesis
(Eq. 4), the missing masses ``M_k`` (Eq. 8) and the estimator of Eqs. (9)-(11), with the
leave-one-out / pairwise reading of Eq. (10) computed independently.

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_finite, factorize
from .counts import _check_counts, _check_distribution, _check_feature_labels, estimated_probabilities


def gini_error_estimate(counts, positive_counts) -> np.ndarray:
    r"""The paper's estimator l_hat of the Gini hypothesis' generalization error, Eqs. (9)/(11).

    ``l_hat = |{v : c_v = 1}| / (2m) + sum_{v: c_v > 1} 2 c_v/(c_v - 1) p_hat_v q_hat_v (1 - q_hat_v)``,
    i.e. per value ``l_hat_v = p_hat_v / 2`` if ``c_v <= 1`` (zero when ``c_v = 0``) and
    ``2 c_v^+ (c_v - c_v^+) / (m (c_v - 1))`` if ``c_v >= 2``.

    With ``m = 1`` every sample gives 1/2 (degenerate but defined). Smaller = more relevant.

    See Also
    --------
    gini_error_estimate_leave_one_out : Eq. (10) as leave-one-out, example by example.
    gini_error_estimate_pairs : Eq. (10) as printed, by counting pairs.
    gini_index : The training error of h_Gini (Eq. 3), which the estimate corrects.

    Notes
    -----
    With :math:`\hat p_v = c_v / m` and :math:`\hat q_v = c_v^+ / c_v`, Eq. (11) of [1]_ reads

    .. math::

        \hat\ell = \frac{|\{v : c_v = 1\}|}{2m}
        + \sum_{v : c_v > 1} \frac{2 c_v}{c_v - 1} \hat p_v \hat q_v (1 - \hat q_v).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

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
    c, cp = _check_counts(counts, positive_counts)
    m = c.sum(axis=-1, keepdims=True)
    repeated = np.divide(2.0 * cp * (c - cp), c - 1, out=np.zeros(c.shape), where=c >= 2)
    per_value = np.where(c == 1, 0.5, repeated) / m
    return per_value.sum(axis=-1)


def _sum_over_values(x, y, term) -> float:
    """Eq. (10)'s sum over values, ``sum_v p_hat_v term(labels of v)``; values seen once give ``1/(2m)`` (Eq. 11).

    Values are grouped by hashing, not sorting (:func:`tgreedy_lib._validation.factorize`), so mixed
    or unorderable values work; a set is one value per content (read as a frozenset). Values of
    different types that are equal (``1``, ``1.0``, ``True``) or print alike (``1`` and ``"1"``,
    ``"a"`` and ``b"a"``) are refused with a ValueError naming both, never merged.
    """
    x, y = _check_feature_labels(x, y)
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
    """Eq. (10) read as leave-one-out cross-validation, computed example by example.

    For each value ``v`` seen at least twice and each example ``i`` with ``x_i = v``,
    the Gini hypothesis is "the label of example i"; it is validated on the other
    ``c_v - 1`` examples of ``v``. The average over ``i``, times ``p_hat_v``, is
    ``l_hat_v``; values seen once contribute ``1/(2m)`` (Eq. 11). This loops over
    examples on purpose: it is the independent check of the closed form, Eq. (9).

    Values of different types that are equal (``1``, ``1.0``, ``True``) or print alike (``1`` and
    ``"1"``, ``"a"`` and ``b"a"``) are refused with a ValueError naming both, never merged.

    See Also
    --------
    gini_error_estimate : Eqs. (9)/(11) in closed form.
    gini_error_estimate_pairs : Eq. (10) as printed, by counting pairs.
    gini_index : The training error of h_Gini (Eq. 3), which the estimate corrects.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib import categorical as cat
    >>> x = [0, 0, 0, 1, 2, 2]
    >>> y = [1, 1, 0, 1, 0, 0]
    >>> round(float(cat.gini_error_estimate_leave_one_out(x, y)), 4)
    0.4167
    >>> counts, positive = cat.count_table(x, y)
    >>> round(float(cat.gini_error_estimate(counts, positive)), 4)  # the closed form agrees
    0.4167
    """
    def held_out_error(labels):
        return float(np.mean([np.mean(np.delete(labels, i) != labels[i]) for i in range(labels.size)]))

    return _sum_over_values(x, y, held_out_error)


def gini_error_estimate_pairs(x, y) -> float:
    """Eq. (10) as printed: ``p_hat_v / (c_v (c_v - 1)) * #{ordered pairs i != j in S(v): y_i != y_j}``.

    Pairs are counted from an explicit ``c_v x c_v`` comparison matrix; values seen once
    contribute ``1/(2m)`` (Eq. 11).

    Values of different types that are equal (``1``, ``1.0``, ``True``) or print alike (``1`` and
    ``"1"``, ``"a"`` and ``b"a"``) are refused with a ValueError naming both, never merged.

    See Also
    --------
    gini_error_estimate : Eqs. (9)/(11) in closed form.
    gini_error_estimate_leave_one_out : Eq. (10) as leave-one-out, example by example.
    gini_index : The training error of h_Gini (Eq. 3), which the estimate corrects.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib import categorical as cat
    >>> x = [0, 0, 0, 1, 2, 2]
    >>> y = [1, 1, 0, 1, 0, 0]
    >>> round(float(cat.gini_error_estimate_pairs(x, y)), 4)
    0.4167
    """
    def differing_pair_share(labels):
        c = labels.size
        return np.count_nonzero(labels[:, None] != labels[None, :]) / (c * (c - 1))  # diagonal never differs

    return _sum_over_values(x, y, differing_pair_share)


# ----------------------------------------------------------------------------- hypotheses and errors


def gini_hypothesis(counts, positive_counts) -> np.ndarray:
    """Eq. (5): ``h_Gini(v) = q_hat_v`` (1/2 for values never seen).

    See Also
    --------
    bayes_hypothesis : Eq. (7), the rounded version.
    generalization_error : Eq. (4), the error of any hypothesis.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> cat.gini_hypothesis(counts, positive_counts).round(3)
    array([0.667, 1.   , 0.5  , 0.   ])
    """
    return estimated_probabilities(counts, positive_counts)[1]


def bayes_hypothesis(counts, positive_counts) -> np.ndarray:
    """Eq. (7): ``h_Bayes(v)`` = 1 if ``q_hat_v > 1/2``, 0 if ``< 1/2``, 1/2 on a tie (and if unseen).

    See Also
    --------
    gini_hypothesis : Eq. (5).
    misclassification_error : Its training error (Eq. 2).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> cat.bayes_hypothesis(counts, positive_counts)
    array([1. , 1. , 0.5, 0. ])
    """
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

    See Also
    --------
    gini_hypothesis, bayes_hypothesis : Hypotheses from a sample.
    bayes_optimal_error : The smallest generalization error.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> p = np.array([0.5, 0.5]); q = np.array([0.9, 0.2])
    >>> float(cat.generalization_error(np.array([1.0, 0.0]), p, q))  # (0.1 + 0.2) / 2
    0.15
    >>> float(cat.bayes_optimal_error(p, q))
    0.15
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
    """``l(h_Bayes_inf) = sum_v p_v min(q_v, 1 - q_v)``, the Bayes optimal error (Sec. 2).

    See Also
    --------
    generalization_error : Eq. (4), for any hypothesis.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib import categorical as cat
    >>> round(float(cat.bayes_optimal_error([0.5, 0.5], [0.9, 0.2])), 4)
    0.15
    """
    p, q = _check_distribution(p, q)
    return float(np.sum(p * np.minimum(q, 1.0 - q)))


def missing_mass(counts, p, k: int = 0) -> np.ndarray:
    """Eq. (8): ``M_k = sum_{v: c_v = k} p_v`` (``M_0`` is the missing mass).

    ``counts`` has |V| entries along its last axis (one row per sample).

    See Also
    --------
    tgreedy_lib.categorical.theory.expected_missing_mass : Its expectation over samples.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib import categorical as cat
    >>> p = [0.4, 0.3, 0.2, 0.1]
    >>> float(cat.missing_mass([3, 1, 0, 0], p)), float(cat.missing_mass([3, 1, 0, 0], p, k=1))  # M_0, M_1
    (0.30000000000000004, 0.3)
    """
    p, _ = _check_distribution(p)
    c = np.asarray(counts)
    if c.shape[-1:] != p.shape:
        raise ValueError(f"counts must have |V| = {p.size} entries along the last axis, got shape {c.shape}")
    return np.sum(np.where(c == int(k), p, 0.0), axis=-1)
