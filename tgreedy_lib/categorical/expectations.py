"""Exact expectations over training sets, and Theorem 3: the majority vote is the best symmetric rule.

Sections 3-4 of Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization
Properties", JMLR 9 (2008). ``c_v`` is Binomial(m, p_v) and ``c_v^+`` given it Binomial(c_v, q_v),
so every expectation is a binomial sum: E[l_hat] (Lemma 1, Eqs. 13-14), E[l(h_Gini)] (Lemma 2),
their difference (Theorem 1), E[M_k], E[l(h)] for a symmetric rule table ``f(k, i)`` and
E[l(h_Bayes)] (Theorem 3), Theorem 3's bias bound, and the four terms of Eq. (26) (Theorem 4).

Up to :data:`TABLE_ENTRIES` (value, count) pairs a sum is one |V| x (m + 1) table; past it the
closed form is used, or each value's counts are summed over the window where its law has mass.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import binom

from ..validation import check_delta, check_finite
from .counts import check_counts, check_distribution, check_sample_size
from .gini_estimator import bayes_hypothesis

#: Largest |V| x (m + 1) table of binomial probabilities an expectation sums in one piece.
TABLE_ENTRIES = 10**6
#: :func:`count_probabilities` returns its table up to this many entries (400 MB) and refuses more.
LARGEST_TABLE = 5 * 10**7
#: Half-width of a value's window of counts, in standard deviations: the mass outside is below 1e-300.
WINDOW_SDS = 40.0
#: Sums over windows of more (value, count) pairs than this are refused.
LARGEST_WINDOW_SUM = 5 * 10**7


def _pmf_table(p: np.ndarray, m: int) -> np.ndarray:
    if p.size * (m + 1) > LARGEST_TABLE:
        raise ValueError(f"the table of Pr[c_v = k] would have |V| x (m + 1) = {p.size * (m + 1):.3g} entries, more "
                         f"than {LARGEST_TABLE:.0e}; ask for the counts you need with scipy.stats.binom.pmf(k, m, p)")
    return binom.pmf(np.arange(m + 1)[None, :], m, p[:, None])


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
        return np.sum(_pmf_table(p, m) * given_count(q[:, None], k), axis=-1)
    zero = np.zeros(1, dtype=np.int64)
    out = np.array([float(np.ravel(given_count(q[v], zero))[0]) for v in range(p.size)])  # p_v = 0: c_v = 0 surely
    for v, k in _count_windows(p, m):
        out[v] = float(np.sum(binom.pmf(k, m, p[v]) * given_count(q[v], k)))
    return out


def count_probabilities(p, m: int) -> np.ndarray:
    """``Pr[c_v = k]`` for every value and ``k = 0..m``, shape (|V|, m + 1) (at most :data:`LARGEST_TABLE` entries)."""
    p, _ = check_distribution(p)
    return _pmf_table(p, check_sample_size(m))


def _missing_masses(p: np.ndarray, m: int, k) -> np.ndarray:
    k = np.asarray(k)
    return np.sum(p * binom.pmf(k[..., None], m, p), axis=-1)


def expected_missing_mass(p, m: int, k=0):
    """``E[M_k] = sum_v p_v Pr[c_v = k]`` (Eq. 8); ``k`` may be an array."""
    p, _ = check_distribution(p)
    return _missing_masses(p, check_sample_size(m), k)


def expected_gini_estimate(p, q, m: int) -> float:
    """``E[l_hat]`` as the binomial sum of Eq. (13) (Lemma 1); past :data:`TABLE_ENTRIES` pairs, Eq. (14)."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    if p.size * (m + 1) > TABLE_ENTRIES:
        return expected_gini_estimate_eq14(p, q, m)
    k = np.arange(m + 1)
    conditional = np.where(k >= 2, (k / m)[None, :] * (2 * q * (1 - q))[:, None], 0.0)
    conditional[:, 1:2] = 0.5 / m
    return float(np.sum(_pmf_table(p, m) * conditional))


