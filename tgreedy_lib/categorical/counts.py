"""Count tables of a categorical feature: ``c_v`` and ``c_v^+`` (section 2 of Sabato & Shalev-Shwartz 2008).

The input checks shared by the categorical modules, the count tables of one or many features,
sampled counts and the empirical ``p_hat_v, q_hat_v``.

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
"""
from __future__ import annotations

import numpy as np

from .._validation import (as_float_array, as_kept_apart_table, as_kept_apart_vector, check_finite, check_labels,
                           check_whole_number, factorize)


_SUM_TOLERANCE = 1e-9
_FLUSH_BELOW = 1e-290


# ----------------------------------------------------------------------------- input checks


def _check_labels(y, name: str = "y") -> np.ndarray:
    """``y`` as a 1-D int array of 0/1 labels; ValueError naming anything else."""
    return check_labels(y, name).astype(np.int64)


def _check_feature_labels(x, y) -> tuple[np.ndarray, np.ndarray]:
    """One feature's values ``x`` and the 0/1 labels ``y`` of the same examples, both 1-D."""
    y = _check_labels(y)
    x = as_kept_apart_vector(x, "x")  # a list of sets or tuples stays one value per example; 1 and '1' stay apart
    if x.ndim != 1:
        raise ValueError(f"x must be one-dimensional, got shape {x.shape}")
    if x.shape != y.shape:
        raise ValueError(f"x and y have different lengths: {x.size} vs {y.size}")
    return x, y


