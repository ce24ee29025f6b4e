"""Unsupervised features of MNIST and CIFAR-10: their configurations, their cache keys, built once and then reused.

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) represents every image by 2,000
real-valued features learnt from unlabeled images (a deep belief network: Hinton, Osindero &
Teh 2006 for MNIST; Krizhevsky 2009 for CIFAR-10). :func:`load_features` builds those features
(or reuses them) for 10,000 training and 10,000 test images:

    fs = load_features("mnist")          # or "cifar10"
    fs.train_features, fs.train_labels, fs.test_features, fs.test_labels, fs.info
    fs.info["probe_accuracy"]            # linear-probe test accuracy (see feature_probe)

Two kinds of feature learner (``kind``):

``"dbn"``
    A deep belief network on whole images (:mod:`tgreedy_lib.features.dbn`): the default for MNIST. For
    CIFAR-10 it is kept as a documented alternative, ``load_features("cifar10", kind="dbn")``: on
    PCA-whitened pixels it reads only 39.7 % on the linear probe and its pairs carry no
    similarity signal.
``"patches"``
    The single-layer convolutional features of Coates, Lee & Ng (AISTATS 2011), learnt from the
    50,000 unlabeled CIFAR-10 training images (:mod:`tgreedy_lib.features.patches`): the default
    for CIFAR-10 (see ``benchmarks/README.md`` for its probe, pair signal and time).

The cache (``TGREEDY_CACHE_DIR``, default ``~/.cache/tgreedy``, subfolder ``features/``) is keyed
by the SHA-256 of the images and labels and of the full configuration (:func:`cache_key`), so
features are rebuilt whenever the data or any setting changed and reused otherwise. What an entry
holds, how it is checked when read and how a damaged one heals is
:mod:`tgreedy_lib.features._cache`; the linear probe that :func:`load_features` adds is
:mod:`tgreedy_lib.features.probe`.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
.. [2] G. E. Hinton, S. Osindero and Y.-W. Teh, "A Fast Learning Algorithm for Deep Belief
       Nets", Neural Computation 18(7):1527-1554, 2006.
"""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import pathlib
import time

import numpy as np
from ._torch import torch

from .. import _io, datasets
from ._cache import _DamagedEntry, _read_entry, _warn_damaged, _write_entry
from ._feature_set import FeatureSet
from .dbn import DeepBeliefNetwork, RBMTraining, Whitening, dbn_inputs, default_device
from .patches import PATCH_PIPELINE_VERSION, PatchFeatureConfig, PatchFeatureModel, fit_patch_model
from .probe import feature_probe

#: Bump when the feature pipeline changes in a way the configuration does not capture.
PIPELINE_VERSION = 3  # 2-3: CPU Bernoulli samples from numpy SFC64 uniforms (3: seeded per call)
FEATURE_DATASETS = ("mnist", "cifar10")
FEATURE_KINDS = ("dbn", "patches")
#: The feature learner ``load_features`` uses when ``kind`` is not given.
DEFAULT_KIND = {"mnist": "dbn", "cifar10": "patches"}


