"""Greedy and T-greedy: stagewise feature selection on the residual covariances of the training domains.

Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach", AISTATS 2012,
section 3.3. With r_k,i = E[X_i (Y - w.X) | d_k] the covariance of feature i with the residual in domain k,
mu_i their mean over the n domains and T_i their T-statistic (:mod:`.statistics`), each step

    picks  i* = argmax_i |T_i|  (T-greedy)   or   argmax_i mu_i^2 / E[X_i^2]  (greedy: the largest loss decrease*),
    moves  w_i* <- w_i* + mu_i* / E[X_i*^2],     E[X_i^2] = (1/n) sum_k E[X_i^2 | d_k],
    and    r_k <- r_k - (mu_i* / E[X_i*^2]) E[X X_i* | d_k]   (one Gram row a step).

:func:`trace_path` is that loop. Options cover the paper's remarks: the sign of T (``sign="positive"`` takes
argmax T_i as printed), the unbiased denominator from unlabeled moments (``denominator="unlabeled"``), a
least-squares refit on the chosen set after each step (``refit="stepwise"``), a threshold, and choosing a
feature again (``allow_reselect``). Ties at T = +-inf go to the largest mu_i^2 / E[X_i^2], then the lowest index.
(*With ``denominator="unlabeled"``, greedy's score divides by the unlabeled E[X_i^2] that its update uses.)
The Gram rows come through :class:`~._gram_rows.RowFeed`, which a reader can skip: it changes no result.
"""
from __future__ import annotations

import dataclasses
import math
from numbers import Real

import numpy as np
from scipy import linalg

from ..validation import check_whole_number
from ._gram_rows import RowFeed
from .statistics import DomainStatistics, t_moments

__all__ = ["SelectionPath", "tgreedy_path", "greedy_path", "trace_path"]

#: Chosen Gram rows the stepwise refit keeps on lazy statistics, in units of their row budget; past them it
#: reads the samples (``X_k^T (X_k w) / m_k``), so no (steps x domains x p) array is held.
ROW_BUDGETS_KEPT = 4


@dataclasses.dataclass(frozen=True, eq=False)
class SelectionPath:
    """A path of T-greedy or greedy: the choice, weights and statistics of every step.

    Attributes
    ----------
    method : str
    features : ndarray of int, shape (n_steps,)
        The feature chosen at each step.
    coef : ndarray, shape (n_steps, n_features)
        The weights after each step.
    t_statistic, score, mean_residual_covariance, std_residual_covariance : ndarray, shape (n_steps,)
        T_i (signed), the score maximized (|T|, T or mu_i^2 / E[X_i^2]), mu_i and sigma_i of the chosen feature.
    training_loss : ndarray, shape (n_steps,)
        (1/n) sum_k E[(Y - w.X)^2 | d_k] after each step; ``initial_loss`` that of w = 0.
    stop_reason : str
        ``"n_steps"``, ``"threshold"`` or ``"exhausted"``.
    options : dict
        The options of the path function.
    """

    method: str
    features: np.ndarray
    coef: np.ndarray
    t_statistic: np.ndarray
    score: np.ndarray
    mean_residual_covariance: np.ndarray
    std_residual_covariance: np.ndarray
    training_loss: np.ndarray
    initial_loss: float
    stop_reason: str
    options: dict

    @property
    def n_steps(self) -> int:
        return int(self.features.size)

    @property
    def n_features(self) -> int:
        return int(self.coef.shape[1])

    def support(self, step: int | None = None) -> np.ndarray:
        """Distinct features with a nonzero weight after ``step`` steps (all by default), in order of entry."""
        chosen = self.features if step is None else self.features[:step]
        _, first = np.unique(chosen, return_index=True)
        return chosen[np.sort(first)]


def _score(method: str, sign: str, t: np.ndarray, mu: np.ndarray, second_moment: np.ndarray) -> np.ndarray:
    """The criterion a step maximizes: |T_i| or T_i (T-greedy), mu_i^2 / E[X_i^2] (greedy)."""
    if method == "tgreedy":
        return np.abs(t) if sign == "abs" else t.copy()
    return mu**2 / second_moment


def _best_feature(score: np.ndarray, mu: np.ndarray, second_moment: np.ndarray) -> int:
    """The arg max of ``score``; ties at an infinite score go to the largest mu_i^2 / E[X_i^2], then the lowest index."""
    i = int(score.argmax())
    if math.isinf(score[i]):
        tied = np.flatnonzero(score == score[i])
        if tied.size > 1:
            i = int(tied[np.argmax(mu[tied] ** 2 / second_moment[tied])])
    return i


