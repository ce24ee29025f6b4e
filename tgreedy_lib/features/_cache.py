"""The feature cache's entries: written whole, recorded, checked when read, rebuilt when damaged.

An entry of a cache key is two ``.npz`` files in ``<cache>/features/`` (the features with their
labels and info; the learnt weights), each recording the key and every array's SHA-256 in
``cache_meta_json``, written atomically and read with ``allow_pickle=False``. A damaged entry is
rebuilt with a :class:`CacheWarning` naming the file; a cache that cannot be written costs only the
recomputation, with one warning. The probes' JSON reports are cached beside it (:func:`cached_report`).
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

from .. import datasets
from ..files import atomic_write_text, atomic_writer, remove_leftovers
from ._feature_set import FeatureSet
from .dbn import DeepBeliefNetwork, Whitening, default_device
from .patches import PatchFeatureConfig, PatchFeatureModel

__all__ = ["CacheWarning"]

_META = "cache_meta_json"
#: What reading a damaged ``.npz`` raises: a broken or truncated zip, a bad CRC, a broken ``.npy`` header.
_READ_ERRORS = (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile, zlib.error,
                struct.error)
_FEATURE_ARRAYS = ("train_features", "train_labels", "test_features", "test_labels")
#: Folders already warned about (one warning per folder and process).
_UNWRITABLE_WARNED: set = set()


class CacheWarning(UserWarning):
    """A feature-cache entry was damaged or did not match its key and is rebuilt, or the cache cannot be written."""


class DamagedEntry(Exception):
    """A cache file that cannot be used; the message says why."""


def warn_unwritable(folder: pathlib.Path, error: OSError) -> None:
    if str(folder) not in _UNWRITABLE_WARNED:
        _UNWRITABLE_WARNED.add(str(folder))
        warnings.warn(f"the feature cache {folder} cannot be written ({error.strerror or error}): features and probes "
                      f"are computed but not stored; set {datasets.ENV_CACHE_DIR} to a writable folder to keep them",
                      CacheWarning, stacklevel=4)


def warn_damaged(path: pathlib.Path, reason: str) -> None:
    warnings.warn(f"feature cache entry {path.name} (in {path.parent}) is damaged: {reason}; rebuilding it",
                  CacheWarning, stacklevel=4)


def array_digest(*arrays, prefix: bytes = b"") -> str:
    """SHA-256 of ``prefix``, then each array's dtype, shape and bytes."""
    digest = hashlib.sha256(prefix)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def write_entry(path: pathlib.Path, arrays: dict, key: str) -> bool:
    """Write ``arrays`` and their record to ``path`` atomically; False (one warning a folder) if the cache cannot be written."""
    arrays = {name: np.asarray(a) for name, a in arrays.items()}
    record = {"format": 2, "key": key,
              "arrays": {name: {"shape": list(a.shape), "dtype": a.dtype.str, "sha256": array_digest(a)}
                         for name, a in arrays.items()}}
    try:
        with atomic_writer(path, "wb") as handle:
            np.savez(handle, **arrays, **{_META: np.asarray(json.dumps(record, sort_keys=True))})
    except OSError as error:
        warn_unwritable(path.parent, error)
        return False
    return True


def read_entry(path: pathlib.Path, key: str) -> dict:
    """Every array of a cache file, checked against its record and ``key`` (:class:`DamagedEntry` if they disagree)."""
    try:
        if path.stat().st_size == 0:
            raise DamagedEntry("it is empty")
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except _READ_ERRORS as error:
        raise DamagedEntry(f"it cannot be read whole ({type(error).__name__}: {error})") from None
    text = arrays.pop(_META, None)
    if text is None:
        raise DamagedEntry(f"it has no record ({_META})")
    try:
        record = json.loads(str(text))
        described, recorded_key = record["arrays"], record["key"]
        if not (isinstance(described, dict) and all(isinstance(v, dict) for v in described.values())):
            raise TypeError
    except (ValueError, TypeError, KeyError):
        raise DamagedEntry(f"its record ({_META}) is unreadable") from None
    if recorded_key != key:
        raise DamagedEntry(f"it records the key {str(recorded_key)[:16]}..., not {key[:16]}...")
    for name, expected in described.items():
        if name not in arrays:
            raise DamagedEntry(f"the array {name!r} it records is missing")
        if array_digest(arrays[name]) != expected.get("sha256"):  # the digest covers the shape and the dtype
            raise DamagedEntry(f"the array {name!r} does not match its recorded SHA-256")
    return arrays


def write_feature_entry(paths: dict, weights: dict, feature_set: FeatureSet) -> None:
    """The weights, then the features (a writer killed between them leaves an entry the next call rebuilds)."""
    key = feature_set.info["cache_key"]
    info = {k: v for k, v in feature_set.info.items() if k != "from_cache"}
    if write_entry(paths["weights"], weights, key):
        write_entry(paths["features"], {
            "train_features": feature_set.train_features.astype(np.float32),
            "train_labels": feature_set.train_labels.astype(np.int64),
            "test_features": feature_set.test_features.astype(np.float32),
            "test_labels": feature_set.test_labels.astype(np.int64),
            "info_json": np.asarray(json.dumps(info, sort_keys=True))}, key)


