"""Exact expectations and the explicit bounds of Theorems 1-4 (Sabato & Shalev-Shwartz 2008, sections 3-4).

Binomial sums (:data:`scipy.stats.binom`): E[l_hat] (Lemma 1, Eq. 14), E[l(h_Gini)] (Lemma 2),
E[l(h_Bayes)] and of any symmetric hypothesis (Theorem 3), E[M_k]; the explicit constants of the
proofs of Theorems 2 and 4 (Lemmas 3, 7-9, 11-13), so that they can be compared with simulations.

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import binom

from .._validation import check_delta, check_finite
from .counts import _check_counts, _check_distribution, _check_sample_size
from .counts import count_table
from .gini_estimator import bayes_hypothesis, gini_error_estimate


# ----------------------------------------------------------------------------- exact expectations

#: Up to this many (value, count) pairs the expectations sum one |V| x (m + 1) table of binomial
#: probabilities, as printed; past it they use the closed forms (Eq. 14, Lemma 2) or sum each value's
#: counts over the window where its binomial law has mass (memory O(sqrt m) a value, not O(|V| m)).
TABLE_ENTRIES = 10**6
#: :func:`count_probabilities` returns its |V| x (m + 1) table up to this many entries (400 MB) and refuses more.
LARGEST_TABLE = 5 * 10**7
#: Half-width of a value's window of counts, in standard deviations of Binomial(m, p_v): the mass left
#: outside is below 1e-300 (a Chernoff bound), nothing at double precision.
WINDOW_SDS = 40.0
#: Sums over windows of more (value, count) pairs than this are refused (one line saying so).
LARGEST_WINDOW_SUM = 5 * 10**7


def _count_windows(p: np.ndarray, m: int):
    """For each value v with p_v > 0: ``(v, k)``, the counts k where ``Pr[c_v = k]`` is not 0 at double precision."""
    sd = np.sqrt(m * p * (1 - p))
    low = np.maximum(0, np.floor(m * p - WINDOW_SDS * sd - 50)).astype(np.int64)
    high = np.minimum(m, np.ceil(m * p + WINDOW_SDS * sd + 50)).astype(np.int64)
    total = int(np.sum(np.where(p > 0, high - low + 1, 0)))
    if total > LARGEST_WINDOW_SUM:
        raise ValueError(f"the exact sum needs {total:.3g} binomial terms (|V| = {p.size}, m = {m}), more than "
                         f"{LARGEST_WINDOW_SUM:.0e}; use fewer values or a smaller m, or estimate by simulation")
    for v in np.flatnonzero(p > 0):
        yield int(v), np.arange(low[v], high[v] + 1)


def _expected_prediction(p: np.ndarray, q: np.ndarray, m: int, given_count) -> np.ndarray:
    """``E[h(v)] = sum_k Pr[c_v = k] given_count(q_v, k)`` for every value, one table or (large) value by value."""
    if p.size * (m + 1) <= TABLE_ENTRIES:
        k = np.arange(m + 1)[None, :]
        return np.sum(count_probabilities(p, m) * given_count(q[:, None], k), axis=-1)
    zero = np.zeros(1, dtype=np.int64)
    out = np.array([float(np.ravel(given_count(q[v], zero))[0]) for v in range(p.size)])  # p_v = 0: c_v = 0 surely
    for v, k in _count_windows(p, m):
        out[v] = float(np.sum(binom.pmf(k, m, p[v]) * given_count(q[v], k)))
    return out



def count_probabilities(p, m: int) -> np.ndarray:
    """``Pr[c_v = k]`` for every value and ``k = 0..m``: ``binom.pmf(k, m, p_v)``, shape (|V|, m+1).

    A table of more than :data:`LARGEST_TABLE` entries is refused with a ValueError (no MemoryError).

    See Also
    --------
    expected_missing_mass : E[M_k] from these probabilities.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> theory.count_probabilities([0.5, 0.5], 2)  # c_v ~ Binomial(2, 1/2)
    array([[0.25, 0.5 , 0.25],
           [0.25, 0.5 , 0.25]])
    """
    p, _ = _check_distribution(p)
    m = _check_sample_size(m)
    if p.size * (m + 1) > LARGEST_TABLE:
        raise ValueError(f"the table of Pr[c_v = k] would have |V| x (m + 1) = {p.size * (m + 1):.3g} entries, more "
                         f"than {LARGEST_TABLE:.0e}; ask for the counts you need with scipy.stats.binom.pmf(k, m, p)")
    return binom.pmf(np.arange(m + 1)[None, :], m, p[:, None])


def expected_missing_mass(p, m: int, k=0):
    """``E[M_k] = sum_v p_v Pr[c_v = k]`` (Eq. 8 and [8]); ``k`` may be an array.

    See Also
    --------
    tgreedy_lib.categorical.missing_mass : M_k of one sample (Eq. 8).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> theory.expected_missing_mass(p, 10, k=[0, 1]).round(4)
    array([0.0304, 0.0949])
    """
    p, _ = _check_distribution(p)
    m = _check_sample_size(m)
    k = np.asarray(k)
    return np.sum(p * binom.pmf(k[..., None], m, p), axis=-1)


def expected_gini_estimate(p, q, m: int) -> float:
    """``E[l_hat]`` as the binomial sum of Eq. (13): ``sum_v sum_k Pr[c_v = k] E[l_hat_v | c_v = k]``.

    ``E[l_hat_v | c_v = k]`` is 0 for ``k = 0``, ``1/(2m)`` for ``k = 1`` and
    ``(k/m) 2 q_v (1 - q_v)`` for ``k >= 2`` (Lemma 1). Past :data:`TABLE_ENTRIES` (value, count)
    pairs the sum is taken in its closed form, Eq. (14), in O(|V|) memory (m = 10^7 is as quick as m = 10).

    See Also
    --------
    expected_gini_estimate_eq14 : The same from the closed form Eq. (14).
    expected_gini_error : E[l(h_Gini)], Lemma 2.
    expected_bayes_error : E[l(h_Bayes)].
    expected_symmetric_error : Any symmetric hypothesis (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> round(float(theory.expected_gini_estimate(p, q, 10)), 4)
    0.2849
    >>> round(float(theory.expected_gini_estimate_eq14(p, q, 10)), 4)  # Eq. (14) agrees
    0.2849
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    if p.size * (m + 1) > TABLE_ENTRIES:  # the binomial sum in closed form (Lemma 1's proof): Eq. (14)
        return expected_gini_estimate_eq14(p, q, m)
    k = np.arange(m + 1)
    conditional = np.where(k >= 2, (k / m)[None, :] * (2 * q * (1 - q))[:, None], 0.0)
    conditional[:, 1:2] = 0.5 / m if m >= 1 else 0.0
    return float(np.sum(count_probabilities(p, m) * conditional))


def expected_gini_estimate_eq14(p, q, m: int) -> float:
    """``E[l_hat]`` from the closed form Eq. (14): ``sum_v (1/m)(1/2 - 2q_v(1-q_v)) Pr[c_v=1] + p_v 2q_v(1-q_v)``.

    See Also
    --------
    expected_gini_estimate : The binomial sum of Eq. (13).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> round(float(theory.expected_gini_estimate_eq14(p, q, 10)), 4)
    0.2849
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    gini = 2 * q * (1 - q)
    return float(np.sum((0.5 - gini) * binom.pmf(1, m, p) / m + p * gini))


def expected_gini_error(p, q, m: int) -> float:
    """``E[l(h_Gini)]`` (Lemma 2): ``sum_v p_v (1/2 - 2q_v(1-q_v)) Pr[c_v = 0] + p_v 2 q_v (1 - q_v)``.

    Computed as ``sum_v p_v (q_v + (1 - 2q_v) E[h_Gini(v)])`` with
    ``E[h_Gini(v)] = q_v + (1/2 - q_v) Pr[c_v = 0]`` (Eqs. 15-16).

    See Also
    --------
    expected_gini_estimate : E[l_hat], Eq. (13).
    gini_estimate_bias : E[l_hat] - E[l(h_Gini)].
    expected_bayes_error : E[l(h_Bayes)].
    expected_symmetric_error : Any symmetric hypothesis (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> round(float(theory.expected_gini_error(p, q, 10)), 4)
    0.283
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    expected_h = q + (0.5 - q) * binom.pmf(0, m, p)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def gini_estimate_bias(p, q, m: int) -> float:
    """``E[l_hat] - E[l(h_Gini)] = sum_v (1/2 - 2q_v(1-q_v)) p_v^2 (1-p_v)^(m-1)`` (proof of Thm. 1).

    Always in ``[0, 1/(2m)]``.

    See Also
    --------
    expected_gini_estimate, expected_gini_error : The two expectations.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> bias = float(theory.gini_estimate_bias(p, q, 10))
    >>> round(bias, 6), 0 <= bias <= 1 / 20  # within [0, 1/(2m)]
    (0.001874, True)
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

    See Also
    --------
    bayes_rule_table, gini_rule_table, smoothed_rule_table : Rule tables.
    expected_symmetric_error : The expected error of a rule table (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.categorical import theory
    >>> theory.symmetric_rule_table(lambda k, i: np.where(k > 0, i / np.maximum(k, 1), 0.5), 2)
    array([[0.5, 0. , 0. ],
           [0. , 1. , 0. ],
           [0. , 0.5, 1. ]])
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
    """h_Bayes (Eq. 7) as a rule table: 1 if ``i > k/2``, 0 if ``i < k/2``, 1/2 on a tie.

    See Also
    --------
    gini_rule_table, smoothed_rule_table : Rule tables.
    expected_symmetric_error : The expected error of a rule table (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> theory.bayes_rule_table(2)
    array([[0.5, 0. , 0. ],
           [0. , 1. , 0. ],
           [0. , 0.5, 1. ]])
    """
    return symmetric_rule_table(lambda k, i: np.sign(2 * i - k) * 0.5 + 0.5, m)


def gini_rule_table(m: int) -> np.ndarray:
    """h_Gini (Eq. 5) as a rule table: ``i / k`` (1/2 for ``k = 0``).

    See Also
    --------
    bayes_rule_table, smoothed_rule_table : Rule tables.
    expected_symmetric_error : The expected error of a rule table (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> theory.gini_rule_table(2)
    array([[0.5, 0. , 0. ],
           [0. , 1. , 0. ],
           [0. , 0.5, 1. ]])
    """
    return symmetric_rule_table(lambda k, i: np.where(k > 0, i / np.maximum(k, 1), 0.5), m)


def smoothed_rule_table(m: int, pseudo_count: float = 1.0) -> np.ndarray:
    """A Laplace-smoothed Gini rule ``(i + a) / (k + 2a)``, symmetric for every ``a >= 0``.

    See Also
    --------
    bayes_rule_table, gini_rule_table : Rule tables.
    expected_symmetric_error : The expected error of a rule table (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> theory.smoothed_rule_table(2).round(3)
    array([[0.5  , 0.   , 0.   ],
           [0.333, 0.667, 0.   ],
           [0.25 , 0.5  , 0.75 ]])
    """
    a = float(pseudo_count)
    if not a >= 0:
        raise ValueError(f"pseudo_count must be non-negative, got {pseudo_count}")
    return symmetric_rule_table(lambda k, i: np.where(k + 2 * a > 0, (i + a) / np.maximum(k + 2 * a, 1e-300), 0.5), m)


def expected_symmetric_error(p, q, m: int, table) -> float:
    """``E[l(h)]`` for a symmetric hypothesis ``h(v) = f(c_v, c_v^+)`` given as a rule table (Thm. 3).

    ``E[h(v)] = sum_k Pr[c_v = k] sum_i binom.pmf(i, k, q_v) f(k, i)`` and
    ``E[l(h)] = sum_v p_v (q_v + (1 - 2 q_v) E[h(v)])`` (proof of Thm. 3).

    See Also
    --------
    expected_gini_estimate : E[l_hat], Eq. (13).
    expected_gini_error : E[l(h_Gini)], Lemma 2.
    expected_bayes_error : E[l(h_Bayes)].
    bayes_rule_table, gini_rule_table : Rule tables.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> round(float(theory.expected_symmetric_error(p, q, 10, theory.gini_rule_table(10))), 4)  # h_Gini
    0.283
    >>> round(float(theory.expected_symmetric_error(p, q, 10, theory.bayes_rule_table(10))), 4)  # h_Bayes: smaller
    0.2467
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    if np.shape(table) != (m + 1, m + 1):
        raise ValueError(f"the rule table must have shape (m+1, m+1) = {(m + 1, m + 1)}, got {np.shape(table)}")
    _check_symmetric_table(table)
    k = np.arange(m + 1)
    table = np.asarray(table)
    if p.size * (m + 1) ** 2 <= TABLE_ENTRIES:
        label_pmf = binom.pmf(k[None, None, :], k[None, :, None], q[:, None, None])  # (V, k, i)
        expected_given_count = np.sum(label_pmf * table[None, :, :], axis=-1)  # (V, k)
        expected_h = np.sum(count_probabilities(p, m) * expected_given_count, axis=-1)
    else:  # value by value, over the counts its law reaches: memory of the table itself, not |V| of them

        def given_count(q_v, counts):
            counts = np.atleast_1d(counts)
            pmf = binom.pmf(k[None, :], counts[:, None], q_v)  # (counts, i)
            return np.sum(pmf * table[counts], axis=-1)

        expected_h = _expected_prediction(p, q, m, given_count)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def _bayes_prediction_given_count(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``E[h_Bayes(v) | c_v = k] = Pr[Bin(k, q) > k/2] + Pr[Bin(k, q) = k/2] / 2``."""
    above = binom.sf(np.floor(k / 2), k, q)
    tie = np.where(k % 2 == 0, binom.pmf(k // 2, k, q), 0.0)
    return above + 0.5 * tie


def expected_bayes_error(p, q, m: int) -> float:
    """``E[l(h_Bayes)]`` exactly, by binomial sums over ``c_v`` and ``c_v^+`` (Eq. 7, Thm. 3).

    The paper gives no closed form for it. Up to :data:`TABLE_ENTRIES` (value, count) pairs one
    table is summed; past it each value's counts are summed over the window where
    ``Binomial(m, p_v)`` has mass (:data:`WINDOW_SDS` standard deviations: memory O(sqrt m), time
    O(|V| sqrt m)); sums of more than :data:`LARGEST_WINDOW_SUM` terms are refused in one line.

    See Also
    --------
    expected_gini_estimate : E[l_hat], Eq. (13).
    expected_gini_error : E[l(h_Gini)], Lemma 2.
    bayes_bias_bound : Theorem 3's bound on its bias.
    expected_symmetric_error : Any symmetric hypothesis (Theorem 3).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> round(float(theory.expected_bayes_error(p, q, 10)), 4)
    0.2467
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    expected_h = _expected_prediction(p, q, m, _bayes_prediction_given_count)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def _expected_missing_masses(p, m: int) -> np.ndarray:
    """``E[M_k]`` for every ``k = 0..m``: one table when small, else value by value over its window (O(m) memory)."""
    p, _ = _check_distribution(p)
    if p.size * (m + 1) <= TABLE_ENTRIES:
        return expected_missing_mass(p, m, np.arange(m + 1))
    out = np.zeros(m + 1)
    for v, k in _count_windows(p, m):
        out[k] += p[v] * binom.pmf(k, m, p[v])
    return out


def bayes_regret_per_count(q, k) -> np.ndarray:
    """``t_k(q) = |2q - 1| (Pr[h_Bayes wrong | c_v = k] + Pr[tie | c_v = k] / 2)``.

    The excess error of h_Bayes at one value, per unit of ``p_v``, given ``c_v = k``
    (proof of Thm. 3); ``t_0(q) = |2q - 1| / 2``. Broadcasts over ``q`` and ``k``.

    See Also
    --------
    bayes_bias_bound : Theorem 3's bound, built from per-count terms.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> theory.bayes_regret_per_count(0.7, [1, 2, 3]).round(4)
    array([0.12  , 0.12  , 0.0864])
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

    See Also
    --------
    expected_bayes_error : The exact expectation the bound is compared with.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> from tgreedy_lib.categorical import bayes_optimal_error
    >>> bias = float(theory.expected_bayes_error(p, q, 10)) - float(bayes_optimal_error(p, q))
    >>> round(bias, 4), round(float(theory.bayes_bias_bound(p, 10)), 4)  # the bias and its bound
    (0.0267, 0.255)
    """
    m = _check_sample_size(m)
    if first_sqrt_index < 1:
        raise ValueError("first_sqrt_index must be at least 1")
    expected_masses = _expected_missing_masses(p, m)
    k = np.arange(m + 1)
    coefficients = np.zeros(m + 1)
    coefficients[0] = 0.5
    coefficients[1:3] = 1 / 8
    sqrt_terms = k >= first_sqrt_index
    coefficients[sqrt_terms] += 1 / np.sqrt(math.e * k[sqrt_terms])
    return float(np.sum(coefficients * expected_masses))


# ----------------------------------------------------------------------------- explicit constants


def lemma3_bound(m, delta):
    """Lemma 3: w.p. >= 1 - delta, ``|l_hat - E[l_hat]| <= 12 sqrt(ln(2/delta) / (2m))``.

    See Also
    --------
    lemma7_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma9_bound, lemma12_bound, lemma13_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma3_bound(1000, 0.05)), 4)
    0.5154
    """
    delta = check_delta(delta)
    return 12.0 * np.sqrt(np.log(2 / delta) / (2 * np.asarray(m, dtype=float)))


def lemma7_bound(m, delta):
    """Lemma 7: ``|l(h_Gini) - E l(h_Gini)| <= 1/m + 12 ln(4m/delta) sqrt(ln(4/delta)) / sqrt(2m)``.

    See Also
    --------
    lemma3_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma9_bound, lemma12_bound, lemma13_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma7_bound(1000, 0.05)), 4)
    6.3425
    """
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 1 / m + 12.0 * np.log(4 * m / delta) * np.sqrt(np.log(4 / delta)) / np.sqrt(2 * m)


def theorem2_bound(m, delta):
    """The explicit bound at the end of the proof of Thm. 2.

    ``2/m + 12 ln(8m/delta) sqrt(ln(8/delta)) / sqrt(2m) + 12 sqrt(ln(4/delta) / (2m))``.

    See Also
    --------
    lemma3_bound, lemma7_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma9_bound, lemma12_bound, lemma13_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> [round(float(theory.theorem2_bound(m, 0.05)), 3) for m in (10**3, 10**6)]  # vacuous until m is large
    [7.807, 0.379]
    """
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return (2 / m + 12.0 * np.log(8 * m / delta) * np.sqrt(np.log(8 / delta)) / np.sqrt(2 * m)
            + 12.0 * np.sqrt(np.log(4 / delta) / (2 * m)))


def lemma8_bound(m, delta):
    """Lemma 8 (A_1): ``12 ln(2m/delta) m^(-1/6) sqrt(ln(2/delta) / 2)``.

    See Also
    --------
    lemma3_bound, lemma7_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma9_bound, lemma12_bound, lemma13_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma8_bound(10**6, 0.05)), 4)
    28.5273
    """
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 12.0 * np.log(2 * m / delta) * m ** (-1 / 6) * np.sqrt(0.5 * np.log(2 / delta))


def lemma9_bound(m, delta):
    """Lemma 9 (A_2): ``sqrt(3 ln(2m/delta) ln(2/delta)) / m^(1/4)``.

    See Also
    --------
    lemma3_bound, lemma7_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma12_bound, lemma13_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma9_bound(10**6, 0.05)), 4)
    0.4401
    """
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return np.sqrt(3 * np.log(2 * m / delta) * np.log(2 / delta)) / m ** 0.25


def lemma12_bound(m):
    """Lemma 12 (A_3, with probability 1 - 2 delta, m >= 4): ``m^(-1/4)``.

    See Also
    --------
    lemma3_bound, lemma7_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma9_bound, lemma13_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> float(theory.lemma12_bound(10**4))
    0.1
    """
    return np.asarray(m, dtype=float) ** -0.25


def lemma13_bound(m):
    """Lemma 13 (A_4, m >= 8): ``1/m + m^(-1/6)``.

    See Also
    --------
    lemma3_bound, lemma7_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma9_bound, lemma12_bound, theorem4_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma13_bound(10**6)), 4)
    0.1
    """
    m = np.asarray(m, dtype=float)
    return 1 / m + m ** (-1 / 6)


def theorem4_bound(m, delta):
    """Thm. 4's bound assembled from Lemmas 8, 9, 12, 13 with a union bound.

    The four lemmas fail with probabilities delta, delta, 2 delta and delta (Lemma 13
    through Lemma 4), so each is taken at ``delta/5`` for an overall ``1 - delta``.

    See Also
    --------
    lemma3_bound, lemma7_bound, theorem2_bound : The concentration bounds of Theorem 2's proof.
    lemma8_bound, lemma9_bound, lemma12_bound, lemma13_bound : Those of Theorem 4.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> [round(float(theory.theorem4_bound(m, 0.05)), 3) for m in (10**3, 10**9)]  # above 1 at both
    [78.362, 16.224]
    """
    delta = check_delta(delta)
    d = delta / 5
    return lemma8_bound(m, d) + lemma9_bound(m, d) + lemma12_bound(m) + lemma13_bound(m)


def lemma11_bound(k, delta, corrected: bool = False):
    """Lemma 11's deviation bound: ``sqrt(2 ln(1/delta) / (e k))`` as printed.

    ``corrected=True`` gives ``sqrt(2 ln(1/delta) / k)``, what the proof's first case
    (``2q - 1 <= sqrt(2 ln(1/delta)/k)``) actually supports.

    See Also
    --------
    lemma11_exceedance : Whether the bound holds, exactly.
    lemma11_deviation_quantile : The exact quantile the bound claims to exceed.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma11_bound(10, 0.05)), 4), round(float(theory.lemma11_bound(10, 0.05, corrected=True)), 4)
    (0.4695, 0.774)
    """
    delta = np.asarray(delta, dtype=float)
    k = np.asarray(k, dtype=float)
    factor = 1.0 if corrected else 1 / math.e
    return np.sqrt(2 * np.log(1 / delta) * factor / k)


def lemma11_exceedance(k, q, delta, corrected: bool = False) -> np.ndarray:
    """Exact ``Pr[|f(Z) - E f| > bound] - delta`` in Lemma 11 (positive = the lemma fails).

    ``Z_1..Z_k`` i.i.d. Bernoulli(q), q >= 1/2; ``f`` is ``1-q``, ``q`` or ``1/2`` as the
    majority of Z is 1, 0 or tied. Broadcasts over ``k``, ``q`` and ``delta``.

    See Also
    --------
    lemma11_bound : The bound.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma11_exceedance(10, 0.6, 0.05)), 4)  # <= 0: the lemma holds at k = 10, q = 0.6
    -0.05
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

    See Also
    --------
    lemma11_bound : The bound this quantile is compared with.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical import theory
    >>> round(float(theory.lemma11_deviation_quantile(10, 0.6, 0.05)), 4)
    0.1467
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

    See Also
    --------
    lemma8_bound, lemma9_bound, lemma12_bound, lemma13_bound : The bounds on the four terms.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.categorical import sample_counts
    >>> from tgreedy_lib.categorical import theory
    >>> p, q = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]   # Pr[X = v] and Pr[Y = 1 | X = v]
    >>> counts, positive = sample_counts(p, q, m=100, size=3, rng=np.random.default_rng(0))
    >>> terms = theory.bayes_error_decomposition(counts, positive, p, q, 0.05)
    >>> sorted(terms)
    ['A1', 'A2', 'A3', 'A4', 'deviation', 'n_values_in_part']
    """
    p, q = _check_distribution(p, q)
    c, cp = _check_counts(counts, positive_counts)
    delta = check_delta(delta)
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


# ----------------------------------------------------------------------------- numerical searches (checks, notebook 02)


def first_m_below(function, level: float) -> int:
    """The first m on a fine logarithmic grid (1% steps, up to 1e18) with ``function(m) < level``; -1 if none.

    Examples
    --------
    >>> from tgreedy_lib.categorical.theory import first_m_below
    >>> first_m_below(lambda m: 10 / m, 0.5)  # 10/m < 1/2 from m = 21 on
    21
    """
    grid = np.unique(np.round(np.geomspace(2, 1e18, 4000)).astype(np.int64))
    values = np.asarray(function(grid.astype(float)))
    below = np.flatnonzero(values < level)
    return int(grid[below[0]]) if below.size else -1


def per_count_regret_maximum(k_values, grid_points: int = 2001) -> tuple[np.ndarray, np.ndarray]:
    """``max_q t_k(q)`` and its maximizer for each ``k`` (grid, then bounded Brent refinement).

    ``t_k`` is :func:`tgreedy_lib.categorical.bayes_regret_per_count`. Theorem 3's bound holds
    for every distribution exactly when ``max_q t_k(q)`` is at most the bound's coefficient of
    ``E[M_k]``, because both sides are ``sum_v p_v sum_k Pr[c_v = k] (.)``.

    See Also
    --------
    bayes_regret_per_count : The function maximized.
    bias_bound_coefficients : The coefficients it is compared with.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical.theory import per_count_regret_maximum
    >>> values, maximizers = per_count_regret_maximum([0, 1, 2, 3])
    >>> values.round(4)
    array([0.5  , 0.125, 0.125, 0.087])
    """
    k_values = np.asarray(k_values)
    grid = np.linspace(0.5, 1.0, grid_points)
    values = bayes_regret_per_count(grid[None, :], k_values[:, None])
    best = np.argmax(values, axis=1)
    maxima = values[np.arange(k_values.size), best]
    arguments = grid[best]
    step = grid[1] - grid[0]
    for index, k in enumerate(k_values):
        low, high = max(0.5, arguments[index] - step), min(1.0, arguments[index] + step)
        result = minimize_scalar(lambda q: -float(bayes_regret_per_count(q, k)), bounds=(low, high),
                                 method="bounded", options={"xatol": 1e-12})
        if -result.fun > maxima[index]:
            maxima[index], arguments[index] = -result.fun, result.x
    return maxima, arguments


def bias_bound_coefficients(k_values, first_sqrt_index=3):
    """Thm. 3's coefficient b_k of E[M_k]: 1/2, 1/8, 1/8, then 1/sqrt(e k) from ``first_sqrt_index`` on.

    See Also
    --------
    per_count_regret_maximum : What the coefficients bound.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical.theory import bias_bound_coefficients
    >>> bias_bound_coefficients([0, 1, 2, 3, 4]).round(4)
    array([0.5   , 0.125 , 0.125 , 0.3502, 0.3033])
    """
    k_values = np.asarray(k_values, dtype=float)
    coefficients = np.where(k_values == 0, 0.5, np.where(k_values <= 2, 1 / 8, 0.0))
    with np.errstate(divide="ignore"):
        coefficients = coefficients + np.where(k_values >= first_sqrt_index, 1 / np.sqrt(math.e * k_values), 0.0)
    return coefficients


def random_symmetric_table(m, rng):
    """A random symmetric rule table: f(k, i) ~ U(0, 1) for i < k/2, f(k, k-i) = 1 - f(k, i), ties 1/2.

    See Also
    --------
    symmetric_rule_table : Rule tables.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.categorical.theory import random_symmetric_table
    >>> table = random_symmetric_table(4, np.random.default_rng(0))
    >>> table.shape, float(table[2, 1])  # a tie (i = k/2) predicts 1/2
    ((5, 5), 0.5)
    """
    table = bayes_rule_table(m).copy()
    for k in range(1, m + 1):
        for i in range(0, (k + 1) // 2):
            if 2 * i < k:
                value = rng.uniform()
                table[k, i], table[k, k - i] = value, 1 - value
    return table


def estimator_bounded_difference(m: int, n_values: int) -> float:
    """``max |l_hat(S) - l_hat(S')|`` over every sample S of size m on ``n_values`` values and every S'
    that replaces one example of S (brute force; McDiarmid's constant in Lemma 3 is 12/m).

    Samples are enumerated as multisets (the estimator ignores order); keep ``m`` and
    ``n_values`` small (m = 6 on three values is 462 samples x 36 replacements).

    See Also
    --------
    lemma3_bound : The bound McDiarmid's inequality gives from it.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib.categorical.theory import estimator_bounded_difference
    >>> estimator_bounded_difference(4, 2)
    0.625
    """
    import itertools

    examples = [(v, label) for v in range(int(n_values)) for label in (0, 1)]
    largest = 0.0
    for sample in itertools.combinations_with_replacement(range(len(examples)), int(m)):
        x = np.array([examples[j][0] for j in sample])
        y = np.array([examples[j][1] for j in sample])
        counts, positives = count_table(x, y, n_values)
        base = float(gini_error_estimate(counts, positives))
        for i in range(int(m)):
            for value, label in examples:
                moved_counts, moved_positives = counts.copy(), positives.copy()
                moved_counts[x[i]] -= 1
                moved_positives[x[i]] -= y[i]
                moved_counts[value] += 1
                moved_positives[value] += label
                largest = max(largest, abs(float(gini_error_estimate(moved_counts, moved_positives)) - base))
    return largest
