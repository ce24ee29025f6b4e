"""The count tables ``c_v, c_v^+`` of a categorical feature, and the checks of the package's inputs.

Section 2 of Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization
Properties", JMLR 9 (2008): a training set of ``m`` examples gives, for each value ``v``, the
count ``c_v`` of examples with ``X = v`` and the count ``c_v^+`` of those labelled 1. The
``check_*`` functions are the package's boundary: public functions pass their counts, labels,
distribution ``(p, q)`` and sample size ``m`` through them on entry; the internals trust the result.
"""
from __future__ import annotations

import numpy as np

from ..validation import (as_float_array, as_kept_apart_table, as_kept_apart_vector, check_finite, check_labels,
                           check_whole_number, factorize)

_SUM_TOLERANCE = 1e-9
_FLUSH_BELOW = 1e-290


def check_feature_labels(x, y) -> tuple[np.ndarray, np.ndarray]:
    """One feature's values ``x`` and the 0/1 labels ``y`` (as int64) of the same examples, both 1-D."""
    y = check_labels(y, "y").astype(np.int64)
    x = as_kept_apart_vector(x, "x")  # a list of sets or tuples stays one value per example; 1 and '1' stay apart
    if x.ndim != 1:
        raise ValueError(f"x must be one-dimensional, got shape {x.shape}")
    if x.shape != y.shape:
        raise ValueError(f"x and y have different lengths: {x.size} vs {y.size}")
    return x, y


