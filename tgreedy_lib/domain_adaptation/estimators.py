"""The scikit-learn selectors :class:`TGreedy` and :class:`Greedy` (paper, section 3.3).

The third layer, as in scikit-learn's ``_omp.py``: the kernels (:mod:`._stagewise`, :mod:`._stepwise`),
the path functions (:mod:`.selection`: :func:`~.selection.tgreedy_path`, :func:`~.selection.greedy_path`),
then these estimators, which fit a path and keep its first ``k`` features, ``k`` fixed or chosen by a
stopping rule of :mod:`.stopping` (``stopping=``).

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", Proceedings of the 15th International Conference on Artificial
       Intelligence and Statistics (AISTATS), JMLR W&CP 22, 2012.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._validation import align_columns, check_options, column_names
from .selection import SelectionPath, greedy_path, tgreedy_path
from .statistics import DomainStatistics
from .stopping import _STOPPING_CONSTRAINTS, _STOPPING_OPTIONS, _STOPPING_RULES, choose_k

__all__ = ["TGreedy", "Greedy"]


#: Which scipy.sparse formats the selectors take as they are (scikit-learn's ``accept_sparse``; other
#: formats are converted to CSR). :class:`DomainStatistics` computes its moments and Gram rows from
#: sparse rows without densifying them.
_ACCEPT_SPARSE = ("csr", "csc")

def _check_stopping(stopping) -> tuple[str, dict] | None:
    """``(rule, options)`` of a selector's ``stopping`` parameter, or None; a clear ValueError otherwise."""
    if stopping is None:
        return None
    if isinstance(stopping, str):
        rule, options = stopping, {}
    else:
        options = dict(stopping)
        rule = options.pop("rule", None)
        if rule is None:
            raise ValueError(f"stopping={stopping!r} names no rule; give one of {_STOPPING_RULES} as "
                             "stopping='chance' or stopping={'rule': 'chance', 'alpha': 0.1}")
    if rule not in _STOPPING_RULES:
        raise ValueError(f"unknown stopping rule {rule!r}; choose one of {_STOPPING_RULES}")
    unknown = sorted(set(options) - set(_STOPPING_OPTIONS[rule]))
    if unknown:
        raise ValueError(f"stopping rule {rule!r} takes the options {_STOPPING_OPTIONS[rule]}, not {unknown}")
    check_options(_STOPPING_CONSTRAINTS, options, f"stopping rule {rule!r}")
    return rule, options


