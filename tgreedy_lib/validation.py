"""The library's input checks, used once, at its public boundary (the estimators and public functions).

Each checker takes a value and ``name``, the name the user knows it by, and returns the value converted
(a float64 array, an int, a mask); a bad value raises ValueError naming the problem and the fix.
Internals trust what these return.
"""
from __future__ import annotations

import math
import warnings
from numbers import Complex, Integral, Real

import numpy as np


def as_float_array(value, name: str, ndim: int | tuple[int, ...]) -> np.ndarray:
    """``value`` as a finite float64 array of ``ndim`` dimensions."""
    arr = as_real_array(value, name)
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in allowed:
        raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimension(s), got shape {arr.shape}")
    check_finite(arr, name)
    return arr


def _complex_error(name: str, dtype) -> ValueError:
    return ValueError(f"{name} holds complex numbers (dtype {dtype}), but only real values have the moments "
                      f"of section 2; pass {name}.real or abs({name}) if that is what it means")


def as_real_array(value, name: str) -> np.ndarray:
    """``value`` as a float64 array, refusing complex numbers instead of dropping their imaginary part."""
    if isinstance(value, np.ndarray) and value.dtype.kind != "c":
        return np.asarray(value, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        try:
            return np.asarray(value, dtype=np.float64)
        except np.exceptions.ComplexWarning:
            pass
        except TypeError:  # a list of Python complex numbers, or an object array holding some
            if not _holds_complex(value):
                raise
    kind = getattr(value, "dtype", None)
    raise _complex_error(name, np.asarray(value).dtype if kind is None else kind) from None


def _holds_complex(value) -> bool:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return arr.dtype.kind == "c" or (arr.dtype == object and any(isinstance(v, (complex, np.complexfloating))
                                                                  for v in arr.ravel().tolist()))


def check_finite(arr: np.ndarray, name: str) -> None:
    """Raise ValueError naming the first NaN or infinite entry of ``arr``."""
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        where = ", ".join(map(str, bad)) if arr.ndim else ""
        kind = "NaN" if np.isnan(arr[tuple(bad)]) else "an infinite value"
        raise ValueError(f"{name} contains {kind} (first at index [{where}]); remove or impute it first")


def _whole(value, integral_floats: bool) -> int | None:
    """``value`` as an int if it is a whole number (never a boolean), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (Integral, np.integer)):
        return int(value)
    if integral_floats and isinstance(value, (Real, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    return None


def check_whole_number(value, name: str, minimum: int = 1, *, integral_floats: bool = True, reason: str = "") -> int:
    """``value`` as an int of at least ``minimum`` (``3.0`` too, unless ``integral_floats=False``; never a bool)."""
    whole = _whole(value, integral_floats)
    if whole is None or whole < minimum:
        rule = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer of at least {minimum}")
        raise ValueError(f"{name} must be {rule}{reason}, got {value!r}")
    return whole


def check_delta(delta) -> float:
    """The confidence parameter ``delta`` as a float in (0, 1)."""
    try:
        value = float(delta)
    except (TypeError, ValueError):
        value = math.nan
    if not 0.0 < value < 1.0:
        raise ValueError(f"the confidence parameter delta must lie in (0, 1), got {delta!r}")
    return value


def check_domain_count(n, name: str = "n") -> int:
    """``n`` as an int of at least 2: a spread across domains has ``n - 1`` degrees of freedom."""
    whole = _whole(n, True)
    if whole is None or whole < 2:
        raise ValueError(f"T-statistics need at least two domains (n >= 2), got {name} = {n!r}: "
                         "the spread across domains cannot be estimated from one; use two or more domains")
    return whole


def check_labels(y, name: str = "y", *, signed: bool = False, both_classes: bool = False) -> np.ndarray:
    """Binary labels ``y`` (booleans, {0, 1}, or {-1, 1} with ``signed``) as a mask of the positives."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {y.shape}")
    if y.size == 0:
        raise ValueError(f"{name} is empty: the sample needs at least one example (m >= 1)")
    allowed = "{0, 1} or {-1, 1}" if signed else "{0, 1}"
    if y.dtype == bool:
        positive = y
    else:
        if y.dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold labels in {allowed}, got dtype {y.dtype}")
        if y.dtype.kind == "f":
            check_finite(y, name)
        bad = ~((y == 0) | (y == 1))
        if signed and bad.any():
            bad = ~((y == -1) | (y == 1))
        if np.any(bad):
            raise ValueError(f"{name} must hold labels in {allowed}; found {np.unique(y[bad])[:5].tolist()} "
                             f"(first at index {int(np.flatnonzero(bad)[0])})")
        positive = y == 1
    if both_classes and (positive.all() or not positive.any()):
        raise ValueError(f"{name} has only one class ({np.unique(y).tolist()}); AUROC needs both positives and "
                         "negatives")
    return positive


