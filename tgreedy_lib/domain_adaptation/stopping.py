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
its evidence (thresholds, per-step statistics, held-out curves). :data:`RULE_OPTIONS` and
:data:`RULE_CONSTRAINTS` declare each rule's options, once: the selectors check ``stopping={...}``
against them. The leave-one-domain-out refits are :mod:`.lodo`'s.

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
>>> result = choose_k(path, stats, rule="bonferroni")
>>> result.k, round(result.evidence["threshold"], 3), result.coef(path)[:4].round(3)
(3, 4.944, array([0.993, 1.014, 1.005, 0.   ]))

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
from sklearn.utils._param_validation import Interval, StrOptions

from ..validation import validate_options
from .selection import SelectionPath
from .statistics import DomainStatistics

__all__ = ["RULES", "RULE_OPTIONS", "RULE_CONSTRAINTS", "StoppingResult", "choose_k", "bonferroni_threshold",
           "theorem1_threshold", "sign_flip_max_t", "gaussian_max_t", "stop_bonferroni",
           "stop_chance", "stop_lodo"]

#: The rules by name (section 5 of the paper names the ideas; the thresholds are ours).
RULES = ("lodo", "bonferroni", "theorem1", "chance")
#: The options each rule takes, also through a selector's ``stopping={"rule": ..., **options}``.
RULE_OPTIONS = {
    "lodo": ("score", "min_k", "progress"),
    "bonferroni": ("alpha",),
    "theorem1": ("alpha",),
    "chance": ("alpha", "null", "n_flips", "seed"),
}
#: The declared constraints of the rules' options (scikit-learn's ``_parameter_constraints`` style).
RULE_CONSTRAINTS = {
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "null": [StrOptions({"sign_flip", "gaussian"})],
    "n_flips": [Interval(Integral, 1, None, closed="left")],
    "seed": [Interval(Integral, 0, None, closed="left"), np.random.Generator, np.random.SeedSequence,
             np.random.BitGenerator, None],
    "score": [StrOptions({"squared_loss"}), callable],
    "min_k": [Interval(Integral, 0, None, closed="left")],
    "progress": [callable, "boolean", None],
}
_CONSTRAINTS = {
    **RULE_CONSTRAINTS,
    "path": [SelectionPath],
    "stats": [DomainStatistics],
    "n_domains": [Interval(Integral, 2, None, closed="left")],
    "n_features": [Interval(Integral, 1, None, closed="left")],
    "variant": [StrOptions({"t", "theorem1"})],
    "residual_covariances": ["array-like"],
    "exclude": ["array-like", None],
    "n_draws": [Interval(Integral, 1, None, closed="left")],
    "full": ["boolean"],
    "path_function": [callable, None],
    "rule": [StrOptions(set(RULES))],
}


def _options(*names):
    return validate_options({name: _CONSTRAINTS[name] for name in names})


@dataclasses.dataclass(frozen=True)
class StoppingResult:
    """The number of steps a rule keeps, ``k`` (0: no feature; else the path's first ``k`` steps), with
    its ``rule`` (one of :data:`RULES`) and ``evidence``: what the decision rests on (``threshold``,
    ``abs_t``, ``null_quantile``, ``held_out`` ..., by rule), JSON-ready.
    """

    rule: str
    k: int
    evidence: dict

    def coef(self, path: SelectionPath) -> np.ndarray:
        """The weights after ``k`` steps of ``path`` (zeros for k = 0)."""
        if self.k == 0:
            return np.zeros(path.n_features)
        return path.coef[self.k - 1].copy()


def _check_path(path: SelectionPath, stats: DomainStatistics) -> None:
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
    """The Bonferroni threshold for |T| of the ``"bonferroni"`` rule: the t_{n-1} quantile at
    ``1 - alpha / (2 p)``, n = ``n_domains``, p = ``n_features``, alpha the family-wise level.
    """
    from .theorems.t_bounds import bonferroni_t_factor

    return float(bonferroni_t_factor(int(n_domains), n_features, float(alpha)))


@_options('n_features', 'alpha')
def theorem1_threshold(n_features: int, alpha: float = 0.05) -> float:
    """Theorem 1's width ``sqrt(4 log(2 p / alpha))`` (in units of sigma / sqrt(n)), the ``"theorem1"`` rule's
    threshold for |T|.
    """
    from .theorems.t_bounds import paper_factor  # the theory loads with the rule that needs it

    return float(paper_factor(int(n_features), float(alpha)))


@_options('path', 'n_domains', 'alpha', 'variant')
def stop_bonferroni(path: SelectionPath, n_domains: int, *, alpha: float = 0.05, variant: str = "t") -> StoppingResult:
    """Keep the leading steps of ``path`` whose |T| (``path.t_statistic``) clears
    :func:`bonferroni_threshold` (``variant="t"``) or :func:`theorem1_threshold` (``variant="theorem1"``)
    for ``n_domains`` training domains. ``evidence`` holds ``threshold`` and ``abs_t``.
    """
    if variant == "t":
        threshold = bonferroni_threshold(n_domains, path.n_features, alpha)
    else:
        threshold = theorem1_threshold(path.n_features, alpha)
    abs_t = np.abs(path.t_statistic)
    k = _first_failure(abs_t > threshold)
    return StoppingResult("bonferroni" if variant == "t" else "theorem1", k, {
        "threshold": threshold, "alpha": alpha, "n_domains": int(n_domains), "n_features": path.n_features,
        "abs_t": abs_t.tolist()})


# --------------------------------------------------------------------------- behaving like chance