def read_feature_entry(paths: dict, key: str, data: datasets.ImageDataset, config) -> FeatureSet | None:
    """The cached FeatureSet of ``key`` with the images of ``data``; None if absent or damaged (with a warning)."""
    present = {name: paths[name].is_file() for name in ("features", "weights")}
    if not any(present.values()):
        return None
    current = "features"
    try:
        if not all(present.values()):
            missing = "features" if not present["features"] else "weights"
            raise DamagedEntry(f"its {missing} file {paths[missing].name} is missing (an interrupted build)")
        info, arrays = _check_features(read_entry(paths["features"], key), key, data)
        current = "weights"
        feature_set = _rebuild_learner(paths, info, arrays, read_entry(paths["weights"], key), config)
    except DamagedEntry as error:
        warn_damaged(paths[current], str(error))
        return None
    feature_set.train_images, feature_set.test_images = data.train_images, data.test_images
    return feature_set


def _check_features(stored: dict, key: str, data: datasets.ImageDataset) -> tuple[dict, dict]:
    """``(info, arrays)`` of a features file, or :class:`DamagedEntry` saying what does not match ``data``."""
    missing = [name for name in (*_FEATURE_ARRAYS, "info_json") if name not in stored]
    if missing:
        raise DamagedEntry(f"it has no {', '.join(missing)}")
    try:
        info = json.loads(str(stored["info_json"]))
    except ValueError:
        raise DamagedEntry("its info_json is not JSON") from None
    if not isinstance(info, dict) or info.get("cache_key") != key:
        found = info.get("cache_key") if isinstance(info, dict) else None
        raise DamagedEntry(f"it holds the features of another key ({str(found)[:16]}...)")
    arrays = {name: stored[name] for name in _FEATURE_ARRAYS}
    width = None
    for part, images, labels in (("train", data.train_images, data.train_labels),
                                 ("test", data.test_images, data.test_labels)):
        features, stored_labels = arrays[f"{part}_features"], arrays[f"{part}_labels"]
        if features.ndim != 2 or features.dtype != np.float32:
            raise DamagedEntry(f"{part}_features are {features.dtype} of shape {features.shape}, not float32 rows")
        if features.shape[0] != len(images):
            raise DamagedEntry(f"{part}_features have {features.shape[0]} rows for {len(images)} {part} images")
        if width is not None and features.shape[1] != width:
            raise DamagedEntry(f"train and test features differ in width ({width} and {features.shape[1]})")
        width = features.shape[1]
        if stored_labels.dtype != np.int64 or not np.array_equal(stored_labels, labels):
            raise DamagedEntry(f"its {part}_labels are not the labels of the {part} images")
        if not np.all(np.isfinite(features)):
            raise DamagedEntry(f"{part}_features hold NaN or infinite values")
    return info, arrays


def _rebuild_learner(paths: dict, info: dict, arrays: dict, weights: dict, config) -> FeatureSet:
    """The FeatureSet of checked arrays with its learner rebuilt from ``weights`` (:class:`DamagedEntry` if it cannot be)."""
    width = arrays["train_features"].shape[1]
    learner: dict = {}
    try:
        if info.get("kind") == "patches":
            model = PatchFeatureModel.from_state_arrays(weights, PatchFeatureConfig.from_dict(info["config"]))
            d = model.whitening_projection.shape[0]
            if (model.n_features != width or model.weights.shape[0] != d or model.whitening_mean.shape != (d,)
                    or model.bias.shape != (model.weights.shape[1],)):
                raise DamagedEntry(f"its dictionary ({model.weights.shape}) does not fit its whitening ({d}) "
                                   f"or the features' width {width}")
            learner["patch_model"] = model
        else:
            dbn = DeepBeliefNetwork.from_state_arrays(weights, device=default_device())
            learner["dbn"] = dbn
            if getattr(config, "whitening_components", None) is not None or "whitening_mean" in weights:
                settings = info["config"]
                whitening = Whitening(settings["whitening_components"], settings["whitening_epsilon"])
                whitening.mean, whitening.projection = weights["whitening_mean"], weights["whitening_projection"]
                learner["whitening"] = whitening
    except (KeyError, ValueError, TypeError, IndexError, RuntimeError) as error:
        raise DamagedEntry(f"its weights cannot rebuild the feature learner ({type(error).__name__}: {error})") from None
    if "dbn" in learner:
        sizes = list(getattr(config, "layer_sizes", dbn.layer_sizes))
        shapes = [tuple(rbm.weights.shape) for rbm in dbn.rbms]
        if list(dbn.layer_sizes) != sizes or sizes[-1] != width or shapes != list(zip(sizes[:-1], sizes[1:])):
            raise DamagedEntry(f"its network has layers {list(dbn.layer_sizes)}, the configuration {sizes} "
                               f"and the features are {width} wide")
    return FeatureSet(arrays["train_features"], arrays["train_labels"], arrays["test_features"], arrays["test_labels"],
                      {**info, "from_cache": True}, cache_path=paths["features"], **learner)


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


def cached_report(path, is_current, compute, *, fields: dict, rebuild: bool = False) -> dict:
    """``compute()``'s JSON report, read back from ``path`` when ``is_current(report)`` and its ``fields`` hold,
    else computed and stored (a damaged file with a :class:`CacheWarning`; ``path=None``: no cache)."""
    if path is not None:
        remove_leftovers(path.parent)
    if path is not None and not rebuild and path.is_file():
        try:
            report = json.loads(path.read_text())
            problem = _report_problem(report, fields)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            report, problem = None, f"it is not readable JSON ({error})"
        if problem is None and is_current(report):
            return report
        if problem is not None:
            warn_damaged(path, problem)
    report = compute()
    if path is not None:
        try:
            atomic_write_text(path, json.dumps(report, indent=2, sort_keys=True) + "\n")
        except OSError as error:
            warn_unwritable(path.parent, error)
    return report
