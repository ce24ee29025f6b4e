"""T-statistic bounds of the paper: Theorem 1 (many features, few domains) and Corollary 3.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 3.1-3.2 and the appendix.

*Theorem 1* (as printed). If ``E[XY|d] - E[XY]`` is symmetric and
``|F| <= (delta/2) e^(n/8)``, then with probability greater than ``1 - delta``,
for all ``X_i`` in ``F``::

    |mu_hat_i - E[X_i Y]| <= sigma_hat_i / sqrt(n) * sqrt(4 log(2|F|/delta)).

The proof uses ``Ttilde^2 = (n/(n-1)) T^2 / (1 + T^2/(n-1))`` (which equals
``n T^2 / (n - 1 + T^2)``), Theorem 2 *with the factor 2 its proof gives*, and a
union bound. Its intermediate inequality ``Pr[T^2 >= c^2] <= 2 exp(-n c^2 / (2(n-1+c^2)))``
holds for every ``c``; it tends to ``2 exp(-n/2)`` as ``c -> inf``, so no width, however large,
makes a per-feature error smaller than that, which is why Theorem 1 limits ``|F|``.

*Corollary 3* (as printed). If ``q p^q <= (delta/2) e^(n/8)``, then for all subsets
``S`` of size ``q`` of ``p`` features, in an orthonormal basis of ``S``::

    L(mu_hat_S) - L(mu_S) <= (sum_i [sigma_hat_S]_i^2) (8 q log p + log(2/delta)) / n.

(The printed corollary omits "with probability at least ``1 - delta``".) The proof
applies Theorem 1 to all ``q p^q`` basis elements, which supports the factor
``4 log(2 q p^q / delta) <= 8 q log p + 4 log(2/delta)``: the ``log(2/delta)`` term
needs the factor 4 that the printed statement drops.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

from ...validation import check_delta, check_domain_count, check_whole_number
from ..statistics import t_statistic
from .self_normalized import self_normalized_ratio
from .simulate import domain_effects, symmetric_noise

__all__ = ["t_statistic", "tilde_t_squared", "tilde_from_t_printed", "tilde_from_t", "max_features",
           "min_domains", "paper_factor", "coverage_curves", "first_features_below", "bonferroni_t_factor",
           "normal_factor", "proof_factor", "failure_probability_exact", "failure_probability_monte_carlo",
           "coverage_monte_carlo", "coverage_independent", "width_table", "corollary_printed_factor",
           "corollary_proof_factor", "corollary_proof_factor_simplified", "corollary_failure_curves",
           "corollary_min_domains", "subset_regret_simulation"]


def tilde_t_squared(deviations, axis: int = 0) -> np.ndarray:
    """``Ttilde^2 = (sum Z_k)^2 / sum Z_k^2`` for the centred effects ``Z_k`` (proof of Theorem 1)."""
    return self_normalized_ratio(deviations, axis=axis)


def tilde_from_t_printed(t, n: int) -> np.ndarray:
    """The appendix identity as printed: ``Ttilde^2 = (n/(n-1)) T^2 / (1 + T^2/(n-1))``."""
    n = check_domain_count(n)
    t2 = np.asarray(t, dtype=float) ** 2
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(t2), float(n), n / (n - 1) * t2 / (1.0 + t2 / (n - 1)))


def tilde_from_t(t, n: int) -> np.ndarray:
    """The same identity simplified: ``Ttilde^2 = n T^2 / (n - 1 + T^2)`` (``= n`` when ``|T| = inf``)."""
    n = check_domain_count(n)
    t2 = np.asarray(t, dtype=float) ** 2
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(t2), float(n), n * t2 / (n - 1 + t2))


def max_features(n, delta) -> np.ndarray:
    """The largest ``|F|`` Theorem 1 admits: ``(delta/2) e^(n/8)`` (a real number; floor it for a count)."""
    delta = check_delta(delta)
    return delta / 2.0 * np.exp(np.asarray(n, dtype=float) / 8.0)


def min_domains(n_features, delta) -> int:
    """The fewest domains for which Theorem 1 admits ``n_features``: ``ceil(8 log(2|F|/delta))``."""
    delta = check_delta(delta)
    n_features = check_whole_number(n_features, "n_features")
    return int(math.ceil(8.0 * math.log(2.0 * n_features / delta) - 1e-12))


def paper_factor(n_features, delta) -> np.ndarray:
    """Theorem 1's width in units of ``sigma_hat/sqrt(n)``: ``sqrt(4 log(2|F|/delta))``."""
    delta = check_delta(delta)
    f = np.asarray(n_features, dtype=float)
    if np.any(f < 1):
        raise ValueError("n_features must be at least 1")
    return np.sqrt(4.0 * np.log(2.0 * f / delta))


