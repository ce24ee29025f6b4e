"""The greedy and T-greedy feature selectors (paper, section 3.3).

Both are stagewise procedures on the residual covariances of every training domain,

    r_k,i = E[X_i (Y - w.X) | d_k],      mu_i = (1/n) sum_k r_k,i,
    sigma_i^2 = 1/(n-1) sum_k (r_k,i - mu_i)^2,

and share one update of the chosen feature i*,

    w_i* <- w_i* + mu_i* / E[X_i*^2],      E[X_i^2] = (1/n) sum_k E[X_i^2 | d_k].

They differ only in the score that picks i*:

* **T-greedy** takes the largest T-statistic  T_i = mu_i / (sigma_i / sqrt(n));
* **greedy** takes the largest decrease of the pooled training squared loss, mu_i^2 / E[X_i^2]
  (the decrease that the update above achieves).

Options cover the paper's remarks: the sign convention of T (``sign``), the unbiased
denominator from unlabeled moments (``denominator="unlabeled"``), a stepwise variant that refits
least squares on the chosen set (``refit="stepwise"``), a maximum number of steps and a stopping
threshold. The result is a :class:`SelectionPath`.

One driver, :func:`selection_path`, computes the scores and picks the feature; the weight and
residual updates are two kernels, :mod:`._stagewise` (the paper's algorithm) and :mod:`._stepwise`
(the least-squares refit).
"""
from __future__ import annotations

import dataclasses
import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import as_float_array, check_whole_number
from ._stagewise import StagewiseKernel
from ._stepwise import StepwiseKernel
from .statistics import DomainStatistics, _t_statistic_and_moments

__all__ = [
    "SelectionPath",
    "selection_path",
    "t_statistics",
    "tgreedy_path",
    "greedy_path",
    "TGreedy",
    "Greedy",
]