def check_refit(refit: str, allow_reselect: bool) -> None:
    if refit == "stepwise" and allow_reselect:
        raise ValueError("allow_reselect=True has no meaning for refit='stepwise' (the refit already optimizes); "
                         "pass allow_reselect=False")


def trace_path(stats: DomainStatistics, method: str, n_steps: int, *, sign: str = "abs", denominator: str = "sample",
               refit: str = "stagewise", threshold: float | None = None, allow_reselect: bool = False) -> SelectionPath:
    """The loop of section 3.3 (module docstring), steps (1)-(3) below, on options :func:`tgreedy_path`,
    :func:`greedy_path` and the estimators have checked. Beyond the paper's lines: a sparse Gram row updates only
    the features it touches, and ``refit="stepwise"`` replaces step (3) by least squares on the chosen set."""
    p = stats.n_features
    second_moment = stats.second_moment(denominator)  # E[X_i^2] of the update
    if np.any(second_moment <= 0):
        i = int(np.flatnonzero(second_moment <= 0)[0])
        raise ValueError(f"feature {i} has E[X_i^2] = 0 ({denominator} moments); the update divides by it")
    residual = np.array(stats.xy, dtype=np.float64, order="C")  # r_k,i at w = 0
    coef, loss = np.zeros(p), float(stats.yy.mean())
    initial_loss, chosen = loss, np.zeros(p, dtype=bool)
    if refit == "stagewise":
        sample_second_moment = stats.second_moment("sample")  # the loss's, whatever the update's

        def rule(r, m):  # the score of columns r of the residual (RowFeed runs the path ahead with it)
            t, mu, _ = t_moments(r)
            return _score(method, sign, t, mu, m), mu

        rows = RowFeed(stats, rule, _best_feature, second_moment, chosen, allow_reselect, n_steps)
    else:
        stepwise = _StepwiseRefit(stats, n_steps, denominator, coef)
    steps = []  # (feature, T, score, mu, sigma, loss) of every step
    coef_path = np.empty((n_steps, p))  # filled in place: a list of copies would hold the history twice
    buffer = np.empty_like(residual)  # the squared deviations of every step's T
    changed, stop_reason = None, "n_steps"  # changed: the features a sparse row touched (None: all)
    for step in range(n_steps):
        # (1) mu_i, sigma_i and T_i of every feature's residual covariances r_k,i over the n domains
        if changed is None:
            t, mu, sigma = t_moments(residual, buffer)
            score = _score(method, sign, t, mu, second_moment)
        else:  # only these changed: the same values a full pass gives
            t[changed], mu[changed], sigma[changed] = t_moments(residual[:, changed])
            score[changed] = _score(method, sign, t[changed], mu[changed], second_moment[changed])
        if not allow_reselect:
            if step == p:
                stop_reason = "exhausted"
                break
            score[chosen] = -np.inf
        _check_finite_spread(sigma, step)
        # (2) the feature with the largest score: |T_i| (or T_i) for T-greedy, mu_i^2 / E[X_i^2] for greedy
        i = _best_feature(score, mu, second_moment)
        if threshold is not None and not score[i] >= threshold:
            stop_reason = "threshold"
            break
        # (3) w_i += mu_i / E[X_i^2] and r_k -= (mu_i / E[X_i^2]) E[X X_i | d_k]
        if refit == "stagewise":
            delta = mu[i] / second_moment[i]
            coef[i] += delta
            loss += -2.0 * delta * mu[i] + delta * delta * sample_second_moment[i]
            changed = _subtract_row(residual, delta, rows.row(step, i, residual, score))
        else:
            residual, loss = stepwise.add(step, i, score)
        chosen[i] = True
        coef_path[step] = coef
        steps.append((i, t[i], score[i], mu[i], sigma[i], loss))
    options = dict(n_steps=n_steps, sign=sign, denominator=denominator, refit=refit, threshold=threshold,
                   allow_reselect=allow_reselect)
    columns = list(zip(*steps)) or [()] * 6  # per quantity
    t, score, mu, sigma, loss = (np.asarray(column, dtype=np.float64) for column in columns[1:])
    return SelectionPath(method=method, features=np.asarray(columns[0], dtype=np.intp), coef=coef_path[:len(steps)],
                         t_statistic=t, score=score, mean_residual_covariance=mu, std_residual_covariance=sigma,
                         training_loss=loss, initial_loss=initial_loss, stop_reason=stop_reason, options=options)


