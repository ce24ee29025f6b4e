"""Per-domain second moments: the statistics every selector consumes (paper, section 2).

Foster, Kakade & Salakhutdinov (2012), section 2: the training set is a handful of domains
d_1, ..., d_n sampled independently; within each domain we know (or estimate from many samples)

    E[X Y | d_k]      and      E[X X^T | d_k],

and, for the analysis, the pooled E[X X^T] from unlabeled data. :class:`DomainStatistics`
holds exactly these, plus E[Y^2 | d_k] (for the training loss) and the sample counts. The Gram
rows ``E[X_i X^T | d_k]`` it forms lazily, within a memory budget and from data in memory or in
chunks, come from the engine in :mod:`._gram_rows`.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import (align_columns, as_data_matrix, as_float_array, as_kept_apart_vector, check_domain_count,
                           check_finite, column_names, factorize, is_sparse)
# DEFAULT_ROW_MEMORY: the documented default of ``max_row_memory``; GramTooLargeError: raised here, exported here.
from ._gram_rows import (DEFAULT_ROW_MEMORY, GramTooLargeError, _check_gram_fits, _ChunkSource,  # noqa: F401
                         _ChosenRows, _GramRows, _rows_as_slice, _SampleSource)

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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

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
#: Moments larger than this are refused: T-statistics and the greedy score square them
#: (the largest float64 is 1.8e308; the headroom covers sums over the domains).
LARGEST_MOMENT = 1e150
#: A mean square below this is recomputed from the feature scaled by its largest |value|
#: (its square may have underflowed; float64 squares underflow below |x| = 1.5e-154).
SMALLEST_MOMENT = 1e-250
#: Products of the scales of y and of a feature (root mean squares) below this are refused: the residual
#: covariances are of that size, and their spread across domains, squared, would underflow float64.
SMALLEST_PRODUCT = 1e-140
#: A pooled E[Y^2] below this means y's square underflowed (|y| below about 1e-150).
SMALLEST_SQUARE = 1e-290


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
    moments whose squares overflow (``|E[X_i Y|d_k]| > 1e150``, from ``y`` or ``X`` around 1e150),
    features or targets whose squares underflow (``|x| < 1e-154``, ``|y| < 1e-150``) and scales of
    ``y`` and a feature whose product is below 1e-140 (the residual covariances' spread would
    underflow when squared, making T infinite) are refused with a ValueError that names the scale
    and asks to standardise, rather than silently giving T = 0, T = +-inf or a division by zero.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

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
            does not depend on the order of the rows. Missing labels (NaN, None, pd.NA) are refused,
            and so are labels of different types that Python would merge or that print alike
            (``1``, ``1.0`` and ``True``; ``1`` and ``"1"``; ``"a"`` and ``b"a"``): a ValueError names both.
        unlabeled_X : array-like of shape (m, n_features), optional
            Unlabeled rows from which the pooled ``E[X X^T]`` is estimated.
        lazy : bool, default True
            Compute the rows of ``E[X X^T | d_k]`` only when they are needed (class docstring).
        max_row_memory : int, optional
            Bytes of lazily computed Gram rows kept in memory (default :data:`~._gram_rows.DEFAULT_ROW_MEMORY`, 256 MiB).

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
        labels, index = factorize(as_kept_apart_vector(domains, "domains"), "domains")
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
            A label for each domain (default ``0 .. n_domains - 1``). Repeated labels, and labels of
            different types that are equal or print alike (``1`` and ``"1"``), are refused.
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
        labels = np.arange(len(data)) if labels is None else _distinct_labels(labels, len(data))
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
                                             source, unlabeled_X, [], max_row_memory, y_sum, source.y_abs_max)
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
        y_abs_max = max((float(np.max(np.abs(yk))) for _, yk in data if yk.size), default=0.0)
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
                                            unlabeled_X, named_inputs, max_row_memory, y_sum, y_abs_max,
                                            rows=_ChosenRows if lazy == "chosen" else _GramRows)

    @classmethod
    def _from_sorted_samples(cls, X, y, counts, labels, unlabeled_X, lazy) -> "DomainStatistics":
        """The statistics of validated dense rows sorted by domain (domain k: the next ``counts[k]`` rows).

        The estimators' route (they validate ``X``, ``y`` and the labels once, at ``fit``). Where every
        domain has the same number of rows, ``X`` is a (domains, rows, p) stack and each moment is one
        batched product over all domains instead of a few calls per domain (cross-validation fits are
        small, and there the calls cost more than the arithmetic); otherwise :meth:`_build` on the slices.
        The moments equal :meth:`_build`'s to rounding.
        """
        n, m = counts.size, int(counts[0])
        y = np.asarray(y, dtype=np.float64)  # (integer targets: the moments are floats)
        if not (np.all(counts == m) and X.flags.c_contiguous and n >= 2):
            ends = np.cumsum(counts)
            data = [(X[end - c:end], y[end - c:end]) for end, c in zip(ends, counts)]
            return cls._build(data, labels, unlabeled_X, lazy, [("X", X)])
        p = X.shape[1]
        stacked = X.reshape(n, m, p)
        transposed = stacked.transpose(0, 2, 1)
        y_k = y.reshape(n, 1, m)
        with np.errstate(over="ignore", invalid="ignore"):  # NaN and overflow are reported by the checks
            # y_k^T X_k (a batched product with one row per domain: products with 2 rows are slower);
            # the checks read only the pooled column sums, 1^T X (one row for all domains)
            xy = np.matmul(y_k, stacked)[:, 0, :]
            x_sum = np.matmul(np.ones((1, n * m)), X)
            yy = np.matmul(y_k, y_k.transpose(0, 2, 1))[:, 0, 0]
            if lazy:
                xx = None
                diagonal = np.einsum("kmp,kmp->kp", stacked, stacked)
            else:
                _check_gram_fits(n, p)
                xx = np.matmul(transposed, stacked)
                diagonal = np.einsum("kii->ki", xx).copy()
        y_sum = np.add.reduce(y_k[:, 0, :], axis=1)
        y_abs_max = float(np.max(np.abs(y)))
        source = _SampleSource([stacked[k] for k in range(n)], counts)
        source.stacked = (transposed, stacked)
        return cls._from_moments_of_samples(labels, counts.astype(np.int64), xy, x_sum, diagonal, yy, xx, source,
                                            unlabeled_X, [("X", X)], None, y_sum, y_abs_max,
                                            rows=_ChosenRows if lazy == "chosen" else _GramRows)

    @classmethod
    def _from_moments_of_samples(cls, labels, counts, xy, x_sum, diagonal, yy, xx, source,
                                 unlabeled_X, named_inputs, max_row_memory, y_sum, y_abs_max=None,
                                 rows=None) -> "DomainStatistics":
        """Checks and scaling shared by the sample constructors (sums in, means out).

        ``rows``: the class of the lazily computed Gram rows (:class:`_GramRows`, or the estimators'
        :class:`_ChosenRows` for short paths, ``lazy="chosen"`` in :meth:`_build`).
        """
        n, p = xy.shape
        check_domain_count(n, "the number of domains")
        _check_target_not_tiny(y_sum.sum() / counts.sum(), yy.sum() / counts.sum(), y_abs_max)
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
        largest = None
        if tiny.size:  # the squares may have underflowed: recompute these columns scaled by their largest |x|
            largest = source.column_abs_max(tiny)
            safe = np.where(largest > 0, largest, 1.0)
            scaled_mean, scaled_square = source.column_moments(tiny, safe)
            _check_not_constant(scaled_mean, scaled_square, features=tiny, scale=safe)
            _check_not_underflowing(tiny, largest)
        _check_not_constant(pooled_mean, pooled_square, skip=tiny)
        _check_products_not_underflowing(float(yy @ counts) / counts.sum(), pooled_square, tiny, largest)
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
            stats._rows = (rows or _GramRows)(source, n, p, max_row_memory)
            stats._diagonal = diagonal
        return stats

    @classmethod
    def from_moments(cls, xx, xy, yy=None, *, counts=None, labels=None, unlabeled_xx=None) -> "DomainStatistics":
        """Per-domain statistics (section 2 of the paper) from given moments ``E[XX^T|d_k]``, ``E[XY|d_k]``, ``E[Y^2|d_k]``.

        For population moments, as in the paper's analysis (infinitely many samples a domain),
        and in simulations (:mod:`tgreedy_lib.domain_adaptation.theorems.simulate`).

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
            A label for each domain. Repeated labels, and labels of different types that are equal or
            print alike (``1`` and ``"1"``), are refused.
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
        labels = np.arange(n) if labels is None else _distinct_labels(labels, n)
        stats = cls(xx=xx, xy=xy, yy=yy, counts=counts, domain_labels=labels, unlabeled_xx=unlabeled_xx)
        check_domain_count(stats.n_domains, "the number of domains")
        zero = np.flatnonzero(stats.second_moment("sample") <= 0)
        if zero.size:
            raise ValueError(f"feature {zero[0]} has E[X_i^2] = 0 in every domain; the update divides by it")
        _check_given_moment_scale(xy, stats._diagonal)
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


