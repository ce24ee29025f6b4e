"""Per-domain second moments: the statistics every selector consumes (paper, section 2).

Foster, Kakade & Salakhutdinov (2012), section 2: the training set is a handful of domains
d_1, ..., d_n sampled independently; within each domain we know (or estimate from many samples)

    E[X Y | d_k]      and      E[X X^T | d_k],

and, for the analysis, the pooled E[X X^T] from unlabeled data. :class:`DomainStatistics`
holds exactly these, plus E[Y^2 | d_k] (for the training loss) and the sample counts.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence

import numpy as np

from .._validation import (align_columns, as_data_matrix, as_float_array, check_domain_count, check_finite,
                           check_whole_number, column_names, factorize, is_sparse)

__all__ = ["DomainStatistics", "GramTooLargeError", "t_statistic"]

def t_statistic(values, axis: int = 0, *, center=0.0) -> np.ndarray:
    r"""The T-statistic ``T = (mu_hat - center) / (sigma_hat / sqrt(n))`` over the ``n`` domains on ``axis`` (section 3.1 of [1]_).

    ``mu_hat`` and ``sigma_hat`` are the mean and the unbiased (ddof = 1) standard deviation of the
    ``n`` values, so ``T`` is exactly the one-sample t-test statistic against ``center``
    (:func:`scipy.stats.ttest_1samp`). T-greedy (section 3.3) ranks features by the T-statistic of
    their per-domain residual covariances; Theorem 1 (section 3.1) bounds it.

    Where ``sigma_hat = 0`` the statistic is its limit: 0 if ``mu_hat = center`` (no effect at all),
    ``+inf`` or ``-inf`` with the sign of ``mu_hat - center`` otherwise (an effect identical in every
    domain). Fewer than two domains is a ValueError.

    Parameters
    ----------
    values : array-like
        The per-domain values, e.g. the covariances ``E[X_i Y | d_k]`` (domains along ``axis``).
    axis : int, default=0
        The axis of the ``n`` domains.
    center : float or array-like, default=0.0
        The value tested against (``E[X_i Y]`` itself in Theorem 1).

    Returns
    -------
    t : ndarray
        ``values`` with ``axis`` removed: one T-statistic per feature.

    See Also
    --------
    scipy.stats.ttest_1samp : The same statistic, with a p-value under normality.
    tgreedy_path : T-greedy, which ranks features by this statistic of the residual covariances.

    Notes
    -----
    With :math:`r_1, \dots, r_n` the values along ``axis``,

    .. math::

        \hat\mu = \frac{1}{n} \sum_k r_k, \qquad
        \hat\sigma^2 = \frac{1}{n-1} \sum_k (r_k - \hat\mu)^2, \qquad
        T = \frac{\hat\mu - c}{\hat\sigma / \sqrt{n}}.

    Theorem 1 of [1]_ shows that, when the per-domain covariances are symmetric about their mean,
    :math:`T^2 \le 4 \log(2 |F| / \delta)` for all of :math:`|F| \le (\delta/2) e^{n/8}`
    features at once with probability greater than :math:`1 - \delta` (with ``center`` the true mean).

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", Proceedings of the 15th International Conference on Artificial
       Intelligence and Statistics (AISTATS), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import t_statistic
    >>> covariances = np.array([[0.9, 0.5], [1.1, -0.4], [1.0, 0.8]])  # 3 domains, 2 features
    >>> t_statistic(covariances).round(3)
    array([17.321,  0.832])
    >>> from scipy import stats
    >>> stats.ttest_1samp(covariances, 0.0).statistic.round(3)
    array([17.321,  0.832])
    >>> t_statistic(np.ones((4, 1)))  # the same effect in every domain: the limit, +inf
    array([inf])
    """
    return _t_statistic_and_moments(values, axis, center)[0]


def _t_statistic_and_moments(values, axis: int = 0, center=0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(T, mu_hat, sigma_hat)``: :func:`t_statistic` with the moments it is made of."""
    values = np.asarray(values, dtype=np.float64)
    n = check_domain_count(values.shape[axis] if values.ndim else 0, "the number of domains")
    mu = values.mean(axis=axis)
    sigma = values.std(axis=axis, ddof=1)
    effect = mu - center
    with np.errstate(divide="ignore", invalid="ignore"):
        t = effect * math.sqrt(n) / sigma
    zero = sigma == 0
    if np.any(zero):
        t = np.where(zero, np.where(effect == 0, 0.0, np.copysign(np.inf, effect)), t)
    return t, mu, sigma


#: A feature whose pooled variance is below this fraction of its mean square counts as constant.
CONSTANT_RTOL = 1e-9
#: Default budget (bytes) of the lazily computed Gram rows kept in memory (``max_row_memory``).
DEFAULT_ROW_MEMORY = 256 * 2**20
#: Moments larger than this are refused: T-statistics and the greedy score square them
#: (the largest float64 is 1.8e308; the headroom covers sums over the domains).
LARGEST_MOMENT = 1e150
#: A mean square below this is recomputed from the feature scaled by its largest |value|
#: (its square may have underflowed; float64 squares underflow below |x| = 1.5e-154).
SMALLEST_MOMENT = 1e-250


