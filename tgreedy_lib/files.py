"""The library's file writing: every file whole or not at all, and one JSON encoder.

* :func:`atomic_writer` writes to a temporary file beside the target, flushes it to disk and renames
  it into place (``os.replace``): a reader sees the old file or the new one, never half of one. The
  temporary file is named ``<target>.<pid>@<host>.<token>.tmp``, so :func:`remove_leftovers` can tell
  the leftover of a killed writer (its process is gone, or it is :data:`STALE_SECONDS` old) from a
  file another process is writing now.
* :func:`jsonable` turns numpy scalars and arrays into plain Python (a ``Fraction`` into ``"p/q"``);
  non-finite floats stay floats (``nonfinite="keep"``) or become ``"inf"``, ``"-inf"``, ``"nan"``
  (``"string"``, strict JSON). :func:`write_json` writes it atomically.
"""
from __future__ import annotations

import contextlib
import fractions
import json
import math
import os
import pathlib
import re
import secrets
import socket
import stat
import time
from typing import Any, Callable

import numpy as np

__all__ = ["STALE_SECONDS", "atomic_write_bytes", "atomic_write_text", "atomic_writer", "jsonable",
           "remove_leftovers", "write_json"]

#: A temporary file untouched this long belongs to no live writer.
STALE_SECONDS = 3600.0
_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
_TEMPORARY = re.compile(r"^(?P<target>.+)\.(?P<pid>\d+)@(?P<host>[A-Za-z0-9-]+)\.[A-Za-z0-9_-]+\.tmp$")


@contextlib.contextmanager
def atomic_writer(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """A file object on a temporary file that replaces ``path`` when the block ends without an exception.

    The parent folder is created if missing; a replaced file keeps its permission bits. On an
    exception ``path`` is untouched and the temporary file removed.
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}@{_HOST}.{secrets.token_hex(4)}.tmp")
    binary = "b" in mode
    try:
        with open(tmp, "x" + mode.replace("w", "").replace("x", ""),
                  **({} if binary else {"encoding": encoding, "newline": newline})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_writer(path, "w", encoding=encoding) as handle:
        handle.write(text)


def atomic_write_bytes(path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_leftovers(folder, now: float | None = None) -> list[pathlib.Path]:
    """Remove the temporary files of killed writers from ``folder`` (their process gone, or stale); return them."""
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(pathlib.Path(folder).iterdir())
    except OSError:
        return removed
    for entry in entries:
        ours = _TEMPORARY.match(entry.name)
        if not ours:
            continue
        try:
            dead = ours["host"] == _HOST and not _alive(int(ours["pid"]))
            if (dead or now - entry.stat().st_mtime > STALE_SECONDS) and entry.is_file():
                entry.unlink()
                removed.append(entry)
        except OSError:
            continue
    return removed


_DROP = object()


def jsonable(value: Any, *, nonfinite: str = "keep", unknown: str = "raise",
             keep: Callable[[str, Any], bool] | None = None) -> Any:
    """``value`` as plain JSON types, recursively.

    ``nonfinite`` is ``"keep"`` or ``"string"`` (see above); a value of another type raises
    ``TypeError`` (``unknown="raise"``) or is left out (``"drop"``); ``keep(key, value)`` decides
    whether a dictionary entry is kept, at every depth.
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
    if isinstance(value, fractions.Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, dict):
        items = ((str(k), _convert(v, nonfinite, unknown, keep)) for k, v in value.items()
                 if keep is None or keep(str(k), v))
        return {k: v for k, v in items if v is not _DROP}
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [v for v in (_convert(v, nonfinite, unknown, keep) for v in value) if v is not _DROP]
    if unknown == "drop":
        return _DROP
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def write_json(path, value: Any, *, nonfinite: str = "keep", indent: int | None = 1, **kwargs) -> None:
    """Write :func:`jsonable` ``(value)`` as JSON and a final newline to ``path``, atomically.

    The text is serialized first: a value that cannot be serialized leaves ``path`` as it was.
    Further keywords go to :func:`json.dumps`.
    """
    text = json.dumps(jsonable(value, nonfinite=nonfinite), indent=indent, **kwargs)
    atomic_write_text(pathlib.Path(path), text + "\n")