def _distinct_labels(labels, n: int) -> np.ndarray:
    """``labels`` of ``n`` domains as an array: one each, no two alike (repeated, equal or printing alike)."""
    arr = as_kept_apart_vector(labels, "labels")
    if arr.shape != (n,):
        raise ValueError(f"labels must name each of the {n} domains, got shape {arr.shape}")
    uniques, codes = factorize(arr, "labels", allow_none=True)
    if uniques.size < n:
        repeated = uniques.tolist()[int(np.flatnonzero(np.bincount(codes) > 1)[0])]
        raise ValueError(f"labels names two domains {repeated!r}; give every domain a label of its own "
                         "(statistics of a subset, and results per domain, are found by label)")
    return arr


def _check_target_not_tiny(mean: float, mean_square: float, y_abs_max=None) -> None:
    """Refuse a target so small that its square underflows (y = +-1e-200 is not "0 in every sample")."""
    if not (np.isfinite(mean_square) and mean_square < SMALLEST_SQUARE):
        return
    largest = abs(mean) if y_abs_max is None else y_abs_max
    if largest > 0:
        raise ValueError(
            f"y is tiny (largest |y| = {largest:.3g}): its square underflows float64, so E[Y^2] and the residual "
            "covariances' spread cannot be computed; standardise y (divide it by its standard deviation): "
            "T-statistics and the chosen features do not depend on the scale of y")


