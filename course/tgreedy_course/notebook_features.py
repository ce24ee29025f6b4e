"""What notebooks 06-08 run on: the paper's learned features when cached, else a fast stand-in that says so.

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) runs on 2,000 features of a deep belief network, minutes
to build; a notebook must run in about a minute from a fresh checkout. So it asks here: cached features if there
are (``TGREEDY_CACHE_DIR``), else a stand-in of seconds named in ``info["stand_in"]`` (raw pixels for notebooks
07-08, a short run of the network for 06); ``build=True`` builds the real ones, with progress bars, and caches them.
"""
from __future__ import annotations

import dataclasses

from tgreedy_lib.experiments import load_experiment_features
from tgreedy_lib.experiments.inputs import resolve_feature_map

#: Epochs per layer of notebook 06's short run of the MNIST network.
SHORT_EPOCHS = (3, 2, 3)
#: L-BFGS tolerance and iteration cap of :func:`quick_probe`.
QUICK_PROBE_TOLERANCE = 1e-3
QUICK_PROBE_ITERATIONS = 100


def features_cached(dataset: str, feature_map: str = "learned", data_dir=None, cache_dir=None) -> bool:
    """Whether the learned features ``feature_map`` (seed 0) of ``dataset`` are cached; nothing is built.

    >>> import tempfile
    >>> features_cached("mnist", cache_dir=tempfile.mkdtemp())
    False
    """
    from tgreedy_lib.features import load_features

    kind = "patches" if resolve_feature_map(feature_map, dataset) == "conv" else "dbn"
    try:
        load_features(dataset, data_dir=data_dir, cache_dir=cache_dir, only_cached=True, probe=False, kind=kind)
    except LookupError:
        return False
    return True


def experiment_features(dataset: str, feature_map: str = "learned", *, build: bool = False, progress: bool = True,
                        data_dir=None, cache_dir=None):
    """Cached learned features (or built, with ``build``), else raw pixels named in ``info["stand_in"]``.

    >>> import tempfile
    >>> features = experiment_features("mnist", cache_dir=tempfile.mkdtemp())
    >>> features.info["feature_map"], features.info["stand_in"].startswith("raw pixels stand in")
    ('pixels', True)
    """
    if build or features_cached(dataset, feature_map, data_dir, cache_dir):
        features = load_experiment_features(dataset, feature_map, data_dir=data_dir, cache_dir=cache_dir,
                                            progress=progress)
        features.info["stand_in"] = None
        return features
    features = load_experiment_features(dataset, "pixels", data_dir=data_dir, cache_dir=cache_dir)
    features.info["stand_in"] = (
        f"raw pixels stand in for the {resolve_feature_map(feature_map, dataset)} features, which are not built on "
        f"this machine yet: every number below is about pixels, not the paper's features (set the flag at the top of "
        f"this cell to True to build them, a few minutes with progress bars, cached afterwards)")
    return features


def describe(features) -> str:
    """One line about the features a notebook runs on: data, scale, feature map, the stand-in if any.

    >>> import numpy as np
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> info = {"dataset": "mnist", "official": False, "feature_map": "pixels", "stand_in": "pixels stand in"}
    >>> describe(ExperimentFeatures(np.ones((4, 3)), np.arange(4), np.ones((2, 3)), np.arange(2), info))
    'mnist: 4 training / 2 test images, 3 pixels features, bundled images only (reduced scale). Note: pixels stand in.'
    """
    info = features.info
    scale = "official test set (paper scale)" if info.get("official") else "bundled images only (reduced scale)"
    line = (f"{info.get('dataset', '?')}: {len(features.train_features)} training / {len(features.test_features)} test "
            f"images, {features.train_features.shape[1]} {info.get('feature_map', '?')} features, {scale}")
    source = (info.get("training_images") or {}).get("train_source")
    if source:
        line += f"; training images: {source}"
    return line + (f". Note: {info['stand_in']}." if info.get("stand_in") else ".")


def short_config(dataset: str = "mnist", unlabeled: bool = False):
    """The default network of ``dataset`` trained for :data:`SHORT_EPOCHS` epochs per layer (notebook 06's stand-in).

    >>> config = short_config()
    >>> config.layer_sizes, [t.epochs for t in config.training]
    ((784, 500, 500, 2000), [3, 2, 3])
    """
    from tgreedy_lib.features import default_config

    config = default_config(dataset, unlabeled=unlabeled)
    return config.replace(training=tuple(dataclasses.replace(t, epochs=e) for t, e in zip(config.training, SHORT_EPOCHS)))


def mnist_network(full: bool = False, progress: bool = True, data_dir=None, cache_dir=None):
    """Notebook 06's MNIST network: cached, else a short run (``info["stand_in"]``), or with ``full`` the full run."""
    from tgreedy_lib.datasets import load_paper_dataset
    from tgreedy_lib.features import default_config, load_features

    if full or features_cached("mnist", "dbn", data_dir, cache_dir):
        network = load_features("mnist", data_dir=data_dir, cache_dir=cache_dir, progress=progress, probe=full)
        network.info["stand_in"] = None
        return network
    unlabeled = load_paper_dataset("mnist", data_dir, cache_dir=cache_dir).unlabeled_images is not None
    network = load_features("mnist", data_dir=data_dir, cache_dir=cache_dir, config=short_config("mnist", unlabeled),
                            progress=progress, probe=False)
    full_epochs = [t.epochs for t in default_config("mnist", unlabeled=unlabeled).training]
    network.info["stand_in"] = (
        f"a short run: {', '.join(map(str, SHORT_EPOCHS))} epochs per layer instead of "
        f"{', '.join(map(str, full_epochs))}, because the full network is not built on this machine yet "
        f"(set the flag at the top of this cell to True to train it, with progress bars; cached afterwards)")
    return network


def quick_probe(feature_set) -> dict:
    """:func:`tgreedy_lib.features.probe_report`'s linear probe stopped early (seconds; within a point or so)."""
    from threadpoolctl import threadpool_limits

    from tgreedy_lib.features import PROBE_REGULARIZATION, dbn_inputs, linear_probe

    regularization = PROBE_REGULARIZATION[feature_set.info["dataset"]]
    fit = dict(max_iter=QUICK_PROBE_ITERATIONS, tol=QUICK_PROBE_TOLERANCE)
    with threadpool_limits(1):  # small fits: extra BLAS threads only spin on a shared machine
        features = linear_probe(feature_set.train_features, feature_set.train_labels, feature_set.test_features,
                                feature_set.test_labels, regularization, **fit)
        pixels = linear_probe(dbn_inputs(feature_set.train_images), feature_set.train_labels,
                              dbn_inputs(feature_set.test_images), feature_set.test_labels, regularization, **fit)
    return {"dataset": feature_set.info["dataset"], "C": regularization, "dbn_features": features,
            "raw_pixels": pixels, "gain": round(features["test_accuracy"] - pixels["test_accuracy"], 4), "quick": True}
