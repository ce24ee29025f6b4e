"""What a researcher would try instead of T-greedy, on the same per-domain moments (beyond the paper).

The paper [1]_ compares T-greedy only with greedy (section 4). These baselines run on the same
:class:`~.statistics.DomainStatistics` (so on population moments, samples or the pair moments of
section 4.2 alike) and each returns a :class:`BaselinePath`: a sequence of weight vectors
(``coef``, one row per point of the path) and the point chosen by leave-one-domain-out
cross-validation on the held-out domains' squared loss (:func:`lodo_choice`).

``omp``
    Orthogonal matching pursuit [2]_ on the pooled moments (greedy's classical stepwise form):
    scikit-learn's :func:`sklearn.linear_model.orthogonal_mp_gram`; point k = k features.
``lasso``
    The lasso [3]_ path on the pooled moments, scikit-learn's LARS-lasso [4]_
    :func:`sklearn.linear_model.lars_path_gram`; point k = k LARS steps. The penalty is chosen
    by leave-one-domain-out CV over a grid of penalties (as ``LassoCV(cv=LeaveOneGroupOut())``
    does on samples of equal-sized domains).
``vrex``
    Variance-penalized regression across domains in the spirit of V-REx (Krueger et al. 2021 [5]_):
    minimize ``mean_k L_k(w) + beta Var_k L_k(w) + ridge ||w||^2`` with the per-domain squared
    losses ``L_k``; all features, one point per beta, beta chosen by leave-one-domain-out CV.
``icp``
    An invariance filter in the spirit of ICP (Peters, Buehlmann & Meinshausen 2016 [6]_): keep the
    features whose per-domain univariate slopes a chi-square homogeneity test cannot tell apart
    (p-value >= alpha), ranked by the significance of their pooled slope; marginal weights.
``t_filter``
    The univariate T filter: rank the features once by |T| of ``E[X_i Y | d_k]`` (no residuals)
    and give each its marginal weight ``mu_i / E[X_i^2]`` (T-greedy's first-step weight).

Examples
--------
>>> import numpy as np
>>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
>>> from tgreedy_lib.domain_adaptation.baselines import omp_path, t_filter_path
>>> rng = np.random.default_rng(0)
>>> data = []
>>> for k in range(5):
...     X = rng.standard_normal((200, 6))
...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
>>> stats = DomainStatistics.from_domains(data, lazy=False)
>>> omp = omp_path(stats, 3)
>>> omp.n_selected.tolist(), int(omp.chosen) in (0, 1, 2)
([1, 2, 3], True)
>>> int(np.flatnonzero(t_filter_path(stats, 1, choose=False).coef[0])[0])   # the robust feature first
0

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
       Approach", AISTATS 2012 (sections 2-5).
.. [2] Y. C. Pati, R. Rezaiifar and P. S. Krishnaprasad, "Orthogonal matching pursuit: recursive
       function approximation with applications to wavelet decomposition", Proc. 27th Asilomar
       Conference on Signals, Systems and Computers, 1993.
.. [3] R. Tibshirani, "Regression shrinkage and selection via the lasso", Journal of the Royal
       Statistical Society B 58(1):267-288, 1996.
.. [4] B. Efron, T. Hastie, I. Johnstone and R. Tibshirani, "Least angle regression", Annals of
       Statistics 32(2):407-499, 2004.
.. [5] D. Krueger, E. Caballero, J.-H. Jacobsen, A. Zhang, J. Binas, D. Zhang, R. Le Priol and
       A. Courville, "Out-of-distribution generalization via risk extrapolation (REx)", ICML 2021.
.. [6] J. Peters, P. Buehlmann and N. Meinshausen, "Causal inference by using invariant prediction:
       identification and confidence intervals", Journal of the Royal Statistical Society B
       78(5):947-1012, 2016.
"""
from __future__ import annotations

import dataclasses
import math
from numbers import Integral, Real
from typing import Callable

import numpy as np
from scipy import optimize
from scipy import stats as scipy_stats
from sklearn.utils._param_validation import Interval
from threadpoolctl import threadpool_limits

from .._validation import validate_options
from .selection import SelectionPath
from .statistics import t_statistic
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
    "as_selection_path",
    "omp_selection_path",
    "icp_selection_path",
    "t_filter_selection_path",
]

#: Ridge of V-REx (and the lasso's numerical guard), relative to the mean diagonal of the pooled E[XX'].
RIDGE = 1e-3
#: Penalties beta of V-REx tried by leave-one-domain-out CV, in units of 1 / (mean E[Y^2]).
VREX_BETAS = (0.0, 10.0)


