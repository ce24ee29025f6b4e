"""Convolutional patch features of CIFAR-10 learnt without labels (Coates, Lee & Ng, AISTATS 2011).

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) represents CIFAR-10 images by 2,000
unsupervised features "of the kind" of Krizhevsky (2009); the single-layer convolutional pipeline of
Coates, Lee & Ng (2011) learns them from unlabeled images on a CPU:

1. **Patches.** ``n_patches`` random 6 x 6 x 3 patches of the 50,000 unlabeled CIFAR-10 training
   images (their labels are never read).
2. **Normalization.** Each patch (pixel values 0-255) loses its mean and is divided by
   ``sqrt(var + normalization_epsilon)`` (brightness and contrast normalization).
3. **ZCA whitening** of the normalized patches (:class:`tgreedy_lib.features.dbn.Whitening`,
   eigenvalue regulariser ``whitening_epsilon`` times the mean eigenvalue).
4. **Dictionary** of ``n_units`` (500) on the whitened patches: spherical k-means
   (:func:`spherical_kmeans`, ``"kmeans"``), plain k-means (:func:`euclidean_kmeans`,
   ``"kmeans-euclidean"``) or a Gaussian-Bernoulli RBM (:class:`tgreedy_lib.features.dbn.RBM`, ``"rbm"``).
5. **Encoding at every position** (stride 1, 27 x 27 positions of a 32 x 32 image): every patch is
   normalized and whitened as in 2-3, then encoded: k-means ``"triangle"`` (the default)
   ``f_k = max(0, mean_j z_j - z_k)`` with ``z_k = ||x - d_k||``, or ``"soft-threshold"``
   ``f_k = max(0, d_k'x - threshold)``; RBM ``"probability"`` ``sigmoid(c_k + w_k'x)`` or
   ``"rectified"`` (the default) ``max(0, c_k + w_k'x)``.
6. **Quadrant pooling.** The 27 x 27 maps are summed over the four quadrants (rows and columns
   0-13 and 14-26, as Coates et al.'s code), giving ``4 * n_units`` = 2,000 features, ordered
   quadrant-major: feature ``q * n_units + k`` is unit ``k`` summed over quadrant ``q`` (0 top left,
   1 top right, 2 bottom left, 3 bottom right).

:func:`fit_patch_model` learns steps 1-4 and :meth:`PatchFeatureModel.transform` applies 5-6.
Coates & Ng (Neural Networks: Tricks of the Trade, 2012, section 3) give spherical k-means.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from ._torch import torch
from .dbn import RBM, RBMTraining, Whitening

PATCH_DICTIONARIES = ("kmeans", "kmeans-euclidean", "rbm")
ENCODERS = {"kmeans": ("triangle", "soft-threshold"), "kmeans-euclidean": ("triangle", "soft-threshold"),
            "rbm": ("probability", "rectified")}
PATCH_PIPELINE_VERSION = 1
#: The RBM's default training on whitened patches (Gaussian visibles, sparse hidden units).
DEFAULT_RBM_TRAINING = RBMTraining(epochs=10, learning_rate=0.01, batch_size=100, weight_decay=1e-3,
                                   sparsity_target=0.05, sparsity_cost=0.3)


@dataclasses.dataclass(frozen=True)
class PatchFeatureConfig:
    """Everything that determines the patch features besides the images: the settings of steps 1-6 above.

    ``encoder=None`` takes the dictionary's default; ``seed`` seeds the patch draw, the k-means start
    and the RBM. The defaults were chosen on the probe's validation split (``benchmarks/README.md``).
    """

    dictionary: str = "kmeans"
    encoder: str | None = None
    n_units: int = 500
    patch_size: int = 6
    n_patches: int = 200_000
    normalization_epsilon: float = 10.0
    whitening_epsilon: float = 1.0
    kmeans_iterations: int = 10
    threshold: float = 0.25
    rbm_training: RBMTraining = DEFAULT_RBM_TRAINING
    seed: int = 0

    def __post_init__(self):
        if self.dictionary not in PATCH_DICTIONARIES:
            raise ValueError(f"dictionary must be one of {PATCH_DICTIONARIES}, got {self.dictionary!r}")
        if self.encoder is None:
            object.__setattr__(self, "encoder", "rectified" if self.dictionary == "rbm" else "triangle")
        if self.encoder not in ENCODERS[self.dictionary]:
            raise ValueError(f"encoder {self.encoder!r} does not fit dictionary {self.dictionary!r}; "
                             f"choose one of {ENCODERS[self.dictionary]}")
        if not isinstance(self.rbm_training, RBMTraining):
            object.__setattr__(self, "rbm_training", RBMTraining(**self.rbm_training))
        for name in ("n_units", "patch_size", "n_patches", "kmeans_iterations"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("normalization_epsilon", "whitening_epsilon", "threshold"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be finite and >= 0, got {value!r}")

    @property
    def n_features(self) -> int:
        """``4 * n_units``: one per unit and quadrant."""
        return 4 * self.n_units

    def to_dict(self) -> dict:
        """A JSON-ready dict (the cache key hashes it)."""
        out = dataclasses.asdict(self)
        out["kind"] = "patches"
        return out

    @classmethod
    def from_dict(cls, values: dict) -> "PatchFeatureConfig":
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``."""
        values = {k: v for k, v in values.items() if k != "kind"}
        unknown = set(values) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown PatchFeatureConfig setting(s): {sorted(unknown)}")
        return cls(**values)

    def replace(self, **changes) -> "PatchFeatureConfig":
        """A copy with some settings changed (the encoder follows a changed dictionary unless given)."""
        if "dictionary" in changes and "encoder" not in changes:
            changes["encoder"] = None
        return dataclasses.replace(self, **changes)


