"""Unsupervised features of MNIST and CIFAR-10: their configurations and cache keys, built once and then reused.

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) represents every image by 2,000
real-valued features learnt from unlabeled images. :func:`load_features` builds them (or reads them
back) for 10,000 training and 10,000 test images, by a deep belief network (``kind="dbn"``,
:mod:`.dbn`, the MNIST default) or single-layer convolutional patch features (``"patches"``,
:mod:`.patches`, the CIFAR-10 default; the DBN reads only 39.7 % there). The cache
(``$TGREEDY_CACHE_DIR/features``) is keyed by the SHA-256 of the images, the labels and the full
configuration (:func:`cache_key`).
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

from .. import datasets
from ..files import remove_leftovers
from ._cache import array_digest, read_feature_entry, write_feature_entry
from ._feature_set import FeatureSet
from ._torch import torch
from .dbn import DeepBeliefNetwork, RBMTraining, Whitening, dbn_inputs
from .patches import PATCH_PIPELINE_VERSION, PatchFeatureConfig, fit_patch_model
from .probe import feature_probe

PIPELINE_VERSION = 3
FEATURE_DATASETS = ("mnist", "cifar10")
FEATURE_KINDS = ("dbn", "patches")
DEFAULT_KIND = {"mnist": "dbn", "cifar10": "patches"}


@dataclasses.dataclass(frozen=True)
class FeatureConfig:
    """Everything that determines the DBN features besides the images.

    ``layer_sizes``: input first (after whitening), 2,000 last; ``visible``: the first layer's units,
    ``"bernoulli"`` (intensities in [0, 1]) or ``"gaussian"`` (whitened pixels); ``training``: one
    :class:`RBMTraining` a layer; ``whitening_components`` (``None``: no whitening) and
    ``whitening_epsilon`` (relative to the mean eigenvalue): the PCA whitening; ``seed``: the DBN's.
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
    """The tuned DBN configuration for ``"mnist"`` (784-500-500-2000; fewer passes when it learns from the 60,000
    ``unlabeled`` digits) or ``"cifar10"`` (256-1000-2000, Gaussian first layer); ``benchmarks/README.md``."""
    if dataset == "mnist" and unlabeled:
        # Probe 97.3 % (96.6 % from the 10,000 digits alone); momentum 0.9 from the second epoch.
        return FeatureConfig(
            layer_sizes=(784, 500, 500, 2000), visible="bernoulli",
            training=(RBMTraining(epochs=10, learning_rate=0.1, momentum_switch_epoch=1),
                      RBMTraining(epochs=5, learning_rate=0.1, momentum_switch_epoch=1),
                      RBMTraining(epochs=10, learning_rate=0.1, momentum_switch_epoch=1, sparsity_target=0.05,
                                  sparsity_cost=0.3)))
    if dataset == "mnist":
        # A sparse top layer (Lee, Ekanadham & Ng 2008): probe 96.6 % against 95.9 % without.
        return FeatureConfig(
            layer_sizes=(784, 500, 500, 2000), visible="bernoulli",
            training=(RBMTraining(epochs=15, learning_rate=0.1),
                      RBMTraining(epochs=10, learning_rate=0.1),
                      RBMTraining(epochs=15, learning_rate=0.1, sparsity_target=0.05, sparsity_cost=0.3)))
    if dataset == "cifar10":
        # Probe 39.7 % (raw pixels 35.9 %; a third layer fell to 34.2 %).
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


def _resolve_config(dataset: str, config, unlabeled: bool = False, kind: str = "dbn"):
    kind_class = PatchFeatureConfig if kind == "patches" else FeatureConfig
    default = PatchFeatureConfig() if kind == "patches" else default_config(dataset, unlabeled)
    if config is None:
        return default
    if isinstance(config, dict):
        return kind_class.from_dict({**default.to_dict(), **config})
    if not isinstance(config, kind_class):
        raise TypeError(f"config for kind={kind!r} must be a {kind_class.__name__}, a dict of settings or None, "
                        f"got {type(config).__name__}")
    return config


