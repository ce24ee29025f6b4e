"""Restricted Boltzmann machines and a deep belief network, in torch.

A restricted Boltzmann machine (RBM) over visible units ``v`` and binary hidden units ``h`` has the
energy

    Bernoulli visibles:          E(v, h) = -b'v - c'h - v'Wh
    Gaussian visibles (var. 1):  E(v, h) = |v - b|^2 / 2 - c'h - v'Wh

so ``p(h_j = 1 | v) = sigmoid(c_j + v'W[:, j])`` and ``p(v_i = 1 | h) = sigmoid(b_i + W[i]h)`` (or
``v | h ~ N(b + Wh, I)`` for Gaussian visibles). The log-likelihood gradient is
``<v h'>_data - <v h'>_model``; contrastive divergence (CD-k, Hinton 2002) replaces the model
expectation by ``k`` steps of Gibbs sampling started at the data, and persistent contrastive
divergence (PCD, Tieleman 2008) keeps the Gibbs chains running across parameter updates. A deep
belief network (Hinton, Osindero & Teh 2006) is trained greedily: one RBM on the data, the next on
the hidden probabilities of the first, and so on; the top layer's hidden probabilities are the
features. Updates follow Hinton's practical guide (2010): mini-batches, momentum, L2 weight decay.
Gaussian-Bernoulli RBMs expect whitened inputs (:class:`Whitening`, PCA or ZCA, as Krizhevsky 2009).
Everything random draws from one seeded :class:`torch.Generator` (deterministic on CPU for a fixed
seed and thread count); a GPU is used when present.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Sequence

import numpy as np
from tqdm.auto import tqdm

from ._torch import torch

VISIBLE_TYPES = ("bernoulli", "gaussian")


def default_device() -> torch.device:
    """``cuda`` when a GPU is present, else ``cpu``."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _as_tensor(data, name: str, device: torch.device, dtype=torch.float32) -> torch.Tensor:
    tensor = torch.as_tensor(np.asarray(data) if not isinstance(data, torch.Tensor) else data)
    if tensor.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (samples x units), got shape {tuple(tensor.shape)}")
    tensor = tensor.to(device=device, dtype=dtype)
    if not torch.isfinite(tensor).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return tensor


