"""When to stop adding features: the three rules the paper's Discussion names (section 5).

Foster, Kakade & Salakhutdinov (2012), section 5: "One option is to simply keep yet another domain
held out for crossvalidation and cycle through. Alternatively, we can use properties of the
T-statistic to get a handle on when to stop (e.g. when the T-statistics is behaving like chance).
Here, Bonferoni can also be used as a heuristic to decide how many variables to use." The paper
tests none of them; this module implements each on any :class:`~.selection.SelectionPath`:

``"lodo"``
    Leave one domain out: for each source domain k, run the same selector on the other n - 1
    domains, score every step on domain k (its squared loss from the moments
    ``E[Y^2|d_k] - 2 w.E[XY|d_k] + w' E[XX'|d_k] w``, or any score of its samples, e.g. AUROC),
    and pick the k with the best mean held-out score.
``"bonferroni"``
    Keep adding while the chosen feature's |T| exceeds the two-sided Student t quantile with
    n - 1 degrees of freedom at level alpha / p (the exact Bonferroni width for Gaussian effects).
``"theorem1"``
    The same with Theorem 1's width ``sqrt(4 log(2p / alpha))`` (section 3.1), valid for any
    symmetric law of the domain effects, and stricter.
``"chance"``
    Keep adding while the chosen |T| is above the ``1 - alpha`` quantile of max_i |T_i| over the
    features still available *under the null hypothesis that none of them helps*. The null law
    comes from sign flips of the per-domain residual covariance vectors: when every
    ``E[X_i (Y - w.X) | d_k]`` is symmetric about 0 (Theorem 2's assumption with mean 0), flipping
    the sign of domain k's whole vector leaves their joint law unchanged, correlations between
    features included. With ``null="gaussian"`` the null is simulated instead: p independent
    Gaussian features, i.e. max of p independent |t_{n-1}| variables.

Each rule returns a :class:`StoppingResult`: the chosen number of steps ``k`` (0 = no feature) and
its evidence (thresholds, per-step statistics, held-out curves).

Examples
--------
>>> import numpy as np
>>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
>>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
>>> from tgreedy_lib.domain_adaptation.stopping import choose_k
>>> rng = np.random.default_rng(0)
>>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
>>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
>>> path = tgreedy_path(stats, 10)
>>> choose_k(path, stats, rule="bonferroni").k
3

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
       Approach", AISTATS 2012: section 5 (Discussion) names the rules; Theorem 1 (section 3.1)
       gives the ``theorem1`` width; Theorem 2's symmetry justifies the sign-flip null.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from numbers import Integral, Real
from typing import Callable

import numpy as np
from scipy import stats as scipy_stats
from sklearn.utils._param_validation import Interval, StrOptions

from .._validation import validate_options
from .selection import SelectionPath
from .selectors import available_selectors, get_selector
from .statistics import DomainStatistics
from .theory.t_bounds import paper_factor

__all__ = [
    "RULES",
    "StoppingResult",
    "choose_k",
    "bonferroni_threshold",
    "theorem1_threshold",
    "sign_flip_max_t",
    "gaussian_max_t",
    "stop_bonferroni",
    "stop_chance",
    "stop_lodo",
    "moment_squared_loss",
    "residual_path",
    "lodo_paths",
]

#: The rules by name, and the options each takes through a selector's ``stopping={"rule": ..., **options}``
#: (:mod:`.estimators` checks ``stopping=`` against them).
_STOPPING_RULES = ("lodo", "bonferroni", "theorem1", "chance")
_STOPPING_OPTIONS = {
    "lodo": ("score", "min_k", "progress"),
    "bonferroni": ("alpha",),
    "theorem1": ("alpha",),
    "chance": ("alpha", "null", "n_flips", "seed"),
}


#: A seed: a non-negative integer, a numpy Generator (or what ``numpy.random.default_rng`` takes), or None.
_SEED_CONSTRAINT = [Interval(Integral, 0, None, closed="left"), np.random.Generator, np.random.SeedSequence,
                    np.random.BitGenerator, None]
#: The declared constraints of the rules' options (scikit-learn's ``_parameter_constraints`` style), the one
#: definition: the selectors check ``stopping={...}`` against them, and this module decorates its functions
#: with them (:func:`tgreedy_lib._validation.validate_options`).
_STOPPING_CONSTRAINTS = {
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "null": [StrOptions({"sign_flip", "gaussian"})],
    "n_flips": [Interval(Integral, 1, None, closed="left")],
    "seed": _SEED_CONSTRAINT,
    "score": [StrOptions({"squared_loss"}), callable],
    "min_k": [Interval(Integral, 0, None, closed="left")],
    "progress": [callable, "boolean", None],
}

#: The rules by name (section 5 of the paper names the ideas; the thresholds are ours).
RULES = _STOPPING_RULES
RULE_OPTIONS, RULE_CONSTRAINTS = _STOPPING_OPTIONS, _STOPPING_CONSTRAINTS  # read by the selectors' stopping=

#: The declared constraints of every option of this module's functions (checked before they run, each wrong
#: option named): the rules' options are the selectors' (``_STOPPING_CONSTRAINTS``), the rest are declared here.
_CONSTRAINTS = {
    **_STOPPING_CONSTRAINTS,
    "path": [SelectionPath],
    "stats": [DomainStatistics],
    "n_domains": [Interval(Integral, 2, None, closed="left")],
    "n_features": [Interval(Integral, 1, None, closed="left")],
    "variant": [StrOptions({"t", "theorem1"})],
    "n_steps": [Interval(Integral, 0, None, closed="left"), None],
    "residual_covariances": ["array-like"],
    "exclude": ["array-like", None],
    "n_draws": [Interval(Integral, 1, None, closed="left")],
    "full": ["boolean"],
    "coef": ["array-like"],
    "path_function": [callable, None],
    "rule": [StrOptions(set(_STOPPING_RULES))],
}


def _options(*names):
    """:func:`validate_options` with the constraints of ``names`` (one declaration for the whole module)."""
    return validate_options({name: _CONSTRAINTS[name] for name in names})


@dataclasses.dataclass(frozen=True)
class StoppingResult:
    """The number of steps a stopping rule of section 5 of [1]_ keeps, with its evidence.

    Attributes
    ----------
    rule : str
        One of :data:`RULES`.
    k : int
        Steps kept (0 means no feature at all; the path's first ``k`` steps otherwise).
    evidence : dict
        What the decision rests on; the keys depend on the rule (``threshold``, ``abs_t``,
        ``null_quantile``, ``held_out`` ...), all JSON-ready.

    See Also
    --------
    choose_k : Returns one of these for any rule.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import choose_k
    >>> result = choose_k(path, stats, rule="bonferroni")
    >>> result.rule, result.k, round(result.evidence["threshold"], 3)
    ('bonferroni', 3, 4.944)
    >>> result.coef(path)[:5].round(3)
    array([0.993, 1.014, 1.005, 0.   , 0.   ])
    """

    rule: str
    k: int
    evidence: dict

    def coef(self, path: SelectionPath) -> np.ndarray:
        """The weights after ``k`` steps of ``path`` (zeros for k = 0)."""
        if self.k == 0:
            return np.zeros(path.n_features)
        return path.coef[self.k - 1].copy()


def _check_alpha(alpha) -> float:
    return float(alpha)  # declared: a number in (0, 1)


def _check_path(path, stats: DomainStatistics | None = None) -> None:
    if not isinstance(path, SelectionPath):
        raise TypeError(f"expected a SelectionPath, got {type(path).__name__}")
    if stats is not None:
        if not isinstance(stats, DomainStatistics):
            raise TypeError(f"expected DomainStatistics, got {type(stats).__name__}")
        if stats.n_features != path.n_features:
            raise ValueError(f"the path has {path.n_features} features but the statistics have {stats.n_features}; "
                             "pass the statistics the path was computed from")


def _first_failure(passes: np.ndarray) -> int:
    """Number of leading True entries."""
    fails = np.flatnonzero(~np.asarray(passes, dtype=bool))
    return int(fails[0]) if fails.size else int(len(passes))


# --------------------------------------------------------------------------- Bonferroni / Theorem 1

@_options('n_domains', 'n_features', 'alpha')
def bonferroni_threshold(n_domains: int, n_features: int, alpha: float = 0.05) -> float:
    """Bonferroni threshold for |T| (section 5 of [1]_): the t_{n-1} quantile at ``1 - alpha / (2 p)``.

    A feature with no effect has (for Gaussian domain effects) |T| above it with probability
    ``alpha / p``; so among p such features, one passes with probability at most ``alpha``.

    Parameters
    ----------
    n_domains : int
        Number n of training domains (at least 2); the t law has n - 1 degrees of freedom.
    n_features : int
        Number p of candidate features.
    alpha : float, default=0.05
        Family-wise level, in (0, 1).

    Returns
    -------
    float
        The two-sided threshold for |T|.

    See Also
    --------
    theorem1_threshold : Theorem 1's distribution-free width, larger.
    stop_bonferroni : Stops at the first chosen |T| below either threshold.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> from tgreedy_lib.domain_adaptation.stopping import bonferroni_threshold
    >>> round(bonferroni_threshold(8, 30, alpha=0.05), 3)
    4.944
    """
    if int(n_domains) != n_domains or n_domains < 2:
        raise ValueError(f"n_domains must be an integer of at least 2, got {n_domains!r}")
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    alpha = _check_alpha(alpha)
    return float(scipy_stats.t.isf(alpha / (2.0 * n_features), int(n_domains) - 1))


@_options('n_features', 'alpha')
def theorem1_threshold(n_features: int, alpha: float = 0.05) -> float:
    """Theorem 1's width (section 3.1 of [1]_) in units of sigma/sqrt(n): ``sqrt(4 log(2 p / alpha))``.

    Valid for any symmetric law of the domain effects (Theorem 2), so stricter than
    :func:`bonferroni_threshold`; section 5 of [1]_ suggests such a threshold as the stopping rule.

    Parameters
    ----------
    n_features : int
        Number p of candidate features.
    alpha : float, default=0.05
        Family-wise level, in (0, 1).

    Returns
    -------
    float

    See Also
    --------
    bonferroni_threshold : The Gaussian-effects (t quantile) threshold.
    stop_bonferroni : Uses either threshold with ``variant=``.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> from tgreedy_lib.domain_adaptation.stopping import theorem1_threshold
    >>> round(theorem1_threshold(30, alpha=0.05), 3)
    5.325
    """
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    return float(paper_factor(int(n_features), _check_alpha(alpha)))


@_options('path', 'n_domains', 'alpha', 'variant')
def stop_bonferroni(path: SelectionPath, n_domains: int, *, alpha: float = 0.05, variant: str = "t") -> StoppingResult:
    """Bonferroni stopping (section 5 of [1]_): keep the leading steps whose |T| clears the threshold.

    The threshold is :func:`bonferroni_threshold` (``variant="t"``) or Theorem 1's
    :func:`theorem1_threshold` (``variant="theorem1"``).

    Parameters
    ----------
    path : SelectionPath
        Any path; its ``t_statistic`` (the chosen feature's T when it was chosen) is used.
    n_domains : int
        The number n of training domains of the path.
    alpha : float, default=0.05
        Family-wise level over the p candidate features.
    variant : {"t", "theorem1"}, default="t"
        ``"t"``: the t_{n-1} quantile at ``1 - alpha/(2p)``; ``"theorem1"``: ``sqrt(4 log(2p/alpha))``.

    Returns
    -------
    StoppingResult
        ``rule`` is ``"bonferroni"`` or ``"theorem1"``; ``evidence`` holds ``threshold`` and ``abs_t``.

    See Also
    --------
    stop_chance : The data-driven null of max |T| instead of a fixed threshold.
    stop_lodo : Leave one domain out instead of a test.
    choose_k : Any rule by name.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import stop_bonferroni
    >>> stop_bonferroni(path, 8).k, stop_bonferroni(path, 8, variant="theorem1").k
    (3, 3)
    """
    _check_path(path)
    if variant == "t":
        threshold = bonferroni_threshold(n_domains, path.n_features, alpha)
    elif variant == "theorem1":
        threshold = theorem1_threshold(path.n_features, alpha)
    else:
        raise ValueError(f"variant must be 't' or 'theorem1', got {variant!r}")
    abs_t = np.abs(path.t_statistic)
    k = _first_failure(abs_t > threshold)
    return StoppingResult("bonferroni" if variant == "t" else "theorem1", k, {
        "threshold": threshold, "alpha": alpha, "n_domains": int(n_domains), "n_features": path.n_features,
        "abs_t": abs_t.tolist()})


# --------------------------------------------------------------------------- behaving like chance

@_options('stats', 'path', 'n_steps')
def residual_path(stats: DomainStatistics, path: SelectionPath, n_steps: int | None = None):
    """The residual covariances ``E[X (Y - w.X) | d_k]`` (section 3 of [1]_) before each step of ``path``.

    A generator of arrays of shape (n_domains, n_features), updated incrementally, reading only
    the Gram rows of features whose weight changed.

    Parameters
    ----------
    stats : DomainStatistics
        The statistics the path was computed from.
    path : SelectionPath
    n_steps : int, optional
        Yield this many (default: all steps of the path).

    Yields
    ------
    ndarray of shape (n_domains, n_features)
        The residual covariances before step 0, 1, ...

    See Also
    --------
    stop_chance : Tests each step on these.
    sign_flip_max_t : The null law of max |T| computed from them.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import residual_path
    >>> residuals = list(residual_path(stats, path, 4))
    >>> len(residuals), residuals[0].shape
    (4, (8, 30))
    >>> float(np.abs(residuals[3][:, :3]).max().round(3))      # the three robust features are explained
    0.101
    """
    _check_path(path, stats)
    n_steps = path.n_steps if n_steps is None else min(int(n_steps), path.n_steps)
    residual = np.array(stats.xy, dtype=np.float64)
    previous = np.zeros(path.n_features)
    for step in range(n_steps):
        yield residual
        delta = path.coef[step] - previous
        for i in np.flatnonzero(delta):
            residual = residual - delta[i] * stats.gram_row(int(i))
        previous = path.coef[step]


def _sign_patterns(n: int, n_flips: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Sign vectors (B, n): all 2^(n-1) up to a global sign when that many fit in n_flips, else random."""
    if 2 ** (n - 1) <= n_flips:
        rows = np.array(list(itertools.product((1.0, -1.0), repeat=n - 1)))
        return np.column_stack([np.ones(len(rows)), rows]), True
    return rng.choice((-1.0, 1.0), size=(int(n_flips), n)), False


@_options('residual_covariances', 'exclude', 'n_flips', 'seed')
def sign_flip_max_t(residual_covariances, *, exclude=None, n_flips: int = 1024, seed=0):
    """Null draws of max_i |T_i| by sign flips of the per-domain vectors (Theorem 2's symmetry, [1]_).

    For each sign vector eps in {-1, +1}^n, the values ``eps_k r_k,i`` replace ``r_k,i`` and the
    largest |T_i| over the features not in ``exclude`` is recorded. Under the null hypothesis that
    every ``r_k`` is symmetric about 0, these draws have the law of the observed max |T|, given
    the magnitudes. All ``2^(n-1)`` sign vectors (|T| is unchanged by a global flip) are used
    when they are at most ``n_flips``; otherwise ``n_flips`` random ones.

    Parameters
    ----------
    residual_covariances : array-like (n_domains, n_features)
    exclude : array of int or bool mask, optional
        Features left out of the maximum (e.g. those already chosen).
    n_flips : int, default=1024
    seed : int or numpy.random.Generator, default=0

    Returns
    -------
    ndarray of shape (n_patterns,)
        max |T| for each sign vector.

    See Also
    --------
    gaussian_max_t : The same null simulated for independent Gaussian features.
    stop_chance : Stops when the chosen |T| is inside this null law.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.stopping import sign_flip_max_t
    >>> r = np.random.default_rng(0).standard_normal((8, 27))      # 8 domains, 27 null features
    >>> draws = sign_flip_max_t(r, n_flips=1024)                    # all 2^7 sign vectors
    >>> draws.shape
    (128,)
    """
    r = np.asarray(residual_covariances, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] < 2:
        raise ValueError(f"residual_covariances must have shape (n_domains >= 2, n_features), got {r.shape}")
    if int(n_flips) != n_flips or n_flips < 1:
        raise ValueError(f"n_flips must be a positive integer, got {n_flips!r}")
    keep = np.ones(r.shape[1], dtype=bool)
    if exclude is not None:
        exclude = np.asarray(exclude)
        if exclude.dtype == bool:
            keep &= ~exclude
        else:
            keep[exclude.astype(np.intp)] = False
    if not keep.any():
        raise ValueError("every feature is excluded; there is no maximum to take")
    r = r[:, keep]
    n = r.shape[0]
    rng = np.random.default_rng(seed)
    signs, _ = _sign_patterns(n, int(n_flips), rng)
    sum_sq = np.einsum("ki,ki->i", r, r)
    out = np.empty(len(signs))
    for start in range(0, len(signs), 256):
        block = signs[start:start + 256]
        mean = block @ r / n  # (B, p)
        var = np.maximum(sum_sq[None, :] - n * mean**2, 0.0) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(mean) * math.sqrt(n) / np.sqrt(var)
        t[(var == 0) & (mean == 0)] = 0.0
        t[(var == 0) & (mean != 0)] = np.inf
        out[start:start + 256] = t.max(axis=1)
    return out


@_options('n_domains', 'n_features', 'n_draws', 'seed')
def gaussian_max_t(n_domains: int, n_features: int, *, n_draws: int = 2000, seed=0) -> np.ndarray:
    """Simulated null draws of max |T| over independent Gaussian null features (section 5 of [1]_).

    Each draw is the largest of ``n_features`` independent |t_{n-1}| variables.

    Parameters
    ----------
    n_domains : int
        Number n of domains (at least 2).
    n_features : int
        Number of null features in the maximum.
    n_draws : int, default=2000
    seed : int or numpy.random.Generator, default=0

    Returns
    -------
    ndarray of shape (n_draws,)

    See Also
    --------
    sign_flip_max_t : The null law from the data's own sign flips.
    bonferroni_threshold : A union-bound version of this quantile.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.stopping import gaussian_max_t
    >>> draws = gaussian_max_t(8, 27, n_draws=2000, seed=0)
    >>> draws.shape, round(float(np.quantile(draws, 0.95)), 3)
    ((2000,), 4.792)
    """
    if int(n_domains) != n_domains or n_domains < 2:
        raise ValueError(f"n_domains must be an integer of at least 2, got {n_domains!r}")
    rng = np.random.default_rng(seed)
    # |t_{n-1}| draws directly: the max of p of them per draw.
    t = np.abs(rng.standard_t(int(n_domains) - 1, size=(int(n_draws), int(n_features))))
    return t.max(axis=1)


@_options('path', 'stats', 'alpha', 'null', 'n_flips', 'seed', 'full')
def stop_chance(path: SelectionPath, stats: DomainStatistics, *, alpha: float = 0.05, null: str = "sign_flip",
                n_flips: int = 1024, seed=0, full: bool = False) -> StoppingResult:
    """Stop when the chosen |T| behaves like chance (section 5 of [1]_; null law from Theorem 2).

    Step s is kept while the chosen feature's |T| exceeds the ``1 - alpha`` quantile of the null
    law of max |T| over the features still available (not chosen before step s); the null law is
    recomputed at each step from that step's residual covariances (``null="sign_flip"``) or
    simulated once (``null="gaussian"``). With ``full=True`` the quantiles of every step are
    computed (for plots); the chosen k is the same.

    Parameters
    ----------
    path : SelectionPath
    stats : DomainStatistics
        The statistics the path was computed from.
    alpha : float, default=0.05
    null : {"sign_flip", "gaussian"}, default="sign_flip"
    n_flips : int, default=1024
        Passed to :func:`sign_flip_max_t`.
    seed : int or numpy.random.Generator, default=0
    full : bool, default=False

    Returns
    -------
    StoppingResult
        ``evidence`` holds ``null_quantile`` (one per step examined) and ``abs_t``.

    See Also
    --------
    sign_flip_max_t, gaussian_max_t : The null laws.
    stop_bonferroni : A fixed threshold instead.
    stop_lodo : Leave one domain out instead.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import stop_chance
    >>> result = stop_chance(path, stats, n_flips=128)
    >>> result.k, [round(q, 2) for q in result.evidence["null_quantile"]]
    (3, [5.35, 5.35, 5.35, 5.21])
    """
    _check_path(path, stats)
    alpha = _check_alpha(alpha)
    if null not in ("sign_flip", "gaussian"):
        raise ValueError(f"null must be 'sign_flip' or 'gaussian', got {null!r}")
    abs_t = np.abs(path.t_statistic)
    n, p = stats.n_domains, stats.n_features
    quantiles: list[float] = []
    k = None
    if null == "gaussian":
        draws = gaussian_max_t(n, p, seed=seed)
        q = float(np.quantile(draws, 1 - alpha))
        quantiles = [q] * path.n_steps
        k = _first_failure(abs_t > q)
    else:
        chosen = np.zeros(p, dtype=bool)
        for step, residual in enumerate(residual_path(stats, path)):
            if chosen.all():
                break
            draws = sign_flip_max_t(residual, exclude=chosen, n_flips=n_flips, seed=seed)
            quantiles.append(float(np.quantile(draws, 1 - alpha)))
            if k is None and not abs_t[step] > quantiles[-1]:
                k = step
                if not full:
                    break
            chosen[path.features[step]] = True
        if k is None:
            k = path.n_steps
    return StoppingResult("chance", int(k), {"alpha": alpha, "null": null, "null_quantile": quantiles,
                                             "abs_t": abs_t.tolist()})


# --------------------------------------------------------------------------- leave one domain out

@_options('stats', 'coef')
def moment_squared_loss(stats: DomainStatistics, coef) -> np.ndarray:
    """Per-domain squared loss from the moments (section 2 of [1]_), ``E[Y^2|d_k] - 2 w.E[XY|d_k] + w' E[XX'|d_k] w``.

    Parameters
    ----------
    stats : DomainStatistics
    coef : array-like of shape (p,) or (m, p)
        One weight vector, or m of them.

    Returns
    -------
    ndarray of shape (n_domains,) or (m, n_domains)

    See Also
    --------
    stop_lodo : Scores held-out domains with this loss.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import moment_squared_loss
    >>> moment_squared_loss(stats, np.zeros(30))
    array([4., 4., 4., 4., 4., 4., 4., 4.])
    >>> moment_squared_loss(stats, path.coef[:3]).shape
    (3, 8)
    """
    coef = np.asarray(coef, dtype=np.float64)
    single = coef.ndim == 1
    W = np.atleast_2d(coef)
    if W.shape[1] != stats.n_features:
        raise ValueError(f"coef has {W.shape[1]} features, the statistics have {stats.n_features}")
    support = np.flatnonzero(np.any(W != 0, axis=0))
    quad = np.zeros((W.shape[0], stats.n_domains))
    if support.size:
        rows = np.stack([stats.gram_row(int(i))[:, support] for i in support], axis=1)  # (n, s, s)
        Ws = W[:, support]
        quad = np.einsum("ms,kst,mt->mk", Ws, rows, Ws)
    loss = stats.yy[None, :] - 2.0 * W @ stats.xy.T + quad
    return loss[0] if single else loss


def _refit_function(path: SelectionPath, path_function):
    """How to refit ``path``'s selector on other domains: ``path_function``, or the registered selector of
    ``path.method`` with the options the path records."""
    if path_function is not None:
        return path_function
    if path.method not in available_selectors():
        raise ValueError(f"no known path function for method {path.method!r}; pass path_function=")
    selector, options = get_selector(path.method), dict(path.options)
    options.pop("n_steps", None)
    if path.method == "greedy":
        options.pop("sign", None)  # greedy's path records the sign it ignores
    return lambda stats, n_steps: selector.run(stats, n_steps, **options)


def lodo_paths(stats: DomainStatistics, n_steps: int, path_function: Callable) -> list:
    """Leave one domain out (section 5 of [1]_): for each domain k, ``(label_k, path fitted on the others)``.

    Parameters
    ----------
    stats : DomainStatistics
        At least 3 domains (2 to fit a T-statistic).
    n_steps : int
    path_function : callable
        ``path_function(stats, n_steps) -> SelectionPath``, e.g. ``tgreedy_path``.

    Returns
    -------
    list of (label, SelectionPath)

    See Also
    --------
    stop_lodo : Scores these paths on their held-out domains.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import lodo_paths
    >>> paths = lodo_paths(stats, 3, tgreedy_path)
    >>> len(paths), paths[0][0], paths[0][1].features.tolist()
    (8, 0, [0, 2, 1])
    """
    if stats.n_domains < 3:
        raise ValueError(f"leave-one-domain-out needs at least 3 domains (2 to fit a T-statistic), got {stats.n_domains}")
    out = []
    for label in stats.domain_labels.tolist():
        others = [lab for lab in stats.domain_labels.tolist() if lab != label]
        out.append((label, path_function(stats.subset(others), n_steps)))
    return out


def _steps_curve(path: SelectionPath, n_steps: int) -> np.ndarray:
    """Weights after 0..n_steps steps (a path that stopped early keeps its last weights)."""
    W = np.zeros((n_steps + 1, path.n_features))
    m = min(path.n_steps, n_steps)
    W[1:m + 1] = path.coef[:m]
    if m < n_steps:
        W[m + 1:] = W[m]
    return W


@_options('path', 'stats', 'score', 'path_function', 'min_k', 'progress')
def stop_lodo(path: SelectionPath, stats: DomainStatistics, *, score: str | Callable = "squared_loss",
              path_function: Callable | None = None, min_k: int = 1, progress=None) -> StoppingResult:
    """Leave one domain out and cycle (section 5 of [1]_): pick k by the mean held-out score.

    Parameters
    ----------
    path : SelectionPath
        The path on all n domains; its length is the largest k considered.
    stats : DomainStatistics
        The statistics the path was fitted on.
    score : "squared_loss" or callable, default="squared_loss"
        ``"squared_loss"``: the held-out domain's squared loss from its moments (lower is better).
        A callable ``score(label, W) -> array (n_steps + 1,)`` scores weight vectors ``W`` (row s =
        weights after s steps) on the samples of domain ``label``, higher is better (e.g. AUROC).
    path_function : callable, optional
        ``path_function(stats, n_steps) -> SelectionPath``; by default the path's own selector and options.
    min_k : int, default=1
        Smallest k considered (at least one feature).
    progress : callable, bool or None, default=None
        Where to report the folds done on a long run: a callable gets one line at a time; ``None``
        writes them to standard error once the run has taken more than
        :data:`LODO_QUIET_SECONDS` seconds (every as many seconds); ``True`` from the start;
        ``False`` never.

    Returns
    -------
    StoppingResult
        ``evidence["mean_held_out"]`` is the mean held-out score after 0..K steps (higher is
        better; the negative loss for ``"squared_loss"``).

    Notes
    -----
    *Cost.* For T-greedy and greedy with the stagewise update (the paper's algorithm; any
    ``sign``, ``denominator``, ``threshold``, ``allow_reselect``) the n leave-one-out paths are not
    refitted one by one: every fold's T-statistics follow from sums over all n domains minus the
    left-out domain's term (:class:`_PooledMoments`), so the run costs time linear in n (a refit per
    fold costs n^2). The choices equal those of refitting on ``stats.subset(others)`` to rounding.
    Other selectors, and a ``path_function``, are refitted fold by fold.

    *Features present in one domain only* (a one-hot site dummy, a rare word) have no second moment
    once that domain is left out: in that fold they are not candidates, which is not an error.

    See Also
    --------
    lodo_paths : The paths fitted without each domain.
    moment_squared_loss : The held-out loss.
    stop_chance, stop_bonferroni : Test-based rules.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import stop_lodo
    >>> result = stop_lodo(path, stats)
    >>> result.k, np.round(result.evidence["mean_held_out"][:5], 2)
    (5, array([-4.  , -3.01, -2.  , -0.98, -0.98]))
    """
    _check_path(path, stats)
    K = path.n_steps
    if K < 1:
        raise ValueError("the path has no steps")
    if not 0 <= min_k <= K:
        raise ValueError(f"min_k must lie in 0..{K}, got {min_k}")
    if stats.n_domains < 3:
        raise ValueError(f"leave-one-domain-out needs at least 3 domains (2 to fit a T-statistic), got {stats.n_domains}")
    report = _Progress(progress, stats.n_domains)
    per_domain = []
    for index, (label, W) in enumerate(_lodo_curves(path, stats, K, path_function)):
        report(index + 1)
        if score == "squared_loss":
            per_domain.append(-_domain_loss(stats, index, W))
        elif callable(score):
            values = np.asarray(score(label, W), dtype=np.float64)
            if values.shape != (K + 1,):
                raise ValueError(f"score must return {K + 1} values (steps 0..{K}), got shape {values.shape}")
            per_domain.append(values)
        else:
            raise ValueError(f"score must be 'squared_loss' or a callable, got {score!r}")
    per_domain = np.asarray(per_domain)
    mean = per_domain.mean(axis=0)
    k = int(min_k + np.argmax(mean[min_k:]))
    name = "squared_loss" if score == "squared_loss" else getattr(score, "__name__", "score")
    return StoppingResult("lodo", k, {"score": name, "higher_is_better": True,
                                      "mean_held_out": mean.tolist(), "held_out": per_domain.tolist(),
                                      "domains": stats.domain_labels.tolist()})


def _domain_loss(stats: DomainStatistics, index: int, W: np.ndarray) -> np.ndarray:
    """Squared loss of each row of W on domain ``index`` (from its moments)."""
    support = np.flatnonzero(np.any(W != 0, axis=0))
    quad = np.zeros(W.shape[0])
    if support.size:
        G = np.stack([stats.gram_row(int(i))[index, support] for i in support])  # (s, s)
        Ws = W[:, support]
        quad = np.einsum("ms,st,mt->m", Ws, G, Ws)
    return stats.yy[index] - 2.0 * W @ stats.xy[index] + quad


# --------------------------------------------------------------------------- leave one domain out, in linear time

#: ``stop_lodo(progress=None)`` stays quiet for this many seconds, then reports every as many.
LODO_QUIET_SECONDS = 10.0
#: Bytes of pooled sums (:class:`_PooledMoments`) kept before the pair sums are dropped and recomputed.
LODO_MEMORY = 256 * 2**20


class _Progress:
    """Reports ``"leave-one-domain-out: fold i of n"`` lines as :func:`stop_lodo`'s ``progress`` says:
    to a callable or (``True``) standard error at most once a second, from the start; by default
    (``None``) to standard error every :data:`LODO_QUIET_SECONDS` once a run has lasted that long."""

    def __init__(self, progress, total: int):
        import sys
        import time

        self.clock, self.total = time.perf_counter, total
        self.start = self.clock()
        if progress is None or progress is True:
            self.write = lambda line: print(line, file=sys.stderr, flush=True)
        else:
            self.write = progress or None
        self.quiet = LODO_QUIET_SECONDS if progress is None else 0.0
        self.every = LODO_QUIET_SECONDS if progress is None else 1.0
        self.last = self.start - self.every

    def __call__(self, done: int) -> None:
        now = self.clock()
        if self.write is None or now - self.start < self.quiet:
            return
        if done == self.total or now - self.last >= self.every:
            self.write(f"leave-one-domain-out: fold {done} of {self.total} ({now - self.start:.1f} s)")
            self.last = now


def _lodo_curves(path: SelectionPath, stats: DomainStatistics, n_steps: int, path_function):
    """``(label, W)`` for each domain in order: the weights after 0..n_steps steps of the path refitted
    without it, from the pooled sums where the path is stagewise T-greedy or greedy, else by refitting."""
    options = dict(path.options)
    if (path_function is None and path.method in ("tgreedy", "greedy")
            and options.get("refit", "stagewise") == "stagewise"):
        pooled = _PooledMoments(stats)
        for k, label in enumerate(stats.domain_labels.tolist()):
            yield label, _fold_path_curve(pooled, k, n_steps, options, path.method)
            if pooled.nbytes() > LODO_MEMORY:
                pooled._C.clear(), pooled._D.clear()
        return
    fit = _refit_function(path, path_function)
    labels = stats.domain_labels.tolist()
    for label in labels:
        others = [lab for lab in labels if lab != label]
        yield label, _steps_curve(fit(stats.subset(others), n_steps), n_steps)


def _half_log2(mean_square: np.ndarray) -> np.ndarray:
    """``round(log2(sqrt(mean_square)))`` (0 where it is 0): the power of two nearest a root mean square."""
    with np.errstate(divide="ignore"):
        out = np.round(0.5 * np.log2(mean_square))
    return np.where(np.isfinite(out), out, 0).astype(np.int64)


class _PooledMoments:
    """Sums over all n domains from which every leave-one-out fold's T-statistics follow (add and subtract).

    With ``c_k(w) = r_k(w) - rbar(w)`` the residual covariances centred on their mean over all n domains
    (``r_k(w) = E[XY|d_k] - E[XX^T|d_k] w``), the sum of squares over all domains is a quadratic in w,

        SS(w) = A - 2 sum_j w_j C_j + sum_jl w_j w_l D_jl,
        A = sum_k xc_k^2,  C_j = sum_k xc_k Gc_kj,  D_jl = sum_k Gc_kj Gc_kl

    (``xc``, ``Gc``: the moments centred over the domains), and leaving domain k out takes away
    ``n / (n - 1) c_k(w)^2``. ``C_j`` and ``D_jl`` are formed once for the features some fold chooses,
    one pass over the n domains each: n folds of K steps then cost O(n K p + K^2 p) a fold, not n^2.
    """

    def __init__(self, stats: DomainStatistics):
        self.stats = stats
        self.n = stats.n_domains
        # The sums square products of moments (E[X_j X_i]^2 ~ x^4): they are formed on X_i / 2**a_i and y / 2**b,
        # each about 1, exactly (powers of two); T-statistics and the picks do not change, the weights scale back.
        diagonal = stats._diagonal
        self.a = _half_log2(diagonal.mean(axis=0))
        self.b = int(_half_log2(np.array([np.mean(stats.yy)]))[0])
        self.xy = np.ldexp(stats.xy, -(self.a + self.b)[None, :])
        self.xy_mean = self.xy.mean(axis=0)
        self.xc = self.xy - self.xy_mean
        self.A = np.einsum("kp,kp->p", self.xc, self.xc)
        self.diagonal = np.ldexp(diagonal, -2 * self.a[None, :])
        self.diagonal_sum = self.diagonal.sum(axis=0)
        self.present = np.count_nonzero(diagonal > 0, axis=0)  # domains where feature i is not all zero
        self.unlabeled_diagonal = (None if stats.unlabeled_xx is None
                                   else np.ldexp(np.diagonal(stats.unlabeled_xx), -2 * self.a))
        self._row_mean, self._C, self._D = {}, {}, {}

    def row(self, j: int) -> np.ndarray:
        """``E[X_j X^T | d_k]`` of every domain, in the scaled units."""
        return np.ldexp(self.stats.gram_row(int(j)), -(self.a[j] + self.a)[None, :])

    def row_of_domain(self, j: int, k: int) -> np.ndarray:
        """``E[X_j X^T | d_k]`` of domain k alone, in the scaled units (O(p), not O(n p))."""
        return np.ldexp(self.stats.gram_row(int(j))[k], -(self.a[j] + self.a))

    def weights(self, W: np.ndarray) -> np.ndarray:
        """Weights in the scaled units back in those of X and y."""
        return np.ldexp(W, (self.b - self.a)[None, :])

    def centred_row(self, j: int) -> np.ndarray:
        return self.row(j) - self.row_mean(j)

    def row_mean(self, j: int) -> np.ndarray:
        if j not in self._row_mean:
            self._row_mean[j] = self.row(j).mean(axis=0)
        return self._row_mean[j]

    def C(self, j: int) -> np.ndarray:
        if j not in self._C:
            self._C[j] = np.einsum("kp,kp->p", self.xc, self.centred_row(j))
        return self._C[j]

    def D(self, j: int, l: int) -> np.ndarray:
        key = (min(j, l), max(j, l))
        if key not in self._D:
            self._D[key] = np.einsum("kp,kp->p", self.centred_row(key[0]), self.centred_row(key[1]))
        return self._D[key]

    def nbytes(self) -> int:
        return 8 * self.stats.n_features * (len(self._row_mean) + len(self._C) + len(self._D))


def _fold_path_curve(pooled: _PooledMoments, k: int, n_steps: int, options: dict, method: str) -> np.ndarray:
    """The weights after 0..n_steps steps of the stagewise path on every domain but ``k`` (the rows of
    :func:`_steps_curve`), from the pooled sums: the same choices as
    :func:`~.selection.trace_path` on ``stats.subset(others)``, to rounding.

    A feature that is zero in every domain but ``k`` (a one-hot dummy of that domain) has no second
    moment in this fold: it is simply not a candidate here.
    """
    stats, n = pooled.stats, pooled.n
    m = n - 1
    p = stats.n_features
    sign, denominator = options.get("sign", "abs"), options.get("denominator", "sample")
    threshold, allow_reselect = options.get("threshold"), options.get("allow_reselect", False)
    available = (pooled.present - (pooled.diagonal[k] > 0)) > 0
    if denominator == "unlabeled":
        second = pooled.unlabeled_diagonal.copy()
        available &= second > 0
    else:
        second = (pooled.diagonal_sum - pooled.diagonal[k]) / m
    safe_second = np.where(available, second, 1.0)
    coef = np.zeros(p)
    W = np.zeros((n_steps + 1, p))
    support: list[int] = []
    rbar = pooled.xy_mean.copy()          # mean over all n domains of r(w)
    r_k = pooled.xy[k].copy()             # r_k(w)
    ss = pooled.A.copy()                  # SS(w) over all n domains
    ss_scale = pooled.A.copy()            # the magnitudes summed into ss (for its rounding)
    chosen = np.zeros(p, dtype=bool)
    steps = 0
    tolerance = 8.0 * n * np.finfo(np.float64).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        for step in range(n_steps):
            mu = (n * rbar - r_k) / m
            c_k = r_k - rbar
            ss_fold = ss - (n / m) * c_k * c_k
            zero = ss_fold <= tolerance * (ss_scale + (n / m) * c_k * c_k)
            sigma = np.sqrt(np.where(zero, 0.0, ss_fold) / (m - 1))
            t = np.where(zero, np.where(mu == 0, 0.0, np.copysign(np.inf, mu)), mu * math.sqrt(m) / sigma)
            if method == "tgreedy":
                score = np.abs(t) if sign == "abs" else t.copy()
            else:
                score = mu ** 2 / safe_second
            score[~available] = -np.inf
            if not allow_reselect:
                score[chosen] = -np.inf
                if (chosen | ~available).all():
                    break
            if not np.all(np.isfinite(sigma[available])):
                raise ValueError("the residual covariances overflow float64 without domain "
                                 f"{stats.domain_labels[k]!r}; rescale X and y (e.g. to unit standard deviation)")
            i = int(np.argmax(score))
            if np.isinf(score[i]):
                tied = np.flatnonzero(score == score[i])
                if tied.size > 1:
                    i = int(tied[np.argmax(mu[tied] ** 2 / safe_second[tied])])
            if not np.isfinite(score[i]) and score[i] < 0:
                break
            if threshold is not None and not score[i] >= threshold:
                break
            delta = mu[i] / second[i]
            # SS(w + delta e_i) = SS(w) - 2 delta (C_i - sum_l w_l D_il) + delta^2 D_ii
            cross = pooled.C(i) - sum((coef[l] * pooled.D(i, l) for l in support), np.zeros(p))
            change = -2.0 * delta * cross + delta * delta * pooled.D(i, i)
            ss = ss + change
            ss_scale = ss_scale + np.abs(2.0 * delta * cross) + delta * delta * np.abs(pooled.D(i, i))
            rbar = rbar - delta * pooled.row_mean(i)
            r_k = r_k - delta * pooled.row_of_domain(i, k)
            coef[i] += delta
            if i not in support:
                support.append(i)
            chosen[i] = True
            steps += 1
            W[steps] = coef
    if steps < n_steps:
        W[steps + 1:] = W[steps]
    return pooled.weights(W)


# --------------------------------------------------------------------------- one entry point

@_options('path', 'stats', 'rule')
def choose_k(path: SelectionPath, stats: DomainStatistics, rule: str = "chance", **options) -> StoppingResult:
    """How many steps of ``path`` to keep, by one of the :data:`RULES` (section 5 of [1]_).

    Parameters
    ----------
    path : SelectionPath
    stats : DomainStatistics
        The statistics the path was computed from.
    rule : {"lodo", "bonferroni", "theorem1", "chance"}, default="chance"
    **options
        Passed to the rule: ``alpha`` (bonferroni, theorem1, chance), ``null``, ``n_flips``,
        ``seed`` (chance), ``score``, ``path_function``, ``min_k`` (lodo).

    Returns
    -------
    StoppingResult

    See Also
    --------
    stop_bonferroni, stop_chance, stop_lodo : The rules themselves.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion); Theorems 1-2, section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selection import tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> xy = 0.05 * rng.standard_normal((8, 30)); xy[:, :3] += 1.0     # three robust features
    >>> stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(30), (8, 30, 30)), xy, np.full(8, 4.0))
    >>> path = tgreedy_path(stats, 10)
    >>> from tgreedy_lib.domain_adaptation.stopping import choose_k
    >>> [choose_k(path, stats, rule=rule).k for rule in ("bonferroni", "theorem1", "chance")]
    [3, 3, 3]
    """
    _check_path(path, stats)
    if rule == "bonferroni":
        return stop_bonferroni(path, stats.n_domains, variant="t", **options)
    if rule == "theorem1":
        return stop_bonferroni(path, stats.n_domains, variant="theorem1", **options)
    if rule == "chance":
        return stop_chance(path, stats, **options)
    if rule == "lodo":
        return stop_lodo(path, stats, **options)
    raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
