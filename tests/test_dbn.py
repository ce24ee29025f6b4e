"""RBMs and the deep belief network on tiny toy data (fast, CPU)."""
import itertools

import numpy as np
import pytest
import torch

from tgreedy_lib.features.dbn import RBM, DeepBeliefNetwork, RBMTraining, Whitening


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Tiny matrices: one thread is fastest, and immune to a busy machine's thread contention."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

PROTOTYPES = np.array([
    [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0],
    [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1],
    [1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1],
], dtype=np.float32)


def toy_binary_data(n: int = 900, flip: float = 0.05, seed: int = 0) -> np.ndarray:
    """Noisy copies of three 12-bit prototypes (weights 0.5, 0.3, 0.2), each bit flipped with prob. ``flip``."""
    rng = np.random.default_rng(seed)
    which = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    flips = rng.random((n, PROTOTYPES.shape[1])) < flip
    return np.abs(PROTOTYPES[which] - flips).astype(np.float32)


ALL_STATES = torch.tensor(list(itertools.product([0.0, 1.0], repeat=PROTOTYPES.shape[1])))


def exact_distribution(rbm: RBM) -> np.ndarray:
    """p(v) over all 4,096 visible states, from the free energy (exact for 12 units)."""
    return torch.softmax(-rbm.free_energy(ALL_STATES), 0).numpy()


def test_cd1_training_lowers_reconstruction_error():
    data = toy_binary_data()
    rbm = RBM(12, 8, seed=0, device="cpu")
    error_before = rbm.reconstruction_error(data)
    rbm.fit(data, RBMTraining(epochs=30, learning_rate=0.1, batch_size=30), progress=False)
    curve = rbm.history["reconstruction_error"]
    assert len(curve) == 30
    assert curve[-1] < 0.5 * curve[0]
    assert rbm.reconstruction_error(data) < 0.5 * error_before


def test_reseeding_the_generator_replays_the_samples():
    rbm = RBM(12, 8, seed=0, device="cpu")
    visible = torch.as_tensor(toy_binary_data(50))
    rbm.generator.manual_seed(7)
    first = rbm.sample_hidden(visible)[1], rbm.gibbs_chain(visible, steps=3)
    rbm.generator.manual_seed(7)
    again = rbm.sample_hidden(visible)[1], rbm.gibbs_chain(visible, steps=3)
    assert all(torch.equal(a, b) for a, b in zip(first, again))
    assert not torch.equal(rbm.sample_hidden(visible)[1], first[0])  # and the stream moves on
    hidden = rbm.sample_hidden(visible.repeat(40, 1))
    np.testing.assert_allclose(hidden[1].mean(0), hidden[0].mean(0), atol=0.05)  # Bernoulli with these means


@pytest.fixture(scope="module")
def pcd_toy_rbm():
    data = toy_binary_data()
    rbm = RBM(12, 8, seed=0, device="cpu").fit(
        data, RBMTraining(epochs=40, learning_rate=0.01, batch_size=30, persistent=True, cd_steps=2), progress=False)
    return rbm, data


def test_pcd_recovers_the_toy_distribution(pcd_toy_rbm):
    rbm, data = pcd_toy_rbm
    curve = rbm.history["reconstruction_error"]
    assert curve[-1] < 0.5 * curve[0]
    # Exact negative log-likelihood of the data (nats a vector), against the generating mixture's and
    # the best model with independent bits. Over seeds 0-7 the RBM scores 3.83-4.14, the mixture 3.50,
    # independent bits 7.52: the RBM has found the three modes (a single PCD run fluctuates too much
    # for per-bit marginals to be pinned to a few hundredths).
    states = ALL_STATES.numpy()
    distance = np.abs(states[:, None, :] - PROTOTYPES[None]).sum(-1)
    mixture = (np.array([0.5, 0.3, 0.2]) * 0.05 ** distance * 0.95 ** (12 - distance)).sum(1)
    index = (data @ 2 ** np.arange(11, -1, -1)).astype(int)
    nll_mixture = -np.log(mixture[index]).mean()
    marginals = data.mean(0)
    nll_independent = -(data * np.log(marginals) + (1 - data) * np.log(1 - marginals)).sum(1).mean()
    nll_rbm = -np.log(exact_distribution(rbm)[index]).mean()
    assert nll_rbm < nll_mixture + 0.8
    assert nll_rbm < nll_independent - 3.0
    # Free energy is lower on data than on uniform noise: the model puts its mass on the data.
    noise = torch.bernoulli(torch.full((500, 12), 0.5), generator=torch.Generator().manual_seed(2))
    assert rbm.free_energy(torch.as_tensor(data[:500])).mean() < rbm.free_energy(noise).mean() - 1.0


