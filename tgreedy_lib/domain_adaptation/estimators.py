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

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.linalg.blas import dger as _dger
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_array, check_is_fitted, validate_data

from .._validation import align_columns, check_options, column_names, factorize, is_sparse
from .selection import SelectionPath, _selection_path
from .statistics import DomainStatistics
from .stopping import RULE_CONSTRAINTS, RULE_OPTIONS, RULES, choose_k

__all__ = ["TGreedy", "Greedy"]


#: Which scipy.sparse formats the selectors take as they are (scikit-learn's ``accept_sparse``; other
#: formats are converted to CSR). :class:`DomainStatistics` computes its moments and Gram rows from
#: sparse rows without densifying them.
_ACCEPT_SPARSE = ("csr", "csc")

#: The stopping rule of ``n_features_to_select="auto"`` without ``stopping=``: the default of
#: :func:`~.stopping.choose_k`, the sign-flip null of the largest |T| at alpha = 0.05.
AUTO_STOPPING = "chance"

#: Up to these sizes the selectors form the whole Gram ``E[X X^T | d_k]`` at once (one symmetric product per
#: domain, n p^2 flops in all). Lazily, a path's look-ahead forms the Gram of its candidates (at most 256
#: features: n c^2) and a first block of 64 rows (2 n p 64), so the whole Gram costs no more up to
#: p^2 <= 256^2 + 128 p, p ~ 330, and saves the many small products of the look-ahead (measured, one BLAS
#: thread: n = 630, p = 274: 2.8 against 4.1 ms; n = 2,660: p = 300 even, p = 500 51 against 29 ms). Above
#: them rows are formed lazily, as by :meth:`DomainStatistics.from_samples`.
_EAGER_MAX_FEATURES = 320
_EAGER_MAX_BYTES = 64 * 2**20
#: Short paths form only the rows of the features they pick, one pass over the samples a step, up to
#: samples of this size (``_PathSelector._rows_only``).
_ROWS_ONLY_MAX_BYTES = 16 * 2**20


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
            raise ValueError(f"stopping={stopping!r} names no rule; give one of {RULES} as "
                             "stopping='chance' or stopping={'rule': 'chance', 'alpha': 0.1}")
    if rule not in RULES:
        raise ValueError(f"unknown stopping rule {rule!r}; choose one of {RULES}")
    unknown = sorted(set(options) - set(RULE_OPTIONS[rule]))
    if unknown:
        raise ValueError(f"stopping rule {rule!r} takes the options {RULE_OPTIONS[rule]}, not {unknown}")
    check_options(RULE_CONSTRAINTS, options, f"stopping rule {rule!r}")
    return rule, options


def _check_numeric_target(y, name: str) -> None:
    """Refuse class labels that are not numbers (strings) in one line naming the fix."""
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind is None:
        y = np.asarray(y)
        kind = y.dtype.kind
    if kind not in "OUS":
        return
    values = np.asarray(y).ravel()
    try:
        values.astype(np.float64)
    except (TypeError, ValueError):
        example = next((v for v in values.tolist() if isinstance(v, (str, bytes))), values[0])
        raise ValueError(
            f"{name} holds class labels such as {example!r}, but the selectors regress on a numeric y: encode "
            f"one class against the rest, e.g. y = (labels == {example!r}).astype(float), or use "
            "sklearn.preprocessing.LabelEncoder for ordered classes"
        ) from None


def _rank_one_update(alpha: float, x: np.ndarray, y: np.ndarray, a: np.ndarray) -> None:
    """``a += alpha * outer(x, y)`` in place (BLAS ``dger``; ``a`` float64 in Fortran order, else numpy)."""
    if a.flags.f_contiguous and a.dtype == np.float64 and a.size:
        out = _dger(alpha, x, y, a=a, overwrite_a=1)
        if np.shares_memory(out, a):
            return
    a += alpha * np.outer(x, y)


