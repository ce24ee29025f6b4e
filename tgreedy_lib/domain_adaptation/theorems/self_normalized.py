"""Tail probabilities of self-normalized sums: the paper's Theorem 2, checked exactly.

Theorem 2 of Foster, Kakade & Salakhutdinov (AISTATS 2012) states, for independent
symmetric ``Z_1..Z_n`` and every ``t > 0``::

    Pr[ (sum Z_i)^2 / sum Z_i^2 > t ] <= exp(-t/2)          (as printed)

The appendix proof symmetrizes (``Z_i = eps_i |Z_i|``) and applies two-sided Hoeffding for every
fixed ``|z|``, which gives ``2 exp(-t/2)``. This module enumerates the ``2^n`` sign patterns given
``|z|`` (the conditional tail, exactly), has closed forms for Rademacher (a binomial) and Gaussian
``Z`` (a Beta law) and Monte Carlo for the rest. The ratio is 0 when every ``Z_i`` is 0.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ...validation import check_whole_number
from .simulate import symmetric_noise

__all__ = ["MAX_ENUMERATION_N", "self_normalized_ratio", "sign_patterns", "sign_pattern_distribution",
           "exact_tail_given_magnitudes", "rademacher_tail", "rademacher_atoms", "dominant_magnitude_atoms",
           "gaussian_tail", "monte_carlo_tail", "printed_bound", "proof_bound",
           "one_sided_tail_given_magnitudes", "worst_excess_discrete", "tail_curves", "theorem2_excess",
           "worst_case_tail_lower_bound"]

#: Largest ``n`` for which :func:`sign_patterns` enumerates (2^(n-1) patterns).
MAX_ENUMERATION_N = 22


def _check_t(t) -> np.ndarray:
    t = np.asarray(t, dtype=float)
    if np.any(~np.isfinite(t)) or np.any(t <= 0):
        raise ValueError("t must be positive and finite (Theorem 2 is stated for t > 0)")
    return t


def printed_bound(t):
    """Theorem 2's bound as printed: ``exp(-t/2)`` (t > 0)."""
    return np.exp(-_check_t(t) / 2.0)


def proof_bound(t):
    """The bound the appendix proof establishes (two-sided Hoeffding): ``2 exp(-t/2)``."""
    return 2.0 * np.exp(-_check_t(t) / 2.0)


def self_normalized_ratio(z, axis: int = -1) -> np.ndarray:
    """``(sum_i z_i)^2 / sum_i z_i^2`` along ``axis`` (Theorem 2), in ``[0, n]``; 0 where all ``z_i`` are 0."""
    z = np.asarray(z, dtype=float)
    numerator = np.sum(z, axis=axis) ** 2
    denominator = np.sum(z**2, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0)
    return ratio


def sign_patterns(n: int) -> np.ndarray:
    """The ``2^(n-1)`` sign vectors with first sign +1 (the ratio ignores a global flip), shape (2^(n-1), n)."""
    n = check_whole_number(n, "n", 1)
    if n > MAX_ENUMERATION_N:
        raise ValueError(f"n = {n} is too large to enumerate 2^(n-1) sign patterns (at most {MAX_ENUMERATION_N})")
    codes = np.arange(2 ** (n - 1), dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n - 1, dtype=np.int64)) & 1
    signs = np.ones((codes.shape[0], n))
    signs[:, 1:] = 1 - 2 * bits
    return signs