def _check_images(images, name: str = "images") -> np.ndarray:
    images = np.asarray(images)
    if images.ndim != 4 or images.shape[3] != 3:
        raise ValueError(f"{name} must be colour images of shape (n, height, width, 3), channels last; "
                         f"got shape {images.shape}")
    if images.dtype != np.uint8:
        raise ValueError(f"{name} must be uint8 pixel values 0-255, got dtype {images.dtype}; "
                         "convert with (images * 255).round().astype(np.uint8) if they are in [0, 1]")
    return images


def sample_patches(images: np.ndarray, n_patches: int, patch_size: int = 6, seed: int = 0) -> np.ndarray:
    """``n_patches`` random square patches of uint8 ``images``: float32 rows, channel first (as ``unfold``)."""
    images = _check_images(images)
    n, height, width, _ = images.shape
    if patch_size > min(height, width):
        raise ValueError(f"patch_size {patch_size} exceeds the {height} x {width} images")
    rng = np.random.default_rng(seed)
    which = rng.integers(0, n, n_patches)
    rows = rng.integers(0, height - patch_size + 1, n_patches)
    cols = rng.integers(0, width - patch_size + 1, n_patches)
    offsets = np.arange(patch_size)
    patches = images[which[:, None, None], (rows[:, None] + offsets)[:, :, None], (cols[:, None] + offsets)[:, None, :]]
    return np.ascontiguousarray(patches.transpose(0, 3, 1, 2).reshape(n_patches, -1), dtype=np.float32)


def normalize_patches(patches, epsilon: float = 10.0):
    """``(x - mean(x)) / sqrt(var(x) + epsilon)`` per row (sample variance), numpy or torch."""
    if isinstance(patches, torch.Tensor):
        centred = patches - patches.mean(dim=1, keepdim=True)
        return centred / torch.sqrt(centred.pow(2).sum(1, keepdim=True) / (patches.shape[1] - 1) + epsilon)
    patches = np.asarray(patches, dtype=np.float32)
    centred = patches - patches.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred ** 2).sum(1, keepdims=True) / (patches.shape[1] - 1) + epsilon)


def spherical_kmeans(data, n_clusters: int, iterations: int = 10, seed: int = 0,
                     batch_size: int = 20_000, init=None) -> np.ndarray:
    """Spherical k-means with Coates & Ng's damped update; unit-norm centroids, float32 (n_clusters, d).

    Each point ``x`` goes to ``k = argmax_j d_j'x`` (signed, so each unit has one polarity),
    ``d_k <- d_k + sum s x`` with ``s = d_k'x``, renormalized; a centroid that wins no point restarts
    at a random data point. ``batch_size`` bounds memory only.
    """
    data, generator, centroids = _kmeans_start(data, n_clusters, seed, init)

    def unit(rows):
        return rows / rows.norm(dim=1, keepdim=True).clamp_min(1e-12)

    centroids = unit(centroids)
    for _ in range(iterations):
        update = centroids.clone()
        wins = torch.zeros(n_clusters, dtype=torch.long)
        for start in range(0, len(data), batch_size):
            batch = data[start:start + batch_size]
            code, winner = (batch @ centroids.T).max(dim=1)
            update.index_add_(0, winner, batch * code[:, None])
            wins += torch.bincount(winner, minlength=n_clusters)
        centroids = unit(update)
        empty = torch.nonzero(wins == 0).flatten()
        if len(empty):
            centroids[empty] = unit(data[torch.randint(0, len(data), (len(empty),), generator=generator)])
    return centroids.numpy()


