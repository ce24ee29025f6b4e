"""The explicit high-probability bounds in the proofs of Theorems 2 and 4, and Lemma 11 exactly.

Section 4 of Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization
Properties", JMLR 9 (2008). Theorem 2 (the estimator l_hat is close to l(h_Gini)) follows from
Lemma 3 (McDiarmid, with bounded differences 12/m) and Lemma 7; Theorem 4 (l(h_Bayes) is close
to its expectation) from Lemmas 8, 9, 12 and 13, which bound the four terms of Eq. (26), with
Lemma 11 under Lemma 12. The proofs' constants are written out so that they can be compared with
simulations: :func:`first_m_below` finds where a bound stops being vacuous,
:func:`estimator_bounded_difference` measures Lemma 3's constant by brute force, and Lemma 11's
deviation is computed exactly, where the printed bound fails.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.stats import binom

from ..validation import check_delta
from .counts import count_table
from .gini_estimator import gini_error_estimate


def lemma3_bound(m, delta):
    """Lemma 3: with probability >= 1 - delta, ``|l_hat - E[l_hat]| <= 12 sqrt(ln(2/delta) / (2m))``."""
    delta = check_delta(delta)
    return 12.0 * np.sqrt(np.log(2 / delta) / (2 * np.asarray(m, dtype=float)))


def lemma7_bound(m, delta):
    """Lemma 7: ``|l(h_Gini) - E l(h_Gini)| <= 1/m + 12 ln(4m/delta) sqrt(ln(4/delta)) / sqrt(2m)``."""
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 1 / m + 12.0 * np.log(4 * m / delta) * np.sqrt(np.log(4 / delta)) / np.sqrt(2 * m)


def theorem2_bound(m, delta):
    """The end of Theorem 2's proof: ``2/m + 12 ln(8m/delta) sqrt(ln(8/delta)) / sqrt(2m) + 12 sqrt(ln(4/delta)/(2m))``."""
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return (2 / m + 12.0 * np.log(8 * m / delta) * np.sqrt(np.log(8 / delta)) / np.sqrt(2 * m)
            + 12.0 * np.sqrt(np.log(4 / delta) / (2 * m)))


def lemma8_bound(m, delta):
    """Lemma 8 (A_1): ``12 ln(2m/delta) m^(-1/6) sqrt(ln(2/delta) / 2)``."""
    delta = check_delta(delta)
    m = np.asarray(m, dtype=float)
    return 12.0 * np.log(2 * m / delta) * m ** (-1 / 6) * np.sqrt(0.5 * np.log(2 / delta))


def lemma9_bound(m, delta):
    """Lemma 9 (A_2): ``sqrt(3 ln(2m/delta) ln(2/delta)) / m^(1/4)``."""
    delta = check_delta(delta)
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
    """Theorem 4's bound: Lemmas 8, 9, 12 and 13 (failing with delta, delta, 2 delta, delta) each at ``delta / 5``."""
    d = check_delta(delta) / 5
    return lemma8_bound(m, d) + lemma9_bound(m, d) + lemma12_bound(m) + lemma13_bound(m)


def lemma11_bound(k, delta, corrected: bool = False):
    """Lemma 11's bound ``sqrt(2 ln(1/delta) / (e k))`` as printed; ``corrected=True``: ``sqrt(2 ln(1/delta) / k)``,
    what the first case of the proof supports."""
    delta = np.asarray(delta, dtype=float)
    k = np.asarray(k, dtype=float)
    factor = 1.0 if corrected else 1 / math.e
    return np.sqrt(2 * np.log(1 / delta) * factor / k)


def _lemma11_outcomes(k, q):
    """``Pr[majority of Z is 1]`` and ``Pr[tie]`` for ``Z_1..Z_k ~ Bernoulli(q)``, q in [1/2, 1]."""
    if np.any(q < 0.5) or np.any(q > 1):
        raise ValueError("Lemma 11 assumes q in [1/2, 1]")
    return binom.sf(np.floor(k / 2), k, q), np.where(k % 2 == 0, binom.pmf(k // 2, k, q), 0.0)


def lemma11_exceedance(k, q, delta, corrected: bool = False) -> np.ndarray:
    """Exact ``Pr[|f(Z) - E f| > bound] - delta`` in Lemma 11 (positive: the lemma fails), broadcast.

    ``Z_1..Z_k`` i.i.d. Bernoulli(q), q >= 1/2; ``f`` is ``1 - q``, ``q`` or ``1/2`` as the majority is 1, 0 or tied.
    """
    k = np.asarray(k)
    q = np.asarray(q, dtype=float)
    alpha, gamma = _lemma11_outcomes(k, q)
    beta = 1.0 - alpha - gamma
    values = np.stack(np.broadcast_arrays(1 - q, q, np.full_like(q, 0.5)))
    probabilities = np.stack(np.broadcast_arrays(alpha, beta, gamma))
    mean = np.sum(values * probabilities, axis=0)
    bound = lemma11_bound(k, delta, corrected)
    exceed = np.sum(np.where(np.abs(values - mean) > bound * (1 + 1e-12), probabilities, 0.0), axis=0)
    return exceed - np.asarray(delta, dtype=float)


def lemma11_deviation_quantile(k, q, delta) -> np.ndarray:
    """The exact ``(1 - delta)``-quantile of ``|f(Z) - E f|`` (Lemma 11 says: at most :func:`lemma11_bound`)."""
    k, q, delta = np.broadcast_arrays(np.asarray(k), np.asarray(q, dtype=float), np.asarray(delta, dtype=float))
    alpha, gamma = _lemma11_outcomes(k, q)
    beta = np.clip(1.0 - alpha - gamma, 0.0, 1.0)
    values = np.stack([1 - q, q, np.full(q.shape, 0.5)])
    probabilities = np.stack([alpha, beta, gamma])
    deviations = np.abs(values - np.sum(values * probabilities, axis=0))
    order = np.argsort(-deviations, axis=0)
    sorted_deviations = np.take_along_axis(deviations, order, axis=0)
    tail = np.cumsum(np.take_along_axis(probabilities, order, axis=0), axis=0)  # Pr[dev >= sorted value]
    first = np.argmax(tail > delta * (1 + 1e-12), axis=0)
    return np.take_along_axis(sorted_deviations, first[None], axis=0)[0]


def first_m_below(function, level: float) -> int:
    """The first m on a logarithmic grid (1% steps, up to 1e18) with ``function(m) < level``; -1 if none."""
    grid = np.unique(np.round(np.geomspace(2, 1e18, 4000)).astype(np.int64))
    values = np.asarray(function(grid.astype(float)))
    below = np.flatnonzero(values < level)
    return int(grid[below[0]]) if below.size else -1


def estimator_bounded_difference(m: int, n_values: int) -> float:
    """``max |l_hat(S) - l_hat(S')|`` over every sample S of size m on ``n_values`` values and every S' that
    replaces one example (brute force over multisets; Lemma 3's McDiarmid constant is 12/m)."""
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