class DomainStatistics:
    """Per-domain second moments E[XY|d_k], E[XX^T|d_k] of n training domains (section 2 of [1]_).

    Everything T-greedy and greedy read: the selectors (section 3.3) only ever need these
    moments, never the samples themselves.

    Attributes
    ----------
    xx : ndarray of shape (n_domains, n_features, n_features)
        ``xx[k] = E[X X^T | d_k]`` (the sample mean of x x^T over domain k's samples).
        Built from samples, it is formed on first access (see "Lazy Gram rows" in the Notes).
    xy : ndarray of shape (n_domains, n_features)
        ``xy[k] = E[X Y | d_k]``.
    yy : ndarray of shape (n_domains,)
        ``yy[k] = E[Y^2 | d_k]``, needed for the value of the squared loss.
    counts : ndarray of shape (n_domains,) or None
        Samples per domain; ``None`` for population moments (:meth:`from_moments`).
    domain_labels : ndarray of shape (n_domains,)
        The label of each domain, in the (sorted) order of the arrays above.
    unlabeled_xx : ndarray of shape (n_features, n_features) or None
        Pooled ``E[X X^T]`` from unlabeled data (the paper's "known" joint covariance), if given.

    Build it with :meth:`from_samples` (pooled rows and a vector of domain labels),
    :meth:`from_domains` (a list of per-domain ``(X_k, y_k)``), :meth:`from_chunks` (chunks
    ``(X, y, domains)`` read one at a time, for data larger than memory) or :meth:`from_moments`
    (population moments, e.g. in simulations).

    See Also
    --------
    tgreedy_path, greedy_path : The selectors that read these statistics.
    t_statistic : The T-statistic across domains.

    Notes
    -----
    *Lazy Gram rows.* A stagewise path only ever reads the rows ``E[X_i X^T | d_k]`` of the features it chooses
    (section 3.3: r_k <- r_k - delta E[X X_i | d_k]), and 300 steps over 2,000 features choose
    at most 300 of them. So the sample constructors (with ``lazy=True``, the default) make one
    cheap pass per domain for ``E[XY|d_k]``, ``E[Y^2|d_k]``, the means and the diagonal
    ``E[X_i^2|d_k]``, keep a reference to the samples, and compute Gram rows on demand
    (:meth:`gram_row`), a block at a time: the asked-for feature plus the caller's predicted next
    picks (the stagewise path simulates itself on its top candidates), or else the next most
    promising ones by its score, one matrix product per domain. When the rows still to come
    would cost more than the rest of the Gram, and the whole Gram fits in the row budget, it is
    completed instead (reusing the known rows; at most 1.25 times the flops of forming it at
    once), and so it is on the first
    access to :attr:`xx`. Results equal the eager ones to rounding. ``lazy=False`` forms
    the whole Gram at once and drops the samples. Lazy statistics keep a reference to ``X``
    (no copy, as scikit-learn's ``copy_X=False``): do not change ``X`` in place while they are
    in use, or pass ``lazy=False``.

    *Memory.* The rows kept are bounded by ``max_row_memory`` bytes (default 256 MiB; see
    :class:`_GramRows` for the block size and the eviction order), so a path over 10^5 features
    needs the data plus this budget, not n p^2 floats. A whole Gram (``lazy=False``, or reading
    :attr:`xx`) that would not fit in the available memory is refused up front with its size
    (:class:`GramTooLargeError`, a ``MemoryError`` and ``ValueError``).

    *Sparse input.* ``X`` may be a scipy.sparse matrix (CSR, CSC or any other format); it is
    never densified: the moments are sparse products, the Gram rows are sparse products kept
    sparse, and :meth:`residual_covariances` uses ``X_k^T (X_k w)``.

    *Scale.* T-statistics do not depend on the scale of ``y`` or of a feature, but float64 does:
    moments whose squares overflow (``|E[X_i Y|d_k]| > 1e150``, from ``y`` or ``X`` around 1e150)
    or features whose squares underflow (``|x| < 1e-154``) are refused with a ValueError asking to
    rescale, rather than silently giving T = 0 or a division by zero.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", Proceedings of the 15th International Conference on Artificial
       Intelligence and Statistics (AISTATS), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = X[:, 0] + 0.1 * rng.standard_normal(300)
    >>> stats = DomainStatistics.from_samples(X, y, domains=np.arange(300) % 3)
    >>> stats
    DomainStatistics(n_domains=3, n_features=4, gram='lazy')
    >>> stats.xy.round(2)  # E[X_i Y | d_k]: feature 0 covaries with y in every domain
    array([[ 0.94,  0.1 ,  0.1 ,  0.07],
           [ 0.86,  0.02, -0.11, -0.04],
           [ 1.07, -0.07,  0.2 ,  0.11]])
    >>> stats.counts
    array([100, 100, 100])
    >>> round(stats.training_loss(np.array([1.0, 0, 0, 0])), 4)  # close to the noise variance 0.01
    0.0106
    """

    def __init__(self, xx, xy, yy, counts=None, domain_labels=None, unlabeled_xx=None):
        self._xx = xx
        self.xy = xy
        self.yy = yy
        self.counts = counts
        self.domain_labels = np.arange(xy.shape[0]) if domain_labels is None else np.asarray(domain_labels)
        self.unlabeled_xx = unlabeled_xx
        self._rows = None  # _GramRows of the samples when the Gram is computed lazily
        self._keep = None  # the domains of _rows that this object covers (None: all)
        self._diagonal = None if xx is None else np.einsum("kii->ki", xx)

    def __repr__(self) -> str:
        state = "lazy" if self._xx is None else "dense"
        return f"DomainStatistics(n_domains={self.n_domains}, n_features={self.n_features}, gram={state!r})"

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_samples(cls, X, y, domains, *, unlabeled_X=None, lazy=True, max_row_memory=None) -> "DomainStatistics":
        """Per-domain moments (section 2 of the paper) from pooled rows and the domain label of every row.

        Parameters
        ----------
        X : array-like, pandas DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
            Sparse matrices are never densified (class docstring).
        y : array-like of shape (n_samples,)
            Real-valued targets (for classification, e.g. +1/-1).
        domains : array-like of shape (n_samples,)
            The domain of each row: any hashable labels (numbers, strings, tuples). Domains are
            ordered by label where labels can be sorted (else by first appearance), so the result
            does not depend on the order of the rows. Missing labels (NaN, None, pd.NA) are refused.
        unlabeled_X : array-like of shape (m, n_features), optional
            Unlabeled rows from which the pooled ``E[X X^T]`` is estimated.
        lazy : bool, default True
            Compute the rows of ``E[X X^T | d_k]`` only when they are needed (class docstring).
        max_row_memory : int, optional
            Bytes of lazily computed Gram rows kept in memory (default :data:`DEFAULT_ROW_MEMORY`).

        Returns
        -------
        stats : DomainStatistics

        See Also
        --------
        from_domains : The same from a list of per-domain ``(X_k, y_k)``.
        from_moments : From given (population) moments.

        Examples
        --------
        >>> import numpy as np
        >>> from tgreedy_lib import DomainStatistics
        >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [2.0, 0.0]])
        >>> y = np.array([1.0, 0.0, 1.0, 2.0])
        >>> stats = DomainStatistics.from_samples(X, y, domains=["a", "a", "b", "b"])
        >>> stats.domain_labels.tolist(), stats.xy.tolist()  # E[X Y | d] = mean of x * y in each domain
        (['a', 'b'], [[0.5, 0.0], [2.5, 0.5]])
        """
        if unlabeled_X is not None:
            unlabeled_X = align_columns(unlabeled_X, column_names(X), "unlabeled_X", "X")
        X = as_data_matrix(X, "X")
        y = as_float_array(y, "y", 1)
        labels, index = factorize(domains, "domains")
        if not (X.shape[0] == y.shape[0] == index.shape[0]):
            raise ValueError(
                "X, y and domains disagree in length: "
                f"X has {X.shape[0]} rows, y has {y.shape[0]}, domains has {index.shape[0]}"
            )
        if is_sparse(X):
            import scipy.sparse

            X = scipy.sparse.csr_matrix(X)  # row selection, then each domain as CSC for column blocks
            data = [(X[np.flatnonzero(index == k)].tocsc(), y[index == k]) for k in range(labels.size)]
        else:
            groups = [_rows_as_slice(np.flatnonzero(index == k)) for k in range(labels.size)]
            data = [(X[rows], y[rows]) for rows in groups]
        return cls._build(data, labels, unlabeled_X, lazy, [("X", X)], max_row_memory)

    @classmethod
    def from_domains(cls, domains, *, labels=None, unlabeled_X=None, lazy=True, max_row_memory=None) -> "DomainStatistics":
        """Per-domain moments (section 2 of the paper) from a sequence of per-domain ``(X_k, y_k)`` pairs.

        Parameters
        ----------
        domains : iterable of (array-like, array-like)
            ``(X_k, y_k)`` of every domain, with the same features.
        labels : array-like of shape (n_domains,), optional
            A label for each domain (default ``0 .. n_domains - 1``).
        unlabeled_X, lazy, max_row_memory
            As in :meth:`from_samples`.

        Returns
        -------
        stats : DomainStatistics

        See Also
        --------
        from_samples : The same from pooled rows and domain labels.

        Examples
        --------
        >>> import numpy as np
        >>> from tgreedy_lib import DomainStatistics
        >>> rng = np.random.default_rng(0)
        >>> pairs = [(rng.standard_normal((50, 3)), rng.standard_normal(50)) for _ in range(4)]
        >>> DomainStatistics.from_domains(pairs, labels=["2 vs 0", "2 vs 4", "2 vs 6", "2 vs 8"])
        DomainStatistics(n_domains=4, n_features=3, gram='lazy')
        """
        pairs = list(domains)
        data = []
        columns, named = None, None  # the first named domain's columns: the others are matched to them by name
        for k, pair in enumerate(pairs):
            try:
                Xk, yk = pair
            except (TypeError, ValueError):
                raise ValueError(f"domain {k} must be an (X, y) pair") from None
            if columns is None and column_names(Xk) is not None:
                columns, named = column_names(Xk), f"X of domain {k}"
            Xk = align_columns(Xk, columns, f"X of domain {k}", named)
            Xk = as_data_matrix(Xk, f"X of domain {k}")
            if is_sparse(Xk):
                Xk = Xk.tocsc()
            yk = as_float_array(yk, f"y of domain {k}", 1)
            if Xk.shape[0] != yk.shape[0]:
                raise ValueError(f"domain {k}: X has {Xk.shape[0]} rows but y has {yk.shape[0]} entries")
            data.append((Xk, yk))
        if data and len({is_sparse(Xk) for Xk, _ in data}) > 1:
            raise ValueError("some domains' X are sparse and others dense: pass all as scipy.sparse or all dense")
        labels = np.arange(len(data)) if labels is None else np.asarray(labels)
        if labels.shape != (len(data),):
            raise ValueError(f"labels must name each of the {len(data)} domains, got shape {labels.shape}")
        if unlabeled_X is not None:
            unlabeled_X = align_columns(unlabeled_X, columns, "unlabeled_X", named)
        return cls._build(data, labels, unlabeled_X, lazy,
                          [(f"X of domain {k}", Xk) for k, (Xk, _) in enumerate(data)], max_row_memory)

    @classmethod
    def from_chunks(cls, chunks, *, unlabeled_X=None, lazy=True, max_row_memory=None) -> "DomainStatistics":
        """Statistics from chunks of samples read one at a time (data that do not fit in memory).

        Parameters
        ----------
        chunks : callable, sequence or iterable of ``(X, y, domains)``
            Each chunk holds some rows: ``X`` of shape (m_c, p) (dense or scipy.sparse),
            ``y`` of shape (m_c,) and ``domains`` a label per row (a vector) or one label for the
            whole chunk (a scalar). A domain may be spread over many chunks. The moments are
            summed in one pass; every block of Gram rows a path asks for takes one further pass
            (as does :meth:`residual_covariances`), so the chunks must be readable again: pass a
            *callable* returning a fresh iterator (``lambda: read_chunks(path)``) or a sequence.
            A one-shot iterator (a generator object) is enough only with ``lazy=False``, where
            the whole Gram is summed in the first pass; otherwise the second pass raises a
            ValueError saying so.
        unlabeled_X, lazy, max_row_memory
            As in :meth:`from_samples`.

        Results equal those of :meth:`from_samples` on the concatenated chunks to rounding.

        Examples
        --------
        >>> import numpy as np
        >>> from tgreedy_lib import DomainStatistics
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((300, 4)); y = X[:, 1] + rng.standard_normal(300)
        >>> d = np.repeat([0, 1, 2], 100)
        >>> chunks = [(X[i:i + 50], y[i:i + 50], d[i:i + 50]) for i in range(0, 300, 50)]
        >>> streamed = DomainStatistics.from_chunks(chunks)
        >>> bool(np.allclose(streamed.xy, DomainStatistics.from_samples(X, y, d).xy))
        True
        """
        source = _ChunkSource(chunks)
        moments = source.first_pass(keep_gram=not lazy)
        labels, counts, xy, x_sum, diagonal, yy, xx, y_sum = moments
        if unlabeled_X is not None:
            unlabeled_X = align_columns(unlabeled_X, source.columns, "unlabeled_X", "the first chunk")
        stats = cls._from_moments_of_samples(labels, counts, xy, x_sum, diagonal, yy, xx,
                                             source, unlabeled_X, [], max_row_memory, y_sum)
        if not lazy:
            source.release()
        return stats

    @classmethod
    def _build(cls, data, labels, unlabeled_X, lazy, named_inputs, max_row_memory=None) -> "DomainStatistics":
        check_domain_count(len(data), "the number of domains")
        p = data[0][0].shape[1]
        for k, (Xk, _) in enumerate(data):
            if Xk.shape[1] != p:
                raise ValueError(f"domain {labels[k]!r} has {Xk.shape[1]} features, domain {labels[0]!r} has {p}")
            if Xk.shape[0] == 0:
                raise ValueError(f"domain {labels[k]!r} is empty: every domain needs at least one sample")
        n = len(data)
        counts = np.array([Xk.shape[0] for Xk, _ in data], dtype=np.int64)
        if not lazy:
            _check_gram_fits(n, p)
        xy, x_sum, diagonal, yy = np.empty((n, p)), np.empty((n, p)), np.empty((n, p)), np.empty(n)
        y_sum = np.array([yk.sum() for _, yk in data])
        xx = np.empty((n, p, p)) if not lazy else None
        with np.errstate(over="ignore", invalid="ignore"):  # NaN and overflow are reported below
            for k, (Xk, yk) in enumerate(data):
                # Per domain: X_k^T [y_k, 1] (one BLAS call) and the column sums of squares (one pass);
                # eagerly, X_k^T X_k (one BLAS call) gives the whole Gram and its diagonal instead.
                cross = Xk.T @ np.column_stack([yk, np.ones_like(yk)])
                xy[k], x_sum[k], yy[k] = cross[:, 0], cross[:, 1], yk @ yk
                if is_sparse(Xk):
                    diagonal[k] = np.asarray(Xk.multiply(Xk).sum(axis=0)).ravel()
                    if xx is not None:
                        xx[k] = (Xk.T @ Xk).toarray()
                elif xx is None:
                    diagonal[k] = np.einsum("ij,ij->j", Xk, Xk)
                else:
                    np.matmul(Xk.T, Xk, out=xx[k])
                    diagonal[k] = np.einsum("ii->i", xx[k])
        source = _SampleSource([Xk for Xk, _ in data], counts)
        return cls._from_moments_of_samples(labels, counts, xy, x_sum, diagonal, yy, xx, source,
                                            unlabeled_X, named_inputs, max_row_memory, y_sum)

    @classmethod
    def _from_moments_of_samples(cls, labels, counts, xy, x_sum, diagonal, yy, xx, source,
                                 unlabeled_X, named_inputs, max_row_memory, y_sum) -> "DomainStatistics":
        """Checks and scaling shared by the sample constructors (sums in, means out)."""
        n, p = xy.shape
        check_domain_count(n, "the number of domains")
        _check_target_varies(y_sum.sum() / counts.sum(), yy.sum() / counts.sum())
        # Every NaN or infinity of X reaches its column's sum of squares: check p numbers, not all of X.
        if not (np.all(np.isfinite(diagonal)) and np.all(np.isfinite(x_sum))):
            for name, arr in named_inputs:
                check_finite(arr.data if is_sparse(arr) else arr, name)
            i = int(np.flatnonzero(~(np.isfinite(diagonal).all(axis=0) & np.isfinite(x_sum).all(axis=0)))[0])
            raise ValueError(f"feature {i} overflows float64 when squared (|x| > 1e154) or holds NaN/inf; rescale X")
        scale = 1.0 / counts
        xy *= scale[:, None]
        yy *= scale
        diagonal *= scale[:, None]
        _check_moment_scale(xy, yy)
        pooled_square = (counts @ diagonal) / counts.sum()
        pooled_mean = x_sum.sum(axis=0) / counts.sum()
        tiny = np.flatnonzero(pooled_square < SMALLEST_MOMENT)
        if tiny.size:  # the squares may have underflowed: recompute these columns scaled by their largest |x|
            largest = source.column_abs_max(tiny)
            safe = np.where(largest > 0, largest, 1.0)
            scaled_mean, scaled_square = source.column_moments(tiny, safe)
            _check_not_constant(scaled_mean, scaled_square, features=tiny, scale=safe)
            _check_not_underflowing(tiny, largest)
        _check_not_constant(pooled_mean, pooled_square, skip=tiny)
        unlabeled_xx = None
        if unlabeled_X is not None:
            U = as_data_matrix(unlabeled_X, "unlabeled_X")
            check_finite(U.data if is_sparse(U) else U, "unlabeled_X")
            if U.shape[1] != p:
                raise ValueError(f"unlabeled_X has {U.shape[1]} features, the labeled data have {p}")
            if U.shape[0] == 0:
                raise ValueError("unlabeled_X is empty")
            unlabeled_xx = U.T @ U
            unlabeled_xx = (unlabeled_xx.toarray() if is_sparse(unlabeled_xx) else unlabeled_xx) / U.shape[0]
        if xx is not None:
            xx *= scale[:, None, None]
        stats = cls(xx=xx, xy=xy, yy=yy, counts=counts, domain_labels=np.asarray(labels), unlabeled_xx=unlabeled_xx)
        if xx is None:
            stats._rows = _GramRows(source, n, p, max_row_memory)
            stats._diagonal = diagonal
        return stats

    @classmethod
    def from_moments(cls, xx, xy, yy=None, *, counts=None, labels=None, unlabeled_xx=None) -> "DomainStatistics":
        """Per-domain statistics (section 2 of the paper) from given moments ``E[XX^T|d_k]``, ``E[XY|d_k]``, ``E[Y^2|d_k]``.

        For population moments, as in the paper's analysis (infinitely many samples a domain),
        and in simulations (:mod:`tgreedy_lib.domain_adaptation.theory.simulate`).

        Parameters
        ----------
        xx : array-like of shape (n_domains, n_features, n_features)
        xy : array-like of shape (n_domains, n_features)
        yy : array-like of shape (n_domains,), optional
            May be omitted; the reported training losses are then relative to an unknown
            constant (the selection itself never needs it).
        counts : array-like of shape (n_domains,), optional
            Samples behind each domain's moments, if any.
        labels : array-like of shape (n_domains,), optional
            A label for each domain.
        unlabeled_xx : array-like of shape (n_features, n_features), optional
            The pooled ``E[X X^T]``.

        Returns
        -------
        stats : DomainStatistics

        Examples
        --------
        >>> import numpy as np
        >>> from tgreedy_lib import DomainStatistics, tgreedy_path
        >>> xx = np.broadcast_to(np.eye(2), (3, 2, 2))  # orthonormal features in 3 domains
        >>> xy = np.array([[1.0, 2.0], [1.1, -1.0], [0.9, 0.5]])  # feature 1 swings
        >>> stats = DomainStatistics.from_moments(xx, xy)
        >>> tgreedy_path(stats, n_steps=1).features
        array([0])
        """
        xx = as_float_array(xx, "xx", 3)
        xy = as_float_array(xy, "xy", 2)
        n, p = xy.shape
        if xx.shape != (n, p, p):
            raise ValueError(f"xx must have shape (n_domains, n_features, n_features) = {(n, p, p)}, got {xx.shape}")
        yy = np.zeros(n) if yy is None else as_float_array(yy, "yy", 1)
        if yy.shape != (n,):
            raise ValueError(f"yy must have one entry per domain ({n}), got shape {yy.shape}")
        if counts is not None:
            counts = np.asarray(counts)
            if counts.shape != (n,) or np.any(counts < 1):
                raise ValueError(f"counts must be {n} positive sample counts, got {counts!r}")
        if unlabeled_xx is not None:
            unlabeled_xx = as_float_array(unlabeled_xx, "unlabeled_xx", 2)
            if unlabeled_xx.shape != (p, p):
                raise ValueError(f"unlabeled_xx must have shape {(p, p)}, got {unlabeled_xx.shape}")
        labels = np.arange(n) if labels is None else np.asarray(labels)
        stats = cls(xx=xx, xy=xy, yy=yy, counts=counts, domain_labels=labels, unlabeled_xx=unlabeled_xx)
        check_domain_count(stats.n_domains, "the number of domains")
        zero = np.flatnonzero(stats.second_moment("sample") <= 0)
        if zero.size:
            raise ValueError(f"feature {zero[0]} has E[X_i^2] = 0 in every domain; the update divides by it")
        return stats


    # ------------------------------------------------------------------ properties
    @property
    def xx(self) -> np.ndarray:
        """``E[X X^T | d_k]`` for every domain, shape (n_domains, n_features, n_features)."""
        if self._xx is None:
            if self._rows is None:
                raise ValueError("these statistics have no E[XX^T|d_k]: build them with from_samples, "
                                 "from_domains or from_moments")
            full = self._rows.full()
            self._xx = full if self._keep is None else full[self._keep]
        return self._xx

    @property
    def n_domains(self) -> int:
        """Number of training domains n."""
        return self.xy.shape[0]

    @property
    def n_features(self) -> int:
        """Number of features p."""
        return self.xy.shape[1]

    def gram_row(self, i: int, priority=None, remaining=None, predicted=None) -> np.ndarray:
        """``E[X_i X^T | d_k]`` for every domain k, shape (n_domains, n_features) (row i of :attr:`xx`).

        Hints, both optional, for lazily computed rows: ``priority`` (a score per feature) says
        which rows the caller is likely to ask for next; when row ``i`` must be computed, the
        highest-priority rows not yet known are computed in the same matrix product.
        ``remaining`` is the most rows the caller will still ask for (this one included); it
        decides when completing the whole Gram is cheaper. ``predicted`` (features, most likely
        first) are the rows the caller expects to ask for next: they go into the block before
        those of highest priority. Read-only; do not modify the result.
        """
        return self._gram_row(i, priority, remaining, predicted)

    def _gram_row(self, i: int, priority=None, remaining=None, predicted=None, dense: bool = True):
        """:meth:`gram_row`; with ``dense=False`` a row of sparse samples comes as a CSR matrix (n_domains, p)."""
        if self._xx is not None:
            return self._xx[:, i, :]
        row = self._rows.row(int(i), priority, remaining, predicted, dense)
        return row if self._keep is None else row[self._keep]

    def _gram_entries(self, rows, columns) -> np.ndarray:
        """``E[X_rows X_columns^T | d_k]`` for every domain, shape (n_domains, |rows|, |columns|).

        A small block of the Gram without forming whole rows: from :attr:`xx` when it is known,
        otherwise ``X_k[:, rows]^T X_k[:, columns] / m_k`` from the samples (2 m |rows| |columns| flops).
        """
        rows, columns = np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp)
        if self._xx is not None:
            return self._xx[:, rows][:, :, columns]
        out = self._rows.entries(rows, columns)
        return out if self._keep is None else out[self._keep]

    def _lazy_block_size(self):
        """Rows the lazy statistics form per block: None when the whole Gram is known, or when rows
        are sparse (sparse rows cost milliseconds: predicting which to form would cost more)."""
        if self._xx is not None or self._rows._full is not None or self._rows.sparse:
            return None
        return self._rows.max_block_rows

    def _row_budget(self):
        """Bytes of Gram rows the lazy statistics keep (``max_row_memory``); None when the whole Gram is known."""
        if self._xx is not None or self._rows._full is not None:
            return None
        return self._rows.max_memory

    def _row_known(self, i: int) -> bool:
        """Whether row ``i`` is available without a new matrix product."""
        return self._xx is not None or self._rows.is_known(i)

    def subset(self, labels) -> "DomainStatistics":
        """The statistics of the domains whose labels are in ``labels`` (no recomputation).

        Useful for leave-one-domain-out experiments: build the statistics of every domain once,
        then take a subset for each split (lazily computed Gram rows are shared).
        """
        wanted = np.atleast_1d(np.asarray(labels))
        missing = [lab for lab in wanted.tolist() if lab not in self.domain_labels.tolist()]
        if missing:
            raise ValueError(f"unknown domain labels {missing}; known: {self.domain_labels.tolist()}")
        keep = np.flatnonzero(np.isin(self.domain_labels, wanted))
        check_domain_count(keep.size, "the subset's number of domains")
        sub = DomainStatistics(
            xx=None if self._xx is None else self._xx[keep],
            xy=self.xy[keep],
            yy=self.yy[keep],
            counts=None if self.counts is None else self.counts[keep],
            domain_labels=self.domain_labels[keep],
            unlabeled_xx=self.unlabeled_xx,
        )
        if self._xx is None:
            sub._rows = self._rows
            sub._keep = keep if self._keep is None else self._keep[keep]
            sub._diagonal = self._diagonal[keep]
        return sub

    def second_moment(self, denominator: str = "sample") -> np.ndarray:
        """The update's denominator E[X_i^2] for every feature (section 3.3).

        ``"sample"``: the paper's estimate (1/n) sum_k E[X_i^2 | d_k] (biased, as the paper notes);
        ``"unlabeled"``: the diagonal of the pooled E[X X^T] from unlabeled data (the unbiased version).
        """
        if denominator == "sample":
            return self._diagonal.mean(axis=0)
        if denominator == "unlabeled":
            if self.unlabeled_xx is None:
                raise ValueError("denominator='unlabeled' needs unlabeled moments: pass unlabeled_X (or unlabeled_xx)")
            return np.diagonal(self.unlabeled_xx).copy()
        raise ValueError(f"denominator must be 'sample' or 'unlabeled', got {denominator!r}")

    def _as_coef(self, coef) -> np.ndarray:
        coef = as_float_array(coef, "coef", 1)
        if coef.shape != (self.n_features,):
            raise ValueError(f"coef must have one weight per feature, shape ({self.n_features},), got {coef.shape}")
        return coef

    def _times(self, coef: np.ndarray) -> np.ndarray:
        """``E[X X^T | d_k] w`` for every domain; lazily, ``X_k^T (X_k w) / m_k`` (no Gram row needed)."""
        if self._xx is not None:
            return self._xx @ coef
        out = self._rows.times(coef)
        return out if self._keep is None else out[self._keep]

    def residual_covariances(self, coef) -> np.ndarray:
        """``E[X (Y - w.X) | d_k]`` for every domain k and feature (section 3.3), shape (n_domains, n_features)."""
        coef = self._as_coef(coef)
        return self.xy - self._times(coef)

    def training_loss(self, coef) -> float:
        """Pooled training squared loss (1/n) sum_k E[(Y - w.X)^2 | d_k] (section 2, with the domains' average)."""
        coef = self._as_coef(coef)
        per_domain = self.yy - 2 * self.xy @ coef + self._times(coef) @ coef
        return float(per_domain.mean())