@dataclasses.dataclass(frozen=True)
class FeatureConfig:
    """Everything that determines the features besides the images.

    Attributes
    ----------
    layer_sizes : tuple of int
        DBN layer sizes, input first (after whitening for CIFAR-10), 2,000 last.
    visible : {"bernoulli", "gaussian"}
        First-layer visible units: Bernoulli on pixel intensities in [0, 1] (MNIST) or Gaussian on
        whitened pixels (CIFAR-10).
    training : tuple of RBMTraining
        One per layer.
    whitening_components : int or None
        PCA-whitening dimension for Gaussian inputs (``None``: no whitening; MNIST).
    whitening_epsilon : float
        Eigenvalue regulariser of the whitening, relative to the mean eigenvalue.
    seed : int
        Seeds the DBN's generator.

    Examples
    --------
    >>> from tgreedy_lib.features import default_config
    >>> config = default_config("mnist")
    >>> config.layer_sizes, config.visible, config.whitening_components
    ((784, 500, 500, 2000), 'bernoulli', None)
    """

    layer_sizes: tuple[int, ...]
    visible: str
    training: tuple[RBMTraining, ...]
    whitening_components: int | None = None
    whitening_epsilon: float = 0.01
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "layer_sizes", tuple(int(s) for s in self.layer_sizes))
        training = tuple(t if isinstance(t, RBMTraining) else RBMTraining(**t) for t in self.training)
        object.__setattr__(self, "training", training)
        if len(self.training) != len(self.layer_sizes) - 1:
            raise ValueError(f"{len(self.training)} training settings for {len(self.layer_sizes) - 1} layers")
        if self.visible not in ("bernoulli", "gaussian"):
            raise ValueError(f"visible must be 'bernoulli' or 'gaussian', got {self.visible!r}")
        if self.visible == "gaussian" and self.whitening_components not in (None, self.layer_sizes[0]):
            raise ValueError(f"whitening_components ({self.whitening_components}) must equal the first layer size "
                             f"({self.layer_sizes[0]})")

    def to_dict(self) -> dict:
        """A JSON-ready dict (the cache key hashes it)."""
        out = dataclasses.asdict(self)
        out["layer_sizes"] = list(self.layer_sizes)
        out["training"] = [dataclasses.asdict(t) for t in self.training]
        return out

    @classmethod
    def from_dict(cls, values: dict) -> "FeatureConfig":
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``."""
        unknown = set(values) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown FeatureConfig setting(s): {sorted(unknown)}")
        return cls(**values)

    def replace(self, **changes) -> "FeatureConfig":
        """A copy with some settings changed."""
        return dataclasses.replace(self, **changes)


def default_config(dataset: str, unlabeled: bool = False) -> FeatureConfig:
    """The tuned configuration for ``"mnist"`` (784-500-500-2000) or ``"cifar10"`` (256-1000-2000, Gaussian first layer).

    Parameters
    ----------
    dataset : {"mnist", "cifar10"}
    unlabeled : bool
        MNIST only: the DBN learns from the 60,000 official training images (the paper's setting)
        rather than from the 10,000 training digits, so it needs fewer passes over them.

    Returns
    -------
    config : FeatureConfig

    Notes
    -----
    Tuned on a 2-core CPU (see ``benchmarks/README.md`` for the probe accuracies and times). These
    are DBN configurations (``kind="dbn"``); CIFAR-10's default features are the patch features,
    configured by :class:`tgreedy_lib.features.patches.PatchFeatureConfig`.

    Examples
    --------
    >>> from tgreedy_lib.features import default_config
    >>> default_config("cifar10").layer_sizes
    (256, 1000, 2000)
    """
    if dataset == "mnist" and unlabeled:
        # 60,000 unlabeled digits (the paper's setting): the probe reads 97.3 % with 10 / 5 / 10 epochs,
        # 96.9-97.1 % with 5 / 3 / 3-5 epochs (two seeds each), against 96.6 % for the 10,000 digits
        # alone. Momentum 0.9 from the second epoch, since there are few epochs.
        return FeatureConfig(
            layer_sizes=(784, 500, 500, 2000), visible="bernoulli",
            training=(RBMTraining(epochs=10, learning_rate=0.1, momentum_switch_epoch=1),
                      RBMTraining(epochs=5, learning_rate=0.1, momentum_switch_epoch=1),
                      RBMTraining(epochs=10, learning_rate=0.1, momentum_switch_epoch=1, sparsity_target=0.05,
                                  sparsity_cost=0.3)))
    if dataset == "mnist":
        # A sparse top layer (Lee, Ekanadham & Ng 2008) helps the linear probe most: 96.6 % against 95.9 %
        # with a plain top layer trained 5 epochs (10,000 train / 10,000 official test digits).
        return FeatureConfig(
            layer_sizes=(784, 500, 500, 2000), visible="bernoulli",
            training=(RBMTraining(epochs=15, learning_rate=0.1),
                      RBMTraining(epochs=10, learning_rate=0.1),
                      RBMTraining(epochs=15, learning_rate=0.1, sparsity_target=0.05, sparsity_cost=0.3)))
    if dataset == "cifar10":
        # A sparse Gaussian-Bernoulli RBM on 256 PCA-whitened dimensions, then a binary RBM up to 2,000
        # units. Measured on the linear probe (10,000 train / 10,000 test): 39.7 %, against 35.9 % for raw
        # pixels and 40.1 % for a single Gaussian layer straight to 2,000 units; a third layer
        # (256-1000-1000-2000) fell to 34.2 %, below the pixels.
        return FeatureConfig(
            layer_sizes=(256, 1000, 2000), visible="gaussian", whitening_components=256,
            training=(RBMTraining(epochs=10, learning_rate=0.005, weight_decay=1e-3, sparsity_target=0.05,
                                  sparsity_cost=0.3),
                      RBMTraining(epochs=10, learning_rate=0.05)))
    raise ValueError(f"dataset must be one of {FEATURE_DATASETS}, got {dataset!r}")


def _resolve_kind(dataset: str, kind: str | None) -> str:
    if dataset not in FEATURE_DATASETS:
        raise ValueError(f"dataset must be one of {FEATURE_DATASETS}, got {dataset!r}")
    kind = DEFAULT_KIND[dataset] if kind is None else kind
    if kind not in FEATURE_KINDS:
        raise ValueError(f"kind must be one of {FEATURE_KINDS}, got {kind!r}")
    if kind == "patches" and dataset != "cifar10":
        raise ValueError(f"kind='patches' (convolutional colour-patch features) is for cifar10, not {dataset!r}; "
                         "use kind='dbn'")
    return kind


def _resolve_patch_config(config) -> PatchFeatureConfig:
    if config is None:
        return PatchFeatureConfig()
    if isinstance(config, PatchFeatureConfig):
        return config
    if isinstance(config, dict):
        return PatchFeatureConfig.from_dict({**PatchFeatureConfig().to_dict(), **config})
    raise TypeError(f"config for kind='patches' must be a PatchFeatureConfig, a dict of settings or None, "
                    f"got {type(config).__name__}")


def _resolve_config(dataset: str, config, unlabeled: bool = False, kind: str = "dbn"):
    if kind == "patches":
        return _resolve_patch_config(config)
    if isinstance(config, PatchFeatureConfig):
        raise TypeError("a PatchFeatureConfig needs kind='patches'")
    if config is None:
        return default_config(dataset, unlabeled)
    if isinstance(config, FeatureConfig):
        return config
    if isinstance(config, dict):
        return FeatureConfig.from_dict({**default_config(dataset, unlabeled).to_dict(), **config})
    raise TypeError(f"config must be a FeatureConfig, a dict of settings or None, got {type(config).__name__}")


def dataset_digest(data: datasets.ImageDataset) -> str:
    """SHA-256 over the shapes, dtypes and bytes of the arrays of ``data`` (the unlabeled images too, if any).

    Examples
    --------
    >>> from tgreedy_lib.datasets import load_mnist_paper
    >>> from tgreedy_lib.features import dataset_digest
    >>> len(dataset_digest(load_mnist_paper(unlabeled=False)))  # a SHA-256 in hex
    64
    """
    digest = hashlib.sha256()
    arrays = (data.train_images, data.train_labels, data.test_images, data.test_labels)
    if data.unlabeled_images is not None:
        arrays += (data.unlabeled_images,)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def cache_key(data: datasets.ImageDataset, config: FeatureConfig | PatchFeatureConfig) -> str:
    """SHA-256 of the data digest, the configuration and the pipeline version.

    Examples
    --------
    >>> from tgreedy_lib.datasets import load_mnist_paper
    >>> from tgreedy_lib.features import cache_key, default_config
    >>> data = load_mnist_paper(unlabeled=False)
    >>> cache_key(data, default_config("mnist")) == cache_key(data, default_config("mnist"))
    True
    """
    version = PATCH_PIPELINE_VERSION if isinstance(config, PatchFeatureConfig) else PIPELINE_VERSION
    payload = json.dumps({"data": dataset_digest(data), "dataset": data.name, "config": config.to_dict(),
                          "pipeline_version": version}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def feature_cache_paths(dataset: str, key: str, cache_dir=None, kind: str = "dbn") -> dict[str, pathlib.Path]:
    """Where the features, the learnt weights, the probe report and the validated probe of one cache key live.

    Examples
    --------
    >>> from tgreedy_lib.features import feature_cache_paths
    >>> paths = feature_cache_paths("mnist", "0123456789abcdef0123", cache_dir="cache")
    >>> {name: path.as_posix() for name, path in paths.items()}
    {'features': 'cache/features/mnist-0123456789abcdef-features.npz', 'weights': 'cache/features/mnist-0123456789abcdef-dbn.npz', 'probe': 'cache/features/mnist-0123456789abcdef-probe.json', 'linear_probe': 'cache/features/mnist-0123456789abcdef-linear-probe.json'}
    """
    folder = datasets.resolve_cache_dir(cache_dir) / "features"
    stem = f"{dataset}-{key[:16]}"
    return {"features": folder / f"{stem}-features.npz", "weights": folder / f"{stem}-{kind}.npz",
            "probe": folder / f"{stem}-probe.json", "linear_probe": folder / f"{stem}-linear-probe.json"}


def build_features(data: datasets.ImageDataset, config: FeatureConfig, progress: bool = True,
                   device=None) -> tuple[np.ndarray, np.ndarray, DeepBeliefNetwork, Whitening | None, float]:
    """Train the DBN without labels, then compute train and test features.

    The DBN (and the whitening) learn from ``data.unlabeled_images`` when there are any (MNIST's
    60,000 official training images), else from the training images; never from a test image.

    Returns
    -------
    train_features, test_features, dbn, whitening, seconds

    Examples
    --------
    >>> from tgreedy_lib.datasets import load_mnist_paper
    >>> from tgreedy_lib.features import build_features, default_config
    >>> train, test, dbn, whitening, seconds = build_features(load_mnist_paper(), default_config("mnist"))  # doctest: +SKIP
    """
    start = time.perf_counter()
    train_inputs, test_inputs = dbn_inputs(data.train_images), dbn_inputs(data.test_images)
    learn_inputs = dbn_inputs(data.unlabeled_images) if data.unlabeled_images is not None else train_inputs
    whitening = None
    if config.whitening_components is not None:
        whitening = Whitening(config.whitening_components, config.whitening_epsilon).fit(learn_inputs)
        train_inputs, test_inputs = whitening.transform(train_inputs), whitening.transform(test_inputs)
        learn_inputs = whitening.transform(learn_inputs) if data.unlabeled_images is not None else train_inputs
    if train_inputs.shape[1] != config.layer_sizes[0]:
        raise ValueError(f"{data.name} inputs have {train_inputs.shape[1]} values but layer_sizes starts with "
                         f"{config.layer_sizes[0]}")
    dbn = DeepBeliefNetwork(config.layer_sizes, visible=config.visible, seed=config.seed, device=device)
    dbn.fit(learn_inputs, config.training, progress=progress)
    train_features, test_features = dbn.transform(train_inputs), dbn.transform(test_inputs)
    return train_features, test_features, dbn, whitening, time.perf_counter() - start


def load_features(dataset: str, data_dir=None, cache_dir=None, config=None, rebuild: bool = False,
                  progress: bool = True, download: bool = False, device=None, only_cached: bool = False,
                  unlabeled: bool = True, kind: str | None = None, probe: bool = True) -> FeatureSet:
    """2,000 unsupervised features of the paper's MNIST or CIFAR-10 images, built once and then read from the cache.

    Parameters
    ----------
    dataset : {"mnist", "cifar10"}
    data_dir : path, optional
        Data folder (default ``$TGREEDY_DATA_DIR``); see :mod:`tgreedy_lib.datasets` for the order
        of looking. MNIST always works offline (bundled digits; with no official test set a split
        of them is the test set and ``info["official"]`` is false). CIFAR-10 needs a local copy or
        ``download=True``, else ``FileNotFoundError``.
    cache_dir : path, optional
        Default ``$TGREEDY_CACHE_DIR`` or ``~/.cache/tgreedy``.
    config : FeatureConfig, PatchFeatureConfig, dict or None
        ``None``: :func:`default_config` for the data found (``unlabeled=True`` when the DBN learns
        from MNIST's 60,000 official training images), or ``PatchFeatureConfig()`` for
        ``kind="patches"``; a dict overrides some of its settings.
    rebuild : bool
        Ignore (and overwrite) a cached copy.
    progress : bool
        tqdm bars while training.
    download : bool
        Allow downloading official files (checksum-verified).
    device : optional
        Torch device for training (default: a GPU when present).
    only_cached : bool
        Never train: raise ``LookupError`` when the features are not in the cache.
    unlabeled : bool
        Let the DBN learn from MNIST's 60,000 official training images when they are found (see
        :func:`tgreedy_lib.datasets.load_mnist_paper`); ``False``: from the 10,000 training digits only.
        (Patch features always learn from CIFAR-10's 50,000 training images, labels unread.)
    kind : {"dbn", "patches"} or None
        The feature learner (default :data:`DEFAULT_KIND`: ``"dbn"`` for MNIST, ``"patches"`` for
        CIFAR-10). ``load_features("cifar10", kind="dbn")`` is the old whole-image DBN.
    probe : bool
        Add ``info["probe_accuracy"]``, the linear probe of :func:`feature_probe` (computed once per
        cache key, stored beside the features).

    Returns
    -------
    FeatureSet

    Raises
    ------
    FileNotFoundError
        If the images are not available (CIFAR-10 without a local copy or ``download=True``).
    LookupError
        If ``only_cached`` and the features have not been built yet (or their entry is damaged).

    Warns
    -----
    CacheWarning
        When the cached entry is damaged or does not match its key or the data (it is rebuilt), or
        when the cache cannot be written (the features are computed and returned, not stored).

    Examples
    --------
    >>> from tgreedy_lib.features import load_features
    >>> feature_set = load_features("mnist", progress=False)  # doctest: +SKIP
    >>> feature_set.train_features.shape, feature_set.test_features.shape  # doctest: +SKIP
    ((10000, 2000), (10000, 2000))
    """
    kind = _resolve_kind(dataset, kind)
    _resolve_config(dataset, config, kind=kind)  # a bad setting fails before any data are read
    data = _paper_images(dataset, kind, data_dir, download, cache_dir, unlabeled)
    config = _resolve_config(dataset, config, unlabeled=data.unlabeled_images is not None, kind=kind)
    key = cache_key(data, config)
    paths = feature_cache_paths(dataset, key, cache_dir, kind=kind)
    _io.remove_leftovers(paths["features"].parent, earlier=True)  # temporary files of writers that were killed
    feature_set = None if rebuild else _read_cache(paths, key, data, config)
    if feature_set is None and only_cached:
        raise LookupError(f"{dataset} features for this data and configuration are not cached yet (or their entry "
                          f"was damaged); build them with load_features({dataset!r}) (a few minutes on a CPU)")
    if feature_set is None:
        build = _build_patch_feature_set if kind == "patches" else _build_dbn_feature_set
        feature_set = build(data, config, key, paths, progress, device)
    if probe:
        feature_probe(feature_set, rebuild=rebuild)
    return feature_set


def _paper_images(dataset: str, kind: str, data_dir, download: bool, cache_dir,
                  unlabeled: bool) -> datasets.ImageDataset:
    """The paper's images for features of ``kind`` (patch features learn from CIFAR-10's 50,000 training images)."""
    if kind == "patches":
        return datasets.load_cifar10_paper(data_dir, download, cache_dir, unlabeled=True)
    return datasets.load_paper_dataset(dataset, data_dir, download, cache_dir, unlabeled=unlabeled)


def _build_dbn_feature_set(data: datasets.ImageDataset, config: FeatureConfig, key: str, paths: dict,
                           progress: bool, device) -> FeatureSet:
    dataset = data.name
    train_features, test_features, dbn, whitening, seconds = build_features(data, config, progress, device)
    info = {"dataset": dataset, "official": bool(data.official_test), "train_size": int(len(train_features)),
            "test_size": int(len(test_features)), "n_features": int(train_features.shape[1]),
            "dbn_training_images": int(len(data.unlabeled_images if data.unlabeled_images is not None
                                           else data.train_images)),
            "config": config.to_dict(), "seconds": round(seconds, 3),
            "seconds_per_layer": [round(s, 3) for s in dbn.seconds_per_layer], "cache_key": key,
            "source": data.source, "device": str(dbn.device), "torch_threads": torch.get_num_threads(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "pipeline_version": PIPELINE_VERSION, "kind": "dbn"}
    weights = dbn.state_arrays()
    if whitening is not None:
        weights.update(whitening.state_arrays())
    _write_feature_cache(paths, weights, train_features, test_features, data, info)
    return FeatureSet(train_features, data.train_labels.astype(np.int64), test_features,
                      data.test_labels.astype(np.int64), {**info, "from_cache": False}, dbn, whitening,
                      data.train_images, data.test_images, cache_path=paths["features"])


def _write_feature_cache(paths: dict, weights: dict, train_features, test_features, data, info: dict) -> None:
    """The weights, then the features (a reader needs both; a writer killed between them leaves an
    incomplete entry that the next call rebuilds). A cache that cannot be written stores nothing."""
    key = info["cache_key"]
    if _write_entry(paths["weights"], weights, key):
        _write_entry(paths["features"], {
            "train_features": train_features.astype(np.float32), "train_labels": data.train_labels.astype(np.int64),
            "test_features": test_features.astype(np.float32), "test_labels": data.test_labels.astype(np.int64),
            "info_json": np.asarray(json.dumps(info, sort_keys=True))}, key)


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process (all threads) so far."""
    times = os.times()
    return times.user + times.system


def build_patch_features(data: datasets.ImageDataset, config: PatchFeatureConfig, progress: bool = False
                         ) -> tuple[np.ndarray, np.ndarray, PatchFeatureModel, dict]:
    """Learn the patch features from ``data.unlabeled_images`` (else the training images), then encode.

    Never reads a label and never sees a test image while learning.

    Returns
    -------
    train_features, test_features, model, timings
        ``timings``: wall seconds per stage (``patches``, ``whitening``, ``dictionary``, ``encoding``,
        ``total``) and ``cpu_seconds`` (user + system of this process, all threads).
    """
    start, cpu_start = time.perf_counter(), _cpu_seconds()
    learn_images = data.unlabeled_images if data.unlabeled_images is not None else data.train_images
    timings: dict = {}
    model = fit_patch_model(learn_images, config, progress=progress, timings=timings)
    tick = time.perf_counter()
    train_features, test_features = model.transform(data.train_images), model.transform(data.test_images)
    timings["encoding"] = time.perf_counter() - tick
    timings["total"] = time.perf_counter() - start
    timings = {k: round(v, 3) for k, v in timings.items()}
    timings["cpu_seconds"] = round(_cpu_seconds() - cpu_start, 3)
    return train_features, test_features, model, timings


def _build_patch_feature_set(data: datasets.ImageDataset, config: PatchFeatureConfig, key: str, paths: dict,
                             progress: bool, device) -> FeatureSet:
    train_features, test_features, model, timings = build_patch_features(data, config, progress)
    learn_images = data.unlabeled_images if data.unlabeled_images is not None else data.train_images
    info = {"dataset": data.name, "kind": "patches", "official": bool(data.official_test),
            "train_size": int(len(train_features)), "test_size": int(len(test_features)),
            "n_features": int(train_features.shape[1]), "unlabeled_training_images": int(len(learn_images)),
            "config": config.to_dict(), "seconds": timings["total"], "cpu_seconds": timings["cpu_seconds"],
            "seconds_per_stage": {k: v for k, v in timings.items() if k not in ("total", "cpu_seconds")},
            "cache_key": key, "source": data.source, "device": "cpu", "torch_threads": torch.get_num_threads(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "pipeline_version": PATCH_PIPELINE_VERSION}
    _write_feature_cache(paths, model.state_arrays(), train_features, test_features, data, info)
    return FeatureSet(train_features, data.train_labels.astype(np.int64), test_features,
                      data.test_labels.astype(np.int64), {**info, "from_cache": False}, None, None,
                      data.train_images, data.test_images, cache_path=paths["features"], patch_model=model)


def _read_cache(paths: dict[str, pathlib.Path], key: str, data: datasets.ImageDataset, config) -> FeatureSet | None:
    """The cached FeatureSet of ``key``, with the images of ``data``; None when there is none or it is damaged (then
    with a :class:`CacheWarning`).

    Both files are read whole and checked against their record (:func:`_read_entry`) and against
    ``data`` and ``config``: the labels and row counts of both sets, float32 features of one width,
    finite, and weights of the configured shape. Files written before records existed that pass
    these checks get their record, atomically, in place.
    """
    present = {name: paths[name].is_file() for name in ("features", "weights")}
    if not any(present.values()):
        return None
    try:
        if not all(present.values()):
            missing = "features" if not present["features"] else "weights"
            raise _DamagedEntry(f"its {missing} file {paths[missing].name} is missing (an interrupted build)")
        current = "features"
        stored, features_recorded = _read_entry(paths["features"], key)
        info, arrays = _check_feature_arrays(stored, key, data)
        current = "weights"
        weights, weights_recorded = _read_entry(paths["weights"], key)
        feature_set = _feature_set_from_cache(paths, info, arrays, weights, config)
    except _DamagedEntry as error:
        _warn_damaged(paths[current] if all(present.values()) else paths["features"], str(error))
        return None
    feature_set.train_images, feature_set.test_images = data.train_images, data.test_images
    # An entry of the earlier format that passed every check: give it its record (never required).
    if not weights_recorded and _write_entry(paths["weights"], weights, key, quiet=True) is False:
        return feature_set
    if not features_recorded:
        _write_entry(paths["features"], stored, key, quiet=True)
    return feature_set


def _check_feature_arrays(stored: dict, key: str, data: datasets.ImageDataset) -> tuple[dict, dict]:
    """``(info, arrays)`` of a features file, or :class:`_DamagedEntry` saying what does not match ``data``."""
    names = ("train_features", "train_labels", "test_features", "test_labels", "info_json")
    missing = [name for name in names if name not in stored]
    if missing:
        raise _DamagedEntry(f"it has no {', '.join(missing)}")
    try:
        info = json.loads(str(stored["info_json"]))
    except ValueError:
        raise _DamagedEntry("its info_json is not JSON") from None
    if not isinstance(info, dict) or info.get("cache_key") != key:
        found = info.get("cache_key") if isinstance(info, dict) else None
        raise _DamagedEntry(f"it holds the features of another key ({str(found)[:16]}...)")
    arrays = {name: stored[name] for name in names[:4]}
    width = None
    for part, images, labels in (("train", data.train_images, data.train_labels),
                                 ("test", data.test_images, data.test_labels)):
        features, stored_labels = arrays[f"{part}_features"], arrays[f"{part}_labels"]
        if features.ndim != 2 or features.dtype != np.float32:
            raise _DamagedEntry(f"{part}_features are {features.dtype} of shape {features.shape}, not float32 rows")
        if features.shape[0] != len(images):
            raise _DamagedEntry(f"{part}_features have {features.shape[0]} rows for {len(images)} {part} images")
        if width is not None and features.shape[1] != width:
            raise _DamagedEntry(f"train and test features differ in width ({width} and {features.shape[1]})")
        width = features.shape[1]
        if stored_labels.dtype != np.int64 or not np.array_equal(stored_labels, labels):
            raise _DamagedEntry(f"its {part}_labels are not the labels of the {part} images")
        if not np.all(np.isfinite(features)):
            raise _DamagedEntry(f"{part}_features hold NaN or infinite values")
    if info.get("n_features") not in (None, width):
        raise _DamagedEntry(f"its features are {width} wide, its info says {info.get('n_features')}")
    return info, arrays


def _feature_set_from_cache(paths: dict, info: dict, arrays: dict, weights: dict, config) -> FeatureSet:
    """The FeatureSet of checked arrays and its learner rebuilt from ``weights`` (:class:`_DamagedEntry` if it cannot be)."""
    width = arrays["train_features"].shape[1]
    try:
        if info.get("kind") == "patches":
            model = PatchFeatureModel.from_state_arrays(weights, PatchFeatureConfig.from_dict(info["config"]))
            d = model.whitening_projection.shape[0]
            if (model.n_features != width or model.weights.shape[0] != d or model.whitening_mean.shape != (d,)
                    or model.bias.shape != (model.weights.shape[1],)):
                raise _DamagedEntry(f"its dictionary ({model.weights.shape}) does not fit its whitening ({d}) "
                                    f"or the features' width {width}")
            return FeatureSet(arrays["train_features"], arrays["train_labels"], arrays["test_features"],
                              arrays["test_labels"], {**info, "from_cache": True}, cache_path=paths["features"],
                              patch_model=model)
        dbn = DeepBeliefNetwork.from_state_arrays(weights, device=default_device())
        whitening = None
        if getattr(config, "whitening_components", None) is not None or "whitening_mean" in weights:
            settings = info["config"]
            whitening = Whitening(settings["whitening_components"], settings["whitening_epsilon"])
            whitening.mean, whitening.projection = weights["whitening_mean"], weights["whitening_projection"]
    except (KeyError, ValueError, TypeError, IndexError, RuntimeError) as error:
        raise _DamagedEntry(f"its weights cannot rebuild the feature learner ({type(error).__name__}: {error})") from None
    sizes = list(getattr(config, "layer_sizes", dbn.layer_sizes))
    shapes = [tuple(rbm.weights.shape) for rbm in dbn.rbms]
    if list(dbn.layer_sizes) != sizes or sizes[-1] != width or shapes != list(zip(sizes[:-1], sizes[1:])):
        raise _DamagedEntry(f"its network has layers {list(dbn.layer_sizes)}, the configuration {sizes} "
                            f"and the features are {width} wide")
    return FeatureSet(arrays["train_features"], arrays["train_labels"], arrays["test_features"],
                      arrays["test_labels"], {**info, "from_cache": True}, dbn, whitening, cache_path=paths["features"])