def sign_pattern_distribution(magnitudes) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of the ratio given ``|Z_i| = magnitudes[i]``: the sorted ratios over all sign patterns and
    their probabilities (all ``2^-(n-1)``)."""
    m = np.abs(np.asarray(magnitudes, dtype=float))
    if m.ndim != 1 or m.size < 1:
        raise ValueError(f"magnitudes must be a non-empty one-dimensional array, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ValueError("magnitudes must be finite")
    signs = sign_patterns(m.size)
    values = np.sort(self_normalized_ratio(signs * m))
    return values, np.full(values.size, 1.0 / values.size)


def exact_tail_given_magnitudes(magnitudes, t) -> np.ndarray:
    """``Pr_eps[(sum eps_i z_i)^2 / sum z_i^2 > t]`` given ``|z| = magnitudes`` (n at most
    :data:`MAX_ENUMERATION_N`), exactly by enumerating the sign patterns: what the appendix proof of
    Theorem 2 bounds "for every realization of ``Z_i``".
    """
    t = _check_t(t)
    values, _ = sign_pattern_distribution(magnitudes)
    return 1.0 - np.searchsorted(values, t, side="right") / values.size


def one_sided_tail_given_magnitudes(magnitudes, t) -> np.ndarray:
    """``Pr_eps[sum eps_i z_i > sqrt(t sum z_i^2)]`` exactly (de la Pena, Lai & Shao 2009, Thm 2.15: ``<= exp(-t/2)``)."""
    t = _check_t(t)
    m = np.abs(np.asarray(magnitudes, dtype=float))
    signs = sign_patterns(m.size)
    sums = np.concatenate([signs @ m, -(signs @ m)])
    scaled = np.sort(sums / np.sqrt(max(np.sum(m**2), np.finfo(float).tiny)))
    return 1.0 - np.searchsorted(scaled, np.sqrt(t), side="right") / scaled.size


def rademacher_atoms(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact law (atoms, probabilities) of the ratio for Rademacher ``Z_i``: ``(2B - n)^2 / n``, ``B ~ Bin(n, 1/2)``."""
    n = check_whole_number(n, "n", 1)
    heads = np.arange(n + 1)
    ratio = (2.0 * heads - n) ** 2 / n
    pmf = stats.binom.pmf(heads, n, 0.5)
    values, inverse = np.unique(ratio, return_inverse=True)
    probs = np.bincount(inverse, weights=pmf)
    return values, probs