def check_counts(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``c_v`` and ``c_v^+`` as int arrays of one shape with 0 <= c^+ <= c and m >= 1 per row."""
    c = np.asarray(counts)
    cp = np.asarray(positive_counts)
    if c.shape != cp.shape:
        raise ValueError(f"counts and positive_counts have different shapes: {c.shape} vs {cp.shape}")
    if c.ndim == 0:
        raise ValueError("counts must have at least one dimension (one entry per value v)")
    for arr, name in ((c, "counts"), (cp, "positive_counts")):
        if arr.dtype.kind == "f":
            check_finite(arr, name)
            if np.any(arr != np.round(arr)):
                raise ValueError(f"{name} must be whole numbers")
        elif arr.dtype.kind not in "iub":
            raise ValueError(f"{name} must be integer counts, got dtype {arr.dtype}")
    c = c.astype(np.int64)
    cp = cp.astype(np.int64)
    if np.any(c < 0) or np.any(cp < 0):
        raise ValueError("counts and positive_counts must be non-negative")
    if np.any(cp > c):
        raise ValueError("positive_counts exceed counts for some value (c_v^+ > c_v)")
    if np.any(c.sum(axis=-1) == 0):
        raise ValueError("empty sample: the counts sum to m = 0; at least one example is needed")
    return c, cp


def check_distribution(p, q=None) -> tuple[np.ndarray, np.ndarray | None]:
    """``p`` a probability vector over V (sums to 1) and ``q`` in [0, 1] of the same length."""
    p = as_float_array(p, "p", 1)
    if p.size == 0:
        raise ValueError("p is empty: the feature needs at least one value")
    if np.any(p < 0):
        raise ValueError(f"p must be non-negative; found {p[p < 0][:3].tolist()}")
    total = float(p.sum())
    if abs(total - 1.0) > _SUM_TOLERANCE:
        raise ValueError(f"p must sum to 1 (it is a distribution over the values v), got sum {total!r}")
    # Masses below 1e-290 change nothing at double precision, and scipy's binom.pmf overflows near 1e-308.
    p = np.where(p < _FLUSH_BELOW, 0.0, p)
    if q is None:
        return p, None
    q = as_float_array(q, "q", 1)
    if q.shape != p.shape:
        raise ValueError(f"p and q must have the same length (one entry per value), got {p.size} and {q.size}")
    if np.any((q < 0) | (q > 1)):
        raise ValueError(f"q must lie in [0, 1] (q_v = Pr[Y=1 | X=v]); found {q[(q < 0) | (q > 1)][:3].tolist()}")
    return p, q


def check_sample_size(m) -> int:
    """The sample size ``m`` as an int of at least 1."""
    return check_whole_number(m, "the sample size m", 1)


def count_table(x, y, n_values: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``c_v`` and ``c_v^+`` of one feature coded ``0 .. n_values-1``.

    ``n_values`` is ``|V|`` (values never seen get ``c_v = 0``), by default ``max(x) + 1``.
    Returns two int arrays of shape ``(n_values,)``.
    """
    x, y = check_feature_labels(x, y)
    if x.dtype.kind not in "iu":
        raise ValueError(f"x must hold integer value codes 0..|V|-1, got dtype {x.dtype}")
    if np.any(x < 0):
        raise ValueError("x must hold integer value codes 0..|V|-1; found negative codes")
    n = int(x.max()) + 1 if n_values is None else int(n_values)
    if np.any(x >= n):
        raise ValueError(f"x holds the code {int(x.max())}, outside 0..n_values-1 = 0..{n - 1}")
    return np.bincount(x, minlength=n), np.bincount(x, weights=y, minlength=n).astype(np.int64)


def _encode_columns(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Check ``(X, y)`` and code each column's values as 0..width-1: ``(X, y, codes, widths)``."""
    y = check_labels(y, "y").astype(np.int64)
    X = as_kept_apart_table(X, "X")  # a list of rows of several types stays Python objects: 1 and '1' apart
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional (examples x features), got shape {X.shape}")
    if X.shape[0] != y.size:
        raise ValueError(f"X and y have different numbers of examples: {X.shape[0]} vs {y.size}")
    if X.shape[1] == 0:
        raise ValueError("X has no feature columns")
    if X.dtype.kind == "f":
        check_finite(X, "X")
    codes = np.empty(X.shape, dtype=np.int64)
    widths = np.empty(X.shape[1], dtype=np.int64)
    for j in range(X.shape[1]):
        uniques, codes[:, j] = factorize(X[:, j], f"column {j} of X", allow_none=True)
        widths[j] = uniques.size
    return X, y, codes, widths


def count_tables(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Counts of every column of a categorical table, zero-padded to ``(n_features, max_distinct_values)``.

    Values are any hashables, grouped by hashing; NaN, ``pd.NA``, unhashables and values of different
    types that are equal or print alike (``1``, ``1.0``, ``"1"``) are refused, never merged.
    """
    X, y, codes, widths = _encode_columns(X, y)
    width = int(widths.max())
    flat = (codes + np.arange(X.shape[1]) * width).ravel()
    size = X.shape[1] * width
    counts = np.bincount(flat, minlength=size).reshape(X.shape[1], width)
    positives = np.bincount(flat, weights=np.repeat(y, X.shape[1]), minlength=size)
    return counts, positives.reshape(X.shape[1], width).astype(np.int64)


def flat_counts(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Counts of every (feature, seen value) pair, unpadded: ``(counts, positives, feature_of_entry, n_features)``."""
    X, y, codes, widths = _encode_columns(X, y)
    offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
    flat = (codes + offsets).ravel()
    total = int(widths.sum())
    counts = np.bincount(flat, minlength=total)
    positives = np.bincount(flat, weights=np.repeat(y, X.shape[1]), minlength=total)
    return counts, positives, np.repeat(np.arange(X.shape[1]), widths), X.shape[1]


def sample_counts(p, q, m: int, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The counts of ``size`` training sets of ``m`` examples (section 2's multinomial-binomial model), (size, |V|)."""
    p, q = check_distribution(p, q)
    m = check_sample_size(m)
    counts = rng.multinomial(m, p / p.sum(), size=int(size))
    return counts, rng.binomial(counts, q)


def estimated_probabilities(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (1): ``p_hat_v = c_v / m`` and ``q_hat_v = c_v^+ / c_v`` (1/2 where ``c_v = 0``)."""
    c, cp = check_counts(counts, positive_counts)
    m = c.sum(axis=-1, keepdims=True)
    q_hat = np.divide(cp, c, out=np.full(c.shape, 0.5), where=c > 0)
    return c / m, q_hat