def expected_gini_estimate_eq14(p, q, m: int) -> float:
    """``E[l_hat]`` from the closed form Eq. (14): ``sum_v (1/m)(1/2 - 2q_v(1-q_v)) Pr[c_v=1] + p_v 2q_v(1-q_v)``."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    gini = 2 * q * (1 - q)
    return float(np.sum((0.5 - gini) * binom.pmf(1, m, p) / m + p * gini))


def expected_gini_error(p, q, m: int) -> float:
    """``E[l(h_Gini)]`` (Lemma 2), as Eq. (15) with Eq. (16)."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    expected_h = q + (0.5 - q) * binom.pmf(0, m, p)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def gini_estimate_bias(p, q, m: int) -> float:
    """``E[l_hat] - E[l(h_Gini)] = sum_v (1/2 - 2q_v(1-q_v)) p_v^2 (1-p_v)^(m-1)``, in ``[0, 1/(2m)]`` (Theorem 1)."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    return float(np.sum((0.5 - 2 * q * (1 - q)) * p * binom.pmf(1, m, p) / m))


def symmetric_rule_table(rule: Callable[[np.ndarray, np.ndarray], np.ndarray], m: int) -> np.ndarray:
    """Tabulate a symmetric rule ``f(k, i)`` (Theorem 3's H_S: Pr[predict 1] for a value seen ``k`` times,
    ``i`` of them labelled 1) for ``0 <= i <= k <= m``; ``rule`` takes broadcast arrays ``k``, ``i``."""
    m = check_sample_size(m)
    k = np.arange(m + 1)[:, None]
    i = np.arange(m + 1)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.asarray(rule(k, np.minimum(i, k)), dtype=np.float64) * np.ones((m + 1, m + 1))
    table = np.where(i <= k, table, 0.0)
    _check_symmetric_table(table)
    return table


def _check_symmetric_table(table) -> None:
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


def random_symmetric_table(m, rng):
    """A random symmetric rule table: ``f(k, i) ~ U(0, 1)`` for ``i < k/2``, ``f(k, k-i) = 1 - f(k, i)``, ties 1/2."""
    table = bayes_rule_table(m).copy()
    for k in range(1, m + 1):
        for i in range(0, (k + 1) // 2):
            value = rng.uniform()
            table[k, i], table[k, k - i] = value, 1 - value
    return table


def expected_symmetric_error(p, q, m: int, table) -> float:
    """``E[l(h)]`` for the symmetric hypothesis ``h(v) = f(c_v, c_v^+)`` of a rule table (Theorem 3)."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    if np.shape(table) != (m + 1, m + 1):
        raise ValueError(f"the rule table must have shape (m+1, m+1) = {(m + 1, m + 1)}, got {np.shape(table)}")
    _check_symmetric_table(table)
    k = np.arange(m + 1)
    table = np.asarray(table)
    if p.size * (m + 1) ** 2 <= TABLE_ENTRIES:
        label_pmf = binom.pmf(k[None, None, :], k[None, :, None], q[:, None, None])  # (V, k, i)
        expected_given_count = np.sum(label_pmf * table[None, :, :], axis=-1)  # (V, k)
        expected_h = np.sum(_pmf_table(p, m) * expected_given_count, axis=-1)
    else:
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
    """``E[l(h_Bayes)]`` exactly, by binomial sums over ``c_v`` and ``c_v^+`` (Theorem 3)."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    expected_h = _expected_prediction(p, q, m, _bayes_prediction_given_count)
    return float(np.sum(p * (q + (1 - 2 * q) * expected_h)))


def bayes_regret_per_count(q, k) -> np.ndarray:
    """``t_k(q) = |2q - 1| (Pr[h_Bayes wrong | c_v = k] + Pr[tie | c_v = k] / 2)``: h_Bayes' excess error
    per unit of ``p_v`` given ``c_v = k`` (proof of Theorem 3)."""
    q = np.asarray(q, dtype=np.float64)
    majority = np.maximum(q, 1 - q)
    return (2 * majority - 1) * (1.0 - _bayes_prediction_given_count(majority, np.asarray(k)))


def per_count_regret_maximum(k_values, grid_points: int = 2001) -> tuple[np.ndarray, np.ndarray]:
    """``max_q t_k(q)`` and its maximizer for each ``k`` (a grid, then bounded Brent): Theorem 3 holds for every
    distribution exactly when it is at most :func:`bias_bound_coefficients`."""
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
    """Theorem 3's coefficients of E[M_k]: 1/2, 1/8, 1/8 for k = 0, 1, 2, plus 1/sqrt(e k) from ``first_sqrt_index``."""
    k_values = np.asarray(k_values, dtype=float)
    coefficients = np.where(k_values == 0, 0.5, np.where(k_values <= 2, 1 / 8, 0.0))
    with np.errstate(divide="ignore"):
        coefficients = coefficients + np.where(k_values >= first_sqrt_index, 1 / np.sqrt(math.e * k_values), 0.0)
    return coefficients


