"""A linear probe of learnt features: how much of the class a linear model reads from them.

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) runs greedy and T-greedy on 2,000
learnt features; :func:`linear_probe` measures them by a multinomial logistic regression on the
standardised features, :func:`validated_probe` chooses its ``C`` on a validation split of the
training rows (the ``probe_accuracy`` of every feature map: :func:`feature_probe`,
:func:`probe_arrays`), and :func:`probe_report` sets the features against raw pixels. Each report is
a JSON file in the feature cache.
"""
from __future__ import annotations

import json
import time
import warnings

import numpy as np

from .. import datasets
from ._cache import array_digest, cached_report
from ._feature_set import FeatureSet
from .dbn import dbn_inputs

__all__ = ["PROBE_C_GRID", "PROBE_REGULARIZATION", "PROBE_TOLERANCE", "PROBE_VALIDATION_FRACTION", "feature_probe",
           "linear_probe", "probe_arrays", "probe_report", "validated_probe"]

#: L-BFGS tolerance (at 1e-3 it stopped 0.17 points below the converged fit on the MNIST features).
PROBE_TOLERANCE = 1e-4
#: :func:`probe_report`'s ``C`` per data set, the same for pixels and features.
PROBE_REGULARIZATION = {"mnist": 0.1, "cifar10": 0.01}
PROBE_C_GRID = (0.001, 0.003, 0.01, 0.03, 0.1)
PROBE_VALIDATION_FRACTION = 0.2
_PROBE_FIELDS = {"test_accuracy": float, "train_accuracy": float, "C": float, "c_grid": list,
                 "validation_accuracy": list, "validation_size": int}


def linear_probe(train_x, train_y, test_x, test_y, regularization: float = 0.1, max_iter: int = 1000,
                 tol: float = PROBE_TOLERANCE) -> dict:
    """Multinomial logistic regression (L-BFGS, inverse L2 strength ``regularization``) on standardised inputs.

    Returns ``test_accuracy``, ``train_accuracy``, ``n_features``, ``C``, ``tol``, ``iterations``, ``seconds``.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train_x, test_x = np.asarray(train_x, dtype=np.float64), np.asarray(test_x, dtype=np.float64)
    if train_x.ndim != 2 or test_x.ndim != 2 or train_x.shape[1] != test_x.shape[1]:
        raise ValueError(f"train_x and test_x must be 2-d with equal columns, got {train_x.shape} and {test_x.shape}")
    start = time.perf_counter()
    model = make_pipeline(StandardScaler(), LogisticRegression(C=regularization, max_iter=max_iter, tol=tol))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(train_x, train_y)
    return {"test_accuracy": float(model.score(test_x, test_y)), "train_accuracy": float(model.score(train_x, train_y)),
            "n_features": int(train_x.shape[1]), "C": regularization, "tol": tol,
            "iterations": int(np.max(model[-1].n_iter_)), "seconds": round(time.perf_counter() - start, 2)}


def validated_probe(train_x, train_y, test_x, test_y, c_grid=PROBE_C_GRID) -> dict:
    """:func:`linear_probe` with ``C`` chosen on a seeded stratified validation split of the training rows.

    Every ``C`` of ``c_grid`` is fitted on the rest (warm-started along ascending ``C``); the best
    (the smaller on a tie) is refitted on all training rows and scored once on the test rows. Returns
    the :func:`linear_probe` result plus ``c_grid``, ``validation_accuracy``, ``validation_size``,
    ``selection_seconds``.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    c_grid = tuple(float(c) for c in c_grid)
    if not c_grid or min(c_grid) <= 0:
        raise ValueError(f"c_grid must hold positive values of C, got {c_grid}")
    start = time.perf_counter()
    train_y = np.asarray(train_y)
    fit_rows, validation_rows = train_test_split(np.arange(len(train_y)), test_size=PROBE_VALIDATION_FRACTION,
                                                 random_state=0, stratify=train_y)
    train_x = np.asarray(train_x, dtype=np.float64)
    fit_y, validation_y = train_y[fit_rows], train_y[validation_rows]
    scaler = StandardScaler().fit(train_x[fit_rows])
    fit_x, validation_x = scaler.transform(train_x[fit_rows]), scaler.transform(train_x[validation_rows])
    model = LogisticRegression(max_iter=1000, tol=PROBE_TOLERANCE, warm_start=True)
    accuracy = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for c in sorted(set(c_grid)):
            accuracy[c] = float(model.set_params(C=c).fit(fit_x, fit_y).score(validation_x, validation_y))
    accuracies = [accuracy[c] for c in c_grid]
    chosen = c_grid[int(np.argmax(accuracies))]
    seconds = round(time.perf_counter() - start, 2)
    result = linear_probe(train_x, train_y, test_x, test_y, chosen)
    result.update(c_grid=list(c_grid), validation_accuracy=accuracies, validation_size=int(len(validation_rows)),
                  selection_seconds=seconds)
    return result