@dataclasses.dataclass(frozen=True, eq=False)
class SelectionPath:
    """The path of a stagewise selector: one entry per step.

    Attributes
    ----------
    method : {"tgreedy", "greedy"}
    features : ndarray of int, shape (n_steps,)
        The feature chosen at each step.
    coef : ndarray, shape (n_steps, n_features)
        The weight vector after each step.
    t_statistic : ndarray, shape (n_steps,)
        The (signed) T-statistic of the chosen feature when it was chosen, for both methods.
    score : ndarray, shape (n_steps,)
        The value of the criterion that was maximized (|T| or T for T-greedy; the loss decrease
        mu_i^2 / E[X_i^2] for greedy).
    mean_residual_covariance, std_residual_covariance : ndarray, shape (n_steps,)
        mu_i and sigma_i of the chosen feature when it was chosen.
    training_loss : ndarray, shape (n_steps,)
        The pooled training squared loss (1/n) sum_k E[(Y - w.X)^2 | d_k] after each step.
    initial_loss : float
        The training loss of w = 0.
    stop_reason : str
        Why the path ended: ``"n_steps"``, ``"threshold"`` or ``"exhausted"``.
    options : dict
        The options the path was computed with.
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
        """Number of steps taken."""
        return int(self.features.size)

    @property
    def n_features(self) -> int:
        """Number of candidate features p."""
        return int(self.coef.shape[1])

    def support(self, step: int | None = None) -> np.ndarray:
        """Distinct features with a nonzero weight after ``step`` steps (all steps by default), in order of entry."""
        chosen = self.features if step is None else self.features[:step]
        _, first = np.unique(chosen, return_index=True)
        return chosen[np.sort(first)]


def t_statistics(residual_covariances: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """T_i = mu_i / (sigma_i / sqrt(n)) over the domains (axis 0), with mu_i and sigma_i.

    The T-statistic is :func:`~tgreedy_lib.domain_adaptation.statistics.t_statistic` (the one-sample
    t-test statistic of the n values r_1,i, ..., r_n,i against 0, ``sigma_i`` with ddof = 1, its
    limit where sigma_i = 0); this returns the mean and spread it is made of too.
    """
    return _t_statistic_and_moments(residual_covariances, axis=0)


#: The kernels behind the driver, by ``refit``: each holds ``coef``, ``residual`` and ``loss`` and adds
#: the chosen feature with ``add(step, i, mu, score)``.
_KERNELS = {"stagewise": StagewiseKernel, "stepwise": StepwiseKernel}


def _validate_options(n_steps, sign, denominator, refit, threshold, allow_reselect, n_features):
    check_whole_number(n_steps, "n_steps", 1, integral_floats=False)
    if sign not in ("abs", "positive"):
        raise ValueError(f"sign must be 'abs' or 'positive', got {sign!r}")
    if denominator not in ("sample", "unlabeled"):
        raise ValueError(f"denominator must be 'sample' or 'unlabeled', got {denominator!r}")
    if refit not in ("stagewise", "stepwise"):
        raise ValueError(f"refit must be 'stagewise' or 'stepwise', got {refit!r}")
    if threshold is not None and (not isinstance(threshold, Real) or not math.isfinite(threshold)):
        raise ValueError(f"threshold must be a finite number or None, got {threshold!r}")
    if refit == "stepwise" and allow_reselect:
        raise ValueError("allow_reselect=True has no meaning for refit='stepwise' (the refit already optimizes)")
    if not allow_reselect and n_steps > n_features:
        raise ValueError(f"n_steps={n_steps} exceeds the {n_features} features (each step adds a new one)")


def selection_path(
    stats: DomainStatistics,
    method: str,
    n_steps: int = 10,
    sign: str = "abs",
    denominator: str = "sample",
    refit: str = "stagewise",
    threshold: float | None = None,
    allow_reselect: bool = False,
) -> SelectionPath:
    """The driver of both selectors (section 3.3): score, pick, hand the pick to a kernel, record.

    ``method`` is ``"tgreedy"`` (score |T_i| or T_i) or ``"greedy"`` (score mu_i^2 / E[X_i^2]);
    ``refit`` picks the kernel that updates the weights and residuals: ``"stagewise"``
    (:mod:`._stagewise`, the paper's algorithm) or ``"stepwise"`` (:mod:`._stepwise`, least squares
    on the chosen set). Options as in :func:`tgreedy_path`, which with :func:`greedy_path` is the
    usual entry point.
    """
    if method not in ("tgreedy", "greedy"):
        raise ValueError(f"method must be 'tgreedy' or 'greedy', got {method!r}")
    if not isinstance(stats, DomainStatistics):
        raise TypeError(f"expected DomainStatistics, got {type(stats).__name__}")
    n, p = stats.n_domains, stats.n_features
    _validate_options(n_steps, sign, denominator, refit, threshold, allow_reselect, p)
    update_second_moment = stats.second_moment(denominator)
    if np.any(update_second_moment <= 0):
        i = int(np.flatnonzero(update_second_moment <= 0)[0])
        raise ValueError(f"feature {i} has E[X_i^2] = 0 ({denominator} moments); the update divides by it")
    kernel = _KERNELS[refit](stats, update_second_moment, n_steps, denominator)
    chosen_mask = np.zeros(p, dtype=bool)
    initial_loss = kernel.loss
    records = {key: [] for key in ("features", "coef", "t", "score", "mu", "sigma", "loss")}
    stop_reason = "n_steps"

    for step in range(n_steps):
        t, mu, sigma = t_statistics(kernel.residual)
        if method == "tgreedy":
            score = np.abs(t) if sign == "abs" else t.copy()
        else:
            score = mu**2 / update_second_moment
        if not allow_reselect:
            score[chosen_mask] = -np.inf
            if chosen_mask.all():
                stop_reason = "exhausted"
                break
        i = int(np.argmax(score))
        if threshold is not None and not score[i] >= threshold:
            stop_reason = "threshold"
            break
        kernel.add(step, i, mu, score)
        chosen_mask[i] = True
        records["features"].append(i)
        records["coef"].append(kernel.coef.copy())
        records["t"].append(t[i])
        records["score"].append(score[i])
        records["mu"].append(mu[i])
        records["sigma"].append(sigma[i])
        records["loss"].append(kernel.loss)

    options = dict(
        n_steps=n_steps, sign=sign, denominator=denominator, refit=refit,
        threshold=threshold, allow_reselect=allow_reselect,
    )
    return SelectionPath(
        method=method,
        features=np.asarray(records["features"], dtype=np.intp),
        coef=np.asarray(records["coef"], dtype=np.float64).reshape(-1, p),
        t_statistic=np.asarray(records["t"], dtype=np.float64),
        score=np.asarray(records["score"], dtype=np.float64),
        mean_residual_covariance=np.asarray(records["mu"], dtype=np.float64),
        std_residual_covariance=np.asarray(records["sigma"], dtype=np.float64),
        training_loss=np.asarray(records["loss"], dtype=np.float64),
        initial_loss=initial_loss,
        stop_reason=stop_reason,
        options=options,
    )


def tgreedy_path(
    stats: DomainStatistics,
    n_steps: int = 10,
    *,
    sign: str = "abs",
    denominator: str = "sample",
    refit: str = "stagewise",
    threshold: float | None = None,
    allow_reselect: bool = False,
) -> SelectionPath:
    """Run T-greedy (section 3.3): at each step add the feature with the largest T-statistic.

    Parameters
    ----------
    stats : DomainStatistics
        Per-domain moments of the training domains (section 2).
    n_steps : int
        Maximum number of steps (features added).
    sign : {"abs", "positive"}
        ``"abs"`` (default) ranks by |T_i|: a feature whose residual covariance is consistently
        negative is as useful as a consistently positive one, because the update moves its weight
        by mu_i / E[X_i^2] with mu_i's sign. ``"positive"`` takes ``argmax T_i`` literally as
        printed in the paper, so it only adds features whose covariance with the residual is positive.
    denominator : {"sample", "unlabeled"}
        E[X_i^2] in the update: the paper's average of the per-domain second moments
        (``"sample"``, biased, as the paper notes) or the pooled moment from unlabeled data
        (``"unlabeled"``, the unbiased version of the paper's remark; needs ``unlabeled_X``).
    refit : {"stagewise", "stepwise"}
        ``"stagewise"`` (the paper's algorithm) moves only the chosen weight; ``"stepwise"``
        refits least squares on the chosen set after each step (pooled moments: the sample
        average, or the unlabeled ones when ``denominator="unlabeled"``).
    threshold : float, optional
        Stop before a step whose score (|T| or T) is below ``threshold``.
    allow_reselect : bool
        Stagewise only. If False (default) every step adds a feature not chosen before, as in the
        paper's figures; if True a feature may be chosen again (classical forward stagewise).

    Returns
    -------
    SelectionPath
    """
    return selection_path(stats, "tgreedy", n_steps, sign, denominator, refit, threshold, allow_reselect)


def greedy_path(
    stats: DomainStatistics,
    n_steps: int = 10,
    *,
    denominator: str = "sample",
    refit: str = "stagewise",
    threshold: float | None = None,
    allow_reselect: bool = False,
) -> SelectionPath:
    """Run greedy (section 3.3 and 4): add the feature that most lowers the pooled training loss.

    The score of feature i is the decrease mu_i^2 / E[X_i^2] that the shared update achieves.
    Options as in :func:`tgreedy_path`; ``threshold`` applies to the loss decrease.
    """
    return selection_path(stats, "greedy", n_steps, "abs", denominator, refit, threshold, allow_reselect)


class _PathSelector(SelectorMixin, BaseEstimator):
    """scikit-learn front end shared by :class:`TGreedy` and :class:`Greedy`."""

    def _path(self, stats: DomainStatistics, **options) -> SelectionPath:
        raise NotImplementedError

    def fit(self, X, y, domains=None, unlabeled_X=None):
        """Fit on pooled rows ``X``, targets ``y`` and a vector ``domains`` of domain labels.

        Inside a Pipeline pass the labels as a fit parameter: ``pipe.fit(X, y, select__domains=d)``.
        """
        if domains is None:
            raise ValueError(
                f"{type(self).__name__}.fit needs domains: a vector with the domain label of every row"
            )
        stats = DomainStatistics.from_samples(X, y, domains, unlabeled_X=unlabeled_X)
        return self.fit_statistics(stats)

    def fit_statistics(self, stats: DomainStatistics):
        """Fit from precomputed :class:`DomainStatistics`."""
        kwargs = dict(
            n_steps=self.n_features_to_select,
            denominator=self.denominator,
            refit=self.refit,
            threshold=self.threshold,
            allow_reselect=self.allow_reselect,
        )
        self.path_ = self._path(stats, **kwargs)
        self.n_features_in_ = stats.n_features
        self.coef_ = self.path_.coef[-1].copy() if self.path_.n_steps else np.zeros(stats.n_features)
        self.selected_features_ = self.path_.support()
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "path_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def decision_function(self, X):
        """The linear score X @ coef_ (no intercept, as in the paper's model y = w.x)."""
        check_is_fitted(self, "path_")
        X = as_float_array(X, "X", 2)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the selector was fitted with {self.n_features_in_}")
        return X @ self.coef_

    predict = decision_function


class TGreedy(_PathSelector):
    """T-greedy feature selection (section 3.3) with the scikit-learn selector interface.

    Parameters are those of :func:`tgreedy_path` (``n_features_to_select`` is ``n_steps``).

    Attributes
    ----------
    path_ : SelectionPath
    coef_ : ndarray of shape (n_features,)
        Weights after the last step.
    selected_features_ : ndarray of int
        Chosen features in order of entry.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import TGreedy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 5)); domains = np.repeat(np.arange(4), 100)
    >>> y = X[:, 2] + 0.1 * rng.standard_normal(400)
    >>> TGreedy(n_features_to_select=1).fit(X, y, domains=domains).selected_features_
    array([2])
    """

    def _path(self, stats, **options):
        return tgreedy_path(stats, sign=self.sign, **options)

    def __init__(
        self,
        n_features_to_select=10,
        *,
        sign="abs",
        denominator="sample",
        refit="stagewise",
        threshold=None,
        allow_reselect=False,
    ):
        self.n_features_to_select = n_features_to_select
        self.sign = sign
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect


class Greedy(_PathSelector):
    """Greedy feature selection on the pooled training loss, sharing T-greedy's update.

    Parameters are those of :func:`greedy_path` (``n_features_to_select`` is ``n_steps``).
    """

    def _path(self, stats, **options):
        return greedy_path(stats, **options)

    def __init__(
        self,
        n_features_to_select=10,
        *,
        denominator="sample",
        refit="stagewise",
        threshold=None,
        allow_reselect=False,
    ):
        self.n_features_to_select = n_features_to_select
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect
