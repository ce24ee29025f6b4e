"""Per-domain second moments and the T-statistic: what every selector reads.

Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach", AISTATS 2012.
Section 2: the training set is a handful of domains d_1, ..., d_n; within each we know (or estimate from
many samples) E[X Y | d_k] and E[X X^T | d_k]. :class:`DomainStatistics` holds these, E[Y^2 | d_k] (for the
training loss), the sample counts and, for the unbiased update, the pooled E[X X^T] of unlabeled data.

The T-statistic (section 3.1) of n per-domain values r_1, ..., r_n (e.g. the residual covariances
r_k,i = E[X_i (Y - w.X) | d_k] of feature i, which T-greedy ranks in section 3.3) against a centre c is

    mu = (1/n) sum_k r_k,    sigma^2 = 1/(n-1) sum_k (r_k - mu)^2,    T = (mu - c) / (sigma / sqrt(n)),

the one-sample t-test statistic (:func:`scipy.stats.ttest_1samp`). Where sigma = 0, T is its limit: 0 if
mu = c, else +-inf with the sign of mu - c. Theorem 1 bounds T^2 <= 4 log(2 |F| / delta) over |F| features.

Lazy Gram rows: a path reads only the rows E[X_i X^T | d_k] of the features it chooses, so the sample
constructors (``lazy=True``) make one pass for the other moments, keep the samples (do not change ``X`` in place
meanwhile) and form rows on demand within ``max_row_memory`` bytes (:mod:`._gram_rows`). Moments whose squares
overflow or underflow float64 are refused with the scale to fix (T does not depend on the scales of y and X).
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import (align_columns, as_data_matrix, as_float_array, as_kept_apart_vector, check_domain_count,
                           check_finite, column_names, factorize, is_sparse)
from ._gram_rows import (DEFAULT_ROW_MEMORY, ChosenRows, ChunkSource, GramRows, GramTooLargeError,  # noqa: F401
                         SampleSource, SampleSums, check_gram_fits, rows_as_slice)

__all__ = ["DomainStatistics", "GramTooLargeError", "t_statistic"]


def t_statistic(values, axis: int = 0, *, center=0.0, moments: bool = False):
    """The T-statistic over the ``n`` domains on ``axis`` (module docstring); ``(T, mu, sigma)`` with ``moments``."""
    values = np.asarray(values, dtype=np.float64)
    check_domain_count(values.shape[axis] if values.ndim else 0, "the number of domains")
    result = t_moments(values, axis=axis, center=center)
    return result if moments else result[0]


def t_moments(values: np.ndarray, buffer: np.ndarray | None = None, axis: int = 0, center=None):
    """``(T, mu, sigma)`` unchecked, as numpy's ``mean`` and ``std(ddof=1)`` compute them; ``buffer`` takes the deviations."""
    n = values.shape[axis]
    mu = np.add.reduce(values, axis=axis) / n
    deviation = np.subtract(values, np.expand_dims(mu, axis) if axis else mu, out=buffer)
    np.multiply(deviation, deviation, out=deviation)
    sigma = np.sqrt(np.add.reduce(deviation, axis=axis) / (n - 1))
    effect = (mu if center is None else mu - center) * math.sqrt(n)
    if np.minimum.reduce(sigma, axis=None) > 0:  # no spread is 0 (nor NaN): one reduction instead of a mask
        return effect / sigma, mu, sigma
    zero = sigma == 0
    if not zero.any():
        return effect / sigma, mu, sigma
    t = np.where(effect == 0, 0.0, np.copysign(np.inf, effect))  # sigma = 0: T's limit
    np.divide(effect, sigma, out=t, where=~zero)
    return t, mu, sigma


#: Scales refused: a pooled variance below CONSTANT_RTOL of the mean square (constant); moments above LARGEST_MOMENT
#: (their squares overflow); a mean square below SMALLEST_MOMENT is recomputed scaled by the largest |x|; products of
#: y's and a feature's scales below SMALLEST_PRODUCT; a pooled E[Y^2] below SMALLEST_SQUARE (y's square underflowed).
CONSTANT_RTOL, LARGEST_MOMENT, SMALLEST_MOMENT, SMALLEST_PRODUCT, SMALLEST_SQUARE = 1e-9, 1e150, 1e-250, 1e-140, 1e-290


class DomainStatistics:
    """Per-domain second moments E[XY|d_k], E[XX^T|d_k] of n training domains (section 2; module docstring).

    Build it with :meth:`from_samples` (pooled rows and a domain label a row), :meth:`from_domains` (a list
    of per-domain ``(X_k, y_k)``), :meth:`from_chunks` (chunks read one at a time) or :meth:`from_moments`.

    Attributes
    ----------
    xx : ndarray of shape (n_domains, n_features, n_features)
        ``E[X X^T | d_k]``; from samples, formed on first access (refused up front, with its size, when
        it would not fit in memory: :class:`GramTooLargeError`).
    xy : ndarray of shape (n_domains, n_features)
        ``E[X Y | d_k]``.
    yy : ndarray of shape (n_domains,)
        ``E[Y^2 | d_k]``.
    counts : ndarray of shape (n_domains,) or None
        Samples per domain; None for given moments.
    domain_labels : ndarray of shape (n_domains,)
        The label of each domain, in the (sorted) order of the arrays.
    unlabeled_xx : ndarray of shape (n_features, n_features) or None
        Pooled ``E[X X^T]`` of unlabeled data.
    diagonal : ndarray of shape (n_domains, n_features)
        ``E[X_i^2 | d_k]``, the Gram's diagonal, known without the Gram.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = X[:, 0] + 0.1 * rng.standard_normal(300)
    >>> stats = DomainStatistics.from_samples(X, y, domains=np.arange(300) % 3)
    >>> stats
    DomainStatistics(n_domains=3, n_features=4, gram='lazy')
    >>> stats.xy[:, 0].round(2)  # E[X_0 Y | d_k]: feature 0 covaries with y in every domain
    array([0.94, 0.86, 1.07])
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
        self._rows = None  # the GramRows of the samples when the Gram is formed lazily
        self._keep = slice(None)  # the domains of _rows that this object covers
        self.diagonal = None if xx is None else np.einsum("kii->ki", xx)

    def __repr__(self) -> str:
        state = "lazy" if self._xx is None else "dense"
        return f"DomainStatistics(n_domains={self.n_domains}, n_features={self.n_features}, gram={state!r})"

    @classmethod
    def from_samples(cls, X, y, domains, *, unlabeled_X=None, lazy=True, max_row_memory=None) -> "DomainStatistics":
        """The moments of pooled rows ``X`` (dense, DataFrame or scipy.sparse), targets ``y`` and a domain label a row.

        Parameters
        ----------
        domains : array-like of shape (n_samples,)
            Any hashable labels, ordered by label where they sort. Missing labels, and labels of different
            types that Python would merge or that print alike (``1``, ``1.0``, ``True``; ``1`` and ``"1"``),
            are refused.
        unlabeled_X : array-like of shape (m, n_features), optional
            Unlabeled rows for the pooled ``E[X X^T]``.
        lazy : bool, default True
            Form the rows of ``E[X X^T | d_k]`` only when they are needed (module docstring).
        max_row_memory : int, optional
            Bytes of lazily formed Gram rows kept (default :data:`DEFAULT_ROW_MEMORY`, 256 MiB).
        """
        if unlabeled_X is not None:
            unlabeled_X = align_columns(unlabeled_X, column_names(X), "unlabeled_X", "X")
        X = as_data_matrix(X, "X")
        y = as_float_array(y, "y", 1)
        labels, index = factorize(as_kept_apart_vector(domains, "domains"), "domains")
        if not (X.shape[0] == y.shape[0] == index.shape[0]):
            raise ValueError("X, y and domains disagree in length: "
                             f"X has {X.shape[0]} rows, y has {y.shape[0]}, domains has {index.shape[0]}")
        if is_sparse(X):
            import scipy.sparse

            X = scipy.sparse.csr_matrix(X)  # row selection, then each domain as CSC for column blocks
            data = [(X[np.flatnonzero(index == k)].tocsc(), y[index == k]) for k in range(labels.size)]
        else:
            groups = [rows_as_slice(np.flatnonzero(index == k)) for k in range(labels.size)]
            data = [(X[rows], y[rows]) for rows in groups]
        return cls._build(data, labels, unlabeled_X, lazy, [("X", X)], max_row_memory)

    @classmethod
    def from_domains(cls, domains, *, labels=None, unlabeled_X=None, lazy=True, max_row_memory=None) -> "DomainStatistics":
        """The moments of per-domain ``(X_k, y_k)`` pairs (``labels``: one each); options as in :meth:`from_samples`."""
        data = []
        columns, named = None, None  # the first named domain's columns: the others are matched to them by name
        for k, pair in enumerate(list(domains)):
            try:
                Xk, yk = pair
            except (TypeError, ValueError):
                raise ValueError(f"domain {k} must be an (X, y) pair") from None
            if columns is None and column_names(Xk) is not None:
                columns, named = column_names(Xk), f"X of domain {k}"
            Xk = as_data_matrix(align_columns(Xk, columns, f"X of domain {k}", named), f"X of domain {k}")
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
        """The moments of chunks ``(X, y, domains)`` read one at a time, for data larger than memory.

        ``domains`` is a label a row or one for the whole chunk. Every block of Gram rows takes one more pass, so
        ``chunks`` is a callable returning a fresh iterator (``lambda: read_chunks(path)``) or a sequence (a one-shot
        iterator only with ``lazy=False``). Results equal :meth:`from_samples`' to rounding.
        """
        source = ChunkSource(chunks)
        sums = source.first_pass(keep_gram=not lazy)
        if unlabeled_X is not None:
            unlabeled_X = align_columns(unlabeled_X, source.columns, "unlabeled_X", "the first chunk")
        return cls._from_sums(sums, source, unlabeled_X, [], max_row_memory, lazy)

    @classmethod
    def _build(cls, data, labels, unlabeled_X, lazy, named_inputs, max_row_memory=None) -> "DomainStatistics":
        """The statistics of per-domain ``(X_k, y_k)``; ``lazy="chosen"`` forms only the rows asked for (:class:`ChosenRows`)."""
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
            check_gram_fits(n, p)
        xy, x_sum, diagonal, yy = np.empty((n, p)), np.empty((n, p)), np.empty((n, p)), np.empty(n)
        xx = np.empty((n, p, p)) if not lazy else None
        with np.errstate(over="ignore", invalid="ignore"):  # NaN and overflow are reported by the checks
            for k, (Xk, yk) in enumerate(data):
                # X_k^T [y_k, 1] (one BLAS call) and the column sums of squares (one pass), or X_k^T X_k
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
        sums = SampleSums(labels, counts, xy, x_sum, diagonal, yy, y_sum=np.array([yk.sum() for _, yk in data]),
                          y_abs_max=max((float(np.max(np.abs(yk))) for _, yk in data if yk.size), default=0.0), xx=xx)
        source = SampleSource([Xk for Xk, _ in data], counts)
        return cls._from_sums(sums, source, unlabeled_X, named_inputs, max_row_memory, lazy)

    @classmethod
    def from_sorted_rows(cls, X, y, counts, labels, unlabeled_X, lazy) -> "DomainStatistics":
        """The estimators' route: checked rows (dense, or CSR) sorted by domain (domain k: the next ``counts[k]``);
        where every domain has as many rows, each moment is one batched product (small fits)."""
        n, m = counts.size, int(counts[0])
        y = np.asarray(y, dtype=np.float64)  # (integer targets: the moments are floats)
        if is_sparse(X) or not (np.all(counts == m) and X.flags.c_contiguous and n >= 2):
            ends = np.cumsum(counts)  # each domain a slice (sparse: CSR rows, as CSC for column blocks)
            data = [(X[end - c:end].tocsc() if is_sparse(X) else X[end - c:end], y[end - c:end])
                    for end, c in zip(ends, counts)]
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
                check_gram_fits(n, p)
                xx = np.matmul(transposed, stacked)
                diagonal = np.einsum("kii->ki", xx).copy()
        sums = SampleSums(labels, counts.astype(np.int64), xy, x_sum, diagonal, yy,
                          y_sum=np.add.reduce(y_k[:, 0, :], axis=1), y_abs_max=float(np.max(np.abs(y))), xx=xx)
        source = SampleSource([stacked[k] for k in range(n)], counts, stacked=(transposed, stacked))
        return cls._from_sums(sums, source, unlabeled_X, [("X", X)], None, lazy)

    @classmethod
    def _from_sums(cls, sums: SampleSums, source, unlabeled_X, named_inputs, max_row_memory, lazy) -> "DomainStatistics":
        """Checks and scaling shared by the sample constructors (sums in, means out)."""
        counts, xy, yy, diagonal, x_sum = sums.counts, sums.xy, sums.yy, sums.diagonal, sums.x_sum
        n, p = xy.shape
        check_domain_count(n, "the number of domains")
        y_mean, y_square = sums.y_sum.sum() / counts.sum(), yy.sum() / counts.sum()
        _check_target(y_mean, y_square, sums.y_abs_max)
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
        x_scale = np.sqrt(pooled_square)
        if tiny.size:  # the squares may have underflowed: recompute these columns scaled by their largest |x|
            largest = source.column_abs_max(tiny)
            safe = np.where(largest > 0, largest, 1.0)
            scaled_mean, scaled_square = source.column_moments(tiny, safe)
            _check_not_constant(scaled_mean, scaled_square, features=tiny, scale=safe)
            small = (largest > 0) & (largest < 1e-150)
            if np.any(small):
                j = int(np.flatnonzero(small)[0])
                raise ValueError(
                    f"feature {tiny[j]} is not constant but tiny (largest |x| = {largest[j]:.3g}): its square "
                    "underflows float64, so E[X_i^2] is 0 and the update would divide by it. Rescale X (e.g. "
                    "sklearn.preprocessing.MaxAbsScaler); the chosen features do not depend on a feature's scale")
            x_scale[tiny] = largest
        _check_not_constant(pooled_mean, pooled_square, skip=tiny)
        _check_products_not_underflowing(float(yy @ counts) / counts.sum(), x_scale)
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
        xx = sums.xx
        if xx is not None:
            xx *= scale[:, None, None]
        stats = cls(xx=xx, xy=xy, yy=yy, counts=counts, domain_labels=np.asarray(sums.labels),
                    unlabeled_xx=unlabeled_xx)
        if xx is None:
            stats._rows = (ChosenRows if lazy == "chosen" else GramRows)(source, n, p, max_row_memory)
            stats.diagonal = diagonal
        else:
            source.release()
        return stats

    @classmethod
    def from_moments(cls, xx, xy, yy=None, *, counts=None, labels=None, unlabeled_xx=None) -> "DomainStatistics":
        """Statistics from given (e.g. population) moments ``xx`` (n, p, p) and ``xy`` (n, p); ``yy`` (n,) is optional
        (without it the losses are relative to a constant), as are ``counts``, ``labels`` and ``unlabeled_xx`` (p, p)."""
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
        _check_given_moment_scale(xy, stats.diagonal)
        return stats

    @property
    def xx(self) -> np.ndarray:
        """``E[X X^T | d_k]`` for every domain, shape (n_domains, n_features, n_features)."""
        if self._xx is None:
            self._xx = self._rows.full()[self._keep]
        return self._xx

    @property
    def n_domains(self) -> int:
        return self.xy.shape[0]

    @property
    def n_features(self) -> int:
        return self.xy.shape[1]

    def gram_row(self, i: int, priority=None, remaining=None, predicted=None, dense: bool = True):
        """``E[X_i X^T | d_k]`` for every domain, (n_domains, n_features); read-only. Hints for lazy rows: ``priority``
        (a score a feature) and ``predicted`` (the next picks) say which rows to form with it, ``remaining`` how many
        more the caller will ask for; ``dense=False``: a row of sparse samples stays CSR."""
        if self._xx is not None:
            return self._xx[:, i, :]
        row = self._rows.row(int(i), priority, remaining, predicted, dense)
        return row if isinstance(self._keep, slice) else row[self._keep]

    def gram_entries(self, rows, columns) -> np.ndarray:
        """``E[X_rows X_columns^T | d_k]``, (n_domains, |rows|, |columns|), without forming whole rows."""
        rows, columns = np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp)
        if self._xx is not None:
            return self._xx[:, rows][:, :, columns]
        return self._rows.entries(rows, columns)[self._keep]

    def gram_times(self, coef: np.ndarray) -> np.ndarray:
        """``E[X X^T | d_k] w`` for every domain; lazily ``X_k^T (X_k w) / m_k`` (no Gram row needed)."""
        if self._xx is not None:
            return self._xx @ coef
        return self._rows.times(coef)[self._keep]

    @property
    def block_rows(self) -> int | None:
        """Rows formed per block of lazy rows; None when the whole Gram is known or rows come one at a time (sparse)."""
        if self._xx is not None or self._rows.complete or self._rows.sparse:
            return None
        return self._rows.max_block_rows

    @property
    def row_budget(self) -> int | None:
        """Bytes of lazily formed Gram rows kept (``max_row_memory``); None when the whole Gram is known."""
        if self._xx is not None or self._rows.complete:
            return None
        return self._rows.max_memory

    @property
    def row_memory(self) -> int:
        """Bytes of lazily formed Gram rows held now (0 when the whole Gram is known)."""
        return 0 if self._xx is not None else self._rows.cache_bytes

    def row_known(self, i: int) -> bool:
        """Whether row ``i`` is available without a new matrix product."""
        return self._xx is not None or self._rows.is_known(i)

    def subset(self, labels) -> "DomainStatistics":
        """The statistics of the domains whose labels are in ``labels`` (lazily formed Gram rows are shared)."""
        wanted = np.atleast_1d(np.asarray(labels))
        missing = [lab for lab in wanted.tolist() if lab not in self.domain_labels.tolist()]
        if missing:
            raise ValueError(f"unknown domain labels {missing}; known: {self.domain_labels.tolist()}")
        keep = np.flatnonzero(np.isin(self.domain_labels, wanted))
        check_domain_count(keep.size, "the subset's number of domains")
        sub = DomainStatistics(xx=None if self._xx is None else self._xx[keep], xy=self.xy[keep], yy=self.yy[keep],
                               counts=None if self.counts is None else self.counts[keep],
                               domain_labels=self.domain_labels[keep], unlabeled_xx=self.unlabeled_xx)
        if self._xx is None:
            sub._rows = self._rows
            sub._keep = np.arange(self._rows.n_domains)[self._keep][keep]
            sub.diagonal = self.diagonal[keep]
        return sub

    def second_moment(self, denominator: str = "sample") -> np.ndarray:
        """The update's E[X_i^2] (section 3.3): ``"sample"``, (1/n) sum_k E[X_i^2 | d_k] (biased, as the paper
        notes), or ``"unlabeled"``, the diagonal of the pooled unlabeled E[X X^T]."""
        if denominator == "sample":
            return self.diagonal.mean(axis=0)
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

    def residual_covariances(self, coef) -> np.ndarray:
        """``E[X (Y - w.X) | d_k]`` for every domain and feature (section 3.3), shape (n_domains, n_features)."""
        return self.xy - self.gram_times(self._as_coef(coef))

    def training_loss(self, coef) -> float:
        """Pooled training squared loss (1/n) sum_k E[(Y - w.X)^2 | d_k]."""
        coef = self._as_coef(coef)
        return float((self.yy - 2 * self.xy @ coef + self.gram_times(coef) @ coef).mean())


def _check_moment_scale(xy: np.ndarray, yy: np.ndarray) -> None:
    """Refuse moments whose squares overflow float64 (T-statistics and the greedy score square them)."""
    if not np.all(np.isfinite(yy)) or np.max(yy) > LARGEST_MOMENT**2:
        raise ValueError("y is so large that E[Y^2] overflows float64 (|y| above about 1e154); rescale y, e.g. "
                         "divide it by its standard deviation: T-statistics and the chosen features do not depend on "
                         "the scale of y")
    largest = np.max(np.abs(xy)) if np.all(np.isfinite(xy)) else np.inf
    if not largest <= LARGEST_MOMENT:
        i = int(np.argmax(np.where(np.isfinite(xy), np.abs(xy), np.inf).max(axis=0)))
        raise ValueError(
            f"E[X_i Y | d_k] reaches {largest:.3g} (feature {i}): squared, as T-statistics do, it overflows "
            f"float64 (largest allowed {LARGEST_MOMENT:.0e}); rescale y and/or X, e.g. divide them by their "
            "standard deviations: the chosen features do not depend on these scales")


def _check_target(mean: float, mean_square: float, y_abs_max: float) -> None:
    """Refuse a target so small that its square underflows, or the same in every sample (every T 0/0)."""
    if not np.isfinite(mean_square):
        return  # overflow: reported by _check_moment_scale with its own fix
    if mean_square < SMALLEST_SQUARE and y_abs_max > 0:  # y = +-1e-200 is not "0 in every sample"
        raise ValueError(
            f"y is tiny (largest |y| = {y_abs_max:.3g}): its square underflows float64, so E[Y^2] and the residual "
            "covariances' spread cannot be computed; standardise y (divide it by its standard deviation): "
            "T-statistics and the chosen features do not depend on the scale of y")
    if mean_square == 0 or mean_square - mean**2 <= CONSTANT_RTOL * mean_square:
        value = "0" if mean_square == 0 else f"{mean:.6g}"
        raise ValueError(f"y is {value} in every sample: it does not vary, so no feature can predict it and "
                         "every T-statistic would be 0/0 or meaningless; pass the target itself (e.g. +1/-1 or "
                         "0/1 class labels with both classes present)")


def _check_not_constant(mean: np.ndarray, mean_square: np.ndarray, *, features=None, scale=None, skip=None) -> None:
    """Name the first feature constant over all samples (``features``: the columns given, divided by ``scale``;
    ``skip``: columns checked scaled instead)."""
    features = np.arange(mean.size) if features is None else np.asarray(features)
    flagged = mean_square - mean**2 <= CONSTANT_RTOL * np.maximum(mean_square, np.finfo(float).tiny)
    if skip is not None and skip.size:
        flagged[np.isin(features, skip)] = False
    constant = np.flatnonzero(flagged)
    if constant.size:
        j = constant[0]
        value = mean[j] * (1.0 if scale is None else scale[j])
        more = f" (and {constant.size - 1} more)" if constant.size > 1 else ""
        raise ValueError(f"feature {features[j]} is constant (value {value:.6g}) across all samples{more}; "
                         "it carries no information and its T-statistic is 0/0. Remove constant features first, "
                         "e.g. with sklearn.feature_selection.VarianceThreshold")


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


def _check_products_not_underflowing(y_mean_square: float, x_scale: np.ndarray) -> None:
    """Refuse scales of y and X whose products (the residual covariances) underflow when squared."""
    y_scale = math.sqrt(y_mean_square)
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
