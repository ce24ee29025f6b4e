"""Sections 4.1 and 4.2 on any labelled data set, in one call.

:func:`run_on_data` takes training and test data -- feature matrices, images (any shape; flattened,
and scaled to [0, 1] when they are bytes), or IDX files in the MNIST layout -- and runs the paper's
two transfer experiments on them with every reading of the selectors:

* '*positive* vs other' (section 4.1): source domains 'positive vs k', each other class held out
  in turn as the target domain;
* similarity learning (section 4.2): a linear similarity on products of features, each class held
  out in turn.

It returns the results (the same JSON-ready dicts as :func:`run_two_vs_other` and
:func:`run_similarity`) and the claims of sections 4 and 5 evaluated on them under the paper's
reading. A researcher's own representation goes in as the feature matrix; the selection, the
evaluation and the claims are the paper's.

Examples
--------
>>> import numpy as np
>>> from tgreedy_lib.experiments.any_data import run_on_data
>>> rng = np.random.default_rng(0)
>>> centers = rng.normal(0, 1.5, (5, 12))
>>> y = np.repeat(np.arange(5), 40)
>>> X = 1 / (1 + np.exp(-(centers[y] + rng.normal(0, 1, (200, 12)))))
>>> out = run_on_data(X, y, X, y, positive=0, n_steps=3, similarity_steps=3, n_pairs=40)
>>> sorted(out["results"]), len(out["results"]["two-vs-other"]["splits"])
(['similarity', 'two-vs-other'], 4)
"""
from __future__ import annotations

import os
import pathlib
from typing import Callable, Sequence

import numpy as np

from .. import datasets
from . import claims as claims_module
from .design import Design
from .inputs import ExperimentFeatures, drop_constant_features
from .runs import METHODS, _usable_similarity_columns, run_similarity, run_two_vs_other

ANY_DATA_EXPERIMENTS = ("two-vs-other", "similarity")
#: The experiment names the claims table knows the two tasks by.
CLAIM_NAMES = {"two-vs-other": "mnist-2-vs-other", "similarity": "mnist-similarity"}


def _as_matrix(X, what: str) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim < 2:
        raise ValueError(f"{what} must have one row per example (2-d features or n images), got shape {X.shape}")
    if X.dtype == np.uint8:
        X = X.astype(np.float64) / 255.0
    X = X.reshape(len(X), -1).astype(np.float64)
    if not np.isfinite(X).all():
        raise ValueError(f"{what} holds NaN or infinite values; clean or impute them first")
    return X


def _as_labels(y, n: int, what: str) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise ValueError(f"{what} must be a vector with one label per example ({n}), got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        if not np.all(np.equal(np.mod(y, 1), 0)):
            raise ValueError(f"{what} must be whole-number class labels, got {y.dtype}")
    return y.astype(np.int64)


def load_idx_data(train_images, train_labels, test_images, test_labels) -> tuple[np.ndarray, ...]:
    """Four IDX files in the MNIST layout (optionally gzipped): train/test images and labels.

    Returns
    -------
    train_X, train_y, test_X, test_y : ndarray
    """
    arrays = []
    for path in (train_images, train_labels, test_images, test_labels):
        path = pathlib.Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"IDX file {path} not found")
        arrays.append(datasets.read_idx(path))
    return tuple(arrays)


def as_experiment_features(train_X, train_y, test_X, test_y, name: str = "custom",
                           train_per_class: int | None = None, seed: int = 0) -> ExperimentFeatures:
    """Wrap arrays as :class:`ExperimentFeatures` (images flattened, bytes scaled to [0, 1], constant features dropped).

    ``train_per_class`` keeps that many training examples of each class, drawn at random (seeded).
    """
    train_X, test_X = _as_matrix(train_X, "train_X"), _as_matrix(test_X, "test_X")
    train_y, test_y = _as_labels(train_y, len(train_X), "train_y"), _as_labels(test_y, len(test_X), "test_y")
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
    return drop_constant_features(ExperimentFeatures(train_X, train_y, test_X, test_y, info))