def is_sparse(value) -> bool:
    """Whether ``value`` is a scipy.sparse matrix or array (without importing scipy when it is not)."""
    if not (type(value).__module__ or "").startswith("scipy.sparse"):
        return False
    import scipy.sparse

    return scipy.sparse.issparse(value)


def as_data_matrix(X, name: str):
    """``X`` (array-like, DataFrame or scipy.sparse) as a 2-D float64 ndarray, or CSR/CSC (never densified); NaN
    and infinity of dense ``X`` are left to the caller (cheaper found in its moments, then :func:`check_finite`)."""
    if is_sparse(X):
        import scipy.sparse

        if X.dtype.kind == "c":
            raise _complex_error(name, X.dtype)
        X = scipy.sparse.csc_matrix(X) if X.format == "csc" else scipy.sparse.csr_matrix(X)
        if X.ndim != 2:
            raise ValueError(f"{name} must have 2 dimension(s), got shape {X.shape}")
        _check_has_columns(X, name)
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        if not np.all(np.isfinite(X.data)):
            check_finite(X.data, f"{name} (its stored entries)")
        return X
    try:
        arr = as_real_array(X, name)
    except (TypeError, ValueError) as error:
        if isinstance(error, ValueError) and "complex" in str(error):
            raise
        raise ValueError(f"{name} has entries that are not numbers{_first_bad_column(X)} ({error}); "
                         "missing values (pd.NA, None) must be imputed or their rows dropped, "
                         "categorical columns encoded (e.g. one-hot) first") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must have 2 dimension(s), got shape {arr.shape}")
    _check_has_columns(arr, name)
    return arr


def _check_has_columns(X, name: str) -> None:
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no columns (shape {X.shape}): there is no feature to select from; pass a "
                         "matrix with one column per feature")


def _first_bad_column(X) -> str:
    """`` (first ... in column 'c' ...)`` for a DataFrame whose column ``c`` is missing or not numeric, else ""."""
    if getattr(X, "isna", None) is None or getattr(X, "columns", None) is None:
        return ""
    try:
        missing = np.asarray(X.isna())
        for j, column in enumerate(X.columns):
            rows = np.flatnonzero(missing[:, j])
            if rows.size:
                return f" (first missing value in column {column!r}, row {int(rows[0])})"
            try:
                np.asarray(X.iloc[:, j], dtype=np.float64)
            except (TypeError, ValueError):
                return f" (column {column!r} is not numeric)"
    except Exception:  # only for the message: never hide the original problem behind another
        return ""
    return ""


def column_names(X) -> list | None:
    """The column names of a pandas DataFrame as a list; ``None`` for anything else."""
    if isinstance(X, np.ndarray) or is_sparse(X):
        return None
    columns = getattr(X, "columns", None)
    return None if columns is None else list(columns)


def align_columns(X, reference: list | None, name: str, reference_name: str):
    """``X`` with its columns in the order of ``reference`` when both are named (else matched by position)."""
    columns = column_names(X)
    if columns is None or reference is None or columns == reference:
        return X
    unique = len(set(columns)) == len(columns) and len(set(reference)) == len(reference)
    if unique and set(columns) == set(reference):
        return X[reference]
    missing = [c for c in reference if c not in columns]
    unexpected = [c for c in columns if c not in reference]
    detail = (f"missing {missing[:5]}, unexpected {unexpected[:5]}" if missing or unexpected
              else "duplicate names cannot be matched")
    raise ValueError(f"{name} has columns {columns[:5]}{'...' if len(columns) > 5 else ''} that are not those of "
                     f"{reference_name} ({detail}); give every part the same named columns (they are matched by "
                     "name, in any order), or pass arrays to match columns by position")