def _group_rows(domains) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(labels, index, order)``: :func:`~tgreedy_lib._validation.factorize`'s sorted labels and codes, and
    the stable order of the rows by domain.

    Integer labels (the usual case) are sorted once, for both; other labels are factorized (which
    checks them: missing values, unhashable ones), then their codes sorted.
    """
    values = domains if isinstance(domains, np.ndarray) else None
    if values is None or values.ndim != 1 or values.dtype.kind not in "biu" or values.size == 0:
        labels, index = factorize(domains, "domains")
        return labels, index, np.argsort(index.astype(np.int16) if labels.size < 2**15 else index, kind="stable")
    low, high = int(values.min()), int(values.max())
    # a stable sort of small integers is a radix sort when they fit 16 bits (several times faster), the same order
    keys = (values - low).astype(np.int16) if values.dtype.kind != "b" and high - low < 2**15 else values
    order = np.argsort(keys, kind="stable")
    ordered = values[order]
    new = np.empty(ordered.size, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    index = np.empty(ordered.size, dtype=np.intp)
    index[order] = np.cumsum(new) - 1
    return ordered[new], index, order


class _PathSelector(SelectorMixin, BaseEstimator):
    """scikit-learn front end shared by :class:`TGreedy` and :class:`Greedy`."""

    _method: str = ""

    def _sign(self) -> str:
        return "abs"

    _parameter_constraints: dict = {
        "n_features_to_select": [
            StrOptions({"auto"}),
            Interval(RealNotInt, 0, 1, closed="neither"),
            Interval(Integral, 1, None, closed="left"),
        ],
        "fit_intercept": ["boolean"],
        "denominator": [StrOptions({"sample", "unlabeled"})],
        "refit": [StrOptions({"stagewise", "stepwise"})],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "allow_reselect": ["boolean"],
        "stopping": [None, StrOptions(set(RULES)), dict],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # the residual covariances E[X (Y - w.X) | d_k] need y
        # Centring a sparse X would densify it: sparse input is taken with fit_intercept=False.
        tags.input_tags.sparse = bool(_ACCEPT_SPARSE) and not self.fit_intercept
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, domains=None, unlabeled_X=None, sample_weight=None):
        """Select features from pooled rows ``X``, targets ``y`` and the domain label of every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows of all training domains, pooled (dense, or scipy.sparse with
            ``fit_intercept=False``, never densified). A pandas DataFrame's column names are kept in
            ``feature_names_in_``.
        y : array-like of shape (n_samples,)
            Real-valued targets (for classification, one class against the rest as 1/0 or +1/-1;
            string class labels are refused with the encoding to use).
        domains : array-like of shape (n_samples,)
            The domain label of every row (any hashable labels, at least two distinct ones).
            Required: there is no default, because the T-statistic is the spread of the
            residual covariances *across domains*. Inside a :class:`~sklearn.pipeline.Pipeline`
            pass it as a fit parameter: ``pipe.fit(X, y, select__domains=d)``. With scikit-learn's
            metadata routing enabled, request it instead: ``set_fit_request(domains=True)`` takes
            ``domains=d``, and ``set_fit_request(domains="groups")`` takes the ``groups`` that a
            group splitter such as :class:`~sklearn.model_selection.LeaveOneGroupOut` reads, so
            leave-one-domain-out cross-validation gets the labels once (class docstring, Examples).
        unlabeled_X : array-like of shape (n_unlabeled, n_features), default=None
            Unlabeled rows for the pooled ``E[X X^T]`` (needed by ``denominator="unlabeled"``);
            centred by the means of ``X`` when ``fit_intercept=True``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the rows: every moment ``E[. | d_k]`` becomes the weighted mean over
            domain k's rows (integer weights act as repeated rows), and the centre of
            ``fit_intercept`` the mean over domains of the weighted per-domain means. Domains still
            weigh 1/n each (the paper's averages); a domain whose weights are all zero is refused.
            The stopping rules count rows, not weights.

        Returns
        -------
        self : object
            The fitted selector.
        """
        name = type(self).__name__
        if domains is None:
            raise ValueError(
                f"{name}.fit needs domains: a vector with the domain label of every row "
                f"of X, e.g. {name}().fit(X, y, domains=d) (in a Pipeline: "
                "pipe.fit(X, y, select__domains=d); inside cross_val_score or GridSearchCV, under "
                "sklearn.config_context(enable_metadata_routing=True), request the groups: "
                f"{name}().set_fit_request(domains=\"groups\") and cross_val_score(..., "
                "params={\"groups\": d})); the T-statistic is computed across domains"
            )
        if unlabeled_X is not None:  # a DataFrame's columns are matched to X's by name
            unlabeled_X = align_columns(unlabeled_X, column_names(X), "unlabeled_X", "X")
        _check_numeric_target(y, "y")
        X, y = validate_data(
            self, X, y, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, ensure_min_samples=2, y_numeric=True
        )
        if np.all(y == y[0]):  # before centring, so the message gives y's own value, not a rounding residue
            raise ValueError(f"y is {float(y[0])} in every sample: nothing to predict (it does not vary, so no "
                             "feature can explain it); pass the target you meant, or check its column")
        if unlabeled_X is not None:
            unlabeled_X = check_array(
                unlabeled_X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, input_name="unlabeled_X"
            )
        n, p = X.shape
        labels, index, order = _group_rows(domains)
        if index.shape[0] != n:
            raise ValueError(f"X, y and domains disagree in length: X and y have {n} rows, domains has {index.shape[0]}")
        lazy = not (p <= _EAGER_MAX_FEATURES and labels.size * p * p * 8 <= _EAGER_MAX_BYTES)
        if not is_sparse(X) and self._rows_only(p, n):  # (sparse rows are formed one at a time anyway)
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
            # Rows scaled by sqrt(w_j m_k / W_k): the mean over domain k's m_k rows of x'y' is then the
            # weighted mean sum_j w_j x_j y_j / W_k (scikit-learn's rescaling of rows for least squares).
            row_scale = np.sqrt(sample_weight * (counts[index] / domain_weight[index]))
        if is_sparse(X):
            if self.fit_intercept:
                raise ValueError(
                    f"{name}(fit_intercept=True) centres X, which would densify this sparse X: pass "
                    "fit_intercept=False (features that are 0 when absent, such as counts or pixels, need "
                    "no centring) or a dense X"
                )
            if row_scale is not None:
                X, y = X.multiply(row_scale[:, None]).tocsr(), y * row_scale
            self.intercept_ = 0.0
            return self._fit_path(DomainStatistics.from_samples(X, y, domains, unlabeled_X=unlabeled_X, lazy=lazy))
        # The rows sorted by domain (stable: each domain's rows keep their order), in C order whatever X's,
        # so every domain is a slice; one copy, which the centring and the weights then work in.
        copy = self.fit_intercept or row_scale is not None
        if copy or not X.flags.c_contiguous or np.any(order != np.arange(n)):
            X = np.ascontiguousarray(np.take(X, order, axis=0))  # (faster than X[order]; with out= slower)
            index, y = index[order], y[order]
            if sample_weight is not None:
                sample_weight, row_scale = sample_weight[order], row_scale[order]
        y_mean = 0.0
        if self.fit_intercept:
            # Centre by the mean over domains of the per-domain (weighted) means: each domain weighs 1/n,
            # as in the paper's moments.
            weight = 1.0 / (labels.size * domain_weight[index])
            if sample_weight is not None:
                weight *= sample_weight
            x_mean, y_mean = weight @ X, float(weight @ y)
            # X -= x_mean as a rank-one update in place (the same bits: x - 1 * mean; twice as fast as
            # numpy's broadcast over short rows)
            _rank_one_update(-1.0, x_mean, np.ones(n), X.T)
            y = y - y_mean
            if unlabeled_X is not None:
                unlabeled_X = (unlabeled_X.toarray() if is_sparse(unlabeled_X) else unlabeled_X) - x_mean
        if row_scale is not None:
            X *= row_scale[:, None]
            y = y * row_scale
        # X, y and the labels are validated: the statistics are built from the domains' slices directly
        # (DomainStatistics.from_samples would check and group them again).
        stats = DomainStatistics._from_sorted_samples(X, y, counts, labels, unlabeled_X, lazy)
        self._fit_path(stats)
        self.intercept_ = y_mean - float(x_mean @ self.coef_) if self.fit_intercept else 0.0
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_statistics(self, stats: DomainStatistics):
        """Select features from precomputed :class:`DomainStatistics` (no samples needed).

        The moments are used as given: they carry no means, so nothing is centred whatever
        ``fit_intercept`` says, and ``intercept_`` is 0. For an intercept, build the statistics from
        centred samples (subtract the mean of the per-domain means of ``X`` and ``y``).

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
        self.intercept_ = 0.0
        return self._fit_path(stats)

    def _rows_only(self, p: int, n: int) -> bool:
        """Whether the path should form only the Gram rows of the features it picks, one per step.

        A fixed number k of stagewise steps reads k rows: k passes over the samples (2 n p flops each,
        memory-bound) against 2 n p^2 flops (compute-bound) for the whole Gram. Measured (one BLAS
        thread) a row costs about as much as p / 5.4 columns of the Gram, so the rows win where
        p > 6 k; the samples stay small enough to be read k times (``_ROWS_ONLY_MAX_BYTES``). Stopping
        rules, the stepwise refit and "auto" read more of the Gram, so they keep the other routes.
        """
        k = self.n_features_to_select
        if isinstance(k, str) or self.refit != "stagewise" or self.stopping is not None:
            return False
        k = max(1, int(k * p)) if isinstance(k, Real) and not isinstance(k, Integral) else int(k)
        return p > 6 * k and 8 * n * p <= _ROWS_ONLY_MAX_BYTES

    def _n_steps(self, p: int) -> int | None:
        """The number of steps asked for on ``p`` features (None for "auto"), warning when it exceeds them."""
        k = self.n_features_to_select
        if isinstance(k, str):
            return None
        if isinstance(k, Real) and not isinstance(k, Integral):
            return max(1, int(k * p))
        if k > p and not self.allow_reselect:
            warnings.warn(
                f"n_features_to_select={k} exceeds the {p} features: all {p} are kept "
                "(pass n_features_to_select <= n_features, a fraction, or 'auto')",
                UserWarning, stacklevel=5,
            )
            return p
        return int(k)

    def _run(self, stats: DomainStatistics, n_steps: int) -> SelectionPath:
        # the options were validated by _parameter_constraints; the path trusts them
        return _selection_path(stats, self._method, n_steps, self._sign(), self.denominator, self.refit,
                               self.threshold, self.allow_reselect)

    def _fit_path(self, stats: DomainStatistics):
        stopping = _check_stopping(self.stopping)
        if self.refit == "stepwise" and self.allow_reselect:
            raise ValueError("allow_reselect=True has no meaning for refit='stepwise' (the refit already "
                             "optimizes); pass allow_reselect=False")
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
            rule, options = stopping
            if result is None:
                result = choose_k(self.path_, stats, rule=rule, **options)
            k, self.stopping_evidence_ = result.k, {"rule": result.rule, **result.evidence}
        self.n_features_to_select_ = int(k)
        self.coef_ = self.path_.coef[k - 1].copy() if k else np.zeros(p)
        self.selected_features_ = self.path_.support(k)
        self._check_path_signs(k)
        return self

    def _auto_path(self, stats: DomainStatistics, stopping, p: int):
        """``(path, rule's result or None)`` for ``n_features_to_select="auto"``: a path the rule stops inside.

        A rule that keeps adding until the first failing step (``"bonferroni"``, ``"theorem1"``,
        ``"chance"``) chooses the same k on any path that reaches past its first failure, so the path
        is grown by doubling (16, 32, ... steps; at most twice the work of the last one) until the rule
        stops inside it or every feature is in. ``"lodo"`` compares all steps: its path has every feature.
        """
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

    def _check_path_signs(self, k: int) -> None:
        """Hook: :class:`TGreedy` warns when ``sign="positive"`` kept steps without a positive T."""

    def _get_support_mask(self):
        check_is_fitted(self, "path_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def decision_function(self, X):
        """The linear prediction ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        score : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "path_")
        X = validate_data(self, X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_

    def predict(self, X):
        """The linear prediction ``X @ coef_ + intercept_`` (the same as :meth:`decision_function`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        return self.decision_function(X)

    def score(self, X, y, sample_weight=None):
        """The coefficient of determination R^2 of :meth:`predict` on ``(X, y)``, as scikit-learn's regressors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
            R^2 (1 is perfect, 0 predicts the mean of ``y``; without an intercept it can be far below 0).
        """
        from sklearn.metrics import r2_score

        return float(r2_score(y, self.predict(X), sample_weight=sample_weight))


class TGreedy(_PathSelector):
    r"""T-greedy feature selection (Foster, Kakade & Salakhutdinov 2012, section 3.3).

    A stagewise selector on the residual covariances of the training domains: at each step it
    adds the feature with the largest T-statistic of its covariance with the residual across
    domains, the feature whose improvement is most consistent from domain to domain [1]_.
    The scikit-learn front end of :func:`tgreedy_path`; :meth:`predict` is the selected linear
    model and :meth:`score` its R^2.

    Parameters
    ----------
    n_features_to_select : "auto", int or float, default=10
        How many features to select, as in scikit-learn's
        :class:`~sklearn.feature_selection.SequentialFeatureSelector`: an int is the number of steps
        (``n_steps`` of :func:`tgreedy_path`); a float in (0, 1) the fraction of the features
        (``int(fraction * n_features)``, at least 1); ``"auto"`` lets a stopping rule choose: the rule
        of ``stopping``, else the sign-flip null of the largest |T| (``"chance"`` at alpha = 0.05,
        :func:`~tgreedy_lib.domain_adaptation.stopping.choose_k`'s default), on a path long enough for
        the rule to stop inside it (every feature for ``"lodo"``). More features than ``X`` has warns
        and keeps them all.
    fit_intercept : bool, default=True
        Fit an intercept, as scikit-learn's linear models: :meth:`fit` centres ``X`` and ``y`` before
        selecting and :meth:`predict` adds ``intercept_`` back, so a constant column is never
        needed (one is refused as constant). The centre is the mean over the training domains of
        each domain's mean (every domain weighs the same; the pooled sample mean when the domains
        are of equal size): the paper's moments weigh each domain equally, and with these means
        the intercept ``mean(y) - coef_ . mean(X)`` minimises the pooled training loss
        ``(1/n) sum_k E[(Y - b - w.X)^2 | d_k]`` at every step. ``False`` selects on the raw
        moments, as the paper's section 3.3 update does (its model is ``y = w.x``, no intercept,
        and its features, pixel intensities and unit activations in [0, 1], are not centred, so
        their raw second moments are what it selects on): the reproduction of the paper's
        experiments keeps to that (it runs the path functions, which have no intercept, and
        :meth:`fit_statistics`, which uses the moments as given), and sparse ``X`` needs it
        (centring would densify it).
    sign : {"abs", "positive"}, default="abs"
        Rank by ``|T_i|`` (``"abs"``) or by ``T_i`` as printed in the paper (``"positive"``).
        ``"positive"`` fits where only a positive association is wanted and its sign is known in
        advance: one class against the rest with ``y`` in {0, 1} or {-1, +1}, features that are
        evidence *for* the class (the paper's digit pairs). On a regression target it reaches
        negatively associated features only after every positive one, and then with T <= 0:
        :meth:`fit` warns when a kept step has no positive T left (use ``"abs"`` there).
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
        step (``n_features_to_select`` of them unless ``threshold`` stops earlier; with
        ``"auto"``, the ``"chance"`` rule). A rule computes the path of ``n_features_to_select``
        steps (then the largest number considered) and keeps its first ``k``: ``"lodo"`` leaves one
        domain out and cycles (held-out squared loss), ``"bonferroni"`` keeps the steps whose |T|
        clears the t quantile at ``alpha / p``, ``"theorem1"`` Theorem 1's width, ``"chance"`` the
        sign-flip null of the largest |T|. A dict ``{"rule": ..., **options}`` passes options to the
        rule: ``alpha`` (bonferroni, theorem1, chance), ``null``, ``n_flips``, ``seed`` (chance),
        ``score``, ``min_k`` (lodo).

    Attributes
    ----------
    path_ : SelectionPath
        The whole path (features, weights, T-statistics, losses after every step), of the centred
        data when ``fit_intercept=True``.
    n_features_to_select_ : int
        The number of steps kept: chosen by ``stopping`` (or ``"auto"``), else the path's length.
        (The number of features, unless ``allow_reselect``; 0 when a rule keeps none.)
    stopping_evidence_ : dict or None
        What the ``stopping`` rule's choice rests on (``rule`` and the rule's evidence: thresholds,
        |T| of every step, null quantiles or held-out scores); None without a rule.
    coef_ : ndarray of shape (n_features_in_,)
        Weights after the last step kept.
    intercept_ : float
        ``mean(y) - coef_ . mean(X)`` with the means of ``fit_intercept``; 0.0 without one.
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
    sklearn.linear_model.OrthogonalMatchingPursuit : Greedy least squares on the pooled rows.

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

    An intercept is fitted (``fit_intercept=True``): a shifted target selects the same features,
    and :meth:`predict` and :meth:`score` include it:

    >>> selector = TGreedy(n_features_to_select=2).fit(X, y + 100, domains=domains)
    >>> selector.selected_features_, round(selector.intercept_, 1), round(selector.score(X, y + 100), 3)
    (array([2, 4]), 100.0, 0.991)

    A DataFrame's column names come back from ``get_feature_names_out``:

    >>> import pandas as pd
    >>> frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    >>> selector = TGreedy(n_features_to_select=2).fit(frame, y, domains=domains)
    >>> selector.get_feature_names_out()
    array(['c', 'e'], dtype=object)
    >>> selector.transform(frame).shape
    (400, 2)

    With a stopping rule, ``n_features_to_select`` is the most steps considered and the rule keeps
    the first ``n_features_to_select_`` of them; ``"auto"`` lets the rule consider every feature:

    >>> selector = TGreedy(n_features_to_select=5, stopping="bonferroni").fit(X, y, domains=domains)
    >>> selector.n_features_to_select_, selector.selected_features_
    (2, array([2, 4]))
    >>> np.round(selector.stopping_evidence_["abs_t"], 1)  # |T| of steps 3-5 falls below the threshold
    array([15. , 11.5,  0.8,  0.5,  0. ])
    >>> TGreedy(n_features_to_select="auto").fit(X, y, domains=domains).selected_features_
    array([2, 4])

    Leave-one-domain-out cross-validation with the domain labels given once: with metadata routing,
    the selector asks for the splitter's ``groups`` as its ``domains``:

    >>> import sklearn
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.model_selection import LeaveOneGroupOut, cross_val_score
    >>> from sklearn.pipeline import make_pipeline
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     pipe = make_pipeline(TGreedy(2).set_fit_request(domains="groups"), LinearRegression())
    ...     scores = cross_val_score(pipe, X, y, cv=LeaveOneGroupOut(), params={"groups": domains})
    >>> scores.round(3)  # R^2 on each held-out domain
    array([0.991, 0.992, 0.991, 0.739])

    Without domain 3, feature 0's tiny but consistent residual covariance (T = 355 over three
    domains) beat feature 4: T ranks by how sure it is of a sign, not by the size of the effect.
    """

    _method = "tgreedy"

    def _sign(self) -> str:
        return self.sign

    _parameter_constraints: dict = {
        **_PathSelector._parameter_constraints,
        "sign": [StrOptions({"abs", "positive"})],
    }

    def __init__(
        self,
        n_features_to_select=10,
        *,
        fit_intercept=True,
        sign="abs",
        denominator="sample",
        refit="stagewise",
        threshold=None,
        allow_reselect=False,
        stopping=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.fit_intercept = fit_intercept
        self.sign = sign
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect
        self.stopping = stopping

    def _check_path_signs(self, k: int) -> None:
        if self.sign != "positive" or k == 0:
            return
        kept = self.path_.t_statistic[:k]
        if np.all(kept > 0):
            return
        step = int(np.flatnonzero(~(kept > 0))[0])
        warnings.warn(
            f"sign='positive' ran out of positive T at step {step + 1} of {k}: no remaining feature has a "
            f"positive T (the largest is {kept[step]:.3g}), so steps {step + 1}-{k} add features against "
            "the sign asked for; keep fewer features, or use sign='abs' for a target whose features may "
            "act either way",
            UserWarning, stacklevel=5,
        )


class Greedy(_PathSelector):
    r"""Greedy feature selection on the pooled training loss (Foster, Kakade & Salakhutdinov 2012, section 4).

    The baseline of the paper's experiments [1]_: the same stagewise update as T-greedy, but
    each step adds the feature that most lowers the training squared loss pooled over the
    domains. The scikit-learn front end of :func:`greedy_path`.

    Parameters
    ----------
    n_features_to_select : "auto", int or float, default=10
        How many features to select, as in scikit-learn's
        :class:`~sklearn.feature_selection.SequentialFeatureSelector`: an int is the number of steps
        (``n_steps`` of :func:`greedy_path`); a float in (0, 1) the fraction of the features
        (``int(fraction * n_features)``, at least 1); ``"auto"`` lets a stopping rule choose: the rule
        of ``stopping``, else the sign-flip null of the largest |T| (``"chance"`` at alpha = 0.05,
        :func:`~tgreedy_lib.domain_adaptation.stopping.choose_k`'s default), on a path long enough for
        the rule to stop inside it (every feature for ``"lodo"``). More features than ``X`` has warns
        and keeps them all.
    fit_intercept : bool, default=True
        Fit an intercept, as scikit-learn's linear models: :meth:`fit` centres ``X`` and ``y`` before
        selecting and :meth:`predict` adds ``intercept_`` back, so a constant column is never
        needed (one is refused as constant). The centre is the mean over the training domains of
        each domain's mean (every domain weighs the same; the pooled sample mean when the domains
        are of equal size): the paper's moments weigh each domain equally, and with these means
        the intercept ``mean(y) - coef_ . mean(X)`` minimises the pooled training loss
        ``(1/n) sum_k E[(Y - b - w.X)^2 | d_k]`` at every step. ``False`` selects on the raw
        moments, as the paper's section 3.3 update does (its model is ``y = w.x``, no intercept,
        and its features, pixel intensities and unit activations in [0, 1], are not centred, so
        their raw second moments are what it selects on): the reproduction of the paper's
        experiments keeps to that (it runs the path functions, which have no intercept, and
        :meth:`fit_statistics`, which uses the moments as given), and sparse ``X`` needs it
        (centring would densify it).
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
        (section 5), as in :class:`TGreedy`; ``None`` keeps every step (with ``"auto"``, the
        ``"chance"`` rule).

    Attributes
    ----------
    path_ : SelectionPath
        The whole path (features, weights, T-statistics, losses after every step), of the centred
        data when ``fit_intercept=True``.
    n_features_to_select_ : int
        The number of steps kept: chosen by ``stopping`` (or ``"auto"``), else the path's length.
        (The number of features, unless ``allow_reselect``; 0 when a rule keeps none.)
    stopping_evidence_ : dict or None
        What the ``stopping`` rule's choice rests on (``rule`` and the rule's evidence: thresholds,
        |T| of every step, null quantiles or held-out scores); None without a rule.
    coef_ : ndarray of shape (n_features_in_,)
        Weights after the last step kept.
    intercept_ : float
        ``mean(y) - coef_ . mean(X)`` with the means of ``fit_intercept``; 0.0 without one.
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

    _method = "greedy"

    def __init__(
        self,
        n_features_to_select=10,
        *,
        fit_intercept=True,
        denominator="sample",
        refit="stagewise",
        threshold=None,
        allow_reselect=False,
        stopping=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.fit_intercept = fit_intercept
        self.denominator = denominator
        self.refit = refit
        self.threshold = threshold
        self.allow_reselect = allow_reselect
        self.stopping = stopping
