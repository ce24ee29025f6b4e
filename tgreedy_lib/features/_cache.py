"""The feature cache's entries on disk: written whole, recorded, checked when read, healed when damaged.

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) needs 2,000 learnt features of 20,000
images for every experiment; :func:`tgreedy_lib.features.load_features` learns them once per cache
key (:func:`tgreedy_lib.features.cache_key`) and stores them, with the learnt weights and the
linear probes of :mod:`tgreedy_lib.features.probe`, in the feature cache (``TGREEDY_CACHE_DIR``,
default ``~/.cache/tgreedy``, subfolder ``features/``). This module is the format of those files.
Arrays are stored with ``numpy.savez`` and read back with ``allow_pickle=False``: loading a cache
file never runs code. Probe reports are JSON.

The cache heals itself. Every entry records what it holds (each array's shape, dtype and SHA-256,
and the key) and is checked when read, against that record and against the data it was asked for
(the labels, the number of rows); a damaged entry (half-written, empty, a broken zip, a missing
array, another key, the wrong rows) is rebuilt with a :class:`CacheWarning` naming the file. An
entry written before the record existed is accepted when it loads completely and matches the data,
and is given its record in place (atomically). Files are written to a temporary file and renamed
into place, so a killed writer never leaves half an entry; its temporary files are removed by the
next call. A cache that cannot be written (read-only, full) costs only the recomputation, with one
warning.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import hashlib
import json
import pathlib
import struct
import warnings
import zipfile
import zlib

import numpy as np

from .. import _io, datasets

__all__ = ["CACHE_FORMAT", "CacheWarning"]


class CacheWarning(UserWarning):
    """A feature-cache entry was damaged or did not match its key and is rebuilt, or the cache cannot be written."""


#: Version of a cache entry's record (``cache_meta_json``); entries without one are checked by content.
CACHE_FORMAT = 2
_META = "cache_meta_json"
#: What reading a damaged ``.npz`` raises: a broken or truncated zip, a bad CRC, a broken ``.npy`` header.
_READ_ERRORS = (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile, zlib.error,
                struct.error)
#: Folders already warned about (one warning per folder and process).
_UNWRITABLE_WARNED: set = set()


class _DamagedEntry(Exception):
    """A cache file that cannot be used; the message says why."""


def _warn_unwritable(folder: pathlib.Path, error: OSError) -> None:
    folder = pathlib.Path(folder)
    if str(folder) in _UNWRITABLE_WARNED:
        return
    _UNWRITABLE_WARNED.add(str(folder))
    warnings.warn(f"the feature cache {folder} cannot be written ({error.strerror or error}): features and probes "
                  f"are computed but not stored; set {datasets.ENV_CACHE_DIR} to a writable folder to keep them",
                  CacheWarning, stacklevel=4)


def _warn_damaged(path: pathlib.Path, reason: str) -> None:
    warnings.warn(f"feature cache entry {path.name} (in {path.parent}) is damaged: {reason}; rebuilding it",
                  CacheWarning, stacklevel=4)


def _array_digest(array: np.ndarray) -> str:
    array = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(array.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def _entry_record(arrays: dict, key: str) -> dict:
    """What a cache file holds: the key, and each array's shape, dtype and SHA-256."""
    return {"format": CACHE_FORMAT, "key": key,
            "arrays": {name: {"shape": list(np.shape(a)), "dtype": np.asarray(a).dtype.str,
                              "sha256": _array_digest(np.asarray(a))} for name, a in arrays.items()}}


def _write_entry(path: pathlib.Path, arrays: dict, key: str, quiet: bool = False) -> bool:
    """Write ``arrays`` and their record to ``path`` atomically; False if the cache cannot be written (then one
    warning per folder, unless ``quiet``: giving an earlier entry its record is never needed)."""
    arrays = {name: np.asarray(a) for name, a in arrays.items()}
    payload = {**arrays, _META: np.asarray(json.dumps(_entry_record(arrays, key), sort_keys=True))}
    try:
        with _io.atomic_writer(path, "wb") as handle:
            np.savez(handle, **payload)
    except OSError as error:
        if not quiet:
            _warn_unwritable(path.parent, error)
        return False
    return True