def _is_missing(value) -> bool:
    """Whether one value is a missing-value marker: None, NaN (float or numpy), pandas.NA or NaT."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return type(value).__name__ in ("NAType", "NaTType") or (isinstance(value, np.datetime64) and np.isnat(value))


def factorize(values, name: str, *, allow_none: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(uniques, codes)`` with ``values[i] == uniques[codes[i]]`` (sets by content), ``uniques`` sorted where they
    can be; unhashable and missing values (NaN, ``pandas.NA``, NaT; ``None`` unless ``allow_none``) are refused."""
    arr = np.asarray(values) if not isinstance(values, (list, tuple)) else _object_vector(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a one-dimensional vector, got shape {arr.shape}")
    if arr.dtype.kind in "fc" and np.any(np.isnan(arr)):
        raise ValueError(f"{name} contains NaN (first at index {int(np.flatnonzero(np.isnan(arr))[0])}); a missing "
                         "label cannot name a group: drop those rows or give them a label of their own")
    if arr.dtype.kind == "M" and np.any(np.isnat(arr)):
        raise ValueError(f"{name} contains NaT (first at index {int(np.flatnonzero(np.isnat(arr))[0])})")
    if arr.dtype.kind in "biuUSfcM":
        return np.unique(arr, return_inverse=True)
    index: dict = {}
    codes = np.empty(arr.size, dtype=np.intp)
    for i, value in enumerate(arr.tolist() if arr.dtype != object else arr):
        if isinstance(value, (set, frozenset)):
            value = frozenset(value)
        elif (value is not None or not allow_none) and _is_missing(value):
            what = "None" if value is None else repr(value)
            raise ValueError(f"{name} contains the missing value {what} at index {i}; a missing label cannot "
                             "name a group: drop those rows or give them a label of their own (e.g. 'unknown')")
        try:
            codes[i] = index.setdefault(value, len(index))
        except TypeError:
            raise ValueError(f"{name} holds an unhashable value of type {type(value).__name__} at index {i}; values "
                             "are grouped by equality, so they must be hashable: convert lists and arrays to tuples, "
                             "dicts to tuple(sorted(d.items())) or to strings") from None
    uniques = np.empty(len(index), dtype=object)
    uniques[:] = list(index)
    try:
        order = sorted(range(len(index)), key=lambda j: uniques[j])
    except TypeError:  # mixed types: keep the order of first appearance
        return uniques, codes
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return uniques[order], rank[codes]


def as_value_vector(values) -> np.ndarray:
    """A 1-D vector of values (lists of sequences or sets become object arrays, not nested ones)."""
    if not isinstance(values, (list, tuple)):
        return np.asarray(values)
    try:
        arr = np.asarray(values)
    except ValueError:  # ragged sequences
        return _object_vector(values)
    return arr if arr.ndim == 1 else _object_vector(values)


def _object_vector(values) -> np.ndarray:
    """A list as a 1-D object array, even when its items are sequences (np.asarray would nest them)."""
    return np.fromiter(values, dtype=object, count=len(values))


def _constraint_noun(constraint) -> str:
    """What one scikit-learn constraint asks for: "a number in (0, 1)", "one of ['a', 'b']"."""
    from sklearn.utils._param_validation import Interval, StrOptions, _Booleans, _InstancesOf

    if isinstance(constraint, Interval):
        low = "-inf" if constraint.left is None else f"{constraint.left:g}"
        high = "inf" if constraint.right is None else f"{constraint.right:g}"
        left = "[" if constraint.closed in ("left", "both") and constraint.left is not None else "("
        right = "]" if constraint.closed in ("right", "both") and constraint.right is not None else ")"
        return f"{'an integer' if constraint.type is Integral else 'a number'} in {left}{low}, {high}{right}"
    if isinstance(constraint, StrOptions):
        return f"one of {sorted(constraint.options - constraint.deprecated)}"
    if isinstance(constraint, _InstancesOf):
        return f"a {constraint.type.__name__}"
    return "True or False" if isinstance(constraint, _Booleans) else str(constraint)


def check_options(constraints: dict, values: dict, caller: str) -> None:
    """Check ``values`` against scikit-learn ``_parameter_constraints``; an InvalidParameterError (a ValueError)
    names the first bad option, what it must be and what it got: "alpha must lie in (0, 1), got [0.1] (caller)"."""
    from sklearn.utils._param_validation import Interval, InvalidParameterError, make_constraint

    for name, value in values.items():
        if name not in constraints:
            continue
        allowed = [make_constraint(c) for c in constraints[name]]
        if any(c.is_satisfied_by(value) for c in allowed):
            continue
        shown = [c for c in allowed if not getattr(c, "hidden", False)]
        if len(shown) == 1 and isinstance(shown[0], Interval) and shown[0].type is not Integral:
            phrase = "lie in " + _constraint_noun(shown[0]).split(" in ", 1)[1]
        else:
            nouns = [_constraint_noun(c) for c in shown]
            phrase = "be " + (nouns[0] if len(nouns) == 1 else ", ".join(nouns[:-1]) + " or " + nouns[-1])
        text = repr(value)
        raise InvalidParameterError(f"{name} must {phrase}, got {text if len(text) <= 60 else text[:57] + '...'} "
                                    f"({caller})")


def validate_options(constraints: dict):
    """Decorate a public function so that its arguments are checked against ``constraints`` (:func:`check_options`)."""
    import functools
    import inspect

    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"constraints for {sorted(unknown)}, which {func.__name__} does not take")

        @functools.wraps(func)
        def checked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            check_options(constraints, bound.arguments, func.__name__)
            return func(*args, **kwargs)

        return checked

    return decorate