def _check_products_not_underflowing(y_mean_square: float, x_mean_square: np.ndarray, tiny=None, largest=None) -> None:
    """Refuse scales of y and X whose products (the residual covariances) underflow float64 when squared.

    ``tiny`` features (whose mean square may have underflowed) are measured by their ``largest`` |x|."""
    y_scale = math.sqrt(y_mean_square)
    x_scale = np.sqrt(x_mean_square)
    if tiny is not None and np.size(tiny):
        x_scale = x_scale.copy()
        x_scale[tiny] = largest
    product = y_scale * x_scale
    i = int(np.argmin(product))
    if product[i] < SMALLEST_PRODUCT:
        raise ValueError(
            f"y (root mean square {y_scale:.3g}) and feature {i} (scale {x_scale[i]:.3g}) "
            f"have products of about {product[i]:.3g}: the residual covariances are that small and their spread, "
            f"squared, underflows float64 (below {SMALLEST_PRODUCT:.0e} is refused), which would make T-statistics "
            "infinite; standardise y (divide it by its standard deviation) and/or rescale X: the chosen features do "
            "not depend on these scales")


def _check_given_moment_scale(xy: np.ndarray, diagonal: np.ndarray) -> None:
    """Refuse given moments whose squares (as T-statistics and the greedy score form them) leave float64."""
    largest = float(np.max(np.abs(xy))) if xy.size else 0.0
    if largest > LARGEST_MOMENT or 0 < largest < SMALLEST_PRODUCT:
        way = "overflows" if largest > LARGEST_MOMENT else "underflows"
        raise ValueError(
            f"the largest |E[X_i Y | d_k]| is {largest:.3g}: squared, as T-statistics do, it {way} float64 (allowed "
            f"{SMALLEST_PRODUCT:.0e} .. {LARGEST_MOMENT:.0e}); rescale the moments (standardise y and X): the "
            "chosen features do not depend on these scales")
    square = float(np.max(diagonal)) if diagonal.size else 0.0
    if square > LARGEST_MOMENT**2 or 0 < square < SMALLEST_MOMENT:
        way = "overflow" if square > LARGEST_MOMENT**2 else "underflow"
        raise ValueError(
            f"the largest E[X_i^2 | d_k] is {square:.3g}: products of such moments {way} float64; rescale X "
            "(e.g. divide each feature by its standard deviation): the chosen features do not depend on it")
