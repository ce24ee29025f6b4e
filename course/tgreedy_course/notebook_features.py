"""What notebooks 06-08 run on: the paper's learned features when they are cached, else a fast stand-in that says so.

The experiments of Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4, run on 2,000 features of a deep
belief network (DBN). Building them takes minutes (more on a busy machine), and a notebook must run top to
bottom in about a minute from a fresh checkout. So a notebook asks for its features here:

* when the features are in the cache (``TGREEDY_CACHE_DIR``, default ``~/.cache/tgreedy``), it gets them;
* when they are not, it gets a stand-in that takes seconds, labelled in ``info["stand_in"]`` with one
  sentence saying what it is, and the notebook prints that sentence (:func:`describe`): raw pixels for the
  experiments of notebooks 07-08, a short training run of the same network (:data:`SHORT_EPOCHS`) for
  notebook 06, which looks inside the network;
* with ``build=True`` (an opt-in flag at the top of the notebook cell) it builds the real features, with
  progress bars, and caches them for every later run and notebook.

Nothing here changes a result: the stand-ins are the library's own feature maps and configurations.
"""
from __future__ import annotations

import dataclasses

__all__ = ["SHORT_EPOCHS", "features_cached", "experiment_features", "describe", "short_config", "mnist_network",
           "quick_probe"]

#: Epochs per layer of notebook 06's short run of the MNIST network (the full run: 15, 10 and 15 on the
#: bundled digits, 10, 5 and 10 on the 60,000 official training images).
SHORT_EPOCHS = (3, 2, 3)
#: L-BFGS tolerance and iteration cap of :func:`quick_probe` (the converged probe: 1e-4, up to 1,000 iterations).
QUICK_PROBE_TOLERANCE = 1e-3
QUICK_PROBE_ITERATIONS = 100


def _kind(dataset: str, feature_map: str) -> str:
    from tgreedy_lib.experiments.inputs import resolve_feature_map

    return "patches" if resolve_feature_map(feature_map, dataset) == "conv" else "dbn"


def features_cached(dataset: str, feature_map: str = "learned", data_dir=None, cache_dir=None) -> bool:
    """Whether the learned features ``feature_map`` of ``dataset`` are in the cache (nothing is built).

    Parameters
    ----------
    dataset : {"mnist", "cifar10"}
    feature_map : {"learned", "dbn", "conv"}
        As in :func:`tgreedy_lib.experiments.load_experiment_features` (seed 0).
    data_dir, cache_dir : path, optional

    Returns
    -------
    bool

    Raises
    ------
    FileNotFoundError
        When the images themselves are not available (CIFAR-10 is not bundled).

    See Also
    --------
    experiment_features : The features, or a stand-in when this is False.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 4 (2,000 DBN features).

    Examples
    --------
    An empty cache holds nothing:

    >>> import tempfile
    >>> from tgreedy_course.notebook_features import features_cached
    >>> features_cached("mnist", cache_dir=tempfile.mkdtemp())
    False
    """
    from tgreedy_lib.features import load_features

    try:
        load_features(dataset, data_dir=data_dir, cache_dir=cache_dir, only_cached=True, probe=False,
                      kind=_kind(dataset, feature_map))
    except LookupError:
        return False
    return True


def experiment_features(dataset: str, feature_map: str = "learned", *, build: bool = False, progress: bool = True,
                        data_dir=None, cache_dir=None):
    """The features of the section-4 experiments: cached learned features, else raw pixels as a labelled stand-in.

    Parameters
    ----------
    dataset : {"mnist", "cifar10"}
    feature_map : {"learned", "dbn", "conv"}
    build : bool, default=False
        Build the learned features (and their linear probe) when they are not cached, with progress
        bars: minutes, then cached for every later run.
    progress : bool, default=True
        Progress bars while building.
    data_dir, cache_dir : path, optional

    Returns
    -------
    ExperimentFeatures
        ``info["stand_in"]`` is None for the learned features, else a sentence saying what stands in.

    Raises
    ------
    FileNotFoundError
        When the images are not available (CIFAR-10 without ``TGREEDY_DATA_DIR``).

    See Also
    --------
    tgreedy_lib.experiments.load_experiment_features : What it calls.
    describe : One line about the features, printed by the notebooks.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 4.

    Examples
    --------
    With an empty cache and ``build=False`` the pixels stand in, in a second:

    >>> import tempfile
    >>> from tgreedy_course.notebook_features import experiment_features
    >>> features = experiment_features("mnist", cache_dir=tempfile.mkdtemp())
    >>> features.info["feature_map"], features.info["stand_in"].startswith("raw pixels stand in")
    ('pixels', True)
    """
    from tgreedy_lib.experiments import load_experiment_features
    from tgreedy_lib.experiments.inputs import resolve_feature_map

    learned = resolve_feature_map(feature_map, dataset)
    if build or features_cached(dataset, feature_map, data_dir, cache_dir):
        features = load_experiment_features(dataset, feature_map, data_dir=data_dir, cache_dir=cache_dir,
                                            progress=progress)
        features.info["stand_in"] = None
        return features
    features = load_experiment_features(dataset, "pixels", data_dir=data_dir, cache_dir=cache_dir)
    features.info["stand_in"] = (
        f"raw pixels stand in for the {learned} features, which are not built on this machine yet: every number "
        f"below is about pixels, not the paper's features (set the flag at the top of this cell to True to build "
        f"them, a few minutes with progress bars, cached afterwards)")
    return features