def _check_counts(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``c_v`` and ``c_v^+`` as int arrays of one shape with 0 <= c^+ <= c."""
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


def _check_distribution(p, q=None) -> tuple[np.ndarray, np.ndarray | None]:
    """``p`` a probability vector over V (sums to 1) and ``q`` in [0, 1] of the same length."""
    p = as_float_array(p, "p", 1)
    if p.size == 0:
        raise ValueError("p is empty: the feature needs at least one value")
    if np.any(p < 0):
        raise ValueError(f"p must be non-negative; found {p[p < 0][:3].tolist()}")
    total = float(p.sum())
    if abs(total - 1.0) > _SUM_TOLERANCE:
        raise ValueError(f"p must sum to 1 (it is a distribution over the values v), got sum {total!r}")
    # Masses below 1e-290 are flushed to 0 (they change nothing at double precision):
    # scipy's binom.pmf overflows for p near the smallest normal double (about 1e-308).
    p = np.where(p < _FLUSH_BELOW, 0.0, p)
    if q is None:
        return p, None
    q = as_float_array(q, "q", 1)
    if q.shape != p.shape:
        raise ValueError(f"p and q must have the same length (one entry per value), got {p.size} and {q.size}")
    if np.any((q < 0) | (q > 1)):
        raise ValueError(f"q must lie in [0, 1] (q_v = Pr[Y=1 | X=v]); found {q[(q < 0) | (q > 1)][:3].tolist()}")
    return p, q


def _check_sample_size(m) -> int:
    return check_whole_number(m, "the sample size m", 1)


# ----------------------------------------------------------------------------- counting


def count_table(x, y, n_values: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``c_v`` and ``c_v^+`` of one feature coded ``0 .. n_values-1`` (Sec. 2).

    Parameters
    ----------
    x : array of int, shape (m,)
        The feature's value for each example, coded ``0 .. n_values-1``.
    y : array of {0, 1}, shape (m,)
    n_values : int, optional
        ``|V|``; values never seen in the sample get ``c_v = 0``. Default ``max(x) + 1``.

    Returns
    -------
    counts, positive_counts : int arrays of shape (n_values,)

    See Also
    --------
    count_tables : Every column of a table at once.
    estimated_probabilities : ``p_hat_v`` and ``q_hat_v`` from the counts.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> from tgreedy_lib import categorical as cat
    >>> cat.count_table([0, 0, 1, 2, 2, 2], [1, 0, 1, 0, 0, 1])
    (array([2, 1, 3]), array([1, 1, 1]))
    """
    x, y = _check_feature_labels(x, y)
    if x.dtype.kind not in "iu":
        raise ValueError(f"x must hold integer value codes 0..|V|-1, got dtype {x.dtype}")
    if np.any(x < 0):
        raise ValueError("x must hold integer value codes 0..|V|-1; found negative codes")
    n = int(x.max()) + 1 if n_values is None else int(n_values)
    if np.any(x >= n):
        raise ValueError(f"x holds the code {int(x.max())}, outside 0..n_values-1 = 0..{n - 1}")
    return np.bincount(x, minlength=n), np.bincount(x, weights=y, minlength=n).astype(np.int64)


def _encode_columns(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate ``(X, y)`` and code each column's values as 0..width-1: ``(X, y, codes, widths)``."""
    y = _check_labels(y)
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
    """Counts of every column of a categorical table, padded to a common width.

    Each column may hold any hashable values (ints, strings, tuples, ``None``, mixed): equal
    values are grouped by hashing, never by sorting (:func:`tgreedy_lib._validation.factorize`),
    and all columns are counted in one :func:`numpy.bincount`. A set is one value, equal to
    any set of the same elements (it is read as a ``frozenset``); lists, dicts and arrays are
    refused with a ValueError (convert them to tuples or strings); NaN and ``pd.NA`` are refused
    (encode a missing value as a category of its own, e.g. ``"missing"``).

    Values of different types that Python merges (``1``, ``1.0`` and ``True`` are equal and hash
    alike) or that print alike (``1`` and ``"1"``, ``"a"`` and ``b"a"``) in one column are refused
    with a ValueError naming both (:func:`tgreedy_lib._validation.check_kept_apart`): a list is never
    converted to a string array that would make them one value. Values of one type are never refused.

    Parameters
    ----------
    X : array, shape (m, n_features)
    y : array of {0, 1}, shape (m,)

    Returns
    -------
    counts, positive_counts : int arrays of shape (n_features, max_distinct_values)
        Row ``j`` holds ``c_v`` and ``c_v^+`` for the values seen in column ``j``,
        zero-padded on the right (padding does not change any filter).

    See Also
    --------
    count_table : One feature.
    filter_scores : Scores every column with each filter.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> X = np.array([["a", "x"], ["b", "x"], ["a", "y"]])
    >>> cat.count_tables(X, [1, 0, 1])
    (array([[2, 1],
           [2, 1]]), array([[2, 0],
           [1, 1]]))
    """
    X, y, codes, widths = _encode_columns(X, y)
    width = int(widths.max())
    flat = (codes + np.arange(X.shape[1]) * width).ravel()
    size = X.shape[1] * width
    counts = np.bincount(flat, minlength=size).reshape(X.shape[1], width)
    positives = np.bincount(flat, weights=np.repeat(y, X.shape[1]), minlength=size)
    return counts, positives.reshape(X.shape[1], width).astype(np.int64)


def sample_counts(p, q, m: int, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``size`` training sets of ``m`` i.i.d. examples and return their counts.

    ``(c_v)_v ~ Multinomial(m, p)`` and ``c_v^+ | c_v ~ Binomial(c_v, q_v)`` — the
    sampling model of Sec. 2, without materializing the examples.

    Returns
    -------
    counts, positive_counts : int arrays of shape (size, |V|)

    See Also
    --------
    count_table : The counts of a given sample.
    tgreedy_lib.categorical.theory.count_probabilities : The exact law of the counts.

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts, positive = cat.sample_counts([0.5, 0.3, 0.2], [0.9, 0.5, 0.1], m=10, size=2,
    ...                                      rng=np.random.default_rng(0))
    >>> counts, positive
    (array([[6, 3, 1],
           [2, 8, 0]]), array([[5, 3, 0],
           [2, 4, 0]]))
    """
    p, q = _check_distribution(p, q)
    m = _check_sample_size(m)
    counts = rng.multinomial(m, p / p.sum(), size=int(size))
    positives = rng.binomial(counts, q)
    return counts, positives


# ----------------------------------------------------------------------------- filters


def estimated_probabilities(counts, positive_counts) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (1): ``p_hat_v = c_v / m`` and ``q_hat_v = c_v^+ / c_v`` (1/2 where ``c_v = 0``).

    See Also
    --------
    count_table : The counts.
    gini_hypothesis : ``q_hat_v`` as a hypothesis (Eq. 5).

    References
    ----------
    .. [1] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import categorical as cat
    >>> counts = np.array([3, 1, 0, 4])            # c_v: examples with X = v (m = 8)
    >>> positive_counts = np.array([2, 1, 0, 0])   # c_v^+: those of them labelled 1
    >>> cat.estimated_probabilities(counts, positive_counts)
    (array([0.375, 0.125, 0.   , 0.5  ]), array([0.66666667, 1.        , 0.5       , 0.        ]))
    """
    c, cp = _check_counts(counts, positive_counts)
    m = c.sum(axis=-1, keepdims=True)
    q_hat = np.divide(cp, c, out=np.full(c.shape, 0.5), where=c > 0)
    return c / m, q_hat


def _flat_counts(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Counts of every (feature, seen value) pair, flat: ``(counts, positives, feature_of_entry, n_features)``."""
    X, y, codes, widths = _encode_columns(X, y)
    offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
    flat = (codes + offsets).ravel()
    total = int(widths.sum())
    counts = np.bincount(flat, minlength=total)
    positives = np.bincount(flat, weights=np.repeat(y, X.shape[1]), minlength=total)
    return counts, positives, np.repeat(np.arange(X.shape[1]), widths), X.shape[1]
