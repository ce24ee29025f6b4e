"""Input checks shared by the library: each raises ValueError naming the problem."""
from __future__ import annotations

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


def check_binary_labels(y: np.ndarray, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Split binary labels into a boolean positive mask; accepts {0, 1}, {-1, 1} or booleans."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {y.shape}")
    if y.dtype.kind == "f":
        check_finite(y, name)
    values = np.unique(y)
    if values.size != 2:
        if values.size < 2:
            raise ValueError(
                f"{name} has only one class ({values.tolist()}); AUROC needs both positives and negatives"
            )
        raise ValueError(f"{name} must be binary, got {values.size} distinct values: {values[:5].tolist()}...")
    if y.dtype == bool:
        positive = y
    elif set(values.tolist()) <= {0, 1} or set(values.tolist()) <= {-1, 1}:
        positive = y == 1
    else:
        raise ValueError(f"{name} must take values in {{0, 1}} or {{-1, 1}}, got {values.tolist()}")
    return positive, ~positive