def test_gibbs_samples_follow_the_model(pcd_toy_rbm):
    rbm, data = pcd_toy_rbm
    samples = rbm.gibbs_chain(data[:1000], steps=200).numpy()
    np.testing.assert_allclose(samples.mean(0), exact_distribution(rbm) @ ALL_STATES.numpy(), atol=0.06)
    hamming = np.abs(np.round(samples)[:, None, :] - PROTOTYPES[None]).sum(-1)
    assert (hamming.min(1) <= 2).mean() > 0.85


def test_gaussian_bernoulli_rbm_learns_whitened_data():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 10)) * 3
    raw = centres[rng.integers(0, 3, 600)] @ rng.normal(size=(10, 10)) + 0.1 * rng.normal(size=(600, 10))
    whitened = Whitening(n_components=2).fit(raw).transform(raw)
    rbm = RBM(2, 16, visible="gaussian", seed=0, device="cpu").fit(
        whitened, RBMTraining(epochs=30, learning_rate=0.01, batch_size=50), progress=False)
    curve = rbm.history["reconstruction_error"]
    assert curve[-1] < 0.85 * curve[0]


def test_training_is_deterministic_for_a_seed():
    data = toy_binary_data(n=200)
    settings = RBMTraining(epochs=3, batch_size=20)
    first = RBM(12, 5, seed=7, device="cpu").fit(data, settings, progress=False)
    second = RBM(12, 5, seed=7, device="cpu").fit(data, settings, progress=False)
    other = RBM(12, 5, seed=8, device="cpu").fit(data, settings, progress=False)
    assert torch.equal(first.weights, second.weights)
    assert first.history == second.history
    assert not torch.equal(first.weights, other.weights)


def test_dbn_greedy_training_features_and_safe_round_trip():
    data = toy_binary_data(n=300)
    dbn = DeepBeliefNetwork([12, 10, 6, 20], seed=0, device="cpu")
    dbn.fit(data, [RBMTraining(epochs=4, batch_size=30)] * 3, progress=False)
    assert [len(curve) for curve in dbn.history] == [4, 4, 4]
    assert len(dbn.seconds_per_layer) == 3
    features = dbn.transform(data)
    assert features.shape == (300, 20) and features.dtype == np.float32
    assert features.min() >= 0 and features.max() <= 1
    arrays = dbn.state_arrays()
    assert all(isinstance(a, np.ndarray) and a.dtype != object for a in arrays.values())
    restored = DeepBeliefNetwork.from_state_arrays(arrays, device="cpu")
    np.testing.assert_array_equal(restored.transform(data), features)
    assert restored.history == dbn.history


def test_whitening_gives_identity_covariance():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(2000, 6)) @ rng.normal(size=(6, 6)) + 5
    for kind in ("pca", "zca"):
        white = Whitening(epsilon=0.0, kind=kind).fit(data).transform(data)
        np.testing.assert_allclose(np.cov(white.T), np.eye(6), atol=1e-3)
    reduced = Whitening(n_components=3, epsilon=0.0).fit(data)
    assert reduced.transform(data).shape == (2000, 3)
    assert 0 < reduced.explained_variance_ratio < 1
    with pytest.raises(ValueError, match="ZCA"):
        Whitening(n_components=3, kind="zca").fit(data)


def test_bad_input_is_named():
    rbm = RBM(4, 3, device="cpu")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        rbm.fit(np.full((10, 4), 2.0, dtype=np.float32), progress=False)
    with pytest.raises(ValueError, match="4 visible units"):
        rbm.fit(np.zeros((10, 5), dtype=np.float32), progress=False)
    with pytest.raises(ValueError, match="NaN"):
        rbm.fit(np.full((10, 4), np.nan, dtype=np.float32), progress=False)
    with pytest.raises(ValueError, match="visible must be"):
        RBM(4, 3, visible="poisson")
    with pytest.raises(ValueError, match="learning_rate"):
        RBMTraining(learning_rate=-1.0)
    with pytest.raises(ValueError, match="epochs"):
        RBMTraining(epochs=0)
    with pytest.raises(ValueError, match="training settings"):
        DeepBeliefNetwork([4, 3, 2], device="cpu").fit(np.zeros((5, 4), np.float32), [RBMTraining()], progress=False)


def test_divergence_is_reported():
    data = np.random.default_rng(0).normal(size=(100, 5)).astype(np.float32) * 50
    with pytest.raises(FloatingPointError, match="lower the learning rate"):
        RBM(5, 4, visible="gaussian", device="cpu").fit(
            data, RBMTraining(epochs=20, learning_rate=5.0, batch_size=10, initial_momentum=0.9), progress=False)