class GramTooLargeError(MemoryError, ValueError):
    """A whole per-domain Gram ``E[X X^T | d_k]`` that would not fit in memory (refused before allocating)."""


def _available_memory() -> int:
    """Bytes of memory available to a new allocation (``MemAvailable``; physical memory as a fallback)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def _check_gram_fits(n_domains: int, n_features: int) -> None:
    """Refuse, before allocating it, a whole Gram of ``n_domains x p x p`` floats that will not fit."""
    size = 8 * n_domains * n_features**2
    available = _available_memory()
    if size > available:
        raise GramTooLargeError(
            f"the whole Gram E[XX^T|d_k] of {n_domains} domains x {n_features} x {n_features} features needs "
            f"{_format_bytes(size)}, more than the {_format_bytes(available)} of memory available; use lazy=True "
            "(the default: only the rows a path needs are formed) and the paths' results instead of .xx"
        )


_BLAS_CONTROLLER = None


def _single_blas_thread():
    """A context in which BLAS runs on one thread (threadpoolctl, a scikit-learn dependency)."""
    global _BLAS_CONTROLLER
    if _BLAS_CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")


def _format_bytes(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024


class _SampleSource:
    """Per-domain samples held in memory (dense ndarrays or scipy.sparse CSC), read for Gram rows."""

    def __init__(self, blocks, counts):
        self.blocks = blocks
        self.counts = np.asarray(counts, dtype=np.float64)
        self.sparse = is_sparse(blocks[0])
        self._by_rows = None  # sparse samples as CSR, made on the first Gram row

    def gram_block(self, block: np.ndarray) -> list:
        """``X_k[:, B]^T X_k / m_k`` for every domain: dense (|B|, p) arrays, or CSR matrices for sparse samples."""
        out = []
        if self.sparse and self._by_rows is None:  # the samples by rows too (CSR), once: as much memory as X
            self._by_rows = [Xk.tocsr() for Xk in self.blocks]
        for k, Xk in enumerate(self.blocks):
            if self.sparse:
                # X_k[:, B]^T X_k: the few documents where the features of B occur (a CSC column slice),
                # times those documents' rows (CSR). The cost is the nonzeros of those rows, not p: a
                # product X_k^T X_k[:, B] instead runs over all p rows of X_k^T (measured 0.1 s a call
                # at p = 10^6).
                out.append((Xk[:, block].T.tocsr() @ self._by_rows[k]) / self.counts[k])
            else:
                G = np.ascontiguousarray(Xk[:, block].T) @ Xk
                G /= self.counts[k]
                out.append(G)
        return out

    def gram_entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``X_k[:, rows]^T X_k[:, columns] / m_k`` for every domain, dense (n_domains, |rows|, |columns|)."""
        out = np.empty((len(self.blocks), rows.size, columns.size))
        if self.sparse:
            for k, Xk in enumerate(self.blocks):
                out[k] = (Xk[:, rows].T @ Xk[:, columns]).toarray() / self.counts[k]
            return out
        # Small products (a few hundred squared): one BLAS thread. Threads cost more than they
        # gain at this size (measured 7 against 12 CPU ms for 566 x 500 x 566 on 2 cores).
        with _single_blas_thread():
            for k, Xk in enumerate(self.blocks):
                A = np.ascontiguousarray(Xk[:, rows].T)  # contiguous rows: the product runs at full speed
                B = A if columns is rows else np.ascontiguousarray(Xk[:, columns].T)
                np.matmul(A, B.T, out=out[k])
                out[k] /= self.counts[k]
        return out

    def gram_times(self, coef: np.ndarray) -> np.ndarray:
        """``E[X X^T | d_k] w = X_k^T (X_k w) / m_k`` for every domain (two products, no Gram row)."""
        support = np.flatnonzero(coef)
        out = np.empty((len(self.blocks), coef.size))
        for k, Xk in enumerate(self.blocks):
            fitted = Xk[:, support] @ coef[support]
            out[k] = (Xk.T @ fitted) / self.counts[k]
        return out

    def gram_full(self, known: np.ndarray, known_row) -> np.ndarray:
        """The whole Gram, reusing the rows ``known`` (``known_row(i)`` gives row i for every domain)."""
        p = self.blocks[0].shape[1]
        full = np.empty((len(self.blocks), p, p))
        unknown = np.setdiff1d(np.arange(p), known)
        for k, Xk in enumerate(self.blocks):
            G = full[k]
            if self.sparse:
                G[:] = (Xk.T @ Xk).toarray() / self.counts[k]
                continue
            if 8 * known.size < p:  # gathering and scattering would cost more than they save
                np.matmul(Xk.T, Xk, out=G)
                G /= self.counts[k]
                continue
            G[known] = [known_row(i)[k] for i in known]
            G[np.ix_(unknown, known)] = G[np.ix_(known, unknown)].T
            if unknown.size:
                XU = np.ascontiguousarray(Xk[:, unknown])
                G[np.ix_(unknown, unknown)] = (XU.T @ XU) / self.counts[k]
        return full

    def column_abs_max(self, columns: np.ndarray) -> np.ndarray:
        return np.max([abs(Xk[:, columns]).max(axis=0).toarray().ravel() if self.sparse
                       else np.abs(Xk[:, columns]).max(axis=0) for Xk in self.blocks], axis=0)

    def column_moments(self, columns: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pooled mean and mean square of the given columns divided by ``scale`` (exact for tiny values)."""
        total, squares = 0.0, 0.0
        for Xk in self.blocks:
            Z = Xk[:, columns]
            Z = (Z.toarray() if self.sparse else np.asarray(Z)) / scale
            total = total + Z.sum(axis=0)
            squares = squares + (Z * Z).sum(axis=0)
        m = self.counts.sum()
        return total / m, squares / m

    def release(self) -> None:
        self.blocks = self._by_rows = None


class _ChunkSource:
    """Samples read in chunks ``(X, y, domains)``, one pass over them per request (see :meth:`DomainStatistics.from_chunks`)."""

    sparse = False  # Gram rows summed over chunks are kept dense

    def __init__(self, chunks):
        self._one_shot = None
        if callable(chunks):
            self._factory = chunks
        elif isinstance(chunks, (Sequence, np.ndarray)) and not isinstance(chunks, (str, bytes)):
            self._factory = lambda: iter(chunks)
        else:
            try:
                first = iter(chunks)
            except TypeError:
                raise ValueError(
                    f"chunks must be a callable returning an iterator of (X, y, domains), a sequence of them, "
                    f"or an iterable; got {type(chunks).__name__}"
                ) from None
            if first is chunks or isinstance(chunks, Iterator):
                self._one_shot, self._factory = first, None
            else:  # a re-iterable container: iter() gives a fresh iterator each time
                self._factory = lambda: iter(chunks)
        self.label_index: dict = {}
        self.n_features = None
        self.columns = None  # the first chunk's column names (DataFrame chunks are matched to them by name)
        self.counts = None
        self._fingerprints: list = []  # of the first pass's chunks; every later pass must give the same

    def release(self) -> None:
        self._factory = self._one_shot = None

    def _passes(self):
        if self._one_shot is not None:
            chunks, self._one_shot = self._one_shot, None
            return chunks
        if self._factory is None:
            raise ValueError(
                "these statistics need another pass over the chunks (to form Gram rows), but they were given "
                "as a one-shot iterator (e.g. a generator object), which is now used up. Pass a callable that "
                "returns a fresh iterator, e.g. DomainStatistics.from_chunks(lambda: read_chunks(path)), or a "
                "list of chunks; or build with lazy=False to sum the whole Gram in the first pass"
            )
        return self._factory()

    def _chunks(self, first: bool = False):
        """Each chunk as ``(X, y, [(domain index or label, rows)])``, checked.

        Every pass after the first must give the same chunks (in any order): each chunk's rows, domain
        counts, sum of y and sum of X are compared with the first pass's, so a reader that drops, repeats
        or changes a chunk on a later pass is refused instead of giving a wrong path.
        """
        seen = []
        for c, chunk in enumerate(self._passes()):
            try:
                X, y, domains = chunk
            except (TypeError, ValueError):
                raise ValueError(f"chunk {c} must be an (X, y, domains) triple") from None
            if c == 0 and first:
                self.columns = column_names(X)
            X = align_columns(X, self.columns, f"X of chunk {c}", "the first chunk")
            X = as_data_matrix(X, f"X of chunk {c}")
            y = as_float_array(y, f"y of chunk {c}", 1)
            if X.shape[0] != y.shape[0]:
                raise ValueError(f"chunk {c}: X has {X.shape[0]} rows but y has {y.shape[0]} entries")
            if self.n_features is None:
                self.n_features = X.shape[1]
            elif X.shape[1] != self.n_features:
                raise ValueError(f"chunk {c} has {X.shape[1]} features, the first chunk has {self.n_features}")
            if is_sparse(X):
                X = X.tocsr()
            if np.ndim(domains) == 0:
                groups = [(domains, None)]
                factorize([domains], f"the domain of chunk {c}")  # refuses a missing or unhashable label
            else:
                labels, index = factorize(domains, f"domains of chunk {c}")
                if index.size != X.shape[0]:
                    raise ValueError(f"chunk {c}: X has {X.shape[0]} rows but domains has {index.size} labels")
                groups = [(label, np.flatnonzero(index == j)) for j, label in enumerate(labels.tolist())]
            parts = []
            for label, rows in groups:
                Xk, yk = (X, y) if rows is None else (X[rows], y[rows])
                if Xk.shape[0] == 0:
                    continue
                if first:
                    self.label_index.setdefault(label, len(self.label_index))
                elif label not in self.label_index:
                    raise ValueError(f"chunk {c} holds domain {label!r}, which the first pass did not see: "
                                     "the chunks must be the same on every pass")
                parts.append((self.label_index[label], Xk, yk))
            fingerprint = _chunk_fingerprint(X, y, parts)
            if first:
                self._fingerprints.append(fingerprint)
            else:
                seen.append(fingerprint)
                if len(seen) > len(self._fingerprints):
                    raise ValueError(self._changed(f"gave more than the {len(self._fingerprints)} chunks of the first "
                                                   "pass (a chunk repeated?)"))
            yield c, parts
        if not first:
            self._check_same_chunks(seen)

    def _check_same_chunks(self, seen: list) -> None:
        if sorted(seen) == sorted(self._fingerprints):
            return
        if len(seen) != len(self._fingerprints):
            what = f"gave {len(seen)} chunks, the first pass {len(self._fingerprints)} (a chunk dropped?)"
        else:
            first = sorted(self._fingerprints)
            c = next(i for i, fp in enumerate(sorted(seen)) if fp != first[i])
            what = f"gave chunks that differ from the first pass's (rows, domains, y or X; {sorted(seen)[c][0]} rows)"
        raise ValueError(self._changed(what))

    @staticmethod
    def _changed(what: str) -> str:
        return (f"the chunks changed between passes: this pass {what}. Every pass must give the same rows "
                "(the Gram rows of a path take one pass each); make the reader deterministic, e.g. a callable "
                "that opens the same files in the same way every time, or build with lazy=False (one pass)")

    def first_pass(self, keep_gram: bool):
        """Sums over all chunks: labels, counts, X^T y, column sums, sums of squares, y^T y (and X^T X)."""
        sums: dict[int, list] = {}
        with np.errstate(over="ignore", invalid="ignore"):
            for _, parts in self._chunks(first=True):
                for k, Xk, yk in parts:
                    p = Xk.shape[1]
                    if k not in sums:
                        sums[k] = [0, np.zeros(p), np.zeros(p), np.zeros(p), 0.0,
                                   np.zeros((p, p)) if keep_gram else None, 0.0]
                    acc = sums[k]
                    acc[6] += float(yk.sum())
                    acc[0] += Xk.shape[0]
                    acc[1] += Xk.T @ yk
                    acc[2] += np.asarray(Xk.sum(axis=0)).ravel()
                    acc[3] += (np.asarray(Xk.multiply(Xk).sum(axis=0)).ravel() if is_sparse(Xk)
                               else np.einsum("ij,ij->j", Xk, Xk))
                    acc[4] += float(yk @ yk)
                    if keep_gram:
                        G = Xk.T @ Xk
                        acc[5] += G.toarray() if is_sparse(G) else G
        if not sums:
            raise ValueError("the chunks hold no samples")
        labels = list(self.label_index)
        try:
            order = sorted(range(len(labels)), key=lambda j: labels[j])
        except TypeError:
            order = list(range(len(labels)))
        # renumber the domains in sorted order, for this and every later pass
        self.label_index = {labels[j]: new for new, j in enumerate(order)}
        ordered = [sums[j] for j in order]
        counts = np.array([acc[0] for acc in ordered], dtype=np.int64)
        self.counts = counts.astype(np.float64)
        stack = lambda i: np.array([acc[i] for acc in ordered])  # noqa: E731
        xx = None
        if keep_gram:
            _check_gram_fits(len(ordered), self.n_features)
            xx = stack(5)
        label_array = np.empty(len(order), dtype=object)
        for position, j in enumerate(order):
            label_array[position] = labels[j]
        if all(isinstance(label, (int, float, np.number)) and not isinstance(label, bool) for label in labels) or \
                all(isinstance(label, str) for label in labels):
            label_array = np.array(label_array.tolist())  # numbers or strings: a typed array, as from_samples gives
        return (label_array, counts, stack(1), stack(2), stack(3), np.array([acc[4] for acc in ordered]), xx,
                np.array([acc[6] for acc in ordered]))

    def _sum(self, shape, term) -> np.ndarray:
        """``sum over chunks of term(Xk, yk)``, per domain, divided by the domain's count."""
        out = np.zeros((len(self.label_index),) + shape)
        for _, parts in self._chunks():
            for k, Xk, yk in parts:
                value = term(Xk, yk)
                out[k] += value.toarray() if is_sparse(value) else value
        out /= self.counts.reshape((-1,) + (1,) * len(shape))
        return out

    def gram_block(self, block: np.ndarray) -> list:
        sums = self._sum((block.size, self.n_features), lambda Xk, yk: Xk[:, block].T @ Xk)
        return list(sums)

    def gram_entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        return self._sum((rows.size, columns.size), lambda Xk, yk: Xk[:, rows].T @ Xk[:, columns])

    def gram_times(self, coef: np.ndarray) -> np.ndarray:
        support = np.flatnonzero(coef)
        return self._sum((self.n_features,), lambda Xk, yk: Xk.T @ (Xk[:, support] @ coef[support]))

    def gram_full(self, known, known_row) -> np.ndarray:
        return self._sum((self.n_features, self.n_features), lambda Xk, yk: Xk.T @ Xk)

    def column_abs_max(self, columns: np.ndarray) -> np.ndarray:
        largest = np.zeros(columns.size)
        for _, parts in self._chunks():
            for _, Xk, _ in parts:
                Z = Xk[:, columns]
                Z = abs(Z).max(axis=0).toarray().ravel() if is_sparse(Z) else np.abs(Z).max(axis=0)
                largest = np.maximum(largest, Z)
        return largest

    def column_moments(self, columns: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        total, squares = np.zeros(columns.size), np.zeros(columns.size)
        for _, parts in self._chunks():
            for _, Xk, _ in parts:
                Z = Xk[:, columns]
                Z = (Z.toarray() if is_sparse(Z) else np.asarray(Z)) / scale
                total += Z.sum(axis=0)
                squares += (Z * Z).sum(axis=0)
        m = self.counts.sum()
        return total / m, squares / m


def _chunk_fingerprint(X, y: np.ndarray, parts: list) -> tuple:
    """What identifies a chunk across passes: its rows, rows per domain, and the sums of y and of X."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(X.sum())
    domains = tuple(sorted((k, Xk.shape[0]) for k, Xk, _ in parts))
    return (int(X.shape[0]), domains, float(y.sum()), total if np.isfinite(total) else repr(total))


class _GramRows:
    """Rows of the per-domain second moments ``E[X X^T | d_k] = X_k^T X_k / m_k``, computed on demand.

    Rows are computed in blocks (the asked-for feature and the caller's predicted next requests,
    as many as :attr:`max_block_rows` allows, or else the highest-priority features not yet known,
    :attr:`block_size` of them), one ``X_k[:, B]^T X_k`` per domain, and cached within a memory
    budget. Sparse rows are ``X_k[:, B]^T`` (the documents where B occurs) times those rows of X_k.

    Memory. ``max_memory`` (bytes, default :data:`DEFAULT_ROW_MEMORY`) bounds the cached rows:
    the block size is ``max_memory / (2 x bytes of one row)`` (at most 64, at least 1), so a
    new block always fits beside the rows worth keeping; when the cache passes the budget, the
    rows already asked for are evicted first (least recently used first: a stagewise path never
    asks for a chosen row twice unless ``allow_reselect``), then the speculative rows (computed
    but never asked for) of lowest priority. An evicted row asked for again is recomputed. Rows of sparse
    samples are kept sparse, and the cost of a row is its actual size.

    Completion. When going on lazily is expected to cost more (:meth:`_should_complete`) and the
    whole Gram fits in the budget, it is completed instead, reusing what is known: with K rows
    known, the rows and (by symmetry) columns of K are copied and only the rest U is formed,
    ``X_k[:, U]^T X_k[:, U]``. The lazy rows cost 2 m K p flops and the completion m (p - K)^2,
    together m (p^2 + K^2): since K never passes p / 2, at most 1.25 times the m p^2 of forming
    the whole Gram at once. With fewer than p / 8 rows known the whole Gram is simply formed.
    """

    max_block_size = 64
    min_block_size = 16

    def __init__(self, source, n_domains: int, n_features: int, max_memory: int | None = None):
        self.source = source
        self.n_domains = n_domains
        self.n_features = n_features
        self.max_memory = DEFAULT_ROW_MEMORY if max_memory is None else check_whole_number(
            max_memory, "max_row_memory", 0, reason=" (bytes of Gram rows to keep; 0 keeps only the block in use)")
        self.cache: dict[int, object] = {}  # feature -> its row for every domain, (n_domains, p), dense or CSR
        self.cache_bytes = 0
        self.peak_cache_bytes = 0
        self.n_known = 0  # rows formed so far (recomputed rows count again)
        self.n_blocks = 0
        self.n_evicted = 0
        self.asked = np.zeros(n_features, dtype=bool)  # rows asked for
        self._full = None
        self._hits = 0  # rows asked for since the last miss that a speculative block had formed
        self._useful = None  # moving average of the rows of a block that were asked for

    @property
    def sparse(self) -> bool:
        return self.source is not None and getattr(self.source, "sparse", False)

    @property
    def row_bytes(self) -> float:
        """Bytes of one cached row: dense, or the mean size of the sparse rows formed so far."""
        if self.sparse and self.cache:
            return max(self.cache_bytes / len(self.cache), 1.0)
        return 8.0 * self.n_domains * self.n_features

    @property
    def block_size(self) -> int:
        """Rows formed per block: twice the rows of a block that were used lately (16 to 64), within the budget.

        The first block has 64 rows; later ones adapt to how well the caller's priority predicts
        its next requests (a row asked for that a speculative block had formed is a hit). At
        p = 10^4, 300 T-greedy steps used about 11 rows of each 64-row block, so forming 20 costs
        a third of the flops for the same requests; 16 rows keep the product compute-bound.
        """
        wanted = self.max_block_size if self._useful is None else int(np.ceil(2 * self._useful))
        wanted = int(np.clip(wanted, self.min_block_size, self.max_block_size))
        return int(np.clip(self.max_memory // (2 * self.row_bytes), 1, wanted))

    @property
    def max_block_rows(self) -> int:
        """The most rows a block may have: 64, within half the budget. Blocks of predicted rows have it.

        A dense block streams every X_k once, whatever its size: at p = 20,000 a 26-row block cost
        0.41 s and a 64-row one 0.48 s, so a long prediction is worth forming whole.
        """
        return int(np.clip(self.max_memory // (2 * self.row_bytes), 1, self.max_block_size))

    def is_known(self, i: int) -> bool:
        return self._full is not None or int(i) in self.cache

    def row(self, i: int, priority=None, remaining=None, predicted=None, dense: bool = True) -> np.ndarray:
        i = int(i)
        if self._full is None and i not in self.cache:
            if self.n_blocks:  # the rows of the blocks since the last miss that were used: this miss + the hits
                used = 1.0 + self._hits
                self._useful = used if self._useful is None else 0.7 * self._useful + 0.3 * used
            self._hits = 0
            block = self._choose_block(i, priority, predicted)
            if self._should_complete(block.size, remaining):
                self.full()
            else:
                self._compute(block, priority)
        elif self._full is None and not self.asked[i]:
            self._hits += 1
        self.asked[i] = True
        if self._full is not None:
            return self._full[:, i, :]
        row = self.cache.pop(i)
        self.cache[i] = row  # most recently used last
        return row.toarray() if self.sparse and dense else row

    def ensure(self, features) -> None:
        """Compute the missing rows of ``features`` (in blocks within the budget)."""
        if self._full is not None:
            return
        missing = np.unique(np.asarray(features, dtype=np.intp))
        missing = np.array([i for i in missing if int(i) not in self.cache], dtype=np.intp)
        for start in range(0, missing.size, self.block_size):
            self._compute(missing[start:start + self.block_size], None)

    def entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``E[X_rows X_columns^T | d_k]`` for every domain, (n_domains, |rows|, |columns|): no row is formed or cached."""
        if self._full is not None:
            return self._full[:, rows][:, :, columns]
        if self.source is None:
            raise ValueError("the samples behind these lazy statistics were released")
        same = rows.shape == columns.shape and np.array_equal(rows, columns)
        return self.source.gram_entries(rows, rows if same else columns)

    def times(self, coef: np.ndarray) -> np.ndarray:
        """``E[X X^T | d_k] w`` for every domain."""
        if self._full is not None:
            return self._full @ coef
        return self.source.gram_times(coef)

    def _should_complete(self, size: int, remaining) -> bool:
        """Whether completing the whole Gram now is expected to cost less than going on lazily.

        Never when the whole Gram would not fit in the row budget (or the samples are sparse).
        Flop counts per sample (m cancels): a lazy row costs 2 p, the completion (p - K)^2 with
        K rows known. Rows still to be formed are estimated as ``remaining`` (the most rows the
        caller will still ask for) times the rows formed per row asked so far (the waste of the
        speculative blocks). Past half the features the completion always wins (K^2 <= p^2 / 4).
        """
        p, known = self.n_features, self.n_known
        gram_bytes = 8.0 * self.n_domains * p * p
        if self.sparse or gram_bytes > self.max_memory or gram_bytes > _available_memory():
            return False
        if known + size > p / 2:
            return True
        if remaining is None:
            return known + size > p / 3
        asked = int(self.asked.sum())
        rows_per_row_asked = known / asked if asked else 1.0
        return 2 * p * rows_per_row_asked * remaining > (p - known) ** 2

    def _choose_block(self, i, priority, predicted=None) -> np.ndarray:
        """Row ``i`` and the ``predicted`` rows not known (in their order); without a prediction, the highest ``priority``."""
        size = min(self.block_size if predicted is None else self.max_block_rows, self.n_features - len(self.cache))
        block = [i]
        if predicted is not None:
            seen = {i}
            for j in np.asarray(predicted, dtype=np.intp).tolist():
                if len(block) >= size:
                    break
                if j not in seen and j not in self.cache:
                    seen.add(j)
                    block.append(j)
        if predicted is not None or priority is None or size <= len(block):  # a prediction replaces the score
            return np.sort(np.array(block, dtype=np.intp))
        score = np.array(priority, dtype=np.float64)
        if self.cache:
            score[np.fromiter(self.cache, dtype=np.intp, count=len(self.cache))] = -np.inf
        score[block] = np.inf
        top = np.argpartition(-score, size - 1)[:size]
        return np.sort(top)

    def _compute(self, block: np.ndarray, priority) -> None:
        if block.size == 0:
            return
        if self.source is None:
            raise ValueError("the samples behind these lazy statistics were released")
        parts = self.source.gram_block(block)
        if self.sparse:
            import scipy.sparse

            stacked = scipy.sparse.vstack(parts, format="csr")  # row k * |B| + j: row j of domain k
            offsets = np.arange(self.n_domains) * block.size
            for j, i in enumerate(block.tolist()):
                row = stacked[offsets + j]
                row.sum_duplicates()  # canonical: one entry per (domain, feature)
                self._store(i, row, row.data.nbytes + row.indices.nbytes + row.indptr.nbytes)
        else:
            for j, i in enumerate(block.tolist()):
                row = np.empty((self.n_domains, self.n_features))
                for k in range(self.n_domains):
                    row[k] = parts[k][j]
                self._store(i, row, row.nbytes)
        del parts
        self.n_known += block.size
        self.n_blocks += 1
        self.peak_cache_bytes = max(self.peak_cache_bytes, self.cache_bytes)
        self._evict(block, priority)

    def _store(self, i: int, row, nbytes: int) -> None:
        old = self.cache.pop(i, None)
        if old is not None:
            self.cache_bytes -= self._nbytes(old)
        self.cache[i] = row
        self.cache_bytes += nbytes

    def _nbytes(self, row) -> int:
        return row.data.nbytes + row.indices.nbytes + row.indptr.nbytes if self.sparse else row.nbytes

    def _evict(self, protect: np.ndarray, priority) -> None:
        """Drop cached rows until the cache fits its budget: rows asked for (least recently first), then speculative ones.

        A stagewise path asks for each row once (unless ``allow_reselect``), so a row it has read is
        the one least likely to be needed again, and a speculative row (a predicted pick) the most:
        evicting predicted rows first made a 300-step path at p = 30,000 recompute a block at nearly
        every step. Speculative rows go lowest ``priority`` first.
        """
        if self.cache_bytes <= self.max_memory:
            return
        keys = np.fromiter(self.cache, dtype=np.intp, count=len(self.cache))  # least recently used first
        keys = keys[~np.isin(keys, protect)]
        speculative, asked = keys[~self.asked[keys]], keys[self.asked[keys]]
        if priority is not None and speculative.size:
            speculative = speculative[np.argsort(np.asarray(priority, dtype=np.float64)[speculative], kind="stable")]
        for i in np.concatenate([asked, speculative]).tolist():
            if self.cache_bytes <= self.max_memory:
                break
            self.cache_bytes -= self._nbytes(self.cache.pop(i))
            self.n_evicted += 1

    def full(self) -> np.ndarray:
        """The whole Gram, shape (n_domains, n_features, n_features); the samples are then released."""
        if self._full is None:
            _check_gram_fits(self.n_domains, self.n_features)
            known = np.array(sorted(self.cache), dtype=np.intp)
            self._full = self.source.gram_full(known, lambda i: self.cache[int(i)])
            self.source.release()
            self.source, self.cache, self.cache_bytes = None, {}, 0
        return self._full


def _rows_as_slice(rows: np.ndarray):
    """A slice when ``rows`` is a contiguous range (then ``X[rows]`` is a view, not a copy)."""
    if rows.size and rows[-1] - rows[0] + 1 == rows.size:
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def _check_moment_scale(xy: np.ndarray, yy: np.ndarray) -> None:
    """Refuse moments whose squares overflow float64 (T-statistics and the greedy score square them)."""
    if not np.all(np.isfinite(yy)) or np.max(yy) > LARGEST_MOMENT**2:
        raise ValueError(
            "y is so large that E[Y^2] overflows float64 (|y| above about 1e154); rescale y, e.g. divide it by "
            "its standard deviation: T-statistics and the chosen features do not depend on the scale of y"
        )
    largest = np.max(np.abs(xy)) if np.all(np.isfinite(xy)) else np.inf
    if not largest <= LARGEST_MOMENT:
        i = int(np.argmax(np.where(np.isfinite(xy), np.abs(xy), np.inf).max(axis=0)))
        raise ValueError(
            f"E[X_i Y | d_k] reaches {largest:.3g} (feature {i}): squared, as T-statistics do, it overflows "
            f"float64 (largest allowed {LARGEST_MOMENT:.0e}); rescale y and/or X, e.g. divide them by their "
            "standard deviations: the chosen features do not depend on these scales"
        )


def _check_not_underflowing(features: np.ndarray, largest: np.ndarray) -> None:
    """Refuse features whose values are nonzero but so small that their squares underflow float64."""
    small = (largest > 0) & (largest < 1e-150)
    if np.any(small):
        j = int(np.flatnonzero(small)[0])
        raise ValueError(
            f"feature {features[j]} is not constant but tiny (largest |x| = {largest[j]:.3g}): its square "
            "underflows float64, so E[X_i^2] is 0 and the update would divide by it. Rescale X (e.g. "
            "sklearn.preprocessing.MaxAbsScaler); the chosen features do not depend on a feature's scale"
        )


def _check_target_varies(mean: float, mean_square: float) -> None:
    """Refuse a target ``y`` that is the same in every sample (pooled over the domains): nothing to select for.

    With y = 0 every residual covariance is 0 and every T-statistic 0/0; with another constant the
    "target" carries no label (e.g. one class only).
    """
    if not np.isfinite(mean_square):
        return  # overflow: reported by _check_moment_scale with its own fix
    if mean_square == 0 or mean_square - mean**2 <= CONSTANT_RTOL * mean_square:
        value = "0" if mean_square == 0 else f"{mean:.6g}"
        raise ValueError(f"y is {value} in every sample: it does not vary, so no feature can predict it and "
                         "every T-statistic would be 0/0 or meaningless; pass the target itself (e.g. +1/-1 or "
                         "0/1 class labels with both classes present)")


def _check_not_constant(mean: np.ndarray, mean_square: np.ndarray, *, features=None, scale=None, skip=None) -> None:
    """Raise ValueError naming the first feature that is constant over all samples of all domains.

    ``features`` names the columns ``mean`` and ``mean_square`` belong to (all by default), and
    ``scale`` the factor they were divided by (so the message gives the value in X's units);
    ``skip`` are columns not to check (checked scaled instead).
    """
    features = np.arange(mean.size) if features is None else np.asarray(features)
    variance = mean_square - mean**2
    flagged = variance <= CONSTANT_RTOL * np.maximum(mean_square, np.finfo(float).tiny)
    if skip is not None and skip.size:
        flagged[np.isin(features, skip)] = False
    constant = np.flatnonzero(flagged)
    if constant.size:
        j = constant[0]
        value = mean[j] * (1.0 if scale is None else scale[j])
        more = f" (and {constant.size - 1} more)" if constant.size > 1 else ""
        raise ValueError(
            f"feature {features[j]} is constant (value {value:.6g}) across all samples{more}; "
            "it carries no information and its T-statistic is 0/0. Remove constant features first, "
            "e.g. with sklearn.feature_selection.VarianceThreshold"
        )