def _kmeans_start(data, n_clusters, seed: int, init):
    """The data as a float32 tensor, the seeded generator and the initial centroids."""
    data = torch.as_tensor(np.asarray(data, dtype=np.float32))
    if data.ndim != 2 or len(data) < 1:
        raise ValueError(f"data must be a 2-d array (points x dimensions), got shape {tuple(data.shape)}")
    if not torch.isfinite(data).all():
        raise ValueError("data contains NaN or infinite values")
    if not isinstance(n_clusters, (int, np.integer)) or not 1 <= n_clusters <= len(data):
        raise ValueError(f"n_clusters must be an integer in 1..{len(data)} (the number of points), got {n_clusters!r}")
    generator = torch.Generator().manual_seed(seed)
    if init is None:
        centroids = data[torch.randperm(len(data), generator=generator)[:n_clusters]].clone()
    else:
        centroids = torch.as_tensor(np.asarray(init, dtype=np.float32)).clone()
        if centroids.shape != (n_clusters, data.shape[1]):
            raise ValueError(f"init must have shape {(n_clusters, data.shape[1])}, got {tuple(centroids.shape)}")
    return data, generator, centroids


def euclidean_kmeans(data, n_clusters: int, iterations: int = 10, seed: int = 0,
                     batch_size: int = 20_000, init=None) -> np.ndarray:
    """Plain k-means (Lloyd's iterations, as Coates et al.'s ``run_kmeans.m``); float32 (n_clusters, d)."""
    data, generator, centroids = _kmeans_start(data, n_clusters, seed, init)
    for _ in range(iterations):
        half_norms = 0.5 * centroids.pow(2).sum(1)
        sums = torch.zeros_like(centroids)
        counts = torch.zeros(n_clusters, dtype=torch.float32)
        for start in range(0, len(data), batch_size):
            batch = data[start:start + batch_size]
            winner = (batch @ centroids.T - half_norms).argmax(dim=1)
            sums.index_add_(0, winner, batch)
            counts += torch.bincount(winner, minlength=n_clusters).float()
        won = counts > 0
        centroids[won] = sums[won] / counts[won, None]
        empty = torch.nonzero(~won).flatten()
        if len(empty):
            centroids[empty] = data[torch.randint(0, len(data), (len(empty),), generator=generator)]
    return centroids.numpy()