class _PathSelector(SelectorMixin, BaseEstimator):
    """scikit-learn front end shared by :class:`TGreedy` and :class:`Greedy`."""

    def _path(self, stats: DomainStatistics, **options) -> SelectionPath:
        raise NotImplementedError

    _parameter_constraints: dict = {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left")],
        "denominator": [StrOptions({"sample", "unlabeled"})],
        "refit": [StrOptions({"stagewise", "stepwise"})],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "allow_reselect": ["boolean"],
        "stopping": [None, StrOptions(set(_STOPPING_RULES)), dict],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # the residual covariances E[X (Y - w.X) | d_k] need y
        tags.input_tags.sparse = bool(_ACCEPT_SPARSE)
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, domains=None, unlabeled_X=None):
        """Select features from pooled rows ``X``, targets ``y`` and the domain label of every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows of all training domains, pooled (dense or scipy.sparse, never densified). A pandas
            DataFrame's column names are kept in ``feature_names_in_``.
        y : array-like of shape (n_samples,)
            Real-valued targets (for classification, e.g. +1/-1 or 0/1).
        domains : array-like of shape (n_samples,)
            The domain label of every row (any sortable labels, at least two distinct ones).
            Required: there is no default, because the T-statistic is the spread of the
            residual covariances *across domains*. Inside a :class:`~sklearn.pipeline.Pipeline`
            pass it as a fit parameter: ``pipe.fit(X, y, select__domains=d)``; with scikit-learn's
            metadata routing enabled, request it instead (``TGreedy().set_fit_request(domains=True)``),
            as cross-validation does for ``groups``.
        unlabeled_X : array-like of shape (n_unlabeled, n_features), default=None
            Unlabeled rows for the pooled ``E[X X^T]`` (needed by ``denominator="unlabeled"``).

        Returns
        -------
        self : object
            The fitted selector.
        """
        if domains is None:
            raise ValueError(
                f"{type(self).__name__}.fit needs domains: a vector with the domain label of every row "
                f"of X, e.g. {type(self).__name__}().fit(X, y, domains=d) (in a Pipeline: "
                "pipe.fit(X, y, select__domains=d)); the T-statistic is computed across domains"
            )
        if unlabeled_X is not None:  # a DataFrame's columns are matched to X's by name
            unlabeled_X = align_columns(unlabeled_X, column_names(X), "unlabeled_X", "X")
        X, y = validate_data(
            self, X, y, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, ensure_min_samples=2, y_numeric=True
        )
        if unlabeled_X is not None:
            unlabeled_X = check_array(
                unlabeled_X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, input_name="unlabeled_X"
            )
        stats = DomainStatistics.from_samples(X, y, domains, unlabeled_X=unlabeled_X)
        return self._fit_path(stats)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_statistics(self, stats: DomainStatistics):
        """Select features from precomputed :class:`DomainStatistics` (no samples needed).

        Parameters
        ----------
        stats : DomainStatistics
            Per-domain moments of the training domains, e.g. from
            :meth:`DomainStatistics.from_moments` (population moments) or built once and
            :meth:`~DomainStatistics.subset` per split.

        Returns
        -------
        self : object
            The fitted selector; ``feature_names_in_`` is not set (moments carry no names).
        """
        if not isinstance(stats, DomainStatistics):
            raise TypeError(f"fit_statistics expects DomainStatistics, got {type(stats).__name__}")
        self.n_features_in_ = stats.n_features
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self._fit_path(stats)

    def _fit_path(self, stats: DomainStatistics):
        stopping = _check_stopping(self.stopping)
        kwargs = dict(
            n_steps=self.n_features_to_select,
            denominator=self.denominator,
            refit=self.refit,
            threshold=self.threshold,
            allow_reselect=self.allow_reselect,
        )
        self.path_ = self._path(stats, **kwargs)
        if stopping is None:
            k, self.stopping_evidence_ = self.path_.n_steps, None
        elif self.path_.n_steps == 0:
            k, self.stopping_evidence_ = 0, {"rule": stopping[0], "empty_path": True}
        else:
            rule, options = stopping
            result = choose_k(self.path_, stats, rule=rule, **options)
            k, self.stopping_evidence_ = result.k, {"rule": result.rule, **result.evidence}
        self.n_features_to_select_ = int(k)
        self.coef_ = self.path_.coef[k - 1].copy() if k else np.zeros(stats.n_features)
        self.selected_features_ = self.path_.support(k)
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "path_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def decision_function(self, X):
        """The linear score ``X @ coef_`` (no intercept, as in the paper's model y = w.x).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        score : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "path_")
        X = validate_data(self, X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, reset=False)
        return X @ self.coef_

    predict = decision_function


class TGreedy(_PathSelector):
    r"""T-greedy feature selection (Foster, Kakade & Salakhutdinov 2012, section 3.3).

    A stagewise selector on the residual covariances of the training domains: at each step it
    adds the feature with the largest T-statistic of its covariance with the residual across
    domains, the feature whose improvement is most consistent from domain to domain [1]_.
    The scikit-learn front end of :func:`tgreedy_path`.

    Parameters
    ----------
    n_features_to_select : int, default=10
        Number of steps (features added); ``n_steps`` of :func:`tgreedy_path`.
    sign : {"abs", "positive"}, default="abs"
        Rank by ``|T_i|`` (``"abs"``) or by ``T_i`` as printed in the paper (``"positive"``).
    denominator : {"sample", "unlabeled"}, default="sample"
        ``E[X_i^2]`` of the update: the paper's average of the per-domain moments, or the
        pooled moment of ``unlabeled_X`` passed to :meth:`fit` (the unbiased version).
    refit : {"stagewise", "stepwise"}, default="stagewise"
        The paper's stagewise update, or a least-squares refit on the chosen set.
    threshold : float, default=None
        Stop before a step whose score is below ``threshold``.
    allow_reselect : bool, default=False
        Stagewise only: whether a feature may be chosen again.
    stopping : {"lodo", "bonferroni", "theorem1", "chance"}, dict or None, default=None
        How many of the path's steps to keep, by a stopping rule of the paper's Discussion
        (section 5; :func:`~tgreedy_lib.domain_adaptation.stopping.choose_k`). ``None`` keeps every
        step (``n_features_to_select`` of them unless ``threshold`` stops earlier). A rule computes
        the path of ``n_features_to_select`` steps (then the largest number considered) and keeps
        its first ``k``: ``"lodo"`` leaves one domain out and cycles (held-out squared loss),
        ``"bonferroni"`` keeps the steps whose |T| clears the t quantile at ``alpha / p``,
        ``"theorem1"`` Theorem 1's width, ``"chance"`` the sign-flip null of the largest |T|.
        A dict ``{"rule": ..., **options}`` passes options to the rule: ``alpha`` (bonferroni,
        theorem1, chance), ``null``, ``n_flips``, ``seed`` (chance), ``score``, ``min_k`` (lodo).

    Attributes
    ----------
    path_ : SelectionPath
        The whole path (features, weights, T-statistics, losses after every step).
    n_features_to_select_ : int
        The number of steps kept: chosen by ``stopping``, else the path's length. (The number of
        features, unless ``allow_reselect``; 0 when a rule keeps none.)
    stopping_evidence_ : dict or None
        What the ``stopping`` rule's choice rests on (``rule`` and the rule's evidence: thresholds,
        |T| of every step, null quantiles or held-out scores); None without ``stopping``.
    coef_ : ndarray of shape (n_features_in_,)
        Weights after the last step kept.
    selected_features_ : ndarray of int
        Chosen features in order of entry.
    n_features_in_ : int
        Number of features seen during :term:`fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X` has feature names
        that are all strings (a pandas DataFrame).

    See Also
    --------
    Greedy : The same update, choosing the largest decrease of the training loss.
    tgreedy_path : The path as a function of :class:`DomainStatistics`.
    sklearn.feature_selection.SequentialFeatureSelector : Forward selection by cross-validation.

    Notes
    -----
    With the residual covariances :math:`r_{k,i} = E[X_i (Y - w \cdot X) \mid d_k]` of the
    :math:`n` training domains,

    .. math::

        \hat\mu_i = \frac{1}{n} \sum_k r_{k,i}, \qquad
        \hat\sigma_i^2 = \frac{1}{n-1} \sum_k (r_{k,i} - \hat\mu_i)^2, \qquad
        T_i = \frac{\hat\mu_i}{\hat\sigma_i / \sqrt{n}},

    T-greedy picks :math:`i^\star = \arg\max_i |T_i|` and updates
    :math:`w_{i^\star} \leftarrow w_{i^\star} + \hat\mu_{i^\star} / \hat E[X_{i^\star}^2]`
    (section 3.3 of [1]_). :meth:`fit` refuses to run without ``domains``: pooled rows alone
    cannot tell a consistent effect from one that swings between domains.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import TGreedy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 5)); domains = np.repeat(np.arange(4), 100)
    >>> y = X[:, 2] - 0.5 * X[:, 4] + 0.1 * rng.standard_normal(400)
    >>> TGreedy(n_features_to_select=1).fit(X, y, domains=domains).selected_features_
    array([2])

    A DataFrame's column names come back from ``get_feature_names_out``:

    >>> import pandas as pd
    >>> frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    >>> selector = TGreedy(n_features_to_select=2).fit(frame, y, domains=domains)
    >>> selector.get_feature_names_out()
    array(['c', 'e'], dtype=object)
    >>> selector.path_.t_statistic.round(1)
    array([ 15.4, -11.7])
    >>> selector.transform(frame).shape
    (400, 2)

    With a stopping rule, ``n_features_to_select`` is the most steps considered and the rule keeps
    the first ``n_features_to_select_`` of them:

    >>> selector = TGreedy(n_features_to_select=5, stopping="bonferroni").fit(X, y, domains=domains)
    >>> selector.n_features_to_select_, selector.selected_features_
    (2, array([2, 4]))
    >>> round(selector.stopping_evidence_["threshold"], 2)  # |T| of steps 3-5 falls below it
    5.84
    >>> np.round(selector.stopping_evidence_["abs_t"], 1)
    array([15.4, 11.7,  0.8,  0.5,  0. ])
    """

    def _path(self, stats, **options):
        return tgreedy_path(stats, sign=self.sign, **options)

    _parameter_constraints: dict = {
        **_PathSelector._parameter_constraints,
        "sign": [StrOptions({"abs", "positive"})],
    }

    def __init__(
        self,
        n_features_to_select=10,
        *,
        sign="abs",
        denominator="sample",
        refit="stagewise",
        threshold=None,
        allow_reselect=False,
        stopping=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.sign = sign
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect
        self.stopping = stopping


class Greedy(_PathSelector):
    r"""Greedy feature selection on the pooled training loss (Foster, Kakade & Salakhutdinov 2012, section 4).

    The baseline of the paper's experiments [1]_: the same stagewise update as T-greedy, but
    each step adds the feature that most lowers the training squared loss pooled over the
    domains. The scikit-learn front end of :func:`greedy_path`.

    Parameters
    ----------
    n_features_to_select : int, default=10
        Number of steps (features added); ``n_steps`` of :func:`greedy_path`.
    denominator : {"sample", "unlabeled"}, default="sample"
        ``E[X_i^2]`` of the update, as in :class:`TGreedy`.
    refit : {"stagewise", "stepwise"}, default="stagewise"
        The paper's stagewise update, or a least-squares refit on the chosen set.
    threshold : float, default=None
        Stop before a step whose loss decrease is below ``threshold``.
    allow_reselect : bool, default=False
        Stagewise only: whether a feature may be chosen again.
    stopping : {"lodo", "bonferroni", "theorem1", "chance"}, dict or None, default=None
        How many of the path's steps to keep, by a stopping rule of the paper's Discussion
        (section 5), as in :class:`TGreedy`; ``None`` keeps every step.

    Attributes
    ----------
    path_ : SelectionPath
        The whole path (features, weights, T-statistics, losses after every step).
    n_features_to_select_ : int
        The number of steps kept: chosen by ``stopping``, else the path's length. (The number of
        features, unless ``allow_reselect``; 0 when a rule keeps none.)
    stopping_evidence_ : dict or None
        What the ``stopping`` rule's choice rests on (``rule`` and the rule's evidence: thresholds,
        |T| of every step, null quantiles or held-out scores); None without ``stopping``.
    coef_ : ndarray of shape (n_features_in_,)
        Weights after the last step kept.
    selected_features_ : ndarray of int
        Chosen features in order of entry.
    n_features_in_ : int
        Number of features seen during :term:`fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X` has feature names
        that are all strings (a pandas DataFrame).

    See Also
    --------
    TGreedy : The same update, choosing the largest T-statistic.
    greedy_path : The path as a function of :class:`DomainStatistics`.

    Notes
    -----
    Greedy picks the largest loss decrease of the update,
    :math:`i^\star = \arg\max_i \hat\mu_i^2 / \hat E[X_i^2]`, with :math:`\hat\mu_i` the mean
    residual covariance over the domains (section 3.3 of [1]_). It needs ``domains`` only for
    the per-domain moments and the reported T-statistics, and refuses to run without them, as
    :class:`TGreedy` does, so that the two are fitted on the same statistics.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import Greedy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 5)); domains = np.repeat(np.arange(4), 100)
    >>> y = X[:, 2] - 0.5 * X[:, 4] + 0.1 * rng.standard_normal(400)
    >>> Greedy(n_features_to_select=1).fit(X, y, domains=domains).selected_features_
    array([2])

    Keep the number of steps that leave-one-domain-out cross-validation prefers:

    >>> selector = Greedy(n_features_to_select=5, stopping="lodo").fit(X, y, domains=domains)
    >>> selector.n_features_to_select_, selector.selected_features_
    (2, array([2, 4]))
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
        stopping=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect
        self.stopping = stopping