def bonferroni_t_factor(n: int, n_features, delta) -> np.ndarray:
    """The exact two-sided Bonferroni width for Gaussian effects: ``t_{n-1}`` quantile at ``1 - delta/(2|F|)``."""
    n = check_domain_count(n)
    delta = check_delta(delta)
    return stats.t.isf(delta / (2.0 * np.asarray(n_features, dtype=float)), n - 1)


def normal_factor(n_features, delta) -> np.ndarray:
    """The large-``n`` Bonferroni width: the normal quantile at ``1 - delta/(2|F|)``, about ``sqrt(2 log(2|F|/delta))``."""
    delta = check_delta(delta)
    return stats.norm.isf(delta / (2.0 * np.asarray(n_features, dtype=float)))


def proof_factor(n: int, n_features, delta) -> np.ndarray:
    """The width the proof supports for any ``|F|``: ``c^2 = (n-1) L / (n - L)``, ``L = 2 log(2|F|/delta)`` (or inf)."""
    n = check_domain_count(n)
    delta = check_delta(delta)
    big_l = 2.0 * np.log(2.0 * np.asarray(n_features, dtype=float) / delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        c2 = np.where(big_l < n, (n - 1) * big_l / (n - big_l), np.inf)
    return np.sqrt(c2)


def failure_probability_exact(distribution: str, n: int, c) -> np.ndarray:
    """Exact ``Pr[|T| > c]`` for one feature with i.i.d. ``"gaussian"`` (Student t, n - 1 d.f.) or
    ``"rademacher"`` centred effects (``T^2 = (n-1) Ttilde^2 / (n - Ttilde^2)``, infinite when all signs agree).
    """
    n = check_domain_count(n)
    c = np.asarray(c, dtype=float)
    if distribution == "gaussian":
        return 2.0 * stats.t.sf(c, n - 1)
    if distribution == "rademacher":
        heads = np.arange(n + 1)
        r = (2.0 * heads - n) ** 2 / n
        with np.errstate(divide="ignore"):
            t_abs = np.sqrt(np.where(r < n, (n - 1) * r / np.maximum(n - r, 1e-300), np.inf))
        t_abs = np.where(np.isclose(r, n), np.inf, t_abs)
        pmf = stats.binom.pmf(heads, n, 0.5)
        return np.sum(pmf * (t_abs > c[..., None] * (1 + 1e-12)), axis=-1)
    raise ValueError(f"exact failure probabilities exist for 'gaussian' and 'rademacher', not {distribution!r}")


def failure_probability_monte_carlo(rng: np.random.Generator, distribution: str, n: int, c,
                                    n_trials: int = 20000, df: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo ``Pr[|T| > c]`` for one feature (any law of :mod:`.simulate`), with its standard error."""
    n = check_domain_count(n)
    n_trials = check_whole_number(n_trials, "n_trials", 2)
    z = symmetric_noise(rng, distribution, (n, n_trials), df=df)
    t_abs = np.sort(np.abs(t_statistic(z)))
    c = np.asarray(c, dtype=float)
    p = 1.0 - np.searchsorted(t_abs, c, side="right") / n_trials
    return p, np.sqrt(p * (1 - p) / n_trials)


def coverage_independent(p_fail, n_features) -> np.ndarray:
    """Probability that all ``|F|`` independent features are covered: ``(1 - p)^|F|``."""
    return np.exp(np.asarray(n_features, dtype=float) * np.log1p(-np.minimum(np.asarray(p_fail, float), 1.0)))


def coverage_curves(n: int, delta: float, n_features, rng: np.random.Generator | None = None,
                    monte_carlo_laws=("cauchy",), n_trials: int = 20000, level: float = 0.95) -> dict:
    """Probability that Theorem 1's width covers all ``|F|`` independent features: exact for Gaussian and
    Rademacher effects; from ``n_trials`` draws for ``monte_carlo_laws``, with a Clopper-Pearson ``level`` lower bound."""
    from scipy.stats import beta as beta_law
    f = np.asarray(n_features, dtype=float)
    c = paper_factor(f, delta)
    out = {"n": int(n), "delta": float(delta), "n_features": f, "max_features": float(max_features(n, delta)),
           "exact": {}, "monte_carlo": {}}
    for law in ("gaussian", "rademacher"):
        out["exact"][law] = coverage_independent(failure_probability_exact(law, n, c), f)
    if monte_carlo_laws and rng is None:
        raise ValueError("rng is needed for the Monte Carlo curves; pass rng=np.random.default_rng(seed)")
    for law in monte_carlo_laws:
        p, _ = failure_probability_monte_carlo(rng, law, n, c, n_trials)
        failures = np.rint(p * n_trials)
        upper = np.where(failures >= n_trials, 1.0, beta_law.ppf(level, failures + 1, np.maximum(n_trials - failures, 1)))
        out["monte_carlo"][law] = {"estimate": coverage_independent(p, f), "lower": coverage_independent(upper, f),
                                   "failures": failures.astype(int), "n_trials": int(n_trials), "level": level}
    return out


def first_features_below(n: int, delta: float, target: float, law: str = "gaussian", largest: int = 10**6) -> int:
    """Smallest ``|F|`` at which the exact coverage of ``|F|`` independent features by Theorem 1's width
    falls below ``target`` (bisection)."""
    def coverage(f):
        return float(coverage_independent(failure_probability_exact(law, n, paper_factor(f, delta)), f))
    if coverage(1) < target:
        return 1
    if coverage(largest) >= target:
        raise ValueError(f"coverage stays >= {target} up to |F| = {largest}; raise largest")
    lo, hi = 1, largest
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if coverage(mid) >= target else (lo, mid)
    return hi


def coverage_monte_carlo(rng: np.random.Generator, distribution: str, n: int, n_features: int, delta: float,
                         n_trials: int = 2000, factor=None, mean=None, scale=1.0, df: float = 3.0,
                         chunk: int = 2_000_000) -> tuple[float, float]:
    """Share (and s.e.) of simulated training sets of ``n`` domains where every one of ``|F|`` features has
    ``|mu_hat_i - E[X_i Y]| <= sigma_hat_i/sqrt(n) * factor`` (default :func:`paper_factor`)."""
    n = check_domain_count(n)
    n_features = check_whole_number(n_features, "n_features")
    n_trials = check_whole_number(n_trials, "n_trials")
    delta = check_delta(delta)
    c = paper_factor(n_features, delta) if factor is None else float(factor)
    mean = np.zeros(n_features) if mean is None else np.broadcast_to(np.asarray(mean, float), (n_features,))
    per_chunk = max(1, chunk // (n * n_features))
    covered = 0
    done = 0
    while done < n_trials:
        m = min(per_chunk, n_trials - done)
        effects = domain_effects(rng, np.tile(mean, m), n, distribution, np.tile(np.broadcast_to(scale, (n_features,)), m), df)
        t_abs = np.abs(t_statistic(effects, center=np.tile(mean, m))).reshape(m, n_features)
        covered += int(np.sum(np.all(t_abs <= c, axis=1)))
        done += m
    cov = covered / n_trials
    return cov, math.sqrt(cov * (1 - cov) / n_trials)


def width_table(n_values, n_features_values, delta: float) -> dict[str, np.ndarray]:
    """Widths (units of ``sigma_hat/sqrt(n)``) of the paper's bound, the proof's, the Bonferroni t and normal ones."""
    n_values = np.asarray(n_values)
    f = np.asarray(n_features_values, dtype=float)
    return {
        "n": n_values,
        "n_features": f,
        "delta": delta,
        "paper": paper_factor(f, delta),
        "normal": normal_factor(f, delta),
        "bonferroni_t": np.array([bonferroni_t_factor(int(n), f, delta) for n in n_values]),
        "proof": np.array([proof_factor(int(n), f, delta) for n in n_values]),
    }


# --- Corollary 3 -----------------------------------------------------------------------------

def _check_pq(p, q) -> tuple[int, int]:
    p = check_whole_number(p, "p (the number of features)")
    q = check_whole_number(q, "q (the subset size)")
    if q > p:
        raise ValueError(f"the subset size q = {q} exceeds the number of features p = {p}")
    return p, q


def corollary_printed_factor(p: int, q: int, delta: float) -> float:
    """Corollary 3 as printed: ``8 q log p + log(2/delta)`` (multiplies ``sum sigma_hat^2 / n``)."""
    p, q = _check_pq(p, q)
    return 8.0 * q * math.log(p) + math.log(2.0 / check_delta(delta))


def corollary_proof_factor(p: int, q: int, delta: float) -> float:
    """What the proof (Theorem 1 on ``q p^q`` basis elements) supports: ``4 log(2 q p^q / delta)``."""
    p, q = _check_pq(p, q)
    return 4.0 * (math.log(2.0 / check_delta(delta)) + math.log(q) + q * math.log(p))


def corollary_proof_factor_simplified(p: int, q: int, delta: float) -> float:
    """The proof's factor with ``log(q p^q) <= 2 q log p``: ``8 q log p + 4 log(2/delta)``."""
    p, q = _check_pq(p, q)
    return 8.0 * q * math.log(p) + 4.0 * math.log(2.0 / check_delta(delta))


def corollary_failure_curves(deltas, p_values=(1, 2, 3), law: str = "gaussian") -> dict:
    """Exact ``Pr[some subset's regret exceeds its bound]`` for ``q = 1`` (Corollary 3) at the fewest
    admissible domains, with the printed factor and the proof's: ``{"delta", "law", "printed", "proof"}``."""
    deltas = np.asarray(deltas, dtype=float)
    out = {"delta": deltas, "law": law, "printed": {}, "proof": {}}
    for p in p_values:
        printed, proof = [], []
        for d in deltas:
            n = corollary_min_domains(p, 1, d)
            for store, factor in ((printed, corollary_printed_factor), (proof, corollary_proof_factor)):
                pf = failure_probability_exact(law, n, math.sqrt(factor(p, 1, d)))
                store.append(1 - coverage_independent(pf, p))
        out["printed"][p], out["proof"][p] = np.array(printed), np.array(proof)
    return out


def corollary_min_domains(p: int, q: int, delta: float) -> int:
    """The fewest domains meeting Corollary 3's condition ``q p^q <= (delta/2) e^(n/8)``."""
    return int(math.ceil(2.0 * corollary_proof_factor(p, q, delta) - 1e-12))


def subset_regret_simulation(rng: np.random.Generator, distribution: str, n: int, p: int, q: int, delta: float,
                             n_trials: int = 2000, covariance=None, mean=None, mixing=None,
                             df: float = 3.0) -> dict[str, np.ndarray]:
    """Corollary 3 simulated: each size-``q`` subset's regret ``||mu_hat_S - mu_S||^2`` (in the basis ``L^-1 X_S``,
    ``L`` the Cholesky factor of ``covariance[S, S]``) against the printed and proved bounds, with
    ``E[XY|d] = mean + mixing @ xi_d``, ``xi_d`` i.i.d. symmetric."""
    n = check_domain_count(n)
    p, q = _check_pq(p, q)
    delta = check_delta(delta)
    n_trials = check_whole_number(n_trials, "n_trials")
    covariance = np.eye(p) if covariance is None else np.asarray(covariance, dtype=float)
    mean = np.zeros(p) if mean is None else np.asarray(mean, dtype=float)
    mixing = np.eye(p) if mixing is None else np.asarray(mixing, dtype=float)
    if covariance.shape != (p, p) or mean.shape != (p,) or mixing.shape[0] != p:
        raise ValueError("covariance must be (p, p), mean (p,), mixing (p, k)")
    subsets = list(itertools.combinations(range(p), q))
    xi = symmetric_noise(rng, distribution, (n_trials, n, mixing.shape[1]), df=df)
    effects = mean + xi @ mixing.T  # (trials, n, p): E[XY | d_k]
    regret = np.empty((n_trials, len(subsets)))
    spread = np.empty((n_trials, len(subsets)))
    for j, s in enumerate(subsets):
        idx = list(s)
        chol = np.linalg.cholesky(covariance[np.ix_(idx, idx)])
        basis_effects = np.linalg.solve(chol, effects[:, :, idx].reshape(-1, q).T).T.reshape(n_trials, n, q)
        mu_s = np.linalg.solve(chol, mean[idx])
        mu_hat = basis_effects.mean(axis=1)
        regret[:, j] = np.sum((mu_hat - mu_s) ** 2, axis=1)
        spread[:, j] = np.sum(basis_effects.var(axis=1, ddof=1), axis=1)
    out = {"subsets": np.array(subsets), "regret": regret, "variance_over_n": spread / n}
    for name, factor in (("printed", corollary_printed_factor), ("proof", corollary_proof_factor)):
        out[f"factor_{name}"] = factor(p, q, delta)
        out[f"bound_{name}"] = bound = spread * out[f"factor_{name}"] / n
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"worst_ratio_{name}"] = np.where(regret > 0, regret / bound, 0.0).max(axis=1)
    return out