def _subtract_row(residual: np.ndarray, delta: float, row):
    """``residual -= delta * row``; for a CSR row (sparse samples) on its nonzeros only, returning their features."""
    if isinstance(row, np.ndarray):
        residual -= delta * row
        return None
    domains = np.repeat(np.arange(row.shape[0]), np.diff(row.indptr))
    residual[domains, row.indices] -= delta * row.data  # r - delta * 0 = r exactly elsewhere
    return np.unique(row.indices)


def _check_finite_spread(sigma: np.ndarray, step: int) -> None:
    """Refuse residual covariances that overflowed (an infinite or NaN spread would make every T read 0)."""
    if math.isfinite(np.add.reduce(sigma)) or np.isfinite(sigma).all():  # one reduction a step
        return
    i = int(np.flatnonzero(~np.isfinite(sigma))[0])
    raise ValueError(
        f"step {step + 1}: the residual covariances of feature {i} overflow float64, so its T-statistic cannot be "
        "computed; rescale X and y (e.g. to unit standard deviation): the chosen features do not depend on their scales")


class _StepwiseRefit:
    """``refit="stepwise"``: after each step, least squares on the chosen set with the pooled moments (the
    Cholesky factor of the chosen set's pooled Gram grows by one row a step)."""

    def __init__(self, stats: DomainStatistics, n_steps: int, denominator: str, coef: np.ndarray):
        n, p = stats.n_domains, stats.n_features
        self.stats, self.n_steps, self.coef, self.xy = stats, n_steps, coef, stats.xy
        self.gram_pooled = stats.unlabeled_xx if denominator == "unlabeled" else None
        self.xy_pooled = self.xy.mean(axis=0)
        budget = stats.row_budget
        kept = n_steps if budget is None else int(ROW_BUDGETS_KEPT * budget // (8 * n * p))
        self.chosen_rows = np.empty((max(min(kept, n_steps), 0), n, p))  # pages are touched as filled
        self.chol = np.zeros((n_steps, n_steps))  # lower Cholesky factor of the chosen set's pooled Gram
        self.support: list[int] = []

    def add(self, step: int, i: int, score: np.ndarray):
        """Add feature ``i`` and refit: the new residual covariances and training loss (``coef`` in place)."""
        n, p = self.xy.shape
        chol, chosen_rows = self.chol, self.chosen_rows
        kept = chosen_rows.shape[0]
        self.support.append(i)
        idx = np.asarray(self.support)
        if step < kept:
            chosen_rows[step] = self.stats.gram_row(i, priority=score, remaining=min(kept, self.n_steps) - step)
        if self.gram_pooled is not None:
            column = self.gram_pooled[i, idx]
        elif step < kept:
            column = chosen_rows[step][:, idx].mean(axis=0)
        else:
            column = self.stats.gram_entries([i], idx)[:, 0, :].mean(axis=0)
        off = linalg.solve_triangular(chol[:step, :step], column[:step], lower=True, check_finite=False)
        pivot = column[step] - off @ off
        if not pivot > 1e-12 * column[step]:
            raise ValueError(f"step {step + 1}: feature {i} is linearly dependent on the chosen features "
                             f"{idx[:-1].tolist()}; the stepwise least-squares refit is singular")
        chol[step, :step] = off
        chol[step, step] = np.sqrt(pivot)
        new = linalg.cho_solve((chol[: step + 1, : step + 1], True), self.xy_pooled[idx], check_finite=False)
        self.coef[:] = 0.0
        self.coef[idx] = new
        # r_k = E[XY|d_k] - E[XX^T|d_k] w: one product with the kept rows, the samples for the rest
        stored = min(step + 1, kept)
        residual = self.xy - (new[:stored] @ chosen_rows[:stored].reshape(stored, n * p)).reshape(n, p)
        if step + 1 > kept:
            rest = np.zeros(p)
            rest[idx[kept:]] = new[kept:]
            residual -= self.stats.gram_times(rest)
        # w^T E[XX^T|d_k] w = w.(E[XY|d_k] - r_k): no p x p product
        return residual, float(np.mean(self.stats.yy - self.coef @ self.xy.T - (residual @ self.coef)))


def tgreedy_path(stats: DomainStatistics, n_steps: int = 10, *, sign: str = "abs", denominator: str = "sample",
                 refit: str = "stagewise", threshold: float | None = None, allow_reselect: bool = False) -> SelectionPath:
    """T-greedy (section 3.3): at each step add the feature with the largest |T| of its residual covariances.

    Parameters
    ----------
    stats : DomainStatistics
    n_steps : int
        The most steps (features added).
    sign : {"abs", "positive"}
        Rank by |T_i| (a consistently negative covariance is as useful) or by T_i as printed in the paper.
    denominator : {"sample", "unlabeled"}
        E[X_i^2] of the update: the mean of the per-domain moments (biased, as the paper notes) or the pooled
        moment of unlabeled data (needs ``unlabeled_X``).
    refit : {"stagewise", "stepwise"}
        Move the chosen weight only (the paper), or refit least squares on the chosen set.
    threshold : float, optional
        Stop before a step whose score is below it.
    allow_reselect : bool
        Stagewise only: whether a feature may be chosen again.

    Examples
    --------
    Feature 0 has the same effect in every domain; feature 1's effect swings from domain to domain:

    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics, greedy_path, tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> domains = np.repeat(np.arange(5), 200)
    >>> X = rng.standard_normal((1000, 3))
    >>> swing = 2 * rng.standard_normal(5)  # feature 1's weight in each domain
    >>> y = 0.5 * X[:, 0] + swing[domains] * X[:, 1] + 0.5 * rng.standard_normal(1000)
    >>> stats = DomainStatistics.from_samples(X, y, domains)
    >>> path = tgreedy_path(stats, n_steps=2)
    >>> path.features, path.t_statistic.round(2)  # the consistent feature first
    (array([0, 1]), array([ 8.81, -2.36]))
    >>> greedy_path(stats, n_steps=2).features  # the swinging one lowers the training loss most
    array([1, 0])
    """
    return _checked_path(stats, "tgreedy", n_steps, sign, denominator, refit, threshold, allow_reselect)


def greedy_path(stats: DomainStatistics, n_steps: int = 10, *, denominator: str = "sample", refit: str = "stagewise",
                threshold: float | None = None, allow_reselect: bool = False) -> SelectionPath:
    """Greedy (sections 3.3 and 4, the paper's baseline): add the feature whose step lowers the pooled training loss
    most, mu_i^2 / E[X_i^2]; the update and the options are :func:`tgreedy_path`'s.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics, greedy_path
    >>> xx = np.broadcast_to(np.eye(2), (3, 2, 2))  # orthonormal features in 3 domains
    >>> xy = np.array([[1.0, 3.0], [1.1, -1.0], [0.9, 2.0]])  # feature 1 swings, but is larger on average
    >>> greedy_path(DomainStatistics.from_moments(xx, xy), n_steps=1).features  # T-greedy takes feature 0
    array([1])
    """
    return _checked_path(stats, "greedy", n_steps, "abs", denominator, refit, threshold, allow_reselect)


def _checked_path(stats, method, n_steps, sign, denominator, refit, threshold, allow_reselect) -> SelectionPath:
    """The path functions' options, each checked here (the estimators declare the same for scikit-learn)."""
    if not isinstance(stats, DomainStatistics):
        raise TypeError(f"expected DomainStatistics, got {type(stats).__name__}")
    check_whole_number(n_steps, "n_steps", 1, integral_floats=False)
    if sign not in ("abs", "positive"):
        raise ValueError(f"sign must be 'abs' or 'positive', got {sign!r}")
    if denominator not in ("sample", "unlabeled"):
        raise ValueError(f"denominator must be 'sample' or 'unlabeled', got {denominator!r}")
    if refit not in ("stagewise", "stepwise"):
        raise ValueError(f"refit must be 'stagewise' or 'stepwise', got {refit!r}")
    if threshold is not None and (not isinstance(threshold, Real) or not math.isfinite(threshold)):
        raise ValueError(f"threshold must be a finite number or None, got {threshold!r}")
    check_refit(refit, allow_reselect)
    if not allow_reselect and n_steps > stats.n_features:
        raise ValueError(f"n_steps={n_steps} exceeds the {stats.n_features} features (each step adds a new one)")
    return trace_path(stats, method, n_steps, sign=sign, denominator=denominator, refit=refit,
                      threshold=threshold, allow_reselect=allow_reselect)
