"""What a researcher would try instead of T-greedy, on the same per-domain moments (beyond the paper).

The paper compares T-greedy only with greedy (section 4). These baselines run on the same
:class:`~.statistics.DomainStatistics` (so on population moments, samples or the pair moments of
section 4.2 alike) and each returns a :class:`BaselinePath`: a sequence of weight vectors
(``coef``, one row per point of the path) and the point chosen by leave-one-domain-out
cross-validation on the held-out domains' squared loss (:func:`lodo_choice`).

``omp``
    Orthogonal matching pursuit on the pooled moments (greedy's classical stepwise form):
    scikit-learn's :func:`sklearn.linear_model.orthogonal_mp_gram`; point k = k features.
``lasso``
    The lasso path on the pooled moments, scikit-learn's LARS-lasso
    :func:`sklearn.linear_model.lars_path_gram`; point k = k LARS steps. The penalty is chosen
    by leave-one-domain-out CV over a grid of penalties (as ``LassoCV(cv=LeaveOneGroupOut())``
    does on samples of equal-sized domains).
``vrex``
    Variance-penalized regression across domains in the spirit of V-REx (Krueger et al. 2021):
    minimize ``mean_k L_k(w) + beta Var_k L_k(w) + ridge ||w||^2`` with the per-domain squared
    losses ``L_k``; all features, one point per beta, beta chosen by leave-one-domain-out CV.
``icp``
    An invariance filter in the spirit of ICP (Peters, Buehlmann & Meinshausen 2016): keep the
    features whose per-domain univariate slopes a chi-square homogeneity test cannot tell apart
    (p-value >= alpha), ranked by the significance of their pooled slope; marginal weights.
``t_filter``
    The univariate T filter: rank the features once by |T| of ``E[X_i Y | d_k]`` (no residuals)
    and give each its marginal weight ``mu_i / E[X_i^2]`` (T-greedy's first-step weight).

References
----------
Krueger, D. et al. (2021). Out-of-distribution generalization via risk extrapolation (REx). ICML.
Peters, J., Buehlmann, P. & Meinshausen, N. (2016). Causal inference by using invariant
prediction: identification and confidence intervals. JRSS B 78(5).
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
from scipy import optimize
from scipy import stats as scipy_stats

from .selection import t_statistics
from .statistics import DomainStatistics

__all__ = [
    "BASELINES",
    "BaselinePath",
    "pooled_moments",
    "domain_losses",
    "lodo_choice",
    "omp_path",
    "lasso_path",
    "vrex_objective",
    "vrex_fit",
    "vrex_path",
    "icp_pvalues",
    "icp_path",
    "t_filter_path",
    "run_baseline",
]

#: Ridge of V-REx (and the lasso's numerical guard), relative to the mean diagonal of the pooled E[XX'].
RIDGE = 1e-3
#: Penalties beta of V-REx tried by leave-one-domain-out CV, in units of 1 / (mean E[Y^2]).
VREX_BETAS = (0.0, 1.0, 10.0)


@dataclasses.dataclass(frozen=True)
class BaselinePath:
    """Weights along a baseline's path and the point leave-one-domain-out CV chose.

    Attributes
    ----------
    name : str
    coef : ndarray (n_points, n_features)
    n_selected : ndarray of int (n_points,)
        Nonzero weights at each point.
    parameter : ndarray (n_points,)
        The path's parameter at each point (k, the penalty, beta ...).
    chosen : int
        Index of the point chosen by :func:`lodo_choice` (or -1 when not chosen).
    info : dict
    """

    name: str
    coef: np.ndarray
    n_selected: np.ndarray
    parameter: np.ndarray
    chosen: int
    info: dict

    @property
    def chosen_coef(self) -> np.ndarray:
        return self.coef[self.chosen]


def _check_stats(stats) -> DomainStatistics:
    if not isinstance(stats, DomainStatistics):
        raise TypeError(f"expected DomainStatistics, got {type(stats).__name__}")
    return stats


def pooled_moments(stats: DomainStatistics) -> tuple[np.ndarray, np.ndarray, float]:
    """``(mean_k E[XX'|d_k], mean_k E[XY|d_k], mean_k E[Y^2|d_k])``: every domain weighs the same (section 2)."""
    _check_stats(stats)
    return stats.xx.mean(axis=0), stats.xy.mean(axis=0), float(stats.yy.mean())


def domain_losses(stats: DomainStatistics, coef) -> np.ndarray:
    """Squared loss of each row of ``coef`` (m, p) on each domain, shape (m, n_domains), from the moments."""
    W = np.atleast_2d(np.asarray(coef, dtype=np.float64))
    quad = np.einsum("kpm,mp->mk", stats.xx @ W.T, W)  # w' E[XX'|d_k] w, one matrix product per domain
    return stats.yy[None, :] - 2.0 * W @ stats.xy.T + quad


def lodo_choice(stats: DomainStatistics, fit: Callable[[DomainStatistics], np.ndarray]) -> tuple[int, np.ndarray]:
    """Leave one domain out: the point of ``fit``'s path with the least mean held-out squared loss.

    ``fit(stats) -> W`` (n_points, p) must return the same number of points for every subset
    (a fixed grid). Returns the chosen index and the mean held-out loss of every point.
    """
    _check_stats(stats)
    if stats.n_domains < 3:
        raise ValueError(f"leave-one-domain-out needs at least 3 domains, got {stats.n_domains}")
    labels = stats.domain_labels.tolist()
    losses = []
    for k, label in enumerate(labels):
        W = fit(stats.subset([lab for lab in labels if lab != label]))
        losses.append(domain_losses(stats, W)[:, k])
    mean = np.mean(losses, axis=0)
    return int(np.argmin(mean)), mean


def _pad(W: np.ndarray, n_points: int) -> np.ndarray:
    """Rows 0..n_points-1; a path that ended early repeats its last row."""
    out = np.empty((n_points, W.shape[1]))
    m = min(len(W), n_points)
    out[:m] = W[:m]
    out[m:] = W[m - 1] if m else 0.0
    return out


# --------------------------------------------------------------------------- OMP

def _omp_coefs(stats: DomainStatistics, n_steps: int) -> np.ndarray:
    from sklearn.linear_model import orthogonal_mp_gram

    G, q, _ = pooled_moments(stats)
    coefs = orthogonal_mp_gram(G, q, n_nonzero_coefs=n_steps, return_path=True)
    coefs = np.asarray(coefs)
    if coefs.ndim == 1:
        coefs = coefs[:, None]
    return _pad(coefs.T, n_steps)


def omp_path(stats: DomainStatistics, n_steps: int = 10, *, choose: bool = True) -> BaselinePath:
    """Orthogonal matching pursuit on the pooled moments (scikit-learn's ``orthogonal_mp_gram``).

    Point k - 1 holds the least-squares weights on the first k features OMP picked: the stepwise
    form of greedy (``greedy_path(refit="stepwise")`` picks by the same residual correlation,
    scaled by E[X_i^2]). k is chosen by leave-one-domain-out CV when ``choose``.
    """
    _check_stats(stats)
    W = _omp_coefs(stats, n_steps)
    chosen, cv = lodo_choice(stats, lambda s: _omp_coefs(s, n_steps)) if choose else (-1, None)
    return BaselinePath("omp", W, (W != 0).sum(axis=1), np.arange(1, n_steps + 1), chosen,
                        {"lodo_loss": None if cv is None else cv.tolist()})


# --------------------------------------------------------------------------- lasso

def _lars_lasso(stats: DomainStatistics, max_steps: int):
    from sklearn.linear_model import lars_path_gram

    G, q, _ = pooled_moments(stats)
    alphas, _, coefs = lars_path_gram(Xy=q, Gram=G, n_samples=1, max_iter=max_steps, method="lasso")
    return alphas, coefs.T  # alphas decreasing, coefs (n_knots, p)


def _lasso_at(alphas: np.ndarray, coefs: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Lasso weights at the penalties ``grid`` by linear interpolation between LARS knots (exact for lasso)."""
    order = np.argsort(alphas)
    a, C = alphas[order], coefs[order]
    out = np.empty((len(grid), C.shape[1]))
    for j in range(C.shape[1]):
        out[:, j] = np.interp(grid, a, C[:, j], left=C[0, j], right=C[-1, j])
    return out


def lasso_path(stats: DomainStatistics, n_steps: int = 10, *, n_alphas: int = 30, choose: bool = True) -> BaselinePath:
    """The lasso on the pooled moments, ``(1/2) w'Gw - q.w + alpha ||w||_1`` (LARS, scikit-learn).

    The path's points are the penalties of a geometric grid from the smallest penalty with no
    feature down to the penalty where LARS has taken ``n_steps`` steps; the penalty is chosen by
    leave-one-domain-out CV on the held-out domains' squared loss (``choose``).
    """
    _check_stats(stats)
    alphas, coefs = _lars_lasso(stats, n_steps)
    top, bottom = float(alphas[0]), float(max(alphas[-1], alphas[0] * 1e-4))
    grid = np.geomspace(top, bottom, n_alphas)

    def fit(s):
        a, c = _lars_lasso(s, 4 * n_steps)
        return _lasso_at(a, c, grid)

    W = _lasso_at(alphas, coefs, grid)
    chosen, cv = lodo_choice(stats, fit) if choose else (-1, None)
    return BaselinePath("lasso", W, (W != 0).sum(axis=1), grid, chosen,
                        {"lodo_loss": None if cv is None else cv.tolist()})


# --------------------------------------------------------------------------- V-REx

def vrex_objective(coef, stats: DomainStatistics, beta: float, ridge: float = 0.0) -> tuple[float, np.ndarray]:
    """``mean_k L_k(w) + beta Var_k L_k(w) + ridge ||w||^2`` and its gradient.

    ``L_k(w) = E[Y^2|d_k] - 2 w.E[XY|d_k] + w' E[XX'|d_k] w``; Var is the population variance
    over the n domains (V-REx's penalty, Krueger et al. 2021, eq. 4).
    """
    w = np.asarray(coef, dtype=np.float64)
    Aw = stats.xx @ w  # (n, p)
    losses = stats.yy - 2.0 * stats.xy @ w + Aw @ w
    grads = 2.0 * (Aw - stats.xy)  # (n, p)
    mean = losses.mean()
    centred = losses - mean
    value = mean + beta * np.mean(centred**2) + ridge * w @ w
    grad = grads.mean(axis=0) + beta * 2.0 * (centred @ grads) / len(losses) + 2.0 * ridge * w
    return float(value), grad


def _ridge(stats: DomainStatistics) -> float:
    return RIDGE * float(np.mean(np.einsum("kii->ki", stats.xx)))


def vrex_fit(stats: DomainStatistics, beta: float, *, ridge: float | None = None, start=None,
             max_iter: int = 200) -> np.ndarray:
    """Minimize :func:`vrex_objective` (BFGS from the ridge solution, analytic gradient)."""
    _check_stats(stats)
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta must be a finite non-negative number, got {beta!r}")
    ridge = _ridge(stats) if ridge is None else float(ridge)
    G, q, _ = pooled_moments(stats)
    if start is None:
        start = np.linalg.solve(G + ridge * np.eye(len(q)), q)
    if beta == 0:
        return np.asarray(start, dtype=np.float64)
    result = optimize.minimize(vrex_objective, start, args=(stats, beta, ridge), jac=True, method="BFGS",
                               options={"maxiter": max_iter})
    return result.x


def vrex_path(stats: DomainStatistics, betas=VREX_BETAS, *, choose: bool = True, max_iter: int = 100) -> BaselinePath:
    """V-REx weights for each beta (in units of 1 / mean E[Y^2]), beta chosen by leave-one-domain-out CV."""
    _check_stats(stats)
    betas = np.asarray(betas, dtype=np.float64)

    def fit(s):
        scale = 1.0 / float(np.mean(s.yy))
        out, start = [], None
        for b in betas:
            start = vrex_fit(s, b * scale, start=start, max_iter=max_iter)
            out.append(start)
        return np.asarray(out)

    W = fit(stats)
    chosen, cv = lodo_choice(stats, fit) if choose else (-1, None)
    return BaselinePath("vrex", W, (W != 0).sum(axis=1), betas, chosen,
                        {"lodo_loss": None if cv is None else cv.tolist(), "ridge": _ridge(stats)})


# --------------------------------------------------------------------------- ICP-style filter

def icp_pvalues(stats: DomainStatistics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Homogeneity of each feature's per-domain univariate slope, and the pooled slope's z.

    Per domain k and feature i: slope ``b_ki = E[X_i Y|d_k] / E[X_i^2|d_k]`` (no intercept) with
    variance ``v_ki = (E[Y^2|d_k] - b_ki^2 E[X_i^2|d_k]) / (m_k E[X_i^2|d_k])`` from the domain's
    ``m_k`` samples. Cochran's Q ``sum_k (b_ki - b_i)^2 / v_ki`` around the inverse-variance mean
    ``b_i`` is chi-square with n - 1 df when the slopes are equal.

    Returns
    -------
    pvalue : ndarray (p,)
        Of the test that the slopes are equal (small: the domains disagree).
    pooled_slope : ndarray (p,)
    pooled_z : ndarray (p,)
        ``b_i / sqrt(1 / sum_k 1/v_ki)``.
    """
    _check_stats(stats)
    if stats.counts is None:
        raise ValueError("the ICP filter needs the number of samples per domain (counts); population moments "
                         "(from_moments without counts) have no sampling error to test against")
    diag = stats._diagonal  # E[X_i^2 | d_k], shape (n, p)
    m = np.asarray(stats.counts, dtype=np.float64)[:, None]
    slope = stats.xy / diag
    resid = np.maximum(stats.yy[:, None] - slope**2 * diag, 1e-300)
    var = resid / (m * diag)
    weight = 1.0 / var
    pooled = (weight * slope).sum(axis=0) / weight.sum(axis=0)
    q = (weight * (slope - pooled) ** 2).sum(axis=0)
    pvalue = scipy_stats.chi2.sf(q, stats.n_domains - 1)
    z = pooled * np.sqrt(weight.sum(axis=0))
    return pvalue, pooled, z


def _marginal_path(stats: DomainStatistics, order: np.ndarray, n_steps: int) -> np.ndarray:
    """Weights after adding the features of ``order`` one by one, each with mu_i / E[X_i^2]."""
    mu = stats.xy.mean(axis=0)
    weight = mu / stats.second_moment("sample")
    W = np.zeros((n_steps, stats.n_features))
    for s in range(min(n_steps, len(order))):
        if s:
            W[s] = W[s - 1]
        W[s, order[s]] = weight[order[s]]
    if len(order) < n_steps:
        W[len(order):] = W[len(order) - 1] if len(order) else 0.0
    return W


def icp_path(stats: DomainStatistics, n_steps: int = 10, *, alpha: float = 0.05, choose: bool = True) -> BaselinePath:
    """Invariant features (slopes not distinguishable across domains at level ``alpha``), by pooled |z|."""
    def order_of(s):
        pvalue, _, z = icp_pvalues(s)
        keep = np.flatnonzero(pvalue >= alpha)
        return keep[np.argsort(-np.abs(z[keep]), kind="stable")]

    order = order_of(stats)
    W = _marginal_path(stats, order, n_steps)
    chosen, cv = lodo_choice(stats, lambda s: _marginal_path(s, order_of(s), n_steps)) if choose else (-1, None)
    return BaselinePath("icp", W, (W != 0).sum(axis=1), np.arange(1, n_steps + 1), chosen,
                        {"n_invariant": int(order.size), "alpha": alpha,
                         "lodo_loss": None if cv is None else cv.tolist()})


# --------------------------------------------------------------------------- univariate T filter

def t_filter_path(stats: DomainStatistics, n_steps: int = 10, *, choose: bool = True) -> BaselinePath:
    """Rank once by |T| of ``E[X_i Y|d_k]`` (section 3.1's T with w = 0); add with marginal weights."""
    def order_of(s):
        t, _, _ = t_statistics(s.xy)
        return np.argsort(-np.abs(t), kind="stable")[:n_steps]

    W = _marginal_path(stats, order_of(stats), n_steps)
    chosen, cv = lodo_choice(stats, lambda s: _marginal_path(s, order_of(s), n_steps)) if choose else (-1, None)
    return BaselinePath("t_filter", W, (W != 0).sum(axis=1), np.arange(1, n_steps + 1), chosen,
                        {"lodo_loss": None if cv is None else cv.tolist()})


#: The baselines by name.
BASELINES = {"omp": omp_path, "lasso": lasso_path, "vrex": vrex_path, "icp": icp_path, "t_filter": t_filter_path}


def run_baseline(name: str, stats: DomainStatistics, n_steps: int = 10, **options) -> BaselinePath:
    """Run one of :data:`BASELINES` by name (``vrex`` ignores ``n_steps``)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; choose from {sorted(BASELINES)}")
    if name == "vrex":
        return vrex_path(stats, **options)
    return BASELINES[name](stats, n_steps, **options)