def _residual_path(stats: DomainStatistics, path: SelectionPath):
    """The residual covariances ``E[X (Y - w.X) | d_k]`` (n_domains, p) before each step of ``path``, updated
    from the Gram rows of the features whose weight changed."""
    residual = np.array(stats.xy, dtype=np.float64)
    previous = np.zeros(path.n_features)
    for step in range(path.n_steps):
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
    """Null draws of max_i |T_i| over the features not in ``exclude`` (indices or a mask) when the rows
    ``r_k`` of ``residual_covariances`` (n_domains, p) are replaced by ``eps_k r_k``: every sign vector
    eps up to a global flip (2^(n-1)) when that many are at most ``n_flips``, else ``n_flips`` random
    ones. Returns max |T| for each sign vector.
    """
    r = np.asarray(residual_covariances, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] < 2:
        raise ValueError(f"residual_covariances must have shape (n_domains >= 2, n_features), got {r.shape}")
    keep = np.ones(r.shape[1], dtype=bool)
    if exclude is not None:
        exclude = np.asarray(exclude)
        if exclude.dtype == bool:
            keep &= ~exclude
        else:
            keep[exclude.astype(np.intp)] = False
    if not keep.any():
        raise ValueError("every feature is excluded; there is no maximum to take")
    return _sign_flip_max_t(r[:, keep], n_flips, seed)


def _sign_flip_max_t(r: np.ndarray, n_flips: int, seed) -> np.ndarray:
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
    """``n_draws`` null draws of max |T| over ``n_features`` independent Gaussian null features: each the
    largest of that many independent |t_{n-1}| variables.
    """
    rng = np.random.default_rng(seed)
    # |t_{n-1}| draws directly: the max of p of them per draw.
    t = np.abs(rng.standard_t(int(n_domains) - 1, size=(int(n_draws), int(n_features))))
    return t.max(axis=1)


@_options('path', 'stats', 'alpha', 'null', 'n_flips', 'seed', 'full')
def stop_chance(path: SelectionPath, stats: DomainStatistics, *, alpha: float = 0.05, null: str = "sign_flip",
                n_flips: int = 1024, seed=0, full: bool = False) -> StoppingResult:
    """Keep step s while the chosen |T| exceeds the ``1 - alpha`` quantile of the null law of max |T| over
    the features not chosen before it: :func:`sign_flip_max_t` of that step's residual covariances
    (``null="sign_flip"``), or :func:`gaussian_max_t` once (``null="gaussian"``). ``full=True`` computes
    the quantiles of every step (for plots), with the same k. ``evidence`` holds ``null_quantile`` (one
    per step examined) and ``abs_t``.
    """
    _check_path(path, stats)
    alpha = float(alpha)
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
        for step, residual in enumerate(_residual_path(stats, path)):
            if chosen.all():
                break
            draws = _sign_flip_max_t(residual[:, ~chosen], n_flips, seed)
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

@_options('path', 'stats', 'score', 'path_function', 'min_k', 'progress')
def stop_lodo(path: SelectionPath, stats: DomainStatistics, *, score: str | Callable = "squared_loss",
              path_function: Callable | None = None, min_k: int = 1, progress=None) -> StoppingResult:
    """Leave one domain out and cycle: the k (at least ``min_k``) of the best mean held-out score of
    :func:`.lodo.held_out_scores`.

    Parameters
    ----------
    score : "squared_loss" or callable, default="squared_loss"
        The held-out domain's squared loss from its moments (lower is better), or
        ``score(label, W) -> array (K + 1,)``, the score (higher is better, e.g. AUROC) on domain
        ``label``'s samples of the weights ``W`` after 0..K steps.
    path_function : callable, optional
        ``path_function(stats, n_steps) -> SelectionPath``; by default the path's own selector and options.
    progress : callable, bool or None, default=None
        Where the folds done are reported: to a callable; ``None``: to standard error once the run has
        taken :data:`.lodo.LODO_QUIET_SECONDS` (and every as many seconds); ``True``: from the start;
        ``False``: never.

    Returns
    -------
    StoppingResult
        ``evidence["mean_held_out"]``: the mean held-out score after 0..K steps (higher is better; the
        negative loss for ``"squared_loss"``), ``evidence["held_out"]`` each domain's.
    """
    _check_path(path, stats)
    K = path.n_steps
    if K < 1:
        raise ValueError("the path has no steps")
    if not 0 <= min_k <= K:
        raise ValueError(f"min_k must lie in 0..{K}, got {min_k}")
    if stats.n_domains < 3:
        raise ValueError(f"leave-one-domain-out needs at least 3 domains (2 to fit a T-statistic), got {stats.n_domains}")
    from .lodo import held_out_scores  # the refitting engine loads with the rule that needs it

    per_domain = held_out_scores(path, stats, score, path_function, progress)
    mean = per_domain.mean(axis=0)
    k = int(min_k + np.argmax(mean[min_k:]))
    name = "squared_loss" if score == "squared_loss" else getattr(score, "__name__", "score")
    return StoppingResult("lodo", k, {"score": name, "higher_is_better": True,
                                      "mean_held_out": mean.tolist(), "held_out": per_domain.tolist(),
                                      "domains": stats.domain_labels.tolist()})


# --------------------------------------------------------------------------- one entry point

@_options('path', 'stats', 'rule')
def choose_k(path: SelectionPath, stats: DomainStatistics, rule: str = "chance", **options) -> StoppingResult:
    """How many steps of ``path`` (computed from ``stats``) to keep by one of the :data:`RULES`; ``options``
    go to the rule (:data:`RULE_OPTIONS`).
    """
    _check_path(path, stats)
    if rule == "bonferroni":
        return stop_bonferroni(path, stats.n_domains, variant="t", **options)
    if rule == "theorem1":
        return stop_bonferroni(path, stats.n_domains, variant="theorem1", **options)
    if rule == "chance":
        return stop_chance(path, stats, **options)
    return stop_lodo(path, stats, **options)