def _beside(feature_set: FeatureSet, suffix: str):
    path = feature_set.cache_path
    return None if path is None else path.with_name(path.name.replace("-features.npz", suffix))


def feature_probe(feature_set: FeatureSet, rebuild: bool = False) -> dict:
    """The validated probe of a feature set, cached beside its features; sets ``info["probe_accuracy"]`` and
    ``info["probe"]``."""
    info = feature_set.info
    path = _beside(feature_set, "-linear-probe.json")

    def compute() -> dict:
        report = validated_probe(feature_set.train_features, feature_set.train_labels,
                                 feature_set.test_features, feature_set.test_labels, c_grid=PROBE_C_GRID)
        report["cache_key"] = info.get("cache_key")
        return report

    report = cached_report(path, lambda report: (report.get("cache_key") == info.get("cache_key")
                                                  and report.get("c_grid") == list(PROBE_C_GRID)
                                                  and report.get("tol") == PROBE_TOLERANCE),
                            compute, fields=_PROBE_FIELDS, rebuild=rebuild)
    info["probe_accuracy"] = report["test_accuracy"]
    info["probe"] = {key: report[key] for key in ("C", "c_grid", "validation_accuracy", "train_accuracy",
                                                  "test_accuracy", "validation_size")}
    return report


def probe_arrays(train_x, train_y, test_x, test_y, cache_dir=None) -> dict:
    """The validated probe of any feature matrix (raw pixels, random units), cached by the arrays' SHA-256."""
    arrays = [np.ascontiguousarray(a) for a in (train_x, train_y, test_x, test_y)]
    key = array_digest(*arrays, prefix=json.dumps({"c_grid": list(PROBE_C_GRID), "tol": PROBE_TOLERANCE,
                                                   "validation_fraction": PROBE_VALIDATION_FRACTION}).encode())
    path = datasets.resolve_cache_dir(cache_dir) / "features" / f"probe-{key[:24]}.json"
    return cached_report(path, lambda report: report.get("digest") == key,
                          lambda: {**validated_probe(*arrays, c_grid=PROBE_C_GRID), "digest": key},
                          fields=_PROBE_FIELDS)


def probe_report(feature_set: FeatureSet, rebuild: bool = False, regularization: float | None = None) -> dict:
    """:func:`linear_probe` on the learnt features against raw pixels, cached beside the features.

    Returns ``dataset``, ``official``, the sizes, ``dbn_features`` and ``raw_pixels`` (each a
    :func:`linear_probe` result) and ``gain`` (feature minus pixel test accuracy).
    """
    if feature_set.train_images is None or feature_set.test_images is None:
        raise ValueError("the feature set carries no images; get it from load_features")
    info = feature_set.info
    if regularization is None:
        regularization = PROBE_REGULARIZATION[info["dataset"]]
    path = _beside(feature_set, "-probe.json")

    def compute() -> dict:
        features = linear_probe(feature_set.train_features, feature_set.train_labels, feature_set.test_features,
                                feature_set.test_labels, regularization)
        pixels = linear_probe(dbn_inputs(feature_set.train_images), feature_set.train_labels,
                              dbn_inputs(feature_set.test_images), feature_set.test_labels, regularization)
        return {"dataset": info["dataset"], "official": info["official"], "train_size": info["train_size"],
                "test_size": info["test_size"], "cache_key": info["cache_key"], "C": regularization,
                "dbn_features": features, "raw_pixels": pixels,
                "gain": round(features["test_accuracy"] - pixels["test_accuracy"], 4)}

    one_probe = {"test_accuracy": float, "train_accuracy": float}
    return cached_report(path, lambda report: (report.get("cache_key") == info["cache_key"]
                                                and report.get("C") == regularization
                                                and report["dbn_features"].get("tol") == PROBE_TOLERANCE),
                          compute, fields={"dbn_features": one_probe, "raw_pixels": one_probe, "gain": float},
                          rebuild=rebuild)