def run_on_data(train_X=None, train_y=None, test_X=None, test_y=None, *, idx_files: Sequence | None = None,
                positive: int | None = None, experiments: Sequence[str] = ANY_DATA_EXPERIMENTS,
                n_steps: int = 50, similarity_steps: int = 100, n_pairs: int = 1000,
                design: Design | None = None, methods: Sequence[str] = METHODS, name: str = "custom",
                progress: Callable[[str], None] | None = None) -> dict:
    """Run sections 4.1 and 4.2 of Foster, Kakade & Salakhutdinov (AISTATS 2012) on any labelled data.

    Parameters
    ----------
    train_X, test_X : array-like
        Feature matrices (n, p), or images (n, ...) flattened to rows (uint8 scaled to [0, 1]).
        Features should be nonnegative and vary within each class (like DBN features); a
        feature constant over the training set is dropped.
    train_y, test_y : array-like of int
        Class labels. '2 vs other' needs ``positive`` plus at least three other classes;
        similarity learning at least four classes.
    idx_files : sequence of 4 paths, optional
        Instead of arrays: train images, train labels, test images, test labels in the MNIST IDX layout.
    positive : int, optional
        The class recognised in '2 vs other' (default: the smallest label).
    experiments : sequence of {"two-vs-other", "similarity"}
    n_steps, similarity_steps : int
        Features added by each selector (at most the number of usable features).
    n_pairs : int
        Positive and negative pairs per similarity domain (the paper: 1,000).
    design : Design, optional
        Default: the paper's settings, all given training examples (``train_per_class=None``) and
        ``n_pairs`` pairs.
    methods : sequence of str
        Registered selector names (default: every reading of :mod:`tgreedy_lib.experiments.readings`).
    name : str
        Recorded as the data set's name.
    progress : callable, optional

    Returns
    -------
    dict
        ``results`` (``"two-vs-other"`` and/or ``"similarity"``), ``claims`` (sections 4.1, 4.2 and
        5 under the paper's reading; claims about another data set are "not run") and ``features``
        (a summary of the data used).

    Raises
    ------
    ValueError
        For mismatched shapes, non-integer labels, too few classes or an unknown experiment.
    """
    unknown = [e for e in experiments if e not in ANY_DATA_EXPERIMENTS]
    if unknown or not experiments:
        raise ValueError(f"experiments must be among {ANY_DATA_EXPERIMENTS}, got {list(experiments)}")
    if idx_files is not None:
        if train_X is not None or test_X is not None:
            raise ValueError("give either arrays or idx_files, not both")
        if len(idx_files) != 4:
            raise ValueError("idx_files must be four paths: train images, train labels, test images, test labels")
        train_X, train_y, test_X, test_y = load_idx_data(*[os.fspath(p) for p in idx_files])
    if any(a is None for a in (train_X, train_y, test_X, test_y)):
        raise ValueError("give train_X, train_y, test_X and test_y (or idx_files)")
    design = design or Design(train_per_class=None, n_positive_pairs=n_pairs, n_negative_pairs=n_pairs)
    features = as_experiment_features(train_X, train_y, test_X, test_y, name, design.train_per_class, design.seed)
    classes = [int(c) for c in features.classes]
    positive = classes[0] if positive is None else int(positive)
    results = {}
    if "two-vs-other" in experiments:
        steps = min(n_steps, features.n_features)
        results["two-vs-other"] = run_two_vs_other(features, n_steps=steps, positive=positive, methods=methods,
                                                   progress=progress, design=design)
        results["two-vs-other"]["experiment"] = f"{name}-{positive}-vs-other"
    if "similarity" in experiments:
        usable = int(_usable_similarity_columns(features.train_features, features.train_labels, classes).sum())
        if usable == 0:
            raise ValueError("no feature is nonzero often enough in every class for similarity learning")
        steps = min(similarity_steps, usable)
        results["similarity"] = run_similarity(features, n_steps=steps, methods=methods, progress=progress,
                                               design=design, experiment=f"{name}-similarity")
    named = {CLAIM_NAMES[k]: v for k, v in results.items()}
    table = [c for c in claims_module.all_claims(named)
             if not c["id"].startswith(("intro.", "cifar_sim."))]
    return {"results": results, "claims": table, "features": features.data_summary()}