_KINDS = (("bool", (bool, np.bool_)), ("int", Integral), ("float", Real), ("complex", Complex), ("str", str),
          ("bytes", (bytes, bytearray)))


def _value_kind(value):
    """The kind of a value for :func:`_check_kept_apart` (numpy and Python scalars of one kind agree)."""
    kind = next((kind for kind, types in _KINDS if isinstance(value, types)), None)
    if kind is not None:
        return kind
    if isinstance(value, tuple):
        return ("tuple",) + tuple(_value_kind(item) for item in value)
    if isinstance(value, (set, frozenset)):
        return ("set",) + tuple(sorted({repr(_value_kind(item)) for item in value}))
    return type(value).__name__


def _check_kept_apart(values, name: str) -> None:
    """Refuse values of different kinds that Python merges (``1``, ``1.0``, ``True``) or that print alike."""
    by_value: dict = {}
    by_text: dict = {}
    seen: set = set()
    for value in values:
        if isinstance(value, set):
            value = frozenset(value)
        kind = _value_kind(value)
        try:
            if (kind, value) in seen:
                continue
            seen.add((kind, value))
        except TypeError:
            continue  # unhashable: factorize names it
        if value is not None and _is_missing(value):
            continue
        text = value.decode("utf-8", "backslashreplace") if isinstance(value, (bytes, bytearray)) else str(value)
        for table, key, how in ((by_value, value, "are equal in Python (a count would merge them)"),
                                (by_text, text, "print alike (a table could not tell them apart)")):
            other = table.setdefault(key, (kind, value))
            if other[0] != kind:
                raise ValueError(f"{name} holds {other[1]!r} ({type(other[1]).__name__}) and {value!r} "
                                 f"({type(value).__name__}), which {how} but differ in type: convert {name} to "
                                 "one type (e.g. all strings) so that they are one value, or rename one so that "
                                 "they are two")


def as_kept_apart_vector(values, name: str) -> np.ndarray:
    """:func:`as_value_vector`, a list of several types kept as objects, none merged or printing alike."""
    if isinstance(values, (list, tuple)) and len({type(value) for value in values}) > 1:
        arr = _object_vector(values)
    else:
        arr = as_value_vector(values)
    if arr.dtype == object and arr.ndim == 1:
        _check_kept_apart(arr, name)
    return arr


def as_kept_apart_table(X, name: str = "X") -> np.ndarray:
    """A 2-D table of values, a nested list of several types kept as objects, each object column checked."""
    if isinstance(X, (list, tuple)) and len({type(value) for row in X
                                             for value in (row if isinstance(row, (list, tuple)) else [row])}) > 1:
        widths = {len(row) if isinstance(row, (list, tuple)) else -1 for row in X}
        if len(widths) == 1 and -1 not in widths:
            arr = np.stack([_object_vector(row) for row in X])
        else:
            arr = np.asarray(X, dtype=object)
    else:
        arr = np.asarray(X)
    if arr.dtype == object and arr.ndim == 2:
        for j in range(arr.shape[1]):
            _check_kept_apart(arr[:, j], f"column {j} of {name}")
    return arr
