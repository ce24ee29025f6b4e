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
(the least-squares refit). As in scikit-learn's ``_omp.py``: kernels, then these functions, then the
estimators :class:`~.estimators.TGreedy` and :class:`~.estimators.Greedy` (:mod:`.estimators`),
which may stop by a rule of :mod:`.stopping`.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import dataclasses
import math
from functools import partial
from numbers import Real

import numpy as np

from .._validation import check_whole_number
from ._stagewise import PathPredictor, StagewiseKernel
from ._stepwise import StepwiseKernel
from .statistics import DomainStatistics, _t_statistic_and_moments

__all__ = [
    "SelectionPath",
    "selection_path",
    "t_statistics",
    "tgreedy_path",
    "greedy_path",
]


@dataclasses.dataclass(frozen=True, eq=False)
class SelectionPath:
    """The path of T-greedy or greedy (section 3.3 of [1]_): the choice, weights and statistics of every step.

    Returned by :func:`tgreedy_path` and :func:`greedy_path`, and kept by the selectors as ``path_``.

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

    See Also
    --------
    tgreedy_path, greedy_path : The functions that compute it.
    path_auroc, path_squared_loss : Its scores on held-out data.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics, tgreedy_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); domains = np.arange(300) % 3
    >>> y = X[:, 2] + 0.5 * X[:, 0] + 0.1 * rng.standard_normal(300)
    >>> path = tgreedy_path(DomainStatistics.from_samples(X, y, domains), n_steps=3)
    >>> path.n_steps, path.n_features, path.stop_reason
    (3, 4, 'n_steps')
    >>> path.support(2)
    array([2, 0])
    >>> path.support()
    array([2, 0, 1])
    >>> path.coef[-1, [2, 0]].round(2)  # the true weights are 1 and 0.5
    array([1.03, 0.5 ])
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

    Parameters
    ----------
    residual_covariances : array-like of shape (n_domains, n_features)
        ``r_k,i = E[X_i (Y - w.X) | d_k]``.

    Returns
    -------
    t, mu, sigma : ndarray of shape (n_features,)
        The T-statistic, the mean and the (ddof = 1) standard deviation across domains.

    See Also
    --------
    t_statistic : The T-statistic alone, along any axis.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import t_statistics
    >>> t, mu, sigma = t_statistics(np.array([[0.9, 0.5], [1.1, -0.4], [1.0, 0.8]]))
    >>> t.round(3), mu.round(3), sigma.round(3)
    (array([17.321,  0.832]), array([1. , 0.3]), array([0.1  , 0.624]))
    """
    return _t_statistic_and_moments(residual_covariances, axis=0)


