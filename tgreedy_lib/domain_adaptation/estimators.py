"""The scikit-learn selectors :class:`TGreedy` and :class:`Greedy` of section 3.3 and section 4 of
Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach", AISTATS 2012.

As in scikit-learn's ``_omp.py``, the estimators follow the loop and the path functions (:mod:`.selection`):
they check their input once, at ``fit``, fit a path and keep its first ``k`` features, ``k`` fixed or chosen
by a stopping rule of :mod:`.stopping` (loaded only when one is asked for).
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.linalg.blas import dger as _dger
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_array, check_is_fitted, validate_data

from ..validation import align_columns, as_kept_apart_vector, check_options, column_names, factorize, is_sparse
from .selection import SelectionPath, check_refit, trace_path
from .statistics import DomainStatistics

__all__ = ["TGreedy", "Greedy"]

_ACCEPT_SPARSE = ("csr", "csc")  # taken as they are; other sparse formats become CSR, never dense
AUTO_STOPPING = "chance"  # the rule of n_features_to_select="auto" without stopping=
#: The whole Gram at once up to these sizes (cheaper than lazy rows up to p ~ 330, one BLAS thread).
_EAGER_MAX_FEATURES = 320
_EAGER_MAX_BYTES = 64 * 2**20
_ROWS_ONLY_MAX_BYTES = 16 * 2**20  # short paths form only the rows they pick, up to this size of X


def _check_numeric_target(y) -> None:
    """Refuse class labels that are not numbers (strings), naming the encoding."""
    if (y if hasattr(y, "dtype") else np.asarray(y)).dtype.kind not in "OUS":
        return
    values = np.asarray(y).ravel()
    try:
        values.astype(np.float64)
    except (TypeError, ValueError):
        example = next((v for v in values.tolist() if isinstance(v, (str, bytes))), values[0])
        raise ValueError(
            f"y holds class labels such as {example!r}, but the selectors regress on a numeric y: encode "
            f"one class against the rest, e.g. y = (labels == {example!r}).astype(float), or use "
            "sklearn.preprocessing.LabelEncoder for ordered classes"
        ) from None


def _group_rows(domains) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(labels, index, order)``: the sorted labels, each row's code and the stable order of the rows by domain."""
    values = domains if isinstance(domains, np.ndarray) else None
    if values is None or values.ndim != 1 or values.dtype.kind not in "biu" or values.size == 0:
        labels, index = factorize(as_kept_apart_vector(domains, "domains"), "domains")
        return labels, index, np.argsort(index.astype(np.int16) if labels.size < 2**15 else index, kind="stable")
    # integer labels sorted once, for all three (a stable sort of 16-bit integers is a radix sort: several times
    # faster than factorize's np.unique and a second sort)
    low, high = int(values.min()), int(values.max())
    keys = (values - low).astype(np.int16) if values.dtype.kind != "b" and high - low < 2**15 else values
    order = np.argsort(keys, kind="stable")
    ordered = values[order]
    new = np.empty(ordered.size, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    index = np.empty(ordered.size, dtype=np.intp)
    index[order] = np.cumsum(new) - 1
    return ordered[new], index, order


_COMMON_PARAMETERS = """\
    n_features_to_select : "auto", int or float, default=10
        As in :class:`~sklearn.feature_selection.SequentialFeatureSelector`: an int is the number of steps,
        a float in (0, 1) a fraction of the features (at least 1); ``"auto"`` lets the rule of ``stopping``
        (else ``"chance"`` at alpha = 0.05) choose on a path long enough for it to stop inside (every feature
        for ``"lodo"``). More than ``X`` has warns and keeps all.
    fit_intercept : bool, default=True
        Centre ``X`` and ``y`` by the mean over domains of each domain's mean (each domain weighs 1/n, as in
        the paper's moments) and add ``intercept_`` back in :meth:`predict`. ``False`` selects on the raw
        moments, as section 3.3 does; sparse ``X`` needs it (centring would densify it)."""

_OTHER_PARAMETERS = """\
    denominator : {"sample", "unlabeled"}, default="sample"
        ``E[X_i^2]`` of the update: the average of the per-domain moments (the paper's), or the pooled
        moment of ``unlabeled_X`` passed to :meth:`fit`.
    refit : {"stagewise", "stepwise"}, default="stagewise"
        The paper's stagewise update, or a least-squares refit on the chosen set.
    threshold : float, default=None
        Stop before a step whose score is below ``threshold``.
    allow_reselect : bool, default=False
        Stagewise only: whether a feature may be chosen again.
    stopping : {"lodo", "bonferroni", "theorem1", "chance"}, dict or None, default=None
        How many of the path's steps to keep, by a rule of section 5
        (:func:`~tgreedy_lib.domain_adaptation.stopping.choose_k`): the held-out loss leaving one domain out,
        |T| above the t quantile at ``alpha / p``, Theorem 1's width, or the sign-flip null of the largest
        |T|. ``{"rule": ..., **options}`` passes ``alpha``, ``null``, ``n_flips``, ``seed``, ``score``,
        ``min_k``. None keeps every step.

    Attributes
    ----------
    path_ : SelectionPath
        The whole path (of the centred data with ``fit_intercept``).
    n_features_to_select_ : int
        The steps kept (by ``stopping``, else the path's length; 0 when a rule keeps none).
    stopping_evidence_ : dict or None
        What the rule's choice rests on (``rule``, thresholds, |T| of every step, null quantiles or scores).
    coef_ : ndarray of shape (n_features_in_,)
        Weights after the last step kept.
    intercept_ : float
        ``mean(y) - coef_ . mean(X)`` with the means of ``fit_intercept``; 0.0 without one.
    selected_features_ : ndarray of int
        Chosen features in order of entry.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when ``X`` is a DataFrame with string column names."""


def _document(cls):
    """Put the parameters and attributes both selectors share into ``cls``' docstring."""
    cls.__doc__ = cls.__doc__.replace("    <common parameters>", _COMMON_PARAMETERS).replace(
        "    <other parameters and attributes>", _OTHER_PARAMETERS)
    return cls


class _PathSelector(SelectorMixin, BaseEstimator):
    """scikit-learn front end shared by :class:`TGreedy` and :class:`Greedy`."""

    _method: str = ""

    _parameter_constraints: dict = {
        "n_features_to_select": [StrOptions({"auto"}), Interval(RealNotInt, 0, 1, closed="neither"),
                                 Interval(Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "denominator": [StrOptions({"sample", "unlabeled"})],
        "refit": [StrOptions({"stagewise", "stepwise"})],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "allow_reselect": ["boolean"],
        "stopping": [None, str, dict],  # the rule and its options: _checked_stopping
    }

    def __init__(self, n_features_to_select=10, *, fit_intercept=True, denominator="sample", refit="stagewise",
                 threshold=None, allow_reselect=False, stopping=None):
        self.n_features_to_select = n_features_to_select
        self.fit_intercept = fit_intercept
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect
        self.stopping = stopping

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # the residual covariances E[X (Y - w.X) | d_k] need y
        tags.input_tags.sparse = not self.fit_intercept  # centring would densify a sparse X
        return tags

    def _checked_stopping(self) -> tuple[str, dict] | None:
        """``(rule, options)`` of ``stopping``, checked against :mod:`.stopping`'s rules, or None."""
        stopping = self.stopping
        if stopping is None:
            return None
        from . import stopping as rules

        options = {"rule": stopping} if isinstance(stopping, str) else dict(stopping)
        rule = options.pop("rule", None)
        if rule is None:
            raise ValueError(f"stopping={stopping!r} names no rule; give one of {rules.RULES} as "
                             "stopping='chance' or stopping={'rule': 'chance', 'alpha': 0.1}")
        if rule not in rules.RULES:
            raise ValueError(f"unknown stopping rule {rule!r}; choose one of {rules.RULES}")
        unknown = sorted(set(options) - set(rules.RULE_OPTIONS[rule]))
        if unknown:
            raise ValueError(f"stopping rule {rule!r} takes the options {rules.RULE_OPTIONS[rule]}, not {unknown}")
        check_options(rules.RULE_CONSTRAINTS, options, f"stopping rule {rule!r}")
        return rule, options

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, domains=None, unlabeled_X=None, sample_weight=None):
        """Select features from pooled rows ``X``, targets ``y`` and the domain label of every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Dense (a DataFrame's column names are kept), or scipy.sparse with ``fit_intercept=False``.
        y : array-like of shape (n_samples,)
            Real-valued targets (one class against the rest as 1/0 or +1/-1).
        domains : array-like of shape (n_samples,)
            The domain label of every row (any hashable labels, at least two). Required: T is the spread
            across domains. In a Pipeline: ``pipe.fit(X, y, select__domains=d)``; with metadata routing,
            ``set_fit_request(domains="groups")`` takes the ``groups`` of a group splitter (Examples).
        unlabeled_X : array-like of shape (n_unlabeled, n_features), default=None
            Unlabeled rows for the pooled ``E[X X^T]`` (``denominator="unlabeled"``), centred as ``X``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights: each moment ``E[. | d_k]`` is the weighted mean over domain k's rows;
            domains still weigh 1/n each. Stopping rules count rows.
        """
        name = type(self).__name__
        if domains is None:
            raise ValueError(
                f"{name}.fit needs domains: a vector with the domain label of every row of X, e.g. "
                f"{name}().fit(X, y, domains=d) (in a Pipeline: pipe.fit(X, y, select__domains=d); inside "
                "cross_val_score or GridSearchCV, under sklearn.config_context(enable_metadata_routing=True), "
                f"request the groups: {name}().set_fit_request(domains=\"groups\") and cross_val_score(..., "
                "params={\"groups\": d})); the T-statistic is computed across domains")
        stopping = self._checked_stopping()
        check_refit(self.refit, self.allow_reselect)
        if unlabeled_X is not None:  # a DataFrame's columns are matched to X's by name
            unlabeled_X = align_columns(unlabeled_X, column_names(X), "unlabeled_X", "X")
        _check_numeric_target(y)
        X, y = validate_data(self, X, y, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, ensure_min_samples=2,
                             y_numeric=True)
        if np.all(y == y[0]):  # before centring, so the message gives y's own value, not a rounding residue
            raise ValueError(f"y is {float(y[0])} in every sample: nothing to predict (it does not vary, so no "
                             "feature can explain it); pass the target you meant, or check its column")
        if unlabeled_X is not None:
            unlabeled_X = check_array(unlabeled_X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64,
                                      input_name="unlabeled_X")
        n, p = X.shape
        labels, index, order = _group_rows(domains)
        if index.shape[0] != n:
            raise ValueError(f"X, y and domains disagree in length: X and y have {n} rows, domains has {index.shape[0]}")
        lazy = not (p <= _EAGER_MAX_FEATURES and labels.size * p * p * 8 <= _EAGER_MAX_BYTES)
        if not is_sparse(X) and self.refit == "stagewise" and self.stopping is None:
            k = self._n_steps(p, warn=False)  # a short path forms only the k rows it picks (a row ~ p / 5.4 columns)
            if k is not None and p > 6 * k and 8 * n * p <= _ROWS_ONLY_MAX_BYTES:
                lazy = "chosen"
        counts = np.bincount(index, minlength=labels.size)
        row_scale, domain_weight = None, counts.astype(np.float64)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True,
                                                 allow_all_zero_weights=True)
            domain_weight = np.bincount(index, weights=sample_weight, minlength=labels.size)
            if not np.all(domain_weight > 0):
                label = labels[int(np.flatnonzero(~(domain_weight > 0))[0])]
                label = label.item() if isinstance(label, np.generic) else label
                raise ValueError(f"the sample weights of domain {label!r} are all zero: drop its rows, or give "
                                 "some of them a positive weight (every domain's moments divide by its total weight)")
            # rows scaled by sqrt(w_j m_k / W_k): domain k's mean of x'y' is then its weighted mean
            row_scale = np.sqrt(sample_weight * (counts[index] / domain_weight[index]))
        if is_sparse(X):
            if self.fit_intercept:
                raise ValueError(f"{name}(fit_intercept=True) centres X, which would densify this sparse X: pass "
                                 "fit_intercept=False (features that are 0 when absent, such as counts or pixels, "
                                 "need no centring) or a dense X")
            if row_scale is not None:
                X, y = X.multiply(row_scale[:, None]), y * row_scale
            self.intercept_ = 0.0
            X, y = X.tocsr()[order], y[order]  # the rows sorted by domain, each domain's in its order
            return self._fit_path(DomainStatistics.from_sorted_rows(X, y, counts, labels, unlabeled_X, lazy), stopping)
        # one C-order copy of the rows sorted by domain (stable), each domain a slice, centred and weighted in place
        copy = self.fit_intercept or row_scale is not None
        if copy or not X.flags.c_contiguous or np.any(order != np.arange(n)):
            X = np.ascontiguousarray(np.take(X, order, axis=0))  # (faster than X[order]; with out= slower)
            index, y = index[order], y[order]
            if sample_weight is not None:
                sample_weight, row_scale = sample_weight[order], row_scale[order]
        y_mean = 0.0
        if self.fit_intercept:
            weight = 1.0 / (labels.size * domain_weight[index])  # each domain weighs 1/n
            if sample_weight is not None:
                weight *= sample_weight
            x_mean, y_mean = weight @ X, float(weight @ y)
            _dger(-1.0, x_mean, np.ones(n), a=X.T, overwrite_a=1)  # X -= x_mean in place, twice numpy's speed
            y = y - y_mean
            if unlabeled_X is not None:
                unlabeled_X = (unlabeled_X.toarray() if is_sparse(unlabeled_X) else unlabeled_X) - x_mean
        if row_scale is not None:
            X *= row_scale[:, None]
            y = y * row_scale
        self._fit_path(DomainStatistics.from_sorted_rows(X, y, counts, labels, unlabeled_X, lazy), stopping)
        self.intercept_ = y_mean - float(x_mean @ self.coef_) if self.fit_intercept else 0.0
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_statistics(self, stats: DomainStatistics):
        """Select features from precomputed :class:`DomainStatistics` (e.g. :meth:`~DomainStatistics.from_moments`).

        Nothing is centred (the moments carry no means): ``intercept_`` is 0; ``feature_names_in_`` is not set.
        """
        if not isinstance(stats, DomainStatistics):
            raise TypeError(f"fit_statistics expects DomainStatistics, got {type(stats).__name__}")
        stopping = self._checked_stopping()
        check_refit(self.refit, self.allow_reselect)
        self.n_features_in_ = stats.n_features
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.intercept_ = 0.0
        return self._fit_path(stats, stopping)

    def _n_steps(self, p: int, warn: bool = True) -> int | None:
        """The number of steps asked for on ``p`` features (None for "auto"), warning when it exceeds them."""
        k = self.n_features_to_select
        if isinstance(k, str):
            return None
        if isinstance(k, Real) and not isinstance(k, Integral):
            return max(1, int(k * p))
        if k > p and not self.allow_reselect:
            if warn:
                warnings.warn(f"n_features_to_select={k} exceeds the {p} features: all {p} are kept "
                              "(pass n_features_to_select <= n_features, a fraction, or 'auto')",
                              UserWarning, stacklevel=5)
            return p
        return int(k)

    def _run(self, stats: DomainStatistics, n_steps: int) -> SelectionPath:
        return trace_path(stats, self._method, n_steps, sign=getattr(self, "sign", "abs"), denominator=self.denominator,
                          refit=self.refit, threshold=self.threshold, allow_reselect=self.allow_reselect)

    def _fit_path(self, stats: DomainStatistics, stopping):
        p = stats.n_features
        n_steps = self._n_steps(p)
        if n_steps is None and stopping is None:
            stopping = (AUTO_STOPPING, {})
        result = None
        if n_steps is not None:
            self.path_ = self._run(stats, n_steps)
        else:
            self.path_, result = self._auto_path(stats, stopping, p)
        if stopping is None:
            k, self.stopping_evidence_ = self.path_.n_steps, None
        elif self.path_.n_steps == 0:
            k, self.stopping_evidence_ = 0, {"rule": stopping[0], "empty_path": True}
        else:
            if result is None:
                from .stopping import choose_k

                result = choose_k(self.path_, stats, rule=stopping[0], **stopping[1])
            k, self.stopping_evidence_ = result.k, {"rule": result.rule, **result.evidence}
        self.n_features_to_select_ = int(k)
        self.coef_ = self.path_.coef[k - 1].copy() if k else np.zeros(p)
        self.selected_features_ = self.path_.support(k)
        kept = self.path_.t_statistic[:k]
        if getattr(self, "sign", "abs") == "positive" and not np.all(kept > 0):
            step = int(np.flatnonzero(~(kept > 0))[0])
            warnings.warn(
                f"sign='positive' ran out of positive T at step {step + 1} of {k}: no remaining feature has a "
                f"positive T (the largest is {kept[step]:.3g}), so steps {step + 1}-{k} add features against "
                "the sign asked for; keep fewer features, or use sign='abs' for a target whose features may "
                "act either way",
                UserWarning, stacklevel=4,
            )
        return self

    def _auto_path(self, stats: DomainStatistics, stopping, p: int):
        """``(path, rule's result or None)`` for "auto": the path doubles (16, 32, ... steps) until the rule stops
        inside it or every feature is in; ``"lodo"`` compares all steps, so its path has every feature."""
        from .stopping import choose_k

        rule, options = stopping
        limit = p if not self.allow_reselect else 2 * p
        if rule == "lodo":
            return self._run(stats, limit), None
        n_steps = min(16, limit)
        while True:
            path = self._run(stats, n_steps)
            if path.n_steps == 0:
                return path, None
            result = choose_k(path, stats, rule=rule, **options)
            if result.k < path.n_steps or path.n_steps < n_steps or n_steps >= limit:
                return path, result
            n_steps = min(2 * n_steps, limit)

    def _get_support_mask(self):
        check_is_fitted(self, "path_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def decision_function(self, X):
        """The linear prediction ``X @ coef_ + intercept_``."""
        check_is_fitted(self, "path_")
        X = validate_data(self, X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_

    predict = decision_function

    def score(self, X, y, sample_weight=None):
        """R^2 of :meth:`predict` on ``(X, y)``, as scikit-learn's regressors (without an intercept it can be far below 0)."""
        from sklearn.metrics import r2_score

        return float(r2_score(y, self.predict(X), sample_weight=sample_weight))


@_document
class TGreedy(_PathSelector):
    r"""T-greedy feature selection (Foster, Kakade & Salakhutdinov 2012, section 3.3).

    At each step add the feature with the largest T-statistic of its covariance with the residual across
    the training domains: the feature whose improvement is most consistent from domain to domain. The
    scikit-learn front end of :func:`~tgreedy_lib.tgreedy_path`; :meth:`predict` is the selected linear
    model, :meth:`score` its R^2.

    Parameters
    ----------
    <common parameters>
    sign : {"abs", "positive"}, default="abs"
        Rank by ``|T_i|`` or by ``T_i`` as printed in the paper (features that are evidence *for* one
        class); :meth:`fit` warns when a kept step has T <= 0.
    <other parameters and attributes>

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import TGreedy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 5)); domains = np.repeat(np.arange(4), 100)
    >>> y = X[:, 2] - 0.5 * X[:, 4] + 0.1 * rng.standard_normal(400)
    >>> TGreedy(n_features_to_select=1).fit(X, y, domains=domains).selected_features_
    array([2])

    An intercept is fitted: a shifted target selects the same features, and :meth:`score` includes it:

    >>> selector = TGreedy(n_features_to_select=2).fit(X, y + 100, domains=domains)
    >>> selector.selected_features_, round(selector.intercept_, 1), round(selector.score(X, y + 100), 3)
    (array([2, 4]), 100.0, 0.991)

    A DataFrame's column names come back from ``get_feature_names_out``:

    >>> import pandas as pd
    >>> frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    >>> TGreedy(n_features_to_select=2).fit(frame, y, domains=domains).get_feature_names_out()
    array(['c', 'e'], dtype=object)

    With a stopping rule, ``n_features_to_select`` is the most steps considered:

    >>> selector = TGreedy(n_features_to_select=5, stopping="bonferroni").fit(X, y, domains=domains)
    >>> selector.n_features_to_select_, selector.selected_features_
    (2, array([2, 4]))
    >>> np.round(selector.stopping_evidence_["abs_t"], 1)  # |T| of steps 3-5 falls below the threshold
    array([15. , 11.5,  0.8,  0.5,  0. ])
    >>> TGreedy(n_features_to_select="auto").fit(X, y, domains=domains).selected_features_
    array([2, 4])

    Leave-one-domain-out cross-validation with the labels given once (metadata routing):

    >>> import sklearn
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.model_selection import LeaveOneGroupOut, cross_val_score
    >>> from sklearn.pipeline import make_pipeline
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     pipe = make_pipeline(TGreedy(2).set_fit_request(domains="groups"), LinearRegression())
    ...     scores = cross_val_score(pipe, X, y, cv=LeaveOneGroupOut(), params={"groups": domains})
    >>> scores.round(3)  # R^2 on each held-out domain
    array([0.991, 0.992, 0.991, 0.739])

    Without domain 3, feature 0's tiny but consistent residual covariance (T = 355 over three domains)
    beat feature 4: T ranks by how sure it is of a sign, not by the size of the effect.
    """

    _method = "tgreedy"
    _parameter_constraints: dict = {**_PathSelector._parameter_constraints, "sign": [StrOptions({"abs", "positive"})]}

    def __init__(self, n_features_to_select=10, *, fit_intercept=True, sign="abs", denominator="sample",
                 refit="stagewise", threshold=None, allow_reselect=False, stopping=None):
        super().__init__(n_features_to_select, fit_intercept=fit_intercept, denominator=denominator, refit=refit,
                         threshold=threshold, allow_reselect=allow_reselect, stopping=stopping)
        self.sign = sign


@_document
class Greedy(_PathSelector):
    r"""Greedy feature selection on the pooled training loss (Foster, Kakade & Salakhutdinov 2012, section 4).

    The paper's baseline: T-greedy's update, but each step adds the feature that most lowers the training
    squared loss pooled over the domains, mu_i^2 / E[X_i^2], however its covariance varies across domains
    (so it overfits them). The scikit-learn front end of :func:`~tgreedy_lib.greedy_path`.

    Parameters
    ----------
    <common parameters>
    <other parameters and attributes>

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

    _method = "greedy"