def _read_entry(path: pathlib.Path, key: str) -> tuple[dict, bool]:
    """Every array of a cache file, checked against its record: ``(arrays, has_record)``.

    Raises :class:`_DamagedEntry` when the file cannot be read whole or disagrees with its record
    or with ``key``. A file without a record (written before records existed) comes back with
    ``has_record`` false, for the caller to check by content.
    """
    try:
        if path.stat().st_size == 0:
            raise _DamagedEntry("it is empty")
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except _READ_ERRORS as error:
        raise _DamagedEntry(f"it cannot be read whole ({type(error).__name__}: {error})") from None
    text = arrays.pop(_META, None)
    if text is None:
        return arrays, False
    try:
        record = json.loads(str(text))
        described, recorded_key = record["arrays"], record["key"]
        if not (isinstance(described, dict) and all(isinstance(v, dict) for v in described.values())):
            raise TypeError
    except (ValueError, TypeError, KeyError):
        raise _DamagedEntry("its record (cache_meta_json) is unreadable") from None
    if recorded_key != key:
        raise _DamagedEntry(f"it records the key {str(recorded_key)[:16]}..., not {key[:16]}...")
    for name, expected in described.items():
        if name not in arrays:
            raise _DamagedEntry(f"the array {name!r} it records is missing")
        array = arrays[name]
        if list(array.shape) != expected.get("shape") or array.dtype.str != expected.get("dtype"):
            raise _DamagedEntry(f"the array {name!r} has shape {array.shape} and dtype {array.dtype.str}, "
                                f"its record says {tuple(expected.get('shape') or ())} and {expected.get('dtype')}")
        if _array_digest(array) != expected.get("sha256"):
            raise _DamagedEntry(f"the array {name!r} does not match its recorded SHA-256")
    return arrays, True


def _write_json_atomic(path: pathlib.Path, payload: dict) -> bool:
    """Write a JSON cache file atomically; False (after one warning) if the cache cannot be written."""
    try:
        _io.atomic_write_text(path, json.dumps(payload, indent=2, sort_keys=True) + "\n")
    except OSError as error:
        _warn_unwritable(path.parent, error)
        return False
    return True


def _report_problem(report, fields: dict) -> str | None:
    """Why a cached JSON report cannot be used (not an object, a field missing or of the wrong type); None if it can."""
    if not isinstance(report, dict):
        return f"it holds a JSON {type(report).__name__}, not an object"
    for name, kind in fields.items():
        value = report.get(name)
        if isinstance(kind, dict):
            problem = _report_problem(value, kind)
            if problem is not None:
                return f"{name}: {problem}"
            continue
        numeric = kind in (float, int) and isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (numeric and (kind is float or float(value).is_integer())) and not (kind is list and isinstance(value, list)):
            return f"its {name!r} is {'missing' if name not in report else repr(value)[:40]}"
    return None


def _cached_report(path, is_current, compute, *, fields: dict, rebuild: bool = False) -> dict:
    """``compute()``'s JSON report, read back from ``path`` when ``is_current(report)``, else computed and stored.

    A missing or stale file (another key or settings) is recomputed; a damaged one (not JSON, not
    an object, a field of ``fields`` missing or of the wrong type) too, with a :class:`CacheWarning`
    naming it. A cache that cannot be written (read-only) only costs the recomputation (one
    warning). ``path=None`` computes without caching.
    """
    if path is not None:
        _io.remove_leftovers(path.parent, earlier=True)
    if path is not None and not rebuild and path.is_file():
        try:
            report = json.loads(path.read_text())
            problem = _report_problem(report, fields)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            report, problem = None, f"it is not readable JSON ({error})"
        if problem is None and is_current(report):
            return report
        if problem is not None:
            _warn_damaged(path, problem)
    report = compute()
    if path is not None:
        _write_json_atomic(path, report)
    return report