def describe(features) -> str:
    """One line about the features a notebook runs on: data, scale, feature map, and the stand-in if any.

    Examples
    --------
    >>> from tgreedy_course.notebook_features import describe
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> import numpy as np
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

    Examples
    --------
    >>> from tgreedy_course.notebook_features import short_config
    >>> config = short_config()
    >>> config.layer_sizes, [t.epochs for t in config.training]
    ((784, 500, 500, 2000), [3, 2, 3])
    """
    from tgreedy_lib.features import default_config

    config = default_config(dataset, unlabeled=unlabeled)
    if len(config.training) != len(SHORT_EPOCHS):
        raise ValueError(f"{dataset}'s network has {len(config.training)} layers; SHORT_EPOCHS gives {len(SHORT_EPOCHS)}")
    return config.replace(training=tuple(dataclasses.replace(t, epochs=e) for t, e in zip(config.training, SHORT_EPOCHS)))


def mnist_network(full: bool = False, progress: bool = True, data_dir=None, cache_dir=None):
    """Notebook 06's MNIST network: the cached full network, else a short run of it (seconds), or the full run on request.

    Parameters
    ----------
    full : bool, default=False
        Train the full network (and its validated linear probe) when it is not cached: about a
        minute on the bundled digits with a quiet CPU, several on the 60,000 official images,
        much longer on a busy machine; cached afterwards.
    progress : bool, default=True
    data_dir, cache_dir : path, optional

    Returns
    -------
    FeatureSet
        ``info["stand_in"]`` is None for the full network, else a sentence saying it is a short run.

    See Also
    --------
    short_config : The short run's configuration.
    tgreedy_lib.features.load_features : What it calls.

    References
    ----------
    .. [1] G. E. Hinton, S. Osindero and Y.-W. Teh, "A Fast Learning Algorithm for Deep Belief Nets",
       Neural Computation 18(7):1527-1554, 2006.

    Examples
    --------
    >>> from tgreedy_course.notebook_features import mnist_network
    >>> network = mnist_network()  # doctest: +SKIP
    >>> network.info["stand_in"]  # doctest: +SKIP
    """
    from tgreedy_lib.datasets import load_paper_dataset
    from tgreedy_lib.features import default_config, load_features

    if full or features_cached("mnist", "dbn", data_dir, cache_dir):
        network = load_features("mnist", data_dir=data_dir, cache_dir=cache_dir, progress=progress, probe=full)
        network.info["stand_in"] = None
        return network
    unlabeled = load_paper_dataset("mnist", data_dir, cache_dir=cache_dir).unlabeled_images is not None
    config = short_config("mnist", unlabeled=unlabeled)
    network = load_features("mnist", data_dir=data_dir, cache_dir=cache_dir, config=config, progress=progress,
                            probe=False)
    full_epochs = [t.epochs for t in default_config("mnist", unlabeled=unlabeled).training]
    network.info["stand_in"] = (
        f"a short run: {', '.join(map(str, SHORT_EPOCHS))} epochs per layer instead of "
        f"{', '.join(map(str, full_epochs))}, because the full network is not built on this machine yet "
        f"(set the flag at the top of this cell to True to train it, with progress bars; cached afterwards)")
    return network


def quick_probe(feature_set) -> dict:
    """The linear probe of :func:`tgreedy_lib.features.probe_report`, stopped early: seconds instead of minutes.

    The same multinomial logistic regression (standardised inputs, ``C`` of the data set) on the
    features and on the raw pixels, with L-BFGS stopped at tolerance :data:`QUICK_PROBE_TOLERANCE` or after
    :data:`QUICK_PROBE_ITERATIONS` iterations; the converged probe can differ by a point or so either way.

    Returns
    -------
    dict
        ``dbn_features`` and ``raw_pixels`` (each a :func:`~tgreedy_lib.features.linear_probe` report),
        ``gain`` and ``quick=True``; the same keys as ``probe_report``.

    See Also
    --------
    tgreedy_lib.features.probe_report : The converged probe, cached beside the features.

    References
    ----------
    .. [1] G. Alain and Y. Bengio, "Understanding intermediate layers using linear classifier probes",
       arXiv:1610.01644, 2016.

    Examples
    --------
    >>> from tgreedy_course.notebook_features import quick_probe, mnist_network
    >>> report = quick_probe(mnist_network())  # doctest: +SKIP
    """
    from threadpoolctl import threadpool_limits

    from tgreedy_lib.features import PROBE_REGULARIZATION, dbn_inputs, linear_probe

    regularization = PROBE_REGULARIZATION[feature_set.info["dataset"]]
    # One BLAS thread: these fits are small, and extra threads only spin on a machine shared with other work.
    with threadpool_limits(1):
        features = linear_probe(feature_set.train_features, feature_set.train_labels, feature_set.test_features,
                                feature_set.test_labels, regularization, max_iter=QUICK_PROBE_ITERATIONS,
                                tol=QUICK_PROBE_TOLERANCE)
        pixels = linear_probe(dbn_inputs(feature_set.train_images), feature_set.train_labels,
                              dbn_inputs(feature_set.test_images), feature_set.test_labels, regularization,
                              max_iter=QUICK_PROBE_ITERATIONS, tol=QUICK_PROBE_TOLERANCE)
    return {"dataset": feature_set.info["dataset"], "C": regularization, "dbn_features": features,
            "raw_pixels": pixels, "gain": round(features["test_accuracy"] - pixels["test_accuracy"], 4), "quick": True}