def cache_key(data: datasets.ImageDataset, config: FeatureConfig | PatchFeatureConfig) -> str:
    """SHA-256 of the data (every array's shape, dtype and bytes), the configuration and the pipeline version."""
    version = PATCH_PIPELINE_VERSION if isinstance(config, PatchFeatureConfig) else PIPELINE_VERSION
    arrays = (data.train_images, data.train_labels, data.test_images, data.test_labels)
    if data.unlabeled_images is not None:
        arrays += (data.unlabeled_images,)
    payload = json.dumps({"data": array_digest(*arrays), "dataset": data.name, "config": config.to_dict(),
                          "pipeline_version": version}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def feature_cache_paths(dataset: str, key: str, cache_dir=None, kind: str = "dbn") -> dict[str, pathlib.Path]:
    """Where the features, the learnt weights, the probe report and the validated probe of one cache key live."""
    folder = datasets.resolve_cache_dir(cache_dir) / "features"
    stem = f"{dataset}-{key[:16]}"
    return {"features": folder / f"{stem}-features.npz", "weights": folder / f"{stem}-{kind}.npz",
            "probe": folder / f"{stem}-probe.json", "linear_probe": folder / f"{stem}-linear-probe.json"}


def load_features(dataset: str, data_dir=None, cache_dir=None, config=None, rebuild: bool = False,
                  progress: bool = True, download: bool = False, device=None, only_cached: bool = False,
                  unlabeled: bool = True, kind: str | None = None, probe: bool = True) -> FeatureSet:
    """2,000 unsupervised features of the paper's MNIST or CIFAR-10 images, built once and then read from the cache.

    ``data_dir``, ``download``: where the images are (:mod:`tgreedy_lib.datasets`); ``config``: a
    :class:`FeatureConfig` or :class:`PatchFeatureConfig`, a dict overriding some defaults, or
    ``None`` (:func:`default_config` or ``PatchFeatureConfig()``); ``rebuild``: ignore the cache;
    ``only_cached``: ``LookupError`` instead of training; ``unlabeled``: the DBN learns from MNIST's
    60,000 official training images when found; ``kind``: default :data:`DEFAULT_KIND`; ``probe``:
    add ``info["probe_accuracy"]`` (:func:`feature_probe`). A damaged entry is rebuilt, an unwritable
    cache skipped, each with a :class:`CacheWarning`.
    """
    kind = _resolve_kind(dataset, kind)
    _resolve_config(dataset, config, kind=kind)  # a bad setting fails before any data are read
    if kind == "patches":
        data = datasets.load_cifar10_paper(data_dir, download, cache_dir, unlabeled=True)
    else:
        data = datasets.load_paper_dataset(dataset, data_dir, download, cache_dir, unlabeled=unlabeled)
    config = _resolve_config(dataset, config, unlabeled=data.unlabeled_images is not None, kind=kind)
    key = cache_key(data, config)
    paths = feature_cache_paths(dataset, key, cache_dir, kind=kind)
    remove_leftovers(paths["features"].parent)
    feature_set = None if rebuild else read_feature_entry(paths, key, data, config)
    if feature_set is None and only_cached:
        raise LookupError(f"{dataset} features for this data and configuration are not cached yet (or their entry "
                          f"was damaged); build them with load_features({dataset!r}) (a few minutes on a CPU)")
    if feature_set is None:
        build = _build_patch_features if kind == "patches" else _build_dbn_features
        feature_set, weights = build(data, config, progress, device)
        feature_set.info.update(cache_key=key, source=data.source, torch_threads=torch.get_num_threads(),
                                created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
        feature_set.cache_path = paths["features"]
        write_feature_entry(paths, weights, feature_set)
    if probe:
        feature_probe(feature_set, rebuild=rebuild)
    return feature_set


def _feature_set(data: datasets.ImageDataset, train_features, test_features, info: dict, **learner) -> FeatureSet:
    info = {"dataset": data.name, "official": bool(data.official_test), "train_size": int(len(train_features)),
            "test_size": int(len(test_features)), "n_features": int(train_features.shape[1]), **info,
            "from_cache": False}
    return FeatureSet(train_features, data.train_labels.astype(np.int64), test_features,
                      data.test_labels.astype(np.int64), info, train_images=data.train_images,
                      test_images=data.test_images, **learner)


def _build_dbn_features(data: datasets.ImageDataset, config: FeatureConfig, progress: bool, device):
    """The FeatureSet and the weights of a DBN (and whitening) learnt from the unlabeled, else the training images."""
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
    seconds = time.perf_counter() - start
    info = {"dbn_training_images": int(len(learn_inputs)), "config": config.to_dict(), "seconds": round(seconds, 3),
            "seconds_per_layer": [round(s, 3) for s in dbn.seconds_per_layer], "device": str(dbn.device),
            "pipeline_version": PIPELINE_VERSION, "kind": "dbn"}
    weights = dbn.state_arrays()
    if whitening is not None:
        weights.update(whitening.state_arrays())
    return _feature_set(data, train_features, test_features, info, dbn=dbn, whitening=whitening), weights


def _cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def _build_patch_features(data: datasets.ImageDataset, config: PatchFeatureConfig, progress: bool, device):
    """The FeatureSet and the weights of patch features learnt from the unlabeled, else the training images."""
    start, cpu_start = time.perf_counter(), _cpu_seconds()
    learn_images = data.unlabeled_images if data.unlabeled_images is not None else data.train_images
    timings: dict = {}
    model = fit_patch_model(learn_images, config, progress=progress, timings=timings)
    tick = time.perf_counter()
    train_features, test_features = model.transform(data.train_images), model.transform(data.test_images)
    timings["encoding"] = time.perf_counter() - tick
    info = {"kind": "patches", "unlabeled_training_images": int(len(learn_images)), "config": config.to_dict(),
            "seconds": round(time.perf_counter() - start, 3), "cpu_seconds": round(_cpu_seconds() - cpu_start, 3),
            "seconds_per_stage": {k: round(v, 3) for k, v in timings.items()}, "device": "cpu",
            "pipeline_version": PATCH_PIPELINE_VERSION}
    return _feature_set(data, train_features, test_features, info, patch_model=model), model.state_arrays()
