"""The feature vectors every experiment of section 4 starts from.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4: "In all experiments, we use 10,000
digits (1,000 per class) for training and 10,000 digits for testing. Instead of using raw pixel
values, each image was represented by 2000 real-valued features, that were extracted using a deep
belief network" -- and the same for CIFAR-10.

:func:`load_experiment_features` returns those features through one of two feature maps:

``"dbn"``
    The paper's: the deep-belief-network features of :func:`tgreedy_lib.features.load_features`
    (trained once on the unlabeled training images and cached on disk).
``"random"``
    A stand-in without any training: ``sigmoid(W z + b)`` for standardized pixels ``z`` and a fixed
    (seeded) Gaussian ``W`` -- 1,000 random sigmoid units, positive and never constant like DBN
    features. Fast; used by the unit tests and handy for a first look, but *not* the paper's setting.
``"pixels"``
    The raw pixel intensities scaled to [0, 1] (784 features for MNIST, 3,072 for CIFAR-10). Not
    the paper's setting either, and degenerate for T-greedy: a pixel that is dark on every image
    except some '2's has the same covariance in every '2 vs k' domain (the '2's are shared), hence
    zero spread and an infinite T-statistic.

Features that are constant on the training images (pixels at the border of every digit, dead
hidden units) carry no information, and their T-statistic is 0/0; they are dropped, and how many
were dropped is recorded in ``info``.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .. import datasets
from .._json import jsonable

FEATURE_MAPS = ("dbn", "random", "pixels")
#: Width and seed of the random sigmoid stand-in.
RANDOM_UNITS = 1000
RANDOM_SEED = 0
DATASETS = ("mnist", "cifar10")

#: A training feature whose variance is below this is treated as constant and dropped.
CONSTANT_VARIANCE = 1e-12


@dataclasses.dataclass
class ExperimentFeatures:
    """Feature vectors of the training and the test images, with their labels.

    Attributes
    ----------
    train_features, test_features : ndarray of shape (n, p), float64
    train_labels, test_labels : ndarray of int64
        Class labels 0-9.
    info : dict
        JSON-ready description: ``dataset``, ``feature_map``, ``official`` (whether the test set is
        the data set's official test set), ``train_size``, ``test_size``, ``n_features``,
        ``dropped_constant_features`` and whatever the feature builder reported.

    See Also
    --------
    load_experiment_features : The features of the paper's data sets.
    tgreedy_lib.experiments.run_experiment : Runs an experiment on them.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, sections 1 and 4.

    Examples
    --------
    Toy features (ten Gaussian clusters in 20 dimensions standing in for the digit classes), so
    that the example runs in a moment; the experiments use the paper's DBN features:

    >>> import numpy as np
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> rng = np.random.default_rng(0)
    >>> centres = rng.standard_normal((10, 20))
    >>> train_labels, test_labels = np.repeat(np.arange(10), 60), np.repeat(np.arange(10), 30)
    >>> features = ExperimentFeatures(
    ...     centres[train_labels] + rng.standard_normal((600, 20)), train_labels,
    ...     centres[test_labels] + rng.standard_normal((300, 20)), test_labels,
    ...     {"dataset": "toy", "feature_map": "gaussian clusters", "official": False})
    >>> features.n_features, features.classes.tolist()
    (20, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    """

    train_features: np.ndarray
    train_labels: np.ndarray
    test_features: np.ndarray
    test_labels: np.ndarray
    info: dict

    def __post_init__(self):
        for split in ("train", "test"):
            X = getattr(self, f"{split}_features")
            y = getattr(self, f"{split}_labels")
            if np.ndim(X) != 2:
                raise ValueError(f"{split}_features must be a 2-d array (images x features), got shape {np.shape(X)}")
            if np.ndim(y) != 1 or len(y) != len(X):
                raise ValueError(f"{split}_labels must be a vector with one label per row of {split}_features "
                                 f"({len(X)} rows), got shape {np.shape(y)}")
        if self.train_features.shape[1] != self.test_features.shape[1]:
            raise ValueError(f"train and test features differ in width: {self.train_features.shape[1]} "
                             f"vs {self.test_features.shape[1]}")

    @property
    def n_features(self) -> int:
        """Number of features p."""
        return int(self.train_features.shape[1])

    @property
    def classes(self) -> np.ndarray:
        """The class labels present in the training set, sorted."""
        return np.unique(self.train_labels)

    def data_summary(self) -> dict:
        """The ``data`` block of an experiment's JSON: dataset, sizes, whether the test set is official."""
        keys = ("dataset", "feature_map", "official", "train_size", "test_size", "n_features",
                "dropped_constant_features", "source")
        return {key: self.info[key] for key in keys if key in self.info}


def drop_constant_features(features: ExperimentFeatures) -> ExperimentFeatures:
    """Remove the features that are constant over the training images (section 3.3 divides by their spread).

    See Also
    --------
    load_experiment_features : Drops them on loading.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.experiments.inputs import ExperimentFeatures, drop_constant_features
    >>> X = np.column_stack([np.arange(4.0), np.ones(4)])
    >>> kept = drop_constant_features(ExperimentFeatures(X, np.arange(4), X, np.arange(4), {}))
    >>> kept.n_features, kept.info["dropped_constant_features"]
    (1, 1)
    """
    variance = features.train_features.var(axis=0)
    keep = variance > CONSTANT_VARIANCE
    info = dict(features.info)
    info["dropped_constant_features"] = int((~keep).sum()) + int(info.get("dropped_constant_features", 0))
    info["n_features"] = int(keep.sum())
    if keep.all():
        features.info = info
        return features
    return ExperimentFeatures(features.train_features[:, keep], features.train_labels,
                              features.test_features[:, keep], features.test_labels, info)


def _pixel_features(dataset: str, data_dir=None) -> ExperimentFeatures:
    images = datasets.load_paper_dataset(dataset, data_dir=data_dir)
    train = images.train_images.reshape(len(images.train_images), -1).astype(np.float64) / 255.0
    test = images.test_images.reshape(len(images.test_images), -1).astype(np.float64) / 255.0
    info = dict(dataset=dataset, feature_map="pixels", official=bool(images.official_test),
                train_size=int(len(train)), test_size=int(len(test)), source=images.source)
    return ExperimentFeatures(train, images.train_labels.astype(np.int64), test,
                              images.test_labels.astype(np.int64), info)


def _random_sigmoid_features(dataset: str, data_dir=None, n_units: int = RANDOM_UNITS,
                             seed: int = RANDOM_SEED) -> ExperimentFeatures:
    pixels = _pixel_features(dataset, data_dir)
    mean = pixels.train_features.mean(axis=0)
    scale = pixels.train_features.std(axis=0) + 0.1
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((pixels.n_features, n_units)) / np.sqrt(pixels.n_features)
    bias = rng.normal(-1.0, 1.0, n_units)

    def transform(X):
        return 1.0 / (1.0 + np.exp(-(((X - mean) / scale) @ weights + bias)))

    info = dict(pixels.info, feature_map="random", random_units=int(n_units), random_seed=int(seed))
    return ExperimentFeatures(transform(pixels.train_features), pixels.train_labels,
                              transform(pixels.test_features), pixels.test_labels, info)


def _dbn_features(dataset: str, data_dir=None, cache_dir=None, progress: bool = False) -> ExperimentFeatures:
    try:
        from ..features import load_features
    except ImportError as error:  # pragma: no cover - depends on the feature module being present
        raise ValueError("the 'dbn' feature map needs tgreedy_lib.features (deep-belief-network features), "
                         f"which could not be imported ({error}); use feature_map='pixels' for the stand-in") from None
    built = load_features(dataset, data_dir=data_dir, cache_dir=cache_dir, progress=progress)
    info = dict(getattr(built, "info", {}) or {})
    info.update(dataset=dataset, feature_map="dbn")
    train = np.asarray(built.train_features, dtype=np.float64)
    test = np.asarray(built.test_features, dtype=np.float64)
    info.setdefault("official", bool(info.get("official_test", False)))
    info["official"] = bool(info["official"])
    info["train_size"] = int(len(train))
    info["test_size"] = int(len(test))
    return ExperimentFeatures(train, np.asarray(built.train_labels, dtype=np.int64), test,
                              np.asarray(built.test_labels, dtype=np.int64), _json_ready(info))


def _json_ready(info: dict) -> dict:
    """Keep only the JSON-representable, path-free entries of a feature builder's info."""
    return jsonable(info, unknown="drop", keep=_not_a_path)


def _not_a_path(key: str, value) -> bool:
    """Never leak machine paths into results (``source`` names a data source, not a path)."""
    return not (isinstance(value, str) and ("/" in value or "\\" in value) and key != "source")


def load_experiment_features(dataset: str, feature_map: str = "dbn", *, data_dir=None, cache_dir=None,
                             progress: bool = False) -> ExperimentFeatures:
    """The training and test features of ``dataset`` (section 4), constant features dropped.

    Parameters
    ----------
    dataset : {"mnist", "cifar10"}
    feature_map : {"dbn", "random", "pixels"}
        ``"dbn"``: the paper's deep-belief-network features (cached on disk after the first build);
        ``"random"``: random sigmoid units of the pixels, ``"pixels"``: raw pixels in [0, 1] --
        fast stand-ins that are not the paper's setting.
    data_dir, cache_dir : path, optional
        Where the images (default: ``TGREEDY_DATA_DIR``, then the bundled data) and the feature cache live.
    progress : bool
        Show progress while DBN features are trained.

    Returns
    -------
    ExperimentFeatures

    Raises
    ------
    ValueError
        For an unknown data set or feature map.
    FileNotFoundError
        When the images are not available (CIFAR-10 is not bundled).

    See Also
    --------
    ExperimentFeatures : What it returns.
    tgreedy_lib.features.load_features : The DBN features and their cache.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, sections 1 and 4.

    Examples
    --------
    >>> from tgreedy_lib.experiments import load_experiment_features
    >>> features = load_experiment_features("mnist")  # doctest: +SKIP
    >>> features.train_features.shape  # doctest: +SKIP
    (10000, 2000)
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {dataset!r}")
    if feature_map not in FEATURE_MAPS:
        raise ValueError(f"feature_map must be one of {FEATURE_MAPS}, got {feature_map!r}")
    if feature_map == "pixels":
        features = _pixel_features(dataset, data_dir)
    elif feature_map == "random":
        features = _random_sigmoid_features(dataset, data_dir)
    else:
        features = _dbn_features(dataset, data_dir, cache_dir, progress)
    return drop_constant_features(features)
