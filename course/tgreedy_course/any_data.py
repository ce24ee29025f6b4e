"""Sections 4.1 and 4.2 of Foster, Kakade & Salakhutdinov (AISTATS 2012) on any labelled data set, in one call.

:func:`run_on_data` runs the paper's two transfer experiments, '*positive* vs other' and similarity learning (each
other class held out in turn), with every reading of the selectors on a researcher's own features, and returns the
results and the claims of sections 4 and 5 under the paper's reading.

Examples
--------
>>> import numpy as np
>>> from tgreedy_course.any_data import run_on_data
>>> rng = np.random.default_rng(0)
>>> centers = rng.normal(0, 1.5, (5, 12))
>>> y = np.repeat(np.arange(5), 40)
>>> X = 1 / (1 + np.exp(-(centers[y] + rng.normal(0, 1, (200, 12)))))
>>> out = run_on_data(X, y, X, y, positive=0, n_steps=3, similarity_steps=3, n_pairs=40)
>>> sorted(out["results"]), len(out["results"]["two-vs-other"]["splits"])
(['similarity', 'two-vs-other'], 4)
"""
from __future__ import annotations

import pathlib
from numbers import Integral
from typing import Callable, Sequence

import numpy as np
from sklearn.utils._param_validation import Interval

from tgreedy_lib import datasets
from tgreedy_lib.validation import as_real_array, as_value_vector, factorize, validate_options
from . import claims as claims_module
from tgreedy_lib.experiments.design import Design
from tgreedy_lib.experiments.inputs import ExperimentFeatures, drop_constant_features
from tgreedy_lib.experiments.runs import METHODS, run_similarity, run_two_vs_other, usable_similarity_columns

ANY_DATA_EXPERIMENTS = ("two-vs-other", "similarity")
#: The experiment names the claims table knows the two tasks by.
CLAIM_NAMES = {"two-vs-other": "mnist-2-vs-other", "similarity": "mnist-similarity"}

#: Labels that are whole numbers in ``[0, LABEL_ID_LIMIT)`` are class ids as they are; others are numbered.
LABEL_ID_LIMIT = 2**16


def _as_matrix(X, what: str) -> np.ndarray:
    X = np.asarray(X) if not hasattr(X, "dtypes") else X
    if np.ndim(X) < 2:
        raise ValueError(f"{what} must have one row per example (2-d features or n images), got shape {np.shape(X)}")
    if getattr(X, "dtype", None) == np.uint8:
        X = X.astype(np.float64) / 255.0
    try:
        X = as_real_array(X, what)
    except TypeError as error:
        raise ValueError(f"{what} holds entries that are not numbers ({error}); encode or drop them first") from None
    X = X.reshape(len(X), -1)
    if X.shape[1] == 0:
        raise ValueError(f"{what} has no columns (shape {X.shape}): there is no feature to select from")
    if not np.isfinite(X).all():
        raise ValueError(f"{what} holds NaN or infinite values; clean or impute them first")
    return X


def _as_labels(y, n: int, what: str) -> np.ndarray:
    y = as_value_vector(y)
    if y.ndim != 1 or len(y) != n:
        raise ValueError(f"{what} must be a vector with one label per example ({n}), got shape {y.shape}")
    return y


def _label_ids(y: np.ndarray) -> bool:
    """Whether labels can serve as class ids as they are: whole numbers in ``[0, LABEL_ID_LIMIT)``."""
    if y.dtype.kind == "b":
        return True
    if y.dtype.kind not in "iuf" or y.size == 0:
        return False
    if y.dtype.kind == "f" and not (np.all(np.isfinite(y)) and np.all(np.mod(y, 1) == 0)):
        return False
    return bool(y.min() >= 0 and y.max() < LABEL_ID_LIMIT)