#: The declared constraints of the baselines' options (scikit-learn's ``_parameter_constraints`` style, as the
#: selectors declare theirs), checked before a baseline runs so that each wrong option is named.
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
    """:func:`validate_options` with the constraints of ``names`` (one declaration for the module)."""
    return validate_options({name: _CONSTRAINTS[name] for name in names})


@dataclasses.dataclass(frozen=True)
class BaselinePath:
    """Weights along a baseline's path and the point leave-one-domain-out CV chose.

    The baselines compare T-greedy (section 3 of [1]_) with what a researcher would try instead;
    each returns one of these.

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
        ``lodo_loss`` (mean held-out loss of each point) and baseline-specific entries.

    See Also
    --------
    omp_path, lasso_path, vrex_path, icp_path, t_filter_path : The baselines.
    run_baseline : Any of them by name.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import omp_path
    >>> path = omp_path(stats, 3)
    >>> path.name, path.n_selected.tolist(), path.chosen
    ('omp', [1, 2, 3], 0)
    >>> path.chosen_coef.round(2)
    array([0.99, 0.  , 0.  , 0.  , 0.  , 0.  ])
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


@_options('stats')
def pooled_moments(stats: DomainStatistics) -> tuple[np.ndarray, np.ndarray, float]:
    """Pooled moments (section 2 of [1]_): ``(mean_k E[XX'|d_k], mean_k E[XY|d_k], mean_k E[Y^2|d_k])``.

    Every domain weighs the same, as in the paper's pooled (greedy) objective.

    Parameters
    ----------
    stats : DomainStatistics

    Returns
    -------
    gram : ndarray (p, p)
    xy : ndarray (p,)
    yy : float

    See Also
    --------
    domain_losses : The per-domain losses instead of their mean.
    omp_path, lasso_path : Run on these moments.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import pooled_moments
    >>> gram, xy, yy = pooled_moments(stats)
    >>> gram.shape, xy.round(2)[:2], round(yy, 2)
    ((6, 6), array([ 0.94, -0.08]), 1.11)
    """
    _check_stats(stats)
    return stats.xx.mean(axis=0), stats.xy.mean(axis=0), float(stats.yy.mean())


@_options('stats', 'coef')
def domain_losses(stats: DomainStatistics, coef) -> np.ndarray:
    """Squared loss of each weight vector on each domain (section 2 of [1]_), from the moments.

    ``L_k(w) = E[Y^2|d_k] - 2 w.E[XY|d_k] + w' E[XX'|d_k] w``.

    Parameters
    ----------
    stats : DomainStatistics
    coef : array-like (m, p) or (p,)

    Returns
    -------
    ndarray (m, n_domains)

    See Also
    --------
    pooled_moments : The pooled moments.
    vrex_objective : The mean and variance of these losses.
    lodo_choice : The loss on held-out domains.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import domain_losses
    >>> domain_losses(stats, np.eye(6)[:2]).round(2)      # w = e_0 fits every domain, w = e_1 none
    array([[0.64, 0.03, 0.17, 0.07, 0.01],
           [3.77, 2.47, 1.48, 1.36, 2.25]])
    """
    W = np.atleast_2d(np.asarray(coef, dtype=np.float64))
    n, p = stats.xy.shape
    quad = np.einsum("kpm,mp->mk", (stats.xx.reshape(n * p, p) @ W.T).reshape(n, p, -1), W)  # w' E[XX'|d_k] w
    return stats.yy[None, :] - 2.0 * W @ stats.xy.T + quad


@_options('stats', 'fit')
def lodo_choice(stats: DomainStatistics, fit: Callable[[DomainStatistics], np.ndarray]) -> tuple[int, np.ndarray]:
    """Leave one domain out (section 5 of [1]_): the point of ``fit``'s path with the least mean held-out loss.

    Parameters
    ----------
    stats : DomainStatistics
        At least 3 domains.
    fit : callable
        ``fit(stats) -> W`` (n_points, p); must return the same number of points for every
        subset (a fixed grid).

    Returns
    -------
    chosen : int
        Index of the point with the least mean held-out squared loss.
    mean_loss : ndarray (n_points,)
        Mean held-out squared loss of every point.

    See Also
    --------
    domain_losses : The squared loss on each domain.
    tgreedy_lib.domain_adaptation.stopping.stop_lodo : The same for selection paths.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import lodo_choice
    >>> chosen, mean_loss = lodo_choice(stats, lambda s: np.eye(6)[:2])   # a fixed two-point "path"
    >>> chosen, mean_loss.round(2)
    (0, array([0.18, 2.27]))
    """
    _check_stats(stats)
    if stats.n_domains < 3:
        raise ValueError(f"leave-one-domain-out needs at least 3 domains, got {stats.n_domains}")
    labels = stats.domain_labels.tolist()
    losses = []
    for k, label in enumerate(labels):
        W = np.atleast_2d(fit(stats.subset([lab for lab in labels if lab != label])))
        # squared loss of each row on the held-out domain k only, from its moments
        losses.append(stats.yy[k] - 2.0 * W @ stats.xy[k] + np.einsum("mp,pm->m", W, stats.xx[k] @ W.T))
    mean = np.mean(losses, axis=0)
    return int(np.argmin(mean)), mean


def pad_rows(W: np.ndarray, n_points: int) -> np.ndarray:
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
    a, b = _power_of_two_exponents(stats)  # far from scale 1: on X / 2**a, y / 2**b (exact; scikit-learn's tolerances are absolute)
    coefs = orthogonal_mp_gram(np.ldexp(G, -2 * a), np.ldexp(q, -(a + b)), n_nonzero_coefs=n_steps, return_path=True)
    coefs = np.ldexp(np.asarray(coefs), b - a)
    if coefs.ndim == 1:
        coefs = coefs[:, None]
    return pad_rows(coefs.T, n_steps)


@_options('stats', 'n_steps', 'choose')
def omp_path(stats: DomainStatistics, n_steps: int = 10, *, choose: bool = True) -> BaselinePath:
    """Orthogonal matching pursuit [2]_ on the pooled moments (greedy's stepwise form, section 4 of [1]_).

    Runs scikit-learn's ``orthogonal_mp_gram``. Point k - 1 holds the least-squares weights on
    the first k features OMP picked: the stepwise form of greedy (``greedy_path(refit="stepwise")``
    picks by the same residual correlation, scaled by E[X_i^2]). k is chosen by
    leave-one-domain-out CV when ``choose``.

    Parameters
    ----------
    stats : DomainStatistics
    n_steps : int, default=10
    choose : bool, default=True
        Choose k by :func:`lodo_choice` (else ``chosen = -1``).

    Returns
    -------
    BaselinePath
        ``parameter`` is k = 1..n_steps.

    See Also
    --------
    omp_selection_path : The same as a selector (a SelectionPath).
    lasso_path, vrex_path, icp_path, t_filter_path : The other baselines.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] Y. C. Pati, R. Rezaiifar and P. S. Krishnaprasad, "Orthogonal matching pursuit: recursive
           function approximation with applications to wavelet decomposition", Proc. 27th Asilomar
           Conference on Signals, Systems and Computers, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import omp_path
    >>> path = omp_path(stats, 3)
    >>> path.n_selected.tolist(), path.chosen, int(np.argmax(np.abs(path.chosen_coef)))
    ([1, 2, 3], 0, 0)
    """
    _check_stats(stats)
    W = _omp_coefs(stats, n_steps)
    chosen, cv = lodo_choice(stats, lambda s: _omp_coefs(s, n_steps)) if choose else (-1, None)
    return BaselinePath("omp", W, (W != 0).sum(axis=1), np.arange(1, n_steps + 1), chosen,
                        {"lodo_loss": None if cv is None else cv.tolist()})


# --------------------------------------------------------------------------- lasso

def _lars_lasso(stats: DomainStatistics, max_steps: int, alpha_min: float = 0.0):
    """LARS knots of the lasso on the pooled moments; with ``alpha_min`` the path stops there.

    Stopping at ``alpha_min`` (scikit-learn puts a last knot exactly at it, on the piecewise-linear
    path) leaves the weights at every penalty above it as they were: the leave-one-domain-out
    folds only need the path down to the smallest penalty of the grid, not ``max_steps`` knots.
    """
    from sklearn.linear_model import lars_path_gram

    G, q, _ = pooled_moments(stats)
    alphas, _, coefs = lars_path_gram(Xy=q, Gram=G, n_samples=1, max_iter=max_steps, method="lasso",
                                      alpha_min=alpha_min)
    return alphas, coefs.T  # alphas decreasing, coefs (n_knots, p)


def _lasso_at(alphas: np.ndarray, coefs: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Lasso weights at the penalties ``grid`` by linear interpolation between LARS knots (exact for lasso)."""
    order = np.argsort(alphas)
    a, C = alphas[order], coefs[order]
    out = np.empty((len(grid), C.shape[1]))
    for j in range(C.shape[1]):
        out[:, j] = np.interp(grid, a, C[:, j], left=C[0, j], right=C[-1, j])
    return out


@_options('stats', 'n_steps', 'n_alphas', 'choose')
def lasso_path(stats: DomainStatistics, n_steps: int = 10, *, n_alphas: int = 30, choose: bool = True) -> BaselinePath:
    """The lasso [2]_ on the pooled moments, ``(1/2) w'Gw - q.w + alpha ||w||_1``, by LARS [3]_.

    Runs scikit-learn's ``lars_path_gram``. The path's points are the penalties of a geometric
    grid from the smallest penalty with no feature down to the penalty where LARS has taken
    ``n_steps`` steps; the penalty is chosen by leave-one-domain-out CV (section 5 of [1]_) on
    the held-out domains' squared loss (``choose``).

    Parameters
    ----------
    stats : DomainStatistics
    n_steps : int, default=10
        LARS steps that set the smallest penalty of the grid.
    n_alphas : int, default=30
        Points of the penalty grid.
    choose : bool, default=True

    Returns
    -------
    BaselinePath
        ``parameter`` is the penalty grid (decreasing).

    See Also
    --------
    omp_path, vrex_path, icp_path, t_filter_path : The other baselines.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] R. Tibshirani, "Regression shrinkage and selection via the lasso", Journal of the Royal
           Statistical Society B 58(1):267-288, 1996.
    .. [3] B. Efron, T. Hastie, I. Johnstone and R. Tibshirani, "Least angle regression", Annals of
           Statistics 32(2):407-499, 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import lasso_path
    >>> path = lasso_path(stats, 3, n_alphas=5)
    >>> path.n_selected.tolist(), path.chosen, path.parameter.round(3)
    ([0, 1, 1, 3, 3], 2, array([0.936, 0.258, 0.071, 0.02 , 0.005]))
    """
    _check_stats(stats)
    if not np.any(stats.xy):
        raise ValueError("lasso_path: every E[X_i Y | d_k] is 0 (y is 0, or no feature covaries with it in any "
                         "domain), so the lasso keeps no feature at any penalty and its penalty grid is empty; "
                         "check that the statistics hold the target y")
    alphas, coefs = _lars_lasso(stats, n_steps)
    top, bottom = float(alphas[0]), float(max(alphas[-1], alphas[0] * 1e-4))
    grid = np.geomspace(top, bottom, n_alphas)

    def fit(s):
        a, c = _lars_lasso(s, 4 * n_steps, alpha_min=bottom)  # the grid ends at bottom
        return _lasso_at(a, c, grid)

    W = _lasso_at(alphas, coefs, grid)
    chosen, cv = lodo_choice(stats, fit) if choose else (-1, None)
    return BaselinePath("lasso", W, (W != 0).sum(axis=1), grid, chosen,
                        {"lodo_loss": None if cv is None else cv.tolist()})


# --------------------------------------------------------------------------- V-REx

@_options('coef', 'stats', 'beta', 'ridge')
def vrex_objective(coef, stats: DomainStatistics, beta: float, ridge: float = 0.0) -> tuple[float, np.ndarray]:
    """V-REx's objective [2]_ (eq. 4) on the per-domain moments of [1]_, and its gradient.

    ``mean_k L_k(w) + beta Var_k L_k(w) + ridge ||w||^2`` with
    ``L_k(w) = E[Y^2|d_k] - 2 w.E[XY|d_k] + w' E[XX'|d_k] w``; Var is the population variance
    over the n domains.

    Parameters
    ----------
    coef : array-like (p,)
    stats : DomainStatistics
    beta : float
        Weight of the variance of the domain losses.
    ridge : float, default=0.0

    Returns
    -------
    value : float
    gradient : ndarray (p,)

    See Also
    --------
    vrex_fit : Minimizes it.
    vrex_path : One minimizer per beta, beta chosen by CV.
    domain_losses : The losses L_k.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] D. Krueger, E. Caballero, J.-H. Jacobsen, A. Zhang, J. Binas, D. Zhang, R. Le Priol and
           A. Courville, "Out-of-distribution generalization via risk extrapolation (REx)", ICML 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import vrex_objective
    >>> value, gradient = vrex_objective(np.eye(6)[0], stats, beta=1.0)
    >>> round(value, 3), gradient.shape
    (0.24, (6,))
    """
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
    """Minimize V-REx's objective [2]_ on the moments of [1]_ (L-BFGS from the ridge solution).

    Parameters
    ----------
    stats : DomainStatistics
    beta : float
        Finite and non-negative; 0 returns the ridge solution on the pooled moments.
    ridge : float, optional
        Default: ``RIDGE`` times the mean diagonal of the pooled E[XX'].
    start : array-like (p,), optional
        Starting point (default: the ridge solution).
    max_iter : int, default=500

    Returns
    -------
    ndarray (p,)

    See Also
    --------
    vrex_objective : The objective and its analytic gradient.
    vrex_path : A grid of beta chosen by leave-one-domain-out CV.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] D. Krueger, E. Caballero, J.-H. Jacobsen, A. Zhang, J. Binas, D. Zhang, R. Le Priol and
           A. Courville, "Out-of-distribution generalization via risk extrapolation (REx)", ICML 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import vrex_fit
    >>> round(float(vrex_fit(stats, 0.0)[1]), 2), round(float(vrex_fit(stats, 10.0 / stats.yy.mean())[1]), 2)
    (-0.06, -0.2)
    """
    _check_stats(stats)
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta must be a finite non-negative number, got {beta!r}")
    ridge = _ridge(stats) if ridge is None else float(ridge)
    G, q, _ = pooled_moments(stats)
    if start is None:
        start = np.linalg.solve(G + ridge * np.eye(len(q)), q)
    if beta == 0:
        return np.asarray(start, dtype=np.float64)
    # One BLAS thread: L-BFGS-B calls BLAS on vectors of length p hundreds of times, and a threaded
    # BLAS spends far longer waking and parking its threads than computing (about 20 times the
    # wall-clock and CPU time on a busy 2-core machine; benchmarks/bench_compare.py). Same iterates.
    with threadpool_limits(1, user_api="blas"):
        result = optimize.minimize(vrex_objective, start, args=(stats, beta, ridge), jac=True, method="L-BFGS-B",
                                   options={"maxiter": max_iter})
    return result.x


@_options('stats', 'betas', 'choose', 'max_iter')
def vrex_path(stats: DomainStatistics, betas=VREX_BETAS, *, choose: bool = True, max_iter: int = 30) -> BaselinePath:
    """V-REx [2]_ weights for each beta (in units of 1 / mean E[Y^2]), beta chosen by leave-one-domain-out CV ([1]_, section 5).

    Parameters
    ----------
    stats : DomainStatistics
    betas : sequence of float, default=VREX_BETAS
    choose : bool, default=True
    max_iter : int, default=30
        L-BFGS iterations per beta (each starts from the previous beta's weights).

    Returns
    -------
    BaselinePath
        One point per beta (all features); ``info["ridge"]`` is the ridge used.

    See Also
    --------
    vrex_fit : One beta.
    omp_path, lasso_path, icp_path, t_filter_path : The other baselines.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] D. Krueger, E. Caballero, J.-H. Jacobsen, A. Zhang, J. Binas, D. Zhang, R. Le Priol and
           A. Courville, "Out-of-distribution generalization via risk extrapolation (REx)", ICML 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import vrex_path
    >>> path = vrex_path(stats, betas=(0.0, 10.0))
    >>> path.parameter.tolist(), path.chosen, path.coef[:, 0].round(2)
    ([0.0, 10.0], 0, array([0.99, 0.96]))
    """
    _check_stats(stats)
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

    W = fit(stats)
    chosen, cv = lodo_choice(stats, fit) if choose else (-1, None)
    return BaselinePath("vrex", W, (W != 0).sum(axis=1), betas, chosen,
                        {"lodo_loss": None if cv is None else cv.tolist(), "ridge": _ridge(stats)})


# --------------------------------------------------------------------------- ICP-style filter

@_options('stats')
def icp_pvalues(stats: DomainStatistics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Invariance test in the spirit of ICP [2]_: homogeneity of each feature's per-domain slope, on the moments of [1]_.

    Per domain k and feature i: slope ``b_ki = E[X_i Y|d_k] / E[X_i^2|d_k]`` (no intercept) with
    variance ``v_ki = (E[Y^2|d_k] - b_ki^2 E[X_i^2|d_k]) / (m_k E[X_i^2|d_k])`` from the domain's
    ``m_k`` samples. Cochran's Q ``sum_k (b_ki - b_i)^2 / v_ki`` around the inverse-variance mean
    ``b_i`` is chi-square with n - 1 df when the slopes are equal.

    Parameters
    ----------
    stats : DomainStatistics
        With ``counts`` (samples per domain).

    Returns
    -------
    pvalue : ndarray (p,)
        Of the test that the slopes are equal (small: the domains disagree).
    pooled_slope : ndarray (p,)
    pooled_z : ndarray (p,)
        ``b_i / sqrt(1 / sum_k 1/v_ki)``.

    See Also
    --------
    icp_path : Keeps the features this test cannot reject.
    icp_selection_path : The same as a selector.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] J. Peters, P. Buehlmann and N. Meinshausen, "Causal inference by using invariant prediction:
           identification and confidence intervals", Journal of the Royal Statistical Society B
           78(5):947-1012, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import icp_pvalues
    >>> pvalue, slope, z = icp_pvalues(stats)
    >>> pvalue.round(3)                  # feature 1's slope differs across domains
    array([0.639, 0.   , 0.444, 0.647, 0.441, 0.095])
    >>> slope.round(2)[:2]
    array([ 1.01, -0.09])
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


@_options('stats', 'n_steps', 'alpha', 'choose')
def icp_path(stats: DomainStatistics, n_steps: int = 10, *, alpha: float = 0.05, choose: bool = True) -> BaselinePath:
    """ICP-style invariance filter [2]_ on the moments of [1]_: invariant features by pooled |z|, marginal weights.

    Keeps the features whose slopes :func:`icp_pvalues` cannot tell apart at level ``alpha``,
    adds them in order of pooled |z|, each with its marginal weight ``mu_i / E[X_i^2]``; the
    number kept is chosen by leave-one-domain-out CV (``choose``).

    Parameters
    ----------
    stats : DomainStatistics
        With ``counts``.
    n_steps : int, default=10
    alpha : float, default=0.05
    choose : bool, default=True

    Returns
    -------
    BaselinePath
        ``info["n_invariant"]`` counts the features kept.

    See Also
    --------
    icp_pvalues : The test.
    omp_path, lasso_path, vrex_path, t_filter_path : The other baselines.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] J. Peters, P. Buehlmann and N. Meinshausen, "Causal inference by using invariant prediction:
           identification and confidence intervals", Journal of the Royal Statistical Society B
           78(5):947-1012, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import icp_path
    >>> path = icp_path(stats, 2)
    >>> path.info["n_invariant"], np.flatnonzero(path.coef[0]).tolist(), path.chosen
    (5, [0], 0)
    """
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

@_options('stats', 'n_steps', 'choose')
def t_filter_path(stats: DomainStatistics, n_steps: int = 10, *, choose: bool = True) -> BaselinePath:
    """The univariate T filter: rank once by |T| of ``E[X_i Y|d_k]`` (section 3.1 of [1]_ with w = 0).

    Features are added in that order with their marginal weights ``mu_i / E[X_i^2]``
    (T-greedy's first-step weight), without residuals; the number kept is chosen by
    leave-one-domain-out CV (``choose``).

    Parameters
    ----------
    stats : DomainStatistics
    n_steps : int, default=10
    choose : bool, default=True

    Returns
    -------
    BaselinePath

    See Also
    --------
    t_filter_selection_path : The same as a selector.
    omp_path, lasso_path, vrex_path, icp_path : The other baselines.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import t_filter_path
    >>> path = t_filter_path(stats, 2)
    >>> path.n_selected.tolist(), int(np.flatnonzero(path.coef[0])[0]), path.chosen
    ([1, 2], 0, 0)
    """
    def order_of(s):
        t = t_statistic(s.xy)
        return np.argsort(-np.abs(t), kind="stable")[:n_steps]

    W = _marginal_path(stats, order_of(stats), n_steps)
    chosen, cv = lodo_choice(stats, lambda s: _marginal_path(s, order_of(s), n_steps)) if choose else (-1, None)
    return BaselinePath("t_filter", W, (W != 0).sum(axis=1), np.arange(1, n_steps + 1), chosen,
                        {"lodo_loss": None if cv is None else cv.tolist()})


#: The baselines by name: ``{name: function(stats, n_steps, **options) -> BaselinePath}`` (``vrex`` takes no
#: ``n_steps``); OMP [2]_, the lasso by LARS [3]_ [4]_, V-REx [5]_, the ICP-style filter [6]_, the T filter ([1]_, 3.1).
BASELINES = {"omp": omp_path, "lasso": lasso_path, "vrex": vrex_path, "icp": icp_path, "t_filter": t_filter_path}


@_options('stats', 'n_steps')
def run_baseline(name: str, stats: DomainStatistics, n_steps: int = 10, **options) -> BaselinePath:
    """Run one of :data:`BASELINES` by name (the comparisons beyond section 4 of [1]_).

    Parameters
    ----------
    name : {"omp", "lasso", "vrex", "icp", "t_filter"}
    stats : DomainStatistics
    n_steps : int, default=10
        Ignored by ``vrex`` (one point per beta).
    **options
        Passed to the baseline's function.

    Returns
    -------
    BaselinePath

    See Also
    --------
    omp_path, lasso_path, vrex_path, icp_path, t_filter_path : The baselines.
    run_baseline : Any of them by name.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import run_baseline
    >>> path = run_baseline("omp", stats, 3, choose=False)
    >>> path.name, path.chosen
    ('omp', -1)
    """
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; choose from {sorted(BASELINES)}")
    if name == "vrex":
        return vrex_path(stats, **options)
    return BASELINES[name](stats, n_steps, **options)


# --------------------------------------------------------------------------- as selectors

@_options('stats', 'method', 'coef', 'features', 'options')
def as_selection_path(stats: DomainStatistics, method: str, coef: np.ndarray, features, options=None) -> SelectionPath:
    """Wrap weights that add one feature a step as a :class:`~.selection.SelectionPath` (T as in section 3.1 of [1]_).

    ``features[s]`` is the feature added at step s and ``coef[s]`` the weights after it. The
    recorded T-statistic, mu and sigma are those of the added feature on the residual covariances
    before the step (as T-greedy records them), so the stopping rules of :mod:`.stopping` apply.

    Parameters
    ----------
    stats : DomainStatistics
    method : str
        Name recorded in the path.
    coef : array-like (n_steps, p)
    features : sequence of int (n_steps,)
    options : dict, optional

    Returns
    -------
    SelectionPath

    See Also
    --------
    omp_selection_path, icp_selection_path, t_filter_selection_path : Use it.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import as_selection_path
    >>> path = as_selection_path(stats, "first_feature", np.eye(6)[:1], [0])
    >>> path.features.tolist(), path.t_statistic.round(2)
    ([0], array([27.91]))
    """
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


def _entering(coef: np.ndarray) -> np.ndarray:
    """The feature that becomes nonzero at each row (the largest new weight when several do)."""
    out, before = [], np.zeros(coef.shape[1], dtype=bool)
    for row in coef:
        new = np.flatnonzero((row != 0) & ~before)
        if new.size == 0:
            break
        out.append(int(new[np.argmax(np.abs(row[new]))]))
        before |= row != 0
    return np.asarray(out, dtype=np.intp)


@_options('stats', 'n_steps')
def omp_selection_path(stats: DomainStatistics, n_steps: int = 10) -> SelectionPath:
    """OMP [2]_ on the pooled moments as a selector (``get_selector("omp")``), T recorded as in [1]_.

    Parameters
    ----------
    stats : DomainStatistics
    n_steps : int, default=10

    Returns
    -------
    SelectionPath

    See Also
    --------
    omp_path : The baseline with its CV choice.
    icp_selection_path, t_filter_selection_path : The other selectors here.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] Y. C. Pati, R. Rezaiifar and P. S. Krishnaprasad, "Orthogonal matching pursuit: recursive
           function approximation with applications to wavelet decomposition", Proc. 27th Asilomar
           Conference on Signals, Systems and Computers, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import omp_selection_path
    >>> path = omp_selection_path(stats, 3)
    >>> path.features.tolist(), path.t_statistic.round(2)
    ([0, 1, 3], array([27.91, -0.3 ,  1.36]))
    """
    W = _omp_coefs(stats, n_steps)
    order = _entering(W)
    return as_selection_path(stats, "omp", W[:len(order)], order)


@_options('stats', 'n_steps')
def t_filter_selection_path(stats: DomainStatistics, n_steps: int = 10) -> SelectionPath:
    """The univariate T filter (section 3.1 of [1]_, w = 0) as a selector (``get_selector("t_filter")``).

    Parameters
    ----------
    stats : DomainStatistics
    n_steps : int, default=10

    Returns
    -------
    SelectionPath

    See Also
    --------
    t_filter_path : The baseline with its CV choice.
    omp_selection_path, icp_selection_path : The other selectors here.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import t_filter_selection_path
    >>> t_filter_selection_path(stats, 2).features.tolist()
    [0, 2]
    """
    t = t_statistic(stats.xy)
    order = np.argsort(-np.abs(t), kind="stable")[:n_steps]
    return as_selection_path(stats, "t_filter", _marginal_path(stats, order, n_steps), order)


@_options('stats', 'n_steps', 'alpha')
def icp_selection_path(stats: DomainStatistics, n_steps: int = 10, *, alpha: float = 0.05) -> SelectionPath:
    """The ICP-style invariance filter [2]_ as a selector (``get_selector("icp")``), T recorded as in [1]_.

    Fewer than ``n_steps`` steps when fewer features pass the invariance test.

    Parameters
    ----------
    stats : DomainStatistics
        With ``counts``.
    n_steps : int, default=10
    alpha : float, default=0.05

    Returns
    -------
    SelectionPath

    See Also
    --------
    icp_path : The baseline with its CV choice.
    icp_pvalues : The invariance test.
    omp_selection_path, t_filter_selection_path : The other selectors here.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] J. Peters, P. Buehlmann and N. Meinshausen, "Causal inference by using invariant prediction:
           identification and confidence intervals", Journal of the Royal Statistical Society B
           78(5):947-1012, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> data = []
    >>> for k in range(5):     # feature 0 helps equally everywhere, feature 1's slope varies by domain
    ...     X = rng.standard_normal((200, 6))
    ...     data.append((X, X[:, 0] + (0.5 + rng.standard_normal()) * X[:, 1] + 0.1 * rng.standard_normal(200)))
    >>> stats = DomainStatistics.from_domains(data, lazy=False)
    >>> from tgreedy_lib.domain_adaptation.baselines import icp_selection_path
    >>> icp_selection_path(stats, 2).features.tolist()
    [0, 2]
    """
    pvalue, _, z = icp_pvalues(stats)
    keep = np.flatnonzero(pvalue >= alpha)
    order = keep[np.argsort(-np.abs(z[keep]), kind="stable")][:n_steps]
    return as_selection_path(stats, "icp", _marginal_path(stats, order, n_steps)[:len(order)], order,
                             {"alpha": alpha})


# --------------------------------------------------------------------------- any scale: exact power-of-two rescaling

#: The baselines run on the moments as given while the root mean squares of X (over the features) and of
#: y lie within 2**-SCALE_BAND .. 2**SCALE_BAND (1/256 .. 256); past it they run on moments rescaled by
#: powers of two (the lasso chose another penalty at y x 1e-5 before).
SCALE_BAND = 8


def _power_of_two_exponents(stats: DomainStatistics) -> tuple[int, int]:
    """``(a, b)``: X's and y's root mean squares are about ``2**a`` and ``2**b`` (0 where within the band)."""
    x_square = float(np.mean(stats.second_moment("sample")))
    y_square = float(np.mean(stats.yy))
    a = int(round(0.5 * math.log2(x_square))) if x_square > 0 and math.isfinite(x_square) else 0
    b = int(round(0.5 * math.log2(y_square))) if y_square > 0 and math.isfinite(y_square) else 0
    if abs(a) <= SCALE_BAND and abs(b) <= SCALE_BAND:
        return 0, 0
    return a, b


def _rescaled(stats: DomainStatistics, a: int, b: int) -> DomainStatistics:
    """The moments of ``X / 2**a`` and ``y / 2**b``: exact (a power of two changes the exponent only)."""
    unlabeled = None if stats.unlabeled_xx is None else np.ldexp(stats.unlabeled_xx, -2 * a)
    return DomainStatistics.from_moments(np.ldexp(stats.xx, -2 * a), np.ldexp(stats.xy, -(a + b)),
                                         np.ldexp(stats.yy, -2 * b), counts=stats.counts,
                                         labels=stats.domain_labels, unlabeled_xx=unlabeled)


def _at_any_scale(function, parameter_power: int = 0, info_powers=None):
    """``function(stats, ...)`` run on the moments rescaled by powers of two when X or y lies far from 1.

    Every baseline is meant to be invariant to a common rescaling of X and of y (the lasso's and OMP's
    weights scale as ``2**(b - a)``, V-REx's penalties are in units of 1 / E[Y^2] and its ridge in units
    of E[X^2]), but their solvers hold absolute tolerances and square the losses: at y x 1e-60 OMP
    selected nothing, at y x 1e150 the lasso nothing. Run on ``X / 2**a`` and ``y / 2**b`` (exact) and
    scaled back (exact), each gives at any scale what it gives at scale 1. ``parameter_power`` and
    ``info_powers`` say how the path's parameter and info entries scale: as ``2**(a * i + b * j)``.
    """
    import functools

    info_powers = {"lodo_loss": (0, 2)} if info_powers is None else info_powers

    @functools.wraps(function)
    def run(stats, *args, **kwargs):
        if not isinstance(stats, DomainStatistics):
            return function(stats, *args, **kwargs)
        a, b = _power_of_two_exponents(stats)
        if a == 0 and b == 0:
            return function(stats, *args, **kwargs)
        path = function(_rescaled(stats, a, b), *args, **kwargs)
        info = dict(path.info)
        for key, (i, j) in info_powers.items():
            if info.get(key) is not None:
                info[key] = np.ldexp(np.asarray(info[key], dtype=np.float64), a * i + b * j).tolist()
                if np.ndim(path.info[key]) == 0:
                    info[key] = float(info[key])
        parameter = path.parameter
        if parameter_power:
            parameter = np.ldexp(np.asarray(parameter, dtype=np.float64), (a + b) * parameter_power)
        return BaselinePath(path.name, np.ldexp(path.coef, b - a), path.n_selected, parameter, path.chosen, info)

    return run


omp_path = _at_any_scale(omp_path)   # its fits rescale themselves (_omp_coefs); its held-out losses here
lasso_path = _at_any_scale(lasso_path, parameter_power=1)   # the penalty scales as E[X Y]
vrex_path = _at_any_scale(vrex_path, info_powers={"lodo_loss": (0, 2), "ridge": (2, 0)})
icp_path = _at_any_scale(icp_path)
t_filter_path = _at_any_scale(t_filter_path)
BASELINES = {"omp": omp_path, "lasso": lasso_path, "vrex": vrex_path, "icp": icp_path, "t_filter": t_filter_path}