def dominant_magnitude_atoms(n: int, epsilon: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of the ratio for ``Z_1 = +-1`` and ``Z_2..Z_n = +-epsilon`` (independent, symmetric, bounded).

    With ``B ~ Bin(n - 1, 1/2)`` the ratio is ``(1 + epsilon (2B - n + 1))^2 / (1 + (n - 1) epsilon^2)``,
    close to 1: ``Pr[ratio > t] = 1`` for ``t`` a little below 1, for every ``n``.
    """
    n = check_whole_number(n, "n", 1)
    if not (np.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be finite and non-negative, got {epsilon!r}")
    heads = np.arange(n)
    values = (1.0 + epsilon * (2.0 * heads - (n - 1))) ** 2 / (1.0 + (n - 1) * epsilon**2)
    probs = stats.binom.pmf(heads, n - 1, 0.5)
    order = np.argsort(values)
    return values[order], probs[order]


def rademacher_tail(n: int, t) -> np.ndarray:
    """``Pr[(sum Z_i)^2 / sum Z_i^2 > t]`` for ``n`` i.i.d. Rademacher ``Z_i``, exactly (any ``n``)."""
    t = _check_t(t)
    values, probs = rademacher_atoms(n)
    return np.sum(probs * (values > t[..., None]), axis=-1)


def gaussian_tail(n: int, t) -> np.ndarray:
    """``Pr[(sum Z_i)^2 / sum Z_i^2 > t]`` for ``n`` i.i.d. Gaussian ``Z_i``, exactly: the ratio over n is
    ``Beta(1/2, (n-1)/2)`` (identically 1 for ``n = 1``).
    """
    n = check_whole_number(n, "n", 1)
    t = _check_t(t)
    if n == 1:
        return (t < 1.0).astype(float)
    return stats.beta.sf(np.minimum(t / n, 1.0), 0.5, (n - 1) / 2.0)


def monte_carlo_tail(rng: np.random.Generator, distribution: str, n: int, t, n_trials: int = 20000,
                     df: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo tail of the ratio for ``n`` i.i.d. ``Z_i`` of a symmetric law of :mod:`.simulate`
    (``df`` for Student t) from ``n_trials`` draws: ``(estimate, standard_error)``, shaped as ``t``.
    """
    n = check_whole_number(n, "n", 1)
    t = _check_t(t)
    check_whole_number(n_trials, "n_trials", 2)
    z = symmetric_noise(rng, distribution, (int(n_trials), n), df=df)
    ratio = np.sort(self_normalized_ratio(z))
    estimate = 1.0 - np.searchsorted(ratio, t, side="right") / ratio.size
    return estimate, np.sqrt(estimate * (1.0 - estimate) / ratio.size)


def worst_excess_discrete(values, probs, bound=printed_bound) -> tuple[float, float, float]:
    """Largest ``Pr[R > t] - bound(t)`` over ``t > 0`` for a discrete ratio ``R``: ``(excess, atom, Pr[R >= atom])``.

    The step ``Pr[R > t]`` minus a decreasing ``bound`` peaks as ``t`` rises to an atom ``a``:
    the supremum is ``Pr[R >= a] - bound(a)``, approached, not attained.
    """
    values = np.asarray(values, dtype=float)
    probs = np.asarray(probs, dtype=float)
    order = np.argsort(values)
    values, probs = values[order], probs[order]
    at_or_above = np.cumsum(probs[::-1])[::-1]  # Pr[R >= values[j]]
    positive = values > 0
    if not np.any(positive):
        return -np.inf, np.nan, 0.0
    excess = at_or_above[positive] - bound(values[positive])
    j = int(np.argmax(excess))
    return float(excess[j]), float(values[positive][j]), float(at_or_above[positive][j])


def tail_curves(n: int, t=None, distributions=("rademacher", "gaussian", "cauchy"), rng=None,
                n_trials: int = 20000) -> dict[str, np.ndarray]:
    """Tail curves ``Pr[ratio > t]`` (Theorem 2), exact where a closed form exists, else Monte Carlo.

    ``t`` defaults to 400 points from 0.02 to ``max(6, min(n, 12))``. Returns ``{"n", "t", "printed",
    "proof"}`` and one curve per distribution.
    """
    t = np.linspace(0.02, max(6.0, min(float(n), 12.0)), 400) if t is None else t
    t = _check_t(t)
    curves = {"n": n, "t": t, "printed": printed_bound(t), "proof": proof_bound(t)}
    for name in distributions:
        if name == "rademacher":
            curves[name] = rademacher_tail(n, t)
        elif name == "gaussian":
            curves[name] = gaussian_tail(n, t)
        else:
            if rng is None:
                raise ValueError(f"a Generator is needed for the Monte Carlo curve of {name!r}")
            curves[name] = monte_carlo_tail(rng, name, n, t, n_trials)[0]
    return curves


def theorem2_excess(n_values=range(1, 51), t=None) -> dict[str, np.ndarray]:
    """``worst_case_tail_lower_bound(n, t) - exp(-t/2)`` (positive: Theorem 2 as printed fails) on a grid.

    ``t`` defaults to 300 points from 0.05 to 50, geometric. Returns ``{"n", "t", "excess"}``.
    """
    t = np.geomspace(0.05, 50, 300) if t is None else np.asarray(t, float)
    n_values = np.asarray(list(n_values))
    excess = np.array([worst_case_tail_lower_bound(int(n), t) - printed_bound(t) for n in n_values])
    return {"n": n_values, "t": t, "excess": excess}


def worst_case_tail_lower_bound(n: int, t) -> np.ndarray:
    """A lower bound on ``sup Pr[ratio > t]`` over independent symmetric ``Z_1..Z_n``: ``max_k rademacher_tail(k, t)``.

    ``k`` Rademacher ``Z_i`` and the others 0 is a symmetric law; ``k = 1`` gives 1 for every ``t < 1``.
    """
    n = check_whole_number(n, "n", 1)
    t = _check_t(t)
    return np.max([rademacher_tail(k, t) for k in range(1, n + 1)], axis=0)