@dataclasses.dataclass
class PatchFeatureModel:
    """A learnt single-layer convolutional feature map: normalization, ZCA, dictionary (``weights`` (d, n_units),
    ``bias``: zeros for k-means), encoder."""

    config: PatchFeatureConfig
    whitening_mean: np.ndarray
    whitening_projection: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    history: dict = dataclasses.field(default_factory=dict)

    @property
    def n_features(self) -> int:
        return 4 * self.weights.shape[1]

    def _encode(self, patches: torch.Tensor) -> torch.Tensor:
        """Unit responses of raw patches (rows of 0-255 pixel values, channel first): steps 2, 3, 5."""
        whitened = (normalize_patches(patches, self.config.normalization_epsilon)
                    - torch.from_numpy(self.whitening_mean)) @ torch.from_numpy(self.whitening_projection)
        weights, encoder = torch.from_numpy(self.weights), self.config.encoder
        if encoder in ("probability", "rectified"):
            activation = torch.addmm(torch.from_numpy(self.bias), whitened, weights)
            return torch.sigmoid(activation) if encoder == "probability" else activation.clamp_min_(0)
        if encoder == "soft-threshold":
            return (whitened @ weights).sub_(self.config.threshold).clamp_min_(0)
        # triangle: z_k = ||x - d_k|| = sqrt(|x|^2 + |d_k|^2 - 2 d_k'x)
        squares = whitened.pow(2).sum(1, keepdim=True) + weights.pow(2).sum(0)
        distance = torch.addmm(squares, whitened, weights, alpha=-2).clamp_min_(0).sqrt_()
        return torch.sub(distance.mean(1, keepdim=True), distance, out=distance).clamp_min_(0)

    def transform(self, images, batch_size: int = 10) -> np.ndarray:
        """Features of uint8 ``images``: every position encoded, summed over the quadrants; float32 (n, 4 * n_units)."""
        images = _check_images(images)
        size = self.config.patch_size
        out = np.empty((len(images), self.n_features), dtype=np.float32)
        with torch.no_grad():
            for start in range(0, len(images), batch_size):
                batch = torch.from_numpy(images[start:start + batch_size]).permute(0, 3, 1, 2).float()
                columns = torch.nn.functional.unfold(batch, size)  # (b, 3 p^2, positions)
                b, d, positions = columns.shape
                rows, cols = batch.shape[2] - size + 1, batch.shape[3] - size + 1
                responses = self._encode(columns.transpose(1, 2).reshape(b * positions, d))
                out[start:start + b] = pool_quadrants(responses.reshape(b, rows, cols, -1)).reshape(b, -1).numpy()
        return out

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The learnt arrays, plain numpy (safe for ``np.savez``)."""
        return {"patch_whitening_mean": self.whitening_mean, "patch_whitening_projection": self.whitening_projection,
                "patch_weights": self.weights, "patch_bias": self.bias,
                "patch_reconstruction_error": np.asarray(self.history.get("reconstruction_error", []), dtype=np.float64)}

    @classmethod
    def from_state_arrays(cls, arrays, config: PatchFeatureConfig) -> "PatchFeatureModel":
        """Rebuild a model saved with :meth:`state_arrays`."""
        history = {"reconstruction_error": np.asarray(arrays["patch_reconstruction_error"]).tolist()}
        return cls(config, *(np.asarray(arrays[f"patch_{name}"], dtype=np.float32) for name in
                             ("whitening_mean", "whitening_projection", "weights", "bias")), history=history)


def pool_quadrants(responses):
    """Sum ``(n, rows, cols, units)`` maps over the quadrants (split at ``ceil(rows / 2)``) -> ``(n, 4, units)``."""
    rows, cols = responses.shape[1], responses.shape[2]
    r, c = (rows + 1) // 2, (cols + 1) // 2
    parts = [responses[:, :r, :c], responses[:, :r, c:], responses[:, r:, :c], responses[:, r:, c:]]
    if isinstance(responses, torch.Tensor):
        return torch.stack([p.sum(dim=(1, 2)) for p in parts], dim=1)
    return np.stack([p.sum(axis=(1, 2)) for p in parts], axis=1)


def fit_patch_model(images, config: PatchFeatureConfig = PatchFeatureConfig(), progress: bool = False,
                    timings: dict | None = None) -> PatchFeatureModel:
    """Learn the whitening and the dictionary from unlabeled uint8 images (steps 1-4); ``timings`` gets seconds a stage."""
    timings = {} if timings is None else timings
    tick = time.perf_counter()
    patches = normalize_patches(sample_patches(images, config.n_patches, config.patch_size, config.seed),
                                config.normalization_epsilon)
    timings["patches"] = time.perf_counter() - tick
    tick = time.perf_counter()
    whitening = Whitening(epsilon=config.whitening_epsilon, kind="zca").fit(patches)
    mean = whitening.mean.astype(np.float32)
    projection = whitening.projection.astype(np.float32)
    whitened = (patches - mean) @ projection
    del patches
    timings["whitening"] = time.perf_counter() - tick
    tick = time.perf_counter()
    history: dict = {}
    if config.dictionary in ("kmeans", "kmeans-euclidean"):
        learn = spherical_kmeans if config.dictionary == "kmeans" else euclidean_kmeans
        weights = learn(whitened, config.n_units, config.kmeans_iterations, config.seed).T
        bias = np.zeros(config.n_units, dtype=np.float32)
    else:
        rbm = RBM(whitened.shape[1], config.n_units, visible="gaussian", seed=config.seed, device="cpu")
        rbm.fit(whitened, config.rbm_training, progress=progress, description="patch RBM")
        weights, bias = rbm.weights.numpy(), rbm.hidden_bias.numpy()
        history = {"reconstruction_error": list(rbm.history["reconstruction_error"])}
    timings["dictionary"] = time.perf_counter() - tick
    return PatchFeatureModel(config, mean, projection, np.ascontiguousarray(weights, dtype=np.float32),
                             np.asarray(bias, dtype=np.float32), history)