def bayes_bias_bound(p, m: int, first_sqrt_index: int = 3) -> float:
    """Theorem 3's bound on ``E[l(h_Bayes)] - l(h_Bayes_inf)``, ``sum_k b_k E[M_k]`` (``first_sqrt_index=1``:
    the last display of its proof)."""
    m = check_sample_size(m)
    if first_sqrt_index < 1:
        raise ValueError("first_sqrt_index must be at least 1")
    p, _ = check_distribution(p)
    if p.size * (m + 1) <= TABLE_ENTRIES:
        expected_masses = _missing_masses(p, m, np.arange(m + 1))
    else:
        expected_masses = np.zeros(m + 1)
        for v, k in _count_windows(p, m):
            expected_masses[k] += p[v] * binom.pmf(k, m, p[v])
    return float(np.sum(bias_bound_coefficients(np.arange(m + 1), first_sqrt_index) * expected_masses))


def bayes_error_decomposition(counts, positive_counts, p, q, delta: float) -> dict[str, np.ndarray]:
    """The four terms A_1..A_4 of Eq. (26) in the proof of Theorem 4, exactly, for each sample (row of counts).

    ``V_1, V_2, V_3`` split the values by ``p_v`` at ``6 ln(2m/delta) m^(-2/3)`` and
    ``6 ln(2m/delta) m^(-1/2)``; with ``l_i(S)`` the part of ``l(h_Bayes_S)`` on ``V_i``:
    ``A1 = |l_1(S) - E[l_1]|`` (Lemma 8), ``A2 = |l_2(S) - E[l_2 | counts]|`` (Lemma 9),
    ``A3 = |l_3(S) - E[l_3 | counts]|`` (Lemma 12) and
    ``A4 = |E[l_2 + l_3 | counts] - E[l_2 + l_3]|`` (Lemma 13). Also returns
    ``deviation = |l(h_Bayes_S) - E l(h_Bayes_S)|`` (at most their sum) and ``n_values_in_part``.
    """
    p, q = check_distribution(p, q)
    c, cp = check_counts(counts, positive_counts)
    delta = check_delta(delta)
    if c.shape[-1] != p.size:
        raise ValueError(f"counts must have |V| = {p.size} entries along the last axis, got shape {c.shape}")
    m_values = np.unique(c.sum(axis=-1))
    if m_values.size != 1:
        raise ValueError("all samples must have the same size m")
    m = int(m_values[0])
    level = 6 * math.log(2 * m / delta)
    part = np.where(p <= level * m ** (-2 / 3), 1, np.where(p <= level * m ** -0.5, 2, 3))
    h = bayes_hypothesis(c, cp)
    per_value_error = p * (q * (1 - h) + (1 - q) * h)
    conditional = p * (q + (1 - 2 * q) * _bayes_prediction_given_count(q, c))
    k = np.arange(m + 1)[None, :]
    expected_h = np.sum(_pmf_table(p, m) * _bayes_prediction_given_count(q[:, None], k), axis=-1)
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