@dataclasses.dataclass(frozen=True)
class RBMTraining:
    """How one RBM is trained (Hinton's practical guide, 2010).

    ``cd_steps`` is the ``k`` of CD-k / PCD-k (``persistent``); momentum is ``initial_momentum`` for
    the first ``momentum_switch_epoch`` epochs, then ``final_momentum``; ``weight_decay`` is an L2
    penalty on the weights; ``learning_rate_decay`` anneals the rate linearly to 10 %; a running mean
    of each hidden unit's activation is pulled towards ``sparsity_target`` with weight
    ``sparsity_cost`` (Lee, Ekanadham & Ng 2008; 0: no penalty).
    """

    epochs: int = 10
    learning_rate: float = 0.05
    batch_size: int = 100
    cd_steps: int = 1
    persistent: bool = False
    initial_momentum: float = 0.5
    final_momentum: float = 0.9
    momentum_switch_epoch: int = 5
    weight_decay: float = 2e-4
    learning_rate_decay: bool = True
    sparsity_target: float = 0.0
    sparsity_cost: float = 0.0

    def __post_init__(self):
        for name in ("epochs", "batch_size", "cd_steps"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not (self.learning_rate > 0 and math.isfinite(self.learning_rate)):
            raise ValueError(f"learning_rate must be positive and finite, got {self.learning_rate!r}")
        for name in ("initial_momentum", "final_momentum"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must lie in [0, 1), got {getattr(self, name)!r}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay!r}")
        if not 0 <= self.sparsity_target < 1 or self.sparsity_cost < 0:
            raise ValueError(f"sparsity_target must lie in [0, 1) and sparsity_cost be >= 0, got "
                             f"{self.sparsity_target!r}, {self.sparsity_cost!r}")


@dataclasses.dataclass
class _TrainingState:
    """What :meth:`RBM.fit` carries across mini-batches."""
    velocity_w: torch.Tensor
    velocity_b: torch.Tensor
    velocity_c: torch.Tensor
    mean_activity: torch.Tensor
    chains: torch.Tensor | None


class RBM:
    """A restricted Boltzmann machine with binary hidden units and ``"bernoulli"`` or ``"gaussian"`` visibles.

    All randomness comes from ``generator`` (else one seeded with ``seed``);
    ``history["reconstruction_error"]`` gains one entry per epoch of :meth:`fit`.
    """

    def __init__(self, n_visible: int, n_hidden: int, visible: str = "bernoulli",
                 generator: torch.Generator | None = None, seed: int = 0, device=None):
        if visible not in VISIBLE_TYPES:
            raise ValueError(f"visible must be one of {VISIBLE_TYPES}, got {visible!r}")
        for name, value in (("n_visible", n_visible), ("n_hidden", n_hidden)):
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.device = torch.device(device) if device is not None else default_device()
        self.visible = visible
        self.generator = generator if generator is not None else torch.Generator(device=self.device).manual_seed(seed)
        self.weights = 0.01 * torch.randn(n_visible, n_hidden, generator=self.generator, device=self.device)
        self.visible_bias = torch.zeros(n_visible, device=self.device)
        self.hidden_bias = torch.zeros(n_hidden, device=self.device)
        self.history: dict[str, list[float]] = {"reconstruction_error": []}

    @property
    def n_visible(self) -> int:
        return self.weights.shape[0]

    @property
    def n_hidden(self) -> int:
        return self.weights.shape[1]

    def hidden_probabilities(self, visible: torch.Tensor) -> torch.Tensor:
        """``p(h = 1 | v) = sigmoid(c + v W)`` for a batch of visible vectors."""
        return torch.sigmoid(torch.addmm(self.hidden_bias, visible, self.weights))

    def visible_mean(self, hidden: torch.Tensor) -> torch.Tensor:
        """``E[v | h]``: ``sigmoid(b + h W')`` (Bernoulli) or ``b + h W'`` (Gaussian)."""
        activation = torch.addmm(self.visible_bias, hidden, self.weights.T)
        return torch.sigmoid(activation) if self.visible == "bernoulli" else activation

    def _bernoulli(self, probabilities: torch.Tensor) -> torch.Tensor:
        """A 0/1 sample; on the CPU from numpy's SFC64 (seeded per call from the torch generator), which is faster."""
        if probabilities.device.type != "cpu":
            return torch.bernoulli(probabilities, generator=self.generator)
        seed = int(torch.randint(0, 2 ** 62, (1,), generator=self.generator))
        uniforms = np.random.Generator(np.random.SFC64(seed)).random(tuple(probabilities.shape), dtype=np.float32)
        return (torch.from_numpy(uniforms) < probabilities).to(probabilities.dtype)

    def sample_hidden(self, visible: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Probabilities and a Bernoulli sample of the hidden units given ``visible``."""
        probabilities = self.hidden_probabilities(visible)
        return probabilities, self._bernoulli(probabilities)

    def sample_visible(self, hidden: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean and a sample of the visible units given ``hidden``."""
        mean = self.visible_mean(hidden)
        if self.visible == "bernoulli":
            return mean, self._bernoulli(mean)
        noise = torch.randn(mean.shape, generator=self.generator, device=mean.device, dtype=mean.dtype)
        return mean, mean + noise

    def free_energy(self, visible: torch.Tensor) -> torch.Tensor:
        """``F(v) = -log sum_h exp(-E(v, h))`` per row; ``p(v)`` is proportional to ``exp(-F(v))``."""
        visible_term = (-visible @ self.visible_bias if self.visible == "bernoulli"
                        else 0.5 * ((visible - self.visible_bias) ** 2).sum(1))
        return visible_term - torch.nn.functional.softplus(torch.addmm(self.hidden_bias, visible, self.weights)).sum(1)

    @torch.no_grad()
    def gibbs_chain(self, visible, steps: int) -> torch.Tensor:
        """Run ``steps`` alternating Gibbs steps from ``visible``; return the final visible means."""
        state = mean = _as_tensor(visible, "visible", self.device)
        for _ in range(steps):
            _, hidden = self.sample_hidden(state)
            mean, state = self.sample_visible(hidden)
        return mean

    @torch.no_grad()
    def reconstruction_error(self, data) -> float:
        """Mean squared error between ``data`` and ``E[v | h]`` for a sampled ``h ~ p(h | data)``."""
        data = _as_tensor(data, "data", self.device)
        _, hidden = self.sample_hidden(data)
        return float(((data - self.visible_mean(hidden)) ** 2).mean())

    @torch.no_grad()
    def transform(self, data, batch_size: int = 2000) -> torch.Tensor:
        """Hidden probabilities for every row of ``data`` (a tensor on this RBM's device)."""
        data = _as_tensor(data, "data", self.device)
        return torch.cat([self.hidden_probabilities(data[i:i + batch_size]) for i in range(0, len(data), batch_size)])

    @torch.no_grad()
    def fit(self, data, training: RBMTraining = RBMTraining(), progress: bool = True,
            description: str = "RBM") -> "RBM":
        """Train by CD-k or PCD-k on ``data`` (in [0, 1] for Bernoulli visibles, whitened for Gaussian)."""
        data = _as_tensor(data, "data", self.device)
        if data.shape[1] != self.n_visible:
            raise ValueError(f"data has {data.shape[1]} columns but the RBM has {self.n_visible} visible units")
        if self.visible == "bernoulli" and (data.min() < 0 or data.max() > 1):
            raise ValueError("Bernoulli visible units need data in [0, 1] (probabilities); scale or binarize it")
        n = len(data)
        batch_size = min(training.batch_size, n)
        n_batches = max(n // batch_size, 1)
        state = _TrainingState(*(torch.zeros_like(p) for p in (self.weights, self.visible_bias, self.hidden_bias)),
                               torch.full((self.n_hidden,), training.sparsity_target, device=self.device), None)
        if training.persistent:
            state.chains = data[torch.randint(0, n, (batch_size,), generator=self.generator, device=self.device)].clone()
        bar = tqdm(range(training.epochs), desc=description, disable=not progress, leave=False)
        for epoch in bar:
            momentum = training.initial_momentum if epoch < training.momentum_switch_epoch else training.final_momentum
            rate = training.learning_rate
            if training.learning_rate_decay and training.epochs > 1:
                rate *= 1.0 - 0.9 * epoch / (training.epochs - 1)
            order = torch.randperm(n, generator=self.generator, device=self.device)
            error_sum = torch.zeros((), device=self.device)
            for b in range(n_batches):
                batch = data[order[b * batch_size:(b + 1) * batch_size]]
                error_sum += self._contrastive_divergence_step(batch, training, state, rate, momentum)
            epoch_error = float(error_sum) / n_batches
            if not math.isfinite(epoch_error):
                raise FloatingPointError(f"{description}: training diverged in epoch {epoch + 1} "
                                         f"(reconstruction error {epoch_error}); lower the learning rate")
            self.history["reconstruction_error"].append(epoch_error)
            bar.set_postfix(recon_error=f"{epoch_error:.4f}")
        bar.close()
        return self

    def _contrastive_divergence_step(self, batch: torch.Tensor, training: RBMTraining, state: _TrainingState,
                                     rate: float, momentum: float) -> torch.Tensor:
        """One CD-k or PCD-k update on ``batch``; returns its reconstruction error (a 0-d tensor)."""
        positive_hidden, hidden_sample = self.sample_hidden(batch)
        reconstruction = self.visible_mean(hidden_sample)
        error = ((batch - reconstruction) ** 2).mean()
        negative_visible = self._negative_phase(reconstruction, training, state)
        negative_hidden = self.hidden_probabilities(negative_visible)
        # velocity <- momentum * velocity + rate * ((<v h'>_data - <v h'>_model) / m - weight_decay * W), in place
        scale = rate / len(batch)
        state.velocity_w.addmm_(batch.T, positive_hidden, beta=momentum, alpha=scale)
        state.velocity_w.addmm_(negative_visible.T, negative_hidden, alpha=-scale)
        if training.weight_decay:
            state.velocity_w.add_(self.weights, alpha=-rate * training.weight_decay)
        grad_b = (batch - negative_visible).mean(0)
        grad_c = (positive_hidden - negative_hidden).mean(0)
        if training.sparsity_cost > 0 and training.sparsity_target > 0:
            state.mean_activity.mul_(0.9).add_(positive_hidden.mean(0), alpha=0.1)
            pull = training.sparsity_cost * (training.sparsity_target - state.mean_activity)
            grad_c += pull
            state.velocity_w.addr_(batch.mean(0), pull, alpha=rate)
        state.velocity_b.mul_(momentum).add_(grad_b, alpha=rate)
        state.velocity_c.mul_(momentum).add_(grad_c, alpha=rate)
        self.weights.add_(state.velocity_w)
        self.visible_bias.add_(state.velocity_b)
        self.hidden_bias.add_(state.velocity_c)
        return error

    def _negative_phase(self, reconstruction: torch.Tensor, training: RBMTraining,
                        state: _TrainingState) -> torch.Tensor:
        """``cd_steps`` Gibbs steps on the PCD chains, or ``cd_steps - 1`` more from the reconstruction (means)."""
        if training.persistent:
            negative_visible = state.chains
            for _ in range(training.cd_steps):
                _, hidden = self.sample_hidden(negative_visible)
                _, negative_visible = self.sample_visible(hidden)
            state.chains = negative_visible
            return negative_visible
        negative_visible = reconstruction
        for _ in range(training.cd_steps - 1):
            _, hidden = self.sample_hidden(negative_visible)
            negative_visible = self.visible_mean(hidden)
        return negative_visible

    def state_arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        """Parameters and history as plain numpy arrays (safe for ``np.savez``)."""
        return {f"{prefix}weights": self.weights.cpu().numpy(),
                f"{prefix}visible_bias": self.visible_bias.cpu().numpy(),
                f"{prefix}hidden_bias": self.hidden_bias.cpu().numpy(),
                f"{prefix}reconstruction_error": np.asarray(self.history["reconstruction_error"], dtype=np.float64)}

    @classmethod
    def from_state_arrays(cls, arrays, visible: str, prefix: str = "", device=None) -> "RBM":
        """Rebuild an RBM saved with :meth:`state_arrays`."""
        weights = np.asarray(arrays[f"{prefix}weights"])
        rbm = cls(weights.shape[0], weights.shape[1], visible=visible, device=device)
        rbm.weights = torch.as_tensor(weights, device=rbm.device).clone()
        rbm.visible_bias = torch.as_tensor(np.asarray(arrays[f"{prefix}visible_bias"]), device=rbm.device).clone()
        rbm.hidden_bias = torch.as_tensor(np.asarray(arrays[f"{prefix}hidden_bias"]), device=rbm.device).clone()
        rbm.history["reconstruction_error"] = np.asarray(arrays[f"{prefix}reconstruction_error"]).tolist()
        return rbm


class DeepBeliefNetwork:
    """A stack of RBMs of ``layer_sizes`` (inputs first) trained greedily; ``visible`` is the first RBM's."""

    def __init__(self, layer_sizes: Sequence[int], visible: str = "bernoulli", seed: int = 0, device=None):
        layer_sizes = [int(s) for s in layer_sizes]
        if len(layer_sizes) < 2:
            raise ValueError(f"layer_sizes needs at least an input and one hidden size, got {layer_sizes}")
        self.device = torch.device(device) if device is not None else default_device()
        self.generator = torch.Generator(device=self.device).manual_seed(seed)
        self.layer_sizes = layer_sizes
        self.rbms = [RBM(n_in, n_out, visible=visible if i == 0 else "bernoulli", generator=self.generator,
                         device=self.device)
                     for i, (n_in, n_out) in enumerate(zip(layer_sizes[:-1], layer_sizes[1:]))]
        self.seconds_per_layer: list[float] = []

    @property
    def history(self) -> list[list[float]]:
        """Reconstruction error per epoch, one list per layer."""
        return [rbm.history["reconstruction_error"] for rbm in self.rbms]

    def fit(self, data, training: RBMTraining | Sequence[RBMTraining] = RBMTraining(),
            progress: bool = True) -> "DeepBeliefNetwork":
        """Greedy layer-wise training: each RBM learns from the hidden probabilities of the one below."""
        trainings = [training] * len(self.rbms) if isinstance(training, RBMTraining) else list(training)
        if len(trainings) != len(self.rbms):
            raise ValueError(f"got {len(trainings)} training settings for {len(self.rbms)} layers")
        layer_input = _as_tensor(data, "data", self.device)
        if layer_input.shape[1] != self.layer_sizes[0]:
            raise ValueError(f"data has {layer_input.shape[1]} columns, the first layer expects {self.layer_sizes[0]}")
        self.seconds_per_layer = []
        for i, (rbm, settings) in enumerate(zip(self.rbms, trainings)):
            start = time.perf_counter()
            rbm.fit(layer_input, settings, progress=progress,
                    description=f"layer {i + 1} ({rbm.n_visible}->{rbm.n_hidden})")
            if i + 1 < len(self.rbms):
                layer_input = rbm.transform(layer_input)
            if self.device.type == "cuda":
                torch.cuda.synchronize()
            self.seconds_per_layer.append(time.perf_counter() - start)
        return self

    @torch.no_grad()
    def transform(self, data, batch_size: int = 2000) -> np.ndarray:
        """Top-layer hidden probabilities (the features), float32 (n, layer_sizes[-1])."""
        data = _as_tensor(data, "data", self.device)
        if data.shape[1] != self.layer_sizes[0]:
            raise ValueError(f"data has {data.shape[1]} columns, the first layer expects {self.layer_sizes[0]}")
        out = []
        for i in range(0, len(data), batch_size):
            activity = data[i:i + batch_size]
            for rbm in self.rbms:
                activity = rbm.hidden_probabilities(activity)
            out.append(activity.cpu())
        return torch.cat(out).numpy()

    @torch.no_grad()
    def generate(self, start, gibbs_steps: int = 200) -> np.ndarray:
        """Samples of the generative model: ``start`` up to the top RBM, ``gibbs_steps`` there, means back down."""
        state = _as_tensor(start, "start", self.device)
        for rbm in self.rbms[:-1]:
            state = rbm.hidden_probabilities(state)
        state = self.rbms[-1].gibbs_chain(state, gibbs_steps)
        for rbm in reversed(self.rbms[:-1]):
            state = rbm.visible_mean(state)
        return state.cpu().numpy()

    def state_arrays(self) -> dict[str, np.ndarray]:
        """All parameters and training curves as numpy arrays (for ``np.savez(allow_pickle=False)``)."""
        arrays = {"layer_sizes": np.asarray(self.layer_sizes, dtype=np.int64),
                  "first_visible": np.asarray(self.rbms[0].visible),
                  "seconds_per_layer": np.asarray(self.seconds_per_layer, dtype=np.float64)}
        for i, rbm in enumerate(self.rbms):
            arrays.update(rbm.state_arrays(prefix=f"layer{i}_"))
        return arrays

    @classmethod
    def from_state_arrays(cls, arrays, device=None) -> "DeepBeliefNetwork":
        """Rebuild a network saved with :meth:`state_arrays`."""
        layer_sizes = np.asarray(arrays["layer_sizes"]).tolist()
        visible = str(np.asarray(arrays["first_visible"]))
        dbn = cls(layer_sizes, visible=visible, device=device)
        dbn.rbms = [RBM.from_state_arrays(arrays, visible=visible if i == 0 else "bernoulli", prefix=f"layer{i}_",
                                          device=dbn.device) for i in range(len(layer_sizes) - 1)]
        for rbm in dbn.rbms:
            rbm.generator = dbn.generator
        dbn.seconds_per_layer = np.asarray(arrays["seconds_per_layer"]).tolist()
        return dbn


def dbn_inputs(images: np.ndarray) -> np.ndarray:
    """Images as float32 rows of intensities in [0, 1]: the DBN's inputs, and the probe's raw pixels."""
    return images.reshape(len(images), -1).astype(np.float32) / 255.0


class Whitening:
    """PCA or ZCA whitening: ``x -> (x - mean) U diag(1 / sqrt(lambda + epsilon * mean(lambda)))`` on the top
    ``n_components`` directions (PCA), rotated back by ``U'`` (ZCA, every dimension)."""

    def __init__(self, n_components: int | None = None, epsilon: float = 0.01, kind: str = "pca"):
        if kind not in ("pca", "zca"):
            raise ValueError(f"kind must be 'pca' or 'zca', got {kind!r}")
        if epsilon < 0:
            raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
        self.n_components, self.epsilon, self.kind = n_components, epsilon, kind
        self.mean = self.projection = None

    def fit(self, data) -> "Whitening":
        """Eigen-decompose the covariance of ``data`` (rows are samples), in float64."""
        data = torch.as_tensor(np.asarray(data), dtype=torch.float64)
        if data.ndim != 2 or len(data) < 2:
            raise ValueError(f"data must be 2-d with at least 2 rows, got shape {tuple(data.shape)}")
        k = data.shape[1] if self.n_components is None else int(self.n_components)
        if not 1 <= k <= data.shape[1]:
            raise ValueError(f"n_components must lie in 1..{data.shape[1]}, got {self.n_components}")
        if self.kind == "zca" and k != data.shape[1]:
            raise ValueError("ZCA whitening keeps every dimension: leave n_components as None")
        mean = data.mean(0)
        centred = data - mean
        covariance = centred.T @ centred / (len(data) - 1)
        eigenvalues, eigenvectors = torch.linalg.eigh(covariance)
        eigenvalues, eigenvectors = eigenvalues.flip(0)[:k], eigenvectors.flip(1)[:, :k]
        scale = eigenvalues.clamp_min(0) + self.epsilon * eigenvalues.mean()
        projection = eigenvectors / scale.sqrt()
        if self.kind == "zca":
            projection = projection @ eigenvectors.T
        self.mean, self.projection = mean.numpy(), projection.numpy()
        self.explained_variance_ratio = float(eigenvalues.sum() / torch.trace(covariance))
        return self

    def transform(self, data) -> np.ndarray:
        """Whitened ``data`` as float32."""
        if self.projection is None:
            raise RuntimeError("call fit() before transform()")
        data = np.asarray(data, dtype=np.float64)
        return ((data - self.mean) @ self.projection).astype(np.float32)

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {"whitening_mean": self.mean, "whitening_projection": self.projection}