def _t_moments(residual: np.ndarray, buffer: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`t_statistics` of a float64 (n_domains, p) array the driver made, without re-checking it.

    The same operations as ``values.mean(axis=0)`` and ``values.std(axis=0, ddof=1)`` (numpy's
    ``_mean`` and ``_var``: a sum, a division by the count, the squared deviations summed), so the
    results are bit for bit those of :func:`t_statistics`; it runs once a step, where numpy's
    wrappers and the domain-count check cost more than the arithmetic at small p. ``buffer``, an
    array of the residual's shape, takes the squared deviations (the driver reuses one every step).
    """
    n = residual.shape[0]
    mu = np.add.reduce(residual, axis=0) / n
    deviation = np.subtract(residual, mu, out=buffer)
    np.multiply(deviation, deviation, out=deviation)
    sigma = np.sqrt(np.add.reduce(deviation, axis=0) / (n - 1))
    effect = mu * math.sqrt(n)
    if np.minimum.reduce(sigma) > 0:  # no spread is 0 (nor NaN): one reduction instead of a mask and a test
        return effect / sigma, mu, sigma
    zero = sigma == 0
    if not zero.any():
        return effect / sigma, mu, sigma
    t = np.where(mu == 0, 0.0, np.copysign(np.inf, mu))  # sigma = 0: T's limit
    np.divide(effect, sigma, out=t, where=~zero)
    return t, mu, sigma


#: The kernels behind the driver, by ``refit``: each holds ``coef``, ``residual`` and ``loss`` and adds
#: the chosen feature with ``add(step, i, mu, score)``.
_KERNELS = {"stagewise": StagewiseKernel, "stepwise": StepwiseKernel}


def _best_feature(score: np.ndarray, mu: np.ndarray, second_moment: np.ndarray) -> int:
    """The index of the largest score; ties at an infinite score go to the largest |mu_i| / sqrt(E[X_i^2]).

    T_i is infinite for every feature whose residual covariance is the same in all domains
    (sigma_i = 0), however small it is. Among those, the one whose step lowers the pooled
    training loss most, mu_i^2 / E[X_i^2] (|mu_i| of the feature scaled to unit second moment),
    is taken, and only then the lowest index.
    """
    i = int(score.argmax())  # the method: numpy's wrapper costs more than the search at small p
    if math.isinf(score[i]):
        tied = np.flatnonzero(score == score[i])
        if tied.size > 1:
            i = int(tied[np.argmax(mu[tied] ** 2 / second_moment[tied])])
    return i


def _score_columns(method: str, sign: str, residual, second_moment: np.ndarray, t_and_mu=None):
    """The driver's score of each column of ``residual`` (and mu): |T_i| or T_i, or mu_i^2 / E[X_i^2] for greedy.

    ``t_and_mu``, when given, are the T-statistics and means already computed (``residual`` is then
    not read). :class:`PathPredictor` simulates with the same rule.
    """
    t, mu = t_and_mu if t_and_mu is not None else _t_moments(residual)[:2]
    if method == "tgreedy":
        return (np.abs(t) if sign == "abs" else t.copy()), mu
    return mu**2 / second_moment, mu


def _check_finite_statistics(sigma: np.ndarray, step: int) -> None:
    """Refuse residual covariances that overflowed (their spread is infinite or NaN, every T would read 0)."""
    # one reduction a step: a sum of spreads (>= 0) is finite exactly when all are, unless the sum overflows
    if math.isfinite(np.add.reduce(sigma)) or np.isfinite(sigma).all():
        return
    if not np.isfinite(sigma).all():
        i = int(np.flatnonzero(~np.isfinite(sigma))[0])
        raise ValueError(
            f"step {step + 1}: the residual covariances of feature {i} overflow float64, so its T-statistic "
            "cannot be computed; rescale X and y (e.g. to unit standard deviation): the chosen features do "
            "not depend on their scales"
        )


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

    See Also
    --------
    tgreedy_path, greedy_path : The usual entry points.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics, tgreedy_path
    >>> from tgreedy_lib.domain_adaptation.selection import selection_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = X[:, 1] + 0.1 * rng.standard_normal(300)
    >>> stats = DomainStatistics.from_samples(X, y, np.arange(300) % 3)
    >>> selection_path(stats, "tgreedy", 2).features.tolist() == tgreedy_path(stats, 2).features.tolist()
    True
    """
    if method not in ("tgreedy", "greedy"):
        raise ValueError(f"method must be 'tgreedy' or 'greedy', got {method!r}")
    if not isinstance(stats, DomainStatistics):
        raise TypeError(f"expected DomainStatistics, got {type(stats).__name__}")
    _validate_options(n_steps, sign, denominator, refit, threshold, allow_reselect, stats.n_features)
    return _selection_path(stats, method, n_steps, sign, denominator, refit, threshold, allow_reselect)


def _selection_path(stats, method, n_steps, sign, denominator, refit, threshold, allow_reselect) -> SelectionPath:
    """:func:`selection_path` on options already validated (the estimators validate theirs once, at ``fit``)."""
    p = stats.n_features
    update_second_moment = stats.second_moment(denominator)
    if np.any(update_second_moment <= 0):
        i = int(np.flatnonzero(update_second_moment <= 0)[0])
        raise ValueError(f"feature {i} has E[X_i^2] = 0 ({denominator} moments); the update divides by it")
    kernel = _KERNELS[refit](stats, update_second_moment, n_steps, denominator)
    chosen_mask = np.zeros(p, dtype=bool)
    # The stagewise kernel predicts the next picks to choose Gram-row blocks (not where rows come one at a time)
    if hasattr(kernel, "predictor") and (stats._lazy_block_size() or 2) > 1:
        kernel.predictor = PathPredictor(partial(_score_columns, method, sign), update_second_moment,
                                         chosen_mask, allow_reselect, _best_feature)
    initial_loss = kernel.loss
    records = {key: [] for key in ("features", "t", "score", "mu", "sigma", "loss")}
    # The weights after every step, filled in place: a list of copies stacked at the end would
    # hold the (n_steps, p) history twice (1.6 GB for 100 steps over 10^6 features).
    coef_path = np.empty((n_steps, p))
    stop_reason = "n_steps"

    changed = None  # features whose residual covariances changed in the last step (None: all)
    buffer = np.empty_like(kernel.residual)  # the T-statistics' squared deviations, reused every step
    abs_t = method == "tgreedy" and sign == "abs"
    features, ts, scores, mus, sigmas, losses = (records[key] for key in ("features", "t", "score", "mu", "sigma", "loss"))
    for step in range(n_steps):
        if changed is None:
            t, mu, sigma = _t_moments(kernel.residual, buffer)
            # |T| without _score_columns' call (the same np.abs); other rules through it
            score = np.abs(t) if abs_t else _score_columns(method, sign, None, update_second_moment, (t, mu))[0]
            if not allow_reselect and step:
                score[chosen_mask] = -np.inf
        else:  # a sparse row changed a few features: recompute theirs (the same values a full pass gives)
            t_c, mu_c, sigma_c = _t_moments(kernel.residual[:, changed])
            t[changed], mu[changed], sigma[changed] = t_c, mu_c, sigma_c
            score_c = _score_columns(method, sign, None, update_second_moment[changed], (t_c, mu_c))[0]
            if not allow_reselect:
                score_c[chosen_mask[changed]] = -np.inf
            score[changed] = score_c
        if not allow_reselect and step == p:  # every feature chosen (each step adds a new one)
            stop_reason = "exhausted"
            break
        _check_finite_statistics(sigma, step)
        i = _best_feature(score, mu, update_second_moment)
        if threshold is not None and not score[i] >= threshold:
            stop_reason = "threshold"
            break
        changed = kernel.add(step, i, mu, score)
        chosen_mask[i] = True
        features.append(i)
        coef_path[len(features) - 1] = kernel.coef
        ts.append(t[i])
        scores.append(score[i])
        mus.append(mu[i])
        sigmas.append(sigma[i])
        losses.append(kernel.loss)
        if changed is not None and not allow_reselect:
            score[i] = -np.inf  # chosen: kept out, as the full pass does

    options = dict(
        n_steps=n_steps, sign=sign, denominator=denominator, refit=refit,
        threshold=threshold, allow_reselect=allow_reselect,
    )
    return SelectionPath(
        method=method,
        features=np.asarray(records["features"], dtype=np.intp),
        coef=coef_path[: len(records["features"])],
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
    r"""T-greedy path (section 3.3 of [1]_): at each step add the feature with the largest T-statistic.

    Ties: where several features have the same residual covariance in every domain
    (sigma_i = 0), all have T = +-inf. The paper leaves this case open; here they are ranked by
    the decrease of the pooled training loss their step gives, mu_i^2 / E[X_i^2] (that is, by
    |mu_i| for features of equal second moment), so a consistent large effect comes before a
    consistent negligible one; the lowest index only breaks ties that remain.

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
    path : SelectionPath
        The chosen feature, weights, T-statistic, score and training loss after every step.

    See Also
    --------
    greedy_path : The same update, choosing the largest decrease of the training loss.
    TGreedy : The scikit-learn selector around this function.
    DomainStatistics : The per-domain moments it reads.
    path_auroc : The AUROC after every step on held-out data.

    Notes
    -----
    With :math:`r_{k,i} = E[X_i (Y - w \cdot X) \mid d_k]` the covariance of feature :math:`i`
    with the residual in training domain :math:`k = 1, \dots, n`,

    .. math::

        \hat\mu_i = \frac{1}{n} \sum_k r_{k,i}, \qquad
        \hat\sigma_i^2 = \frac{1}{n-1} \sum_k (r_{k,i} - \hat\mu_i)^2, \qquad
        T_i = \frac{\hat\mu_i}{\hat\sigma_i / \sqrt{n}},

    each step picks :math:`i^\star = \arg\max_i |T_i|` and updates

    .. math::

        w_{i^\star} \leftarrow w_{i^\star} + \frac{\hat\mu_{i^\star}}{\hat E[X_{i^\star}^2]},
        \qquad \hat E[X_i^2] = \frac{1}{n} \sum_k E[X_i^2 \mid d_k].

    The T-statistic is the one-sample t-test of the :math:`n` per-domain covariances against 0,
    so it favours a feature whose effect is consistent across domains over one whose average
    effect is larger but swings between them. Theorem 1 of [1]_ bounds
    :math:`|\hat\mu_i - E[X_i Y]|` uniformly over exponentially many features in this form.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

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
    >>> path.features  # the consistent feature first
    array([0, 1])
    >>> path.t_statistic.round(2)
    array([ 8.81, -2.36])
    >>> path.training_loss.round(3)
    array([1.976, 0.979])
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
    r"""Greedy path (sections 3.3 and 4 of [1]_): at each step add the feature that most lowers the pooled training loss.

    The paper's baseline. The score of feature i is the decrease :math:`\hat\mu_i^2 / \hat E[X_i^2]`
    that T-greedy's update achieves; the update itself is T-greedy's.

    Parameters
    ----------
    stats : DomainStatistics
        Per-domain moments of the training domains (section 2).
    n_steps : int, default=10
        Maximum number of steps (features added).
    denominator : {"sample", "unlabeled"}, default="sample"
        ``E[X_i^2]`` in the score and the update, as in :func:`tgreedy_path`.
    refit : {"stagewise", "stepwise"}, default="stagewise"
        As in :func:`tgreedy_path`.
    threshold : float, optional
        Stop before a step whose loss decrease is below ``threshold``.
    allow_reselect : bool, default=False
        As in :func:`tgreedy_path`.

    Returns
    -------
    path : SelectionPath
        The chosen feature, weights, T-statistic, score and training loss after every step.

    See Also
    --------
    tgreedy_path : The same update, choosing the largest T-statistic.
    Greedy : The scikit-learn selector around this function.

    Notes
    -----
    With :math:`\hat\mu_i` the mean over the :math:`n` domains of the residual covariances
    :math:`E[X_i (Y - w \cdot X) \mid d_k]`, the stagewise update
    :math:`w_i \leftarrow w_i + \hat\mu_i / \hat E[X_i^2]` lowers the pooled training loss by

    .. math::

        \frac{\hat\mu_i^2}{\hat E[X_i^2]},

    and greedy picks the feature with the largest decrease. It ignores how the covariance
    varies across domains, which is why it overfits the training domains (section 4 of [1]_).

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

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
    >>> path = greedy_path(stats, n_steps=2)
    >>> path.features  # the swinging feature first: it lowers the training loss most
    array([1, 0])
    >>> path.t_statistic.round(2)
    array([-2.28, 18.89])
    >>> path.training_loss.round(3)
    array([1.321, 0.979])
    """
    return selection_path(stats, "greedy", n_steps, "abs", denominator, refit, threshold, allow_reselect)
