"""What a researcher would try instead of T-greedy, on the same per-domain moments (beyond the paper).

Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach" (AISTATS 2012),
compare T-greedy only with greedy (section 4). These baselines run on the same
:class:`~.statistics.DomainStatistics` and each returns a :class:`BaselinePath`: weight vectors (``coef``,
one row per point of the path) and the point chosen by leave-one-domain-out cross-validation on the
held-out domains' squared loss (:func:`lodo_choice`, the paper's section 5).

``omp``
    Orthogonal matching pursuit (Pati, Rezaiifar & Krishnaprasad, Asilomar 1993) on the pooled moments,
    scikit-learn's ``orthogonal_mp_gram``; point k = k features.
``lasso``
    The lasso (Tibshirani, JRSS B 1996) on the pooled moments by LARS (Efron, Hastie, Johnstone &
    Tibshirani, Annals of Statistics 2004), scikit-learn's ``lars_path_gram``; the penalty chosen by
    leave-one-domain-out CV over a grid (as ``LassoCV(cv=LeaveOneGroupOut())`` on equal-sized domains).
``vrex``
    V-REx (Krueger et al., "Out-of-distribution generalization via risk extrapolation", ICML 2021):
    minimize ``mean_k L_k(w) + beta Var_k L_k(w) + ridge ||w||^2`` over the per-domain squared losses
    ``L_k``; all features, one point per beta, beta chosen by leave-one-domain-out CV.
``icp``
    An invariance filter in the spirit of ICP (Peters, Buehlmann & Meinshausen, JRSS B 2016): the features
    whose per-domain slopes a chi-square homogeneity test cannot tell apart, by pooled significance.
``t_filter``
    The univariate T filter: the features by |T| of ``E[X_i Y | d_k]`` (no residuals), each with its
    marginal weight ``mu_i / E[X_i^2]`` (T-greedy's first-step weight).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from numbers import Integral, Real
from typing import Callable

import numpy as np
from scipy import optimize
from scipy import stats as scipy_stats
from sklearn.utils._param_validation import Interval
from threadpoolctl import threadpool_limits

from ..validation import validate_options
from .selection import SelectionPath
from .statistics import DomainStatistics, t_statistic

__all__ = ["BASELINES", "BaselinePath", "lodo_choice", "omp_path", "lasso_path", "lasso_knots", "vrex_objective",
           "vrex_fit", "vrex_path", "icp_pvalues", "icp_path", "t_filter_path", "run_baseline", "as_selection_path",
           "omp_selection_path", "icp_selection_path", "t_filter_selection_path"]

#: Ridge of V-REx (and the lasso's numerical guard), relative to the mean diagonal of the pooled E[XX'].
RIDGE = 1e-3
#: Penalties beta of V-REx tried by leave-one-domain-out CV, in units of 1 / (mean E[Y^2]).
VREX_BETAS = (0.0, 10.0)
#: The baselines run on the moments as given while the root mean squares of X and y lie within
#: 2**-SCALE_BAND .. 2**SCALE_BAND; past it on moments rescaled by powers of two (exact).
SCALE_BAND = 8

_CONSTRAINTS = {
    "stats": [DomainStatistics],
    "n_steps": [Interval(Integral, 1, None, closed="left")],
    "choose": ["boolean"],
    "n_alphas": [Interval(Integral, 1, None, closed="left")],
    "beta": [Interval(Real, 0, None, closed="left")],
    "ridge": [Interval(Real, 0, None, closed="left"), None],
    "start": ["array-like", None],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "betas": ["array-like"],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "coef": ["array-like"],
    "fit": [callable],
    "method": [str],
    "features": ["array-like"],
    "options": [dict, None],
}


def _options(*names):
    return validate_options({name: _CONSTRAINTS[name] for name in names})


@dataclasses.dataclass(frozen=True)
class BaselinePath:
    """A baseline's weights ``coef`` (n_points, p), the ``parameter`` of each point (k, the penalty, beta ...),
    their ``n_selected`` nonzero weights, the point ``chosen`` by :func:`lodo_choice` (-1: not chosen) and
    ``info`` (``lodo_loss``, the mean held-out loss of each point, and the baseline's own entries)."""

    name: str
    coef: np.ndarray
    n_selected: np.ndarray
    parameter: np.ndarray
    chosen: int
    info: dict


def _power_of_two_exponents(stats: DomainStatistics) -> tuple[int, int]:
    """``(a, b)``: X's and y's root mean squares are about ``2**a`` and ``2**b`` (0 where within the band)."""
    x_square = float(np.mean(stats.second_moment("sample")))
    y_square = float(np.mean(stats.yy))
    a = int(round(0.5 * math.log2(x_square))) if x_square > 0 and math.isfinite(x_square) else 0
    b = int(round(0.5 * math.log2(y_square))) if y_square > 0 and math.isfinite(y_square) else 0
    if abs(a) <= SCALE_BAND and abs(b) <= SCALE_BAND:
        return 0, 0
    return a, b


def _any_scale(parameter_power: int = 0, info_powers=(("lodo_loss", 0, 2),)):
    """Run a path function on the moments of ``X / 2**a``, ``y / 2**b`` (exact) when X or y lies far from
    scale 1, and scale the result back (the solvers hold absolute tolerances): the parameter by
    ``2**((a + b) parameter_power)``, ``info[key]`` by ``2**(a i + b j)`` for each ``(key, i, j)``."""
    def decorate(function):
        @functools.wraps(function)
        def run(stats, *args, **kwargs):
            if not isinstance(stats, DomainStatistics):
                return function(stats, *args, **kwargs)
            a, b = _power_of_two_exponents(stats)
            if a == 0 and b == 0:
                return function(stats, *args, **kwargs)
            unlabeled = None if stats.unlabeled_xx is None else np.ldexp(stats.unlabeled_xx, -2 * a)
            rescaled = DomainStatistics.from_moments(np.ldexp(stats.xx, -2 * a), np.ldexp(stats.xy, -(a + b)),
                                                     np.ldexp(stats.yy, -2 * b), counts=stats.counts,
                                                     labels=stats.domain_labels, unlabeled_xx=unlabeled)
            path = function(rescaled, *args, **kwargs)
            info = dict(path.info)
            for key, i, j in info_powers:
                if info.get(key) is not None:
                    info[key] = np.ldexp(np.asarray(info[key], dtype=np.float64), a * i + b * j).tolist()
                    if np.ndim(path.info[key]) == 0:
                        info[key] = float(info[key])
            parameter = path.parameter
            if parameter_power:
                parameter = np.ldexp(np.asarray(parameter, dtype=np.float64), (a + b) * parameter_power)
            return BaselinePath(path.name, np.ldexp(path.coef, b - a), path.n_selected, parameter, path.chosen, info)
        return run
    return decorate


@_options('stats', 'fit')
def lodo_choice(stats: DomainStatistics, fit: Callable[[DomainStatistics], np.ndarray]) -> tuple[int, np.ndarray]:
    """Leave one domain out: the index of the point of ``fit(stats) -> W`` (n_points, p; the same number of
    points on every subset) with the least mean held-out squared loss, and that mean loss of every point."""
    if stats.n_domains < 3:
        raise ValueError(f"leave-one-domain-out needs at least 3 domains, got {stats.n_domains}")
    labels = stats.domain_labels.tolist()
    losses = []
    for k, label in enumerate(labels):
        W = np.atleast_2d(fit(stats.subset([lab for lab in labels if lab != label])))
        losses.append(stats.yy[k] - 2.0 * W @ stats.xy[k] + np.einsum("mp,pm->m", W, stats.xx[k] @ W.T))
    mean = np.mean(losses, axis=0)
    return int(np.argmin(mean)), mean


def _baseline(name, stats, W, parameter, fit, choose, **info) -> BaselinePath:
    """``BaselinePath`` of the weights ``W``, the point chosen by :func:`lodo_choice` of ``fit`` if ``choose``."""
    chosen, cv = lodo_choice(stats, fit) if choose else (-1, None)
    return BaselinePath(name, W, (W != 0).sum(axis=1), parameter, chosen,
                        {**info, "lodo_loss": None if cv is None else cv.tolist()})


def pad_rows(W: np.ndarray, n_points: int) -> np.ndarray:
    """Rows 0..n_points-1; a path that ended early repeats its last row."""
    out = np.empty((n_points, W.shape[1]))
    m = min(len(W), n_points)
    out[:m] = W[:m]
    out[m:] = W[m - 1] if m else 0.0
    return out


def _omp_coefs(stats: DomainStatistics, n_steps: int) -> np.ndarray:
    from sklearn.linear_model import orthogonal_mp_gram

    G, q = stats.xx.mean(axis=0), stats.xy.mean(axis=0)
    a, b = _power_of_two_exponents(stats)  # scikit-learn's tolerances are absolute
    coefs = orthogonal_mp_gram(np.ldexp(G, -2 * a), np.ldexp(q, -(a + b)), n_nonzero_coefs=n_steps, return_path=True)
    coefs = np.ldexp(np.asarray(coefs), b - a)
    if coefs.ndim == 1:
        coefs = coefs[:, None]
    return pad_rows(coefs.T, n_steps)


@_any_scale()
@_options('stats', 'n_steps', 'choose')
def omp_path(stats: DomainStatistics, n_steps: int = 10, *, choose: bool = True) -> BaselinePath:
    """OMP on the pooled moments: point k - 1 holds the least-squares weights on the first k features it
    picked (``parameter`` k = 1..n_steps)."""
    return _baseline("omp", stats, _omp_coefs(stats, n_steps), np.arange(1, n_steps + 1),
                     lambda s: _omp_coefs(s, n_steps), choose)


def lasso_knots(stats: DomainStatistics, max_steps: int, alpha_min: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The LARS knots of the lasso on the pooled moments, at most ``max_steps``, down to ``alpha_min``:
    ``(alphas, coefs)``, the penalties decreasing and the weights (n_knots, p) at each."""
    from sklearn.linear_model import lars_path_gram

    alphas, _, coefs = lars_path_gram(Xy=stats.xy.mean(axis=0), Gram=stats.xx.mean(axis=0), n_samples=1,
                                      max_iter=max_steps, method="lasso", alpha_min=alpha_min)
    return alphas, coefs.T


def _lasso_at(alphas: np.ndarray, coefs: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Lasso weights at the penalties ``grid`` by linear interpolation between LARS knots (exact for lasso)."""
    order = np.argsort(alphas)
    a, C = alphas[order], coefs[order]
    out = np.empty((len(grid), C.shape[1]))
    for j in range(C.shape[1]):
        out[:, j] = np.interp(grid, a, C[:, j], left=C[0, j], right=C[-1, j])
    return out


@_any_scale(parameter_power=1)
@_options('stats', 'n_steps', 'n_alphas', 'choose')
def lasso_path(stats: DomainStatistics, n_steps: int = 10, *, n_alphas: int = 30, choose: bool = True) -> BaselinePath:
    """The lasso on the pooled moments, ``(1/2) w'Gw - q.w + alpha ||w||_1``, at ``n_alphas`` penalties
    (``parameter``, decreasing) of a geometric grid from the smallest with no feature to where LARS has
    taken ``n_steps`` steps."""
    if not np.any(stats.xy):
        raise ValueError("lasso_path: every E[X_i Y | d_k] is 0 (y is 0, or no feature covaries with it in any "
                         "domain), so the lasso keeps no feature at any penalty and its penalty grid is empty; "
                         "check that the statistics hold the target y")
    alphas, coefs = lasso_knots(stats, n_steps)
    top, bottom = float(alphas[0]), float(max(alphas[-1], alphas[0] * 1e-4))
    grid = np.geomspace(top, bottom, n_alphas)
    return _baseline("lasso", stats, _lasso_at(alphas, coefs, grid), grid,
                     lambda s: _lasso_at(*lasso_knots(s, 4 * n_steps, alpha_min=bottom), grid), choose)


@_options('coef', 'stats', 'beta', 'ridge')
def vrex_objective(coef, stats: DomainStatistics, beta: float, ridge: float = 0.0) -> tuple[float, np.ndarray]:
    """V-REx's objective (its eq. 4) and gradient: ``mean_k L_k(w) + beta Var_k L_k(w) + ridge ||w||^2``
    with ``L_k(w) = E[Y^2|d_k] - 2 w.E[XY|d_k] + w' E[XX'|d_k] w`` and Var over the n domains."""
    w = np.asarray(coef, dtype=np.float64)
    n, p = stats.xy.shape
    Aw = (stats.xx.reshape(n * p, p) @ w).reshape(n, p)  # one gemv (a stacked matmul is much slower)
    losses = stats.yy - 2.0 * stats.xy @ w + Aw @ w
    grads = 2.0 * (Aw - stats.xy)  # (n, p)
    mean = losses.mean()
    centred = losses - mean
    value = mean + beta * np.mean(centred**2) + ridge * w @ w
    grad = grads.mean(axis=0) + beta * 2.0 * (centred @ grads) / len(losses) + 2.0 * ridge * w
    return float(value), grad


def _ridge(stats: DomainStatistics) -> float:
    return RIDGE * float(np.mean(np.einsum("kii->ki", stats.xx)))


@_options('stats', 'beta', 'ridge', 'start', 'max_iter')
def vrex_fit(stats: DomainStatistics, beta: float, *, ridge: float | None = None, start=None,
             max_iter: int = 500) -> np.ndarray:
    """Minimize :func:`vrex_objective` by L-BFGS from ``start`` (default: the ridge solution on the pooled
    moments, which ``beta = 0`` returns); ``ridge`` defaults to ``RIDGE`` times the mean pooled E[X_i^2]."""
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta must be a finite non-negative number, got {beta!r}")
    ridge = _ridge(stats) if ridge is None else float(ridge)
    if start is None:
        q = stats.xy.mean(axis=0)
        start = np.linalg.solve(stats.xx.mean(axis=0) + ridge * np.eye(len(q)), q)
    if beta == 0:
        return np.asarray(start, dtype=np.float64)
    # One BLAS thread: L-BFGS-B calls BLAS on length-p vectors hundreds of times, and waking a threaded
    # BLAS costs far more than the work (benchmarks/bench_compare.py). Same iterates.
    with threadpool_limits(1, user_api="blas"):
        result = optimize.minimize(vrex_objective, start, args=(stats, beta, ridge), jac=True, method="L-BFGS-B",
                                   options={"maxiter": max_iter})
    return result.x


@_any_scale(info_powers=(("lodo_loss", 0, 2), ("ridge", 2, 0)))
@_options('stats', 'betas', 'choose', 'max_iter')
def vrex_path(stats: DomainStatistics, betas=VREX_BETAS, *, choose: bool = True, max_iter: int = 30) -> BaselinePath:
    """V-REx weights for each of ``betas`` (in units of 1 / mean E[Y^2]; ``max_iter`` L-BFGS iterations
    each, from the previous beta's weights); ``info["ridge"]`` is the ridge used."""
    betas = np.asarray(betas, dtype=np.float64)
    if betas.ndim != 1 or betas.size == 0 or not np.all(np.isfinite(betas)) or np.any(betas < 0):
        raise ValueError(f"betas must be a non-empty sequence of finite non-negative penalties, got {betas.tolist()!r} "
                         f"(the default is {VREX_BETAS})")

    def fit(s):
        if not np.mean(s.yy) > 0:
            raise ValueError("vrex_path: E[Y^2 | d_k] is 0 in every domain (y is 0, or the moments were given without "
                             "yy), and V-REx's penalties are in units of 1 / mean E[Y^2]; pass the moments of a "
                             "target that varies (DomainStatistics.from_moments(xx, xy, yy))")
        scale = 1.0 / float(np.mean(s.yy))
        out, start = [], None
        for b in betas:
            start = vrex_fit(s, b * scale, start=start, max_iter=max_iter)
            out.append(start)
        return np.asarray(out)

    return _baseline("vrex", stats, fit(stats), betas, fit, choose, ridge=_ridge(stats))


@_options('stats')
def icp_pvalues(stats: DomainStatistics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The invariance test of the ICP-style filter: ``(pvalue, pooled_slope, pooled_z)`` per feature.

    Per domain k: slope ``b_ki = E[X_i Y|d_k] / E[X_i^2|d_k]`` with variance
    ``v_ki = (E[Y^2|d_k] - b_ki^2 E[X_i^2|d_k]) / (m_k E[X_i^2|d_k])`` from the domain's ``m_k`` samples.
    Cochran's Q ``sum_k (b_ki - b_i)^2 / v_ki`` around the inverse-variance mean ``b_i`` is chi-square with
    n - 1 df when the slopes are equal; ``pooled_z = b_i / sqrt(1 / sum_k 1/v_ki)``.
    """
    if stats.counts is None:
        raise ValueError("the ICP filter needs the number of samples per domain (counts); population moments "
                         "(from_moments without counts) have no sampling error to test against")
    diag = stats.diagonal
    m = np.asarray(stats.counts, dtype=np.float64)[:, None]
    slope = stats.xy / diag
    resid = np.maximum(stats.yy[:, None] - slope**2 * diag, 1e-300)
    weight = 1.0 / (resid / (m * diag))
    pooled = (weight * slope).sum(axis=0) / weight.sum(axis=0)
    q = (weight * (slope - pooled) ** 2).sum(axis=0)
    return scipy_stats.chi2.sf(q, stats.n_domains - 1), pooled, pooled * np.sqrt(weight.sum(axis=0))


def _icp_order(stats: DomainStatistics, alpha: float) -> np.ndarray:
    pvalue, _, z = icp_pvalues(stats)
    keep = np.flatnonzero(pvalue >= alpha)
    return keep[np.argsort(-np.abs(z[keep]), kind="stable")]


def _t_order(stats: DomainStatistics, n_steps: int) -> np.ndarray:
    return np.argsort(-np.abs(t_statistic(stats.xy)), kind="stable")[:n_steps]


def _marginal_path(stats: DomainStatistics, order: np.ndarray, n_steps: int) -> np.ndarray:
    """Weights after adding the features of ``order`` one by one, each with mu_i / E[X_i^2]."""
    weight = stats.xy.mean(axis=0) / stats.second_moment("sample")
    W = np.zeros((n_steps, stats.n_features))
    for s in range(min(n_steps, len(order))):
        if s:
            W[s] = W[s - 1]
        W[s, order[s]] = weight[order[s]]
    if len(order) < n_steps:
        W[len(order):] = W[len(order) - 1] if len(order) else 0.0
    return W


@_any_scale()
@_options('stats', 'n_steps', 'alpha', 'choose')
def icp_path(stats: DomainStatistics, n_steps: int = 10, *, alpha: float = 0.05, choose: bool = True) -> BaselinePath:
    """The ICP-style filter: the features :func:`icp_pvalues` keeps at level ``alpha``, by pooled |z|, each
    with its marginal weight (``info["n_invariant"]``: the features kept)."""
    order = _icp_order(stats, alpha)
    return _baseline("icp", stats, _marginal_path(stats, order, n_steps), np.arange(1, n_steps + 1),
                     lambda s: _marginal_path(s, _icp_order(s, alpha), n_steps), choose,
                     n_invariant=int(order.size), alpha=alpha)


@_any_scale()
@_options('stats', 'n_steps', 'choose')
def t_filter_path(stats: DomainStatistics, n_steps: int = 10, *, choose: bool = True) -> BaselinePath:
    """The univariate T filter: the features by |T| of ``E[X_i Y|d_k]``, each with its marginal weight."""
    return _baseline("t_filter", stats, _marginal_path(stats, _t_order(stats, n_steps), n_steps),
                     np.arange(1, n_steps + 1), lambda s: _marginal_path(s, _t_order(s, n_steps), n_steps), choose)


#: The baselines by name: ``{name: function(stats, n_steps, **options) -> BaselinePath}`` (``vrex``: no ``n_steps``).
BASELINES = {"omp": omp_path, "lasso": lasso_path, "vrex": vrex_path, "icp": icp_path, "t_filter": t_filter_path}


@_options('stats', 'n_steps')
def run_baseline(name: str, stats: DomainStatistics, n_steps: int = 10, **options) -> BaselinePath:
    """Run one of :data:`BASELINES` by ``name`` with ``options`` (``vrex`` ignores ``n_steps``)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; choose from {sorted(BASELINES)}")
    if name == "vrex":
        return vrex_path(stats, **options)
    return BASELINES[name](stats, n_steps, **options)


@_options('stats', 'method', 'coef', 'features', 'options')
def as_selection_path(stats: DomainStatistics, method: str, coef: np.ndarray, features, options=None) -> SelectionPath:
    """Weights ``coef[s]`` after adding ``features[s]`` at step s as a :class:`~.selection.SelectionPath` named
    ``method``, with the T-statistic, mu and sigma of the added feature before each step (for :mod:`.stopping`)."""
    coef = np.atleast_2d(np.asarray(coef, dtype=np.float64))
    features = np.asarray(features, dtype=np.intp)
    m = min(len(features), len(coef))
    coef, features = coef[:m], features[:m]
    t_rec, mu_rec, sd_rec, loss = [], [], [], []
    previous = np.zeros(stats.n_features)
    for s_ in range(m):
        t, mu, sigma = t_statistic(stats.residual_covariances(previous), moments=True)
        i = features[s_]
        t_rec.append(t[i]), mu_rec.append(mu[i]), sd_rec.append(sigma[i])
        loss.append(stats.training_loss(coef[s_]))
        previous = coef[s_]
    t_rec = np.asarray(t_rec, dtype=np.float64)
    return SelectionPath(method=method, features=features, coef=coef, t_statistic=t_rec, score=np.abs(t_rec),
                         mean_residual_covariance=np.asarray(mu_rec, dtype=np.float64),
                         std_residual_covariance=np.asarray(sd_rec, dtype=np.float64),
                         training_loss=np.asarray(loss, dtype=np.float64), initial_loss=float(stats.yy.mean()),
                         stop_reason="n_steps", options=dict(options or {}))


@_options('stats', 'n_steps')
def omp_selection_path(stats: DomainStatistics, n_steps: int = 10) -> SelectionPath:
    """OMP on the pooled moments as a selector (``get_selector("omp")``)."""
    W = _omp_coefs(stats, n_steps)
    order, before = [], np.zeros(W.shape[1], dtype=bool)
    for row in W:  # the feature that becomes nonzero at each row (the largest new weight when several do)
        new = np.flatnonzero((row != 0) & ~before)
        if new.size == 0:
            break
        order.append(int(new[np.argmax(np.abs(row[new]))]))
        before |= row != 0
    return as_selection_path(stats, "omp", W[:len(order)], np.asarray(order, dtype=np.intp))


@_options('stats', 'n_steps')
def t_filter_selection_path(stats: DomainStatistics, n_steps: int = 10) -> SelectionPath:
    """The univariate T filter as a selector (``get_selector("t_filter")``)."""
    order = _t_order(stats, n_steps)
    return as_selection_path(stats, "t_filter", _marginal_path(stats, order, n_steps), order)


@_options('stats', 'n_steps', 'alpha')
def icp_selection_path(stats: DomainStatistics, n_steps: int = 10, *, alpha: float = 0.05) -> SelectionPath:
    """The ICP-style filter as a selector (``get_selector("icp")``); fewer than ``n_steps`` steps when fewer
    features pass the invariance test."""
    order = _icp_order(stats, alpha)[:n_steps]
    return as_selection_path(stats, "icp", _marginal_path(stats, order, n_steps)[:len(order)], order,
                             {"alpha": alpha})
