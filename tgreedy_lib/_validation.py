"""THE input checks of the library: each raises ValueError naming the problem and the fix.

Finite float arrays (:func:`as_float_array`, :func:`check_finite`), whole numbers
(:func:`check_whole_number`), the confidence parameter (:func:`check_delta`), the number of domains
a T-statistic needs (:func:`check_domain_count`) and label vectors (:func:`check_labels`,
:func:`check_binary_labels`).
"""
from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


def as_float_array(value, name: str, ndim: int | tuple[int, ...], dtype=np.float64, *, check: bool = True) -> np.ndarray:
    """``value`` as a float array of the given number of dimensions, finite everywhere.

    ``check=False`` skips the finiteness scan, for callers that detect NaN and infinity more
    cheaply themselves (and then call :func:`check_finite` to name the entry).
    """
    arr = np.asarray(value, dtype=dtype)
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in allowed:
        raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimension(s), got shape {arr.shape}")
    if check:
        check_finite(arr, name)
    return arr


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
    """``value`` as an ``int`` of at least ``minimum``; ValueError naming ``name`` otherwise.

    Python and numpy integers are accepted, and floats with a whole value (``3.0``) unless
    ``integral_floats=False``; booleans never. ``reason`` is appended to the message.
    """
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
    """``n`` as an int of at least 2: a T-statistic's spread across domains has ``n - 1`` degrees of freedom."""
    whole = _whole(n, True)
    if whole is None or whole < 2:
        raise ValueError(
            f"T-statistics need at least two domains (n >= 2), got {name} = {n!r}: "
            "the spread across domains cannot be estimated from one; use two or more domains"
        )
    return whole


def check_labels(y, name: str = "y", *, signed: bool = False, both_classes: bool = False) -> np.ndarray:
    """Binary labels ``y`` as a boolean mask of the positives (``y == 1``).

    Accepts booleans and numbers in {0, 1}, or also in {-1, 1} with ``signed=True`` (never a mix
    of the two). ``both_classes=True`` refuses labels of one class only.
    """
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
        zero_one = (y == 0) | (y == 1)
        bad = ~zero_one
        if signed and not zero_one.all():
            bad = ~((y == -1) | (y == 1))
        if np.any(bad):
            raise ValueError(
                f"{name} must hold labels in {allowed}; found {np.unique(y[bad])[:5].tolist()} "
                f"(first at index {int(np.flatnonzero(bad)[0])})"
            )
        positive = y == 1
    if both_classes and (positive.all() or not positive.any()):
        raise ValueError(
            f"{name} has only one class ({np.unique(y).tolist()}); AUROC needs both positives and negatives"
        )
    return positive


def check_binary_labels(y: np.ndarray, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Split binary labels of both classes into positive and negative masks ({0, 1}, {-1, 1} or booleans)."""
    positive = check_labels(y, name, signed=True, both_classes=True)
    return positive, ~positive