def _jsonable_label(value):
    value = value.item() if isinstance(value, np.generic) else value
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def encode_class_labels(train_y, test_y) -> tuple[np.ndarray, np.ndarray, list | None]:
    """Class ids for any hashable labels, numbered in sorted order: ``(train_ids, test_ids, labels)``, ``labels[i]``
    the label of id ``i`` (None when the labels are their own ids). Missing labels are refused."""
    train_y, test_y = as_value_vector(train_y), as_value_vector(test_y)
    if _label_ids(train_y) and _label_ids(test_y):
        return train_y.astype(np.int64), test_y.astype(np.int64), None
    values = np.empty(len(train_y) + len(test_y), dtype=object)
    values[:len(train_y)], values[len(train_y):] = list(train_y.tolist()), list(test_y.tolist())
    uniques, codes = factorize(values, "the class labels (train_y and test_y)")
    codes = codes.astype(np.int64)
    return codes[:len(train_y)], codes[len(train_y):], [_jsonable_label(v) for v in uniques.tolist()]


def as_experiment_features(train_X, train_y, test_X, test_y, name: str = "custom",
                           train_per_class: int | None = None, seed: int = 0) -> ExperimentFeatures:
    """Arrays as ``ExperimentFeatures``: images flattened, bytes scaled to [0, 1], constant features dropped,
    ``train_per_class`` training examples a class drawn at random (seeded)."""
    train_X, test_X = _as_matrix(train_X, "train_X"), _as_matrix(test_X, "test_X")
    train_y, test_y = _as_labels(train_y, len(train_X), "train_y"), _as_labels(test_y, len(test_X), "test_y")
    train_y, test_y, labels = encode_class_labels(train_y, test_y)
    if train_X.shape[1] != test_X.shape[1]:
        raise ValueError(f"train_X and test_X differ in width ({train_X.shape[1]} vs {test_X.shape[1]}); "
                         "they must be the same features")
    if train_per_class is not None:
        keep = datasets.balanced_subset(train_y, train_per_class, seed)
        train_X, train_y = train_X[keep], train_y[keep]
    missing = sorted(set(np.unique(test_y).tolist()) - set(np.unique(train_y).tolist()))
    if missing:
        raise ValueError(f"test classes {missing} have no training examples")
    info = {"dataset": name, "feature_map": "given", "official": False, "train_size": int(len(train_X)),
            "test_size": int(len(test_X)), "n_features": int(train_X.shape[1]),
            "training_images": {"train_source": f"{name}: the given training data"
                                + (f", {train_per_class} a class at random (seed {seed})" if train_per_class else ""),
                                "train_class_counts": np.bincount(train_y - train_y.min()).tolist(),
                                "train_per_class": train_per_class}}
    if labels is not None:
        info["class_labels"] = labels  # class id i stands for labels[i]
    return drop_constant_features(ExperimentFeatures(train_X, train_y, test_X, test_y, info))


