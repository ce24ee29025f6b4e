"""THE JSON encoder of the library: numpy scalars and arrays to plain Python, one policy for NaN/inf.

Every JSON the library writes (experiment results, ``verify --json``, the feature builder's info)
goes through :func:`jsonable` or :func:`dumps`.

* numpy booleans, integers and floats become ``bool``, ``int`` and ``float``; arrays and tuples
  become lists; dictionary keys become strings.
* non-finite floats: ``nonfinite="keep"`` leaves them as floats (written as the tokens ``NaN`` /
  ``Infinity`` that Python's :mod:`json` reads back), ``nonfinite="string"`` writes ``"inf"``,
  ``"-inf"`` or ``"nan"`` (strict JSON, for files other programs read).
* a ``fractions.Fraction`` becomes ``"p/q"`` (an integer when q = 1): exact, never rounded.
* anything else raises ``TypeError`` naming its type (``unknown="raise"``) or is left out
  (``unknown="drop"``, for records of free-form metadata).
"""
from __future__ import annotations

import fractions
import json
import math
import pathlib
from typing import Any, Callable

import numpy as np

from ._io import atomic_write_text

__all__ = ["jsonable", "dumps", "write_json"]

_DROP = object()


def jsonable(value: Any, *, nonfinite: str = "keep", unknown: str = "raise",
             keep: Callable[[str, Any], bool] | None = None) -> Any:
    """``value`` as plain JSON types (dict, list, str, int, float, bool, None), recursively.

    Parameters
    ----------
    value : object
        Nested dicts, lists, tuples, numpy arrays and scalars, Python scalars.
    nonfinite : {"keep", "string"}
        What becomes of NaN and infinite floats (see the module docstring).
    unknown : {"raise", "drop"}
        A value of another type raises ``TypeError``, or is left out of its dict or list.
    keep : callable, optional
        ``keep(key, value)`` decides whether a dictionary entry is kept (at every depth).
    """
    if nonfinite not in ("keep", "string"):
        raise ValueError(f"nonfinite must be 'keep' or 'string', got {nonfinite!r}")
    if unknown not in ("raise", "drop"):
        raise ValueError(f"unknown must be 'raise' or 'drop', got {unknown!r}")
    out = _convert(value, nonfinite, unknown, keep)
    return None if out is _DROP else out


def _convert(value, nonfinite, unknown, keep):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if nonfinite == "keep" or math.isfinite(value) else str(value)
    if isinstance(value, fractions.Fraction):   # exact parameters (verify): "p/q", or the integer
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if keep is not None and not keep(str(k), v):
                continue
            item = _convert(v, nonfinite, unknown, keep)
            if item is not _DROP:
                out[str(k)] = item
        return out
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        items = [_convert(v, nonfinite, unknown, keep) for v in value]
        return [v for v in items if v is not _DROP]
    if unknown == "drop":
        return _DROP
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def dumps(value: Any, *, nonfinite: str = "keep", indent: int | None = None, **kwargs) -> str:
    """``json.dumps`` of :func:`jsonable` ``(value)``; further keywords go to :func:`json.dumps`."""
    return json.dumps(jsonable(value, nonfinite=nonfinite), indent=indent, **kwargs)


def write_json(path, value: Any, *, nonfinite: str = "keep", indent: int | None = 1, **kwargs) -> None:
    """Write :func:`dumps` ``(value)`` and a final newline to ``path``, atomically.

    The text is serialized first and then written to a temporary file renamed into place
    (:func:`tgreedy_lib._io.atomic_write_text`): a value that cannot be serialized leaves ``path``
    as it was, and a reader never sees half a file, even when the writer is killed.
    """
    atomic_write_text(pathlib.Path(path), dumps(value, nonfinite=nonfinite, indent=indent, **kwargs) + "\n")