@validate_options({
    "train_X": ["array-like", None], "train_y": ["array-like", None], "test_X": ["array-like", None],
    "test_y": ["array-like", None], "idx_files": [list, tuple, None], "experiments": [list, tuple],
    "n_steps": [Interval(Integral, 1, None, closed="left")],
    "similarity_steps": [Interval(Integral, 1, None, closed="left")],
    "n_pairs": [Interval(Integral, 1, None, closed="left")], "design": [Design, None], "methods": [list, tuple],
    "name": [str], "progress": [callable, None],
})
def run_on_data(train_X=None, train_y=None, test_X=None, test_y=None, *, idx_files: Sequence | None = None,
                positive: int | None = None, experiments: Sequence[str] = ANY_DATA_EXPERIMENTS,
                n_steps: int = 50, similarity_steps: int = 100, n_pairs: int = 1000,
                design: Design | None = None, methods: Sequence[str] = METHODS, name: str = "custom",
                progress: Callable[[str], None] | None = None) -> dict:
    """Run sections 4.1 and 4.2 on any labelled data; returns ``results`` (``"two-vs-other"`` and/or
    ``"similarity"``), ``claims`` (sections 4.1, 4.2 and 5 under the paper's reading) and ``features``.

    Parameters
    ----------
    train_X, test_X : array-like
        Feature matrices (n, p) or images (n, ...), nonnegative and varying within each class (like DBN features).
    train_y, test_y : array-like
        Any hashable class labels (recorded as ``class_labels`` unless they are their own ids); '2 vs other' needs
        ``positive`` and three other classes, similarity learning four classes.
    idx_files : four paths, optional
        Instead of arrays: train images, train labels, test images, test labels (MNIST IDX layout).
    positive : hashable, optional
        The class recognised in '2 vs other' (default: the smallest label).
    n_steps, similarity_steps, n_pairs
        Features added by each selector in each experiment; pairs per similarity domain (the paper: 1,000).
    design : Design, optional
        Default: the paper's settings with every given training example and ``n_pairs`` pairs.
    """
    unknown = [e for e in experiments if e not in ANY_DATA_EXPERIMENTS]
    if unknown or not experiments:
        raise ValueError(f"experiments must be among {ANY_DATA_EXPERIMENTS}, got {list(experiments)}")
    if idx_files is not None:
        if train_X is not None or test_X is not None:
            raise ValueError("give either arrays or idx_files, not both")
        if len(idx_files) != 4:
            raise ValueError("idx_files must be four paths: train images, train labels, test images, test labels")
        for path in map(pathlib.Path, idx_files):
            if not path.is_file():
                raise FileNotFoundError(f"IDX file {path} not found")
        train_X, train_y, test_X, test_y = (datasets.read_idx(pathlib.Path(p)) for p in idx_files)
    if any(a is None for a in (train_X, train_y, test_X, test_y)):
        raise ValueError("give train_X, train_y, test_X and test_y (or idx_files)")
    design = design or Design(train_per_class=None, n_positive_pairs=n_pairs, n_negative_pairs=n_pairs)
    features = as_experiment_features(train_X, train_y, test_X, test_y, name, design.train_per_class, design.seed)
    classes = [int(c) for c in features.classes]
    labels = features.info.get("class_labels")
    known = classes if labels is None else labels  # positive names a class id or, when recorded, a label
    if positive is None:
        positive = classes[0]
    else:
        matches = [i for i, label in enumerate(known) if _same_label(label, positive)]
        if not matches:
            raise ValueError(f"positive={positive!r} is not one of the class labels {known[:10]}")
        positive = classes[matches[0]] if labels is None else matches[0]
    shown = positive if labels is None else labels[positive]
    results = {}
    if "two-vs-other" in experiments:
        steps = min(n_steps, features.n_features)
        results["two-vs-other"] = run_two_vs_other(features, n_steps=steps, positive=positive, methods=methods,
                                                   progress=progress, design=design)
        results["two-vs-other"]["experiment"] = f"{name}-{shown}-vs-other"
    if "similarity" in experiments:
        usable = int(usable_similarity_columns(features.train_features, features.train_labels, classes).sum())
        if usable == 0:
            raise ValueError("no feature is nonzero often enough in every class for similarity learning")
        steps = min(similarity_steps, usable)
        results["similarity"] = run_similarity(features, n_steps=steps, methods=methods, progress=progress,
                                               design=design, experiment=f"{name}-similarity")
    if labels is not None:
        for result in results.values():
            result["class_labels"] = labels  # the splits name classes by id: id i is labels[i]
    named = {CLAIM_NAMES[k]: v for k, v in results.items()}
    table = [c for c in claims_module.all_claims(named)
             if not c["id"].startswith(("intro.", "cifar_sim."))]
    return {"results": results, "claims": table, "features": features.data_summary()}


def _same_label(label, wanted) -> bool:
    """Whether a recorded class label is the one asked for (labels recorded as text compare as text)."""
    try:
        if label == wanted:
            return True
    except (TypeError, ValueError):
        return False
    return isinstance(label, str) and not isinstance(wanted, str) and label == str(wanted)
