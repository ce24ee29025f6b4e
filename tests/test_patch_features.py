"""Convolutional patch features (Coates, Lee & Ng 2011) against slow, obviously correct references, on synthetic images."""
import numpy as np
import pytest
import torch

from tgreedy_lib.features import patches as pf
from tgreedy_lib.features.dbn import RBMTraining, Whitening


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def synthetic_images(n=12, size=10, seed=0):
    """Smooth random colour images (uint8) so patches have structure, plus noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[:size, :size] / size
    images = []
    for _ in range(n):
        phase, freq = rng.uniform(0, 2 * np.pi, 3), rng.uniform(1, 4, 3)
        planes = [128 + 100 * np.sin(2 * np.pi * f * (x + (c + 1) * y) + p) for c, (f, p) in enumerate(zip(freq, phase))]
        images.append(np.stack(planes, -1) + rng.normal(0, 10, (size, size, 3)))
    return np.clip(np.round(images), 0, 255).astype(np.uint8)


def tiny_config(**changes):
    values = dict(n_units=7, patch_size=3, n_patches=400, kmeans_iterations=3,
                  rbm_training=RBMTraining(epochs=2, batch_size=50, learning_rate=0.01))
    values.update(changes)
    return pf.PatchFeatureConfig(**values)


def reference_kmeans(data, centroids, iterations):
    """Spherical k-means written as plain loops over points and clusters (no cluster may go empty)."""
    data = np.asarray(data, np.float64)
    centroids = np.array([c / np.linalg.norm(c) for c in np.asarray(centroids, np.float64)])
    for _ in range(iterations):
        update, wins = centroids.copy(), np.zeros(len(centroids))
        for x in data:
            projections = [float(np.dot(c, x)) for c in centroids]
            k = int(np.argmax(projections))
            update[k] += projections[k] * x
            wins[k] += 1
        assert wins.all(), "the reference does not restart empty clusters"
        centroids = np.array([u / np.linalg.norm(u) for u in update])
    return centroids


def test_spherical_kmeans_matches_a_plain_loop():
    rng = np.random.default_rng(1)
    data = rng.normal(size=(60, 5)).astype(np.float32)
    start = data[[0, 1, 2, 3]]
    fast = pf.spherical_kmeans(data, 4, iterations=4, seed=3, batch_size=7, init=start)
    np.testing.assert_allclose(fast, reference_kmeans(data, start, 4), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(fast, axis=1), 1, rtol=1e-5)
    # the batch size is memory only
    np.testing.assert_allclose(pf.spherical_kmeans(data, 4, iterations=4, seed=3, batch_size=1000, init=start),
                               fast, atol=1e-5)
    # the default start is distinct data points, seeded
    np.testing.assert_array_equal(pf.spherical_kmeans(data, 4, 2, seed=3), pf.spherical_kmeans(data, 4, 2, seed=3))


def reference_euclidean_kmeans(data, centroids, iterations):
    """Lloyd's k-means as plain loops: nearest centroid by distance, then the mean of each cluster."""
    data, centroids = np.asarray(data, np.float64), np.asarray(centroids, np.float64).copy()
    for _ in range(iterations):
        members = [[] for _ in centroids]
        for x in data:
            members[int(np.argmin([np.sum((x - c) ** 2) for c in centroids]))].append(x)
        assert all(members), "the reference does not restart empty clusters"
        centroids = np.array([np.mean(m, axis=0) for m in members])
    return centroids


def test_euclidean_kmeans_matches_a_plain_loop_and_restarts_empty_clusters():
    rng = np.random.default_rng(4)
    data = rng.normal(size=(60, 5)).astype(np.float32)
    start = data[[0, 1, 2, 3]]
    fast = pf.euclidean_kmeans(data, 4, iterations=4, seed=3, batch_size=7, init=start)
    np.testing.assert_allclose(fast, reference_euclidean_kmeans(data, start, 4), rtol=1e-4, atol=1e-5)
    far = np.concatenate([start[:3], np.full((1, 5), 100.0, np.float32)])  # wins no point: restarts at a data point
    restarted = pf.euclidean_kmeans(data, 4, iterations=1, seed=0, init=far)
    assert np.abs(restarted[3]).max() < 10 and any(np.allclose(restarted[3], x) for x in data)
    with pytest.raises(ValueError, match="n_clusters"):
        pf.euclidean_kmeans(data, 61)


def test_spherical_kmeans_finds_well_separated_directions():
    rng = np.random.default_rng(2)
    directions = np.eye(3)
    data = np.concatenate([d * rng.uniform(1, 2, (50, 1)) + rng.normal(0, 0.05, (50, 3)) for d in directions])
    for seed in range(3):
        centroids = pf.spherical_kmeans(data, 3, iterations=10, seed=seed)
        best = (centroids @ directions.T).max(axis=0)
        assert (best > 0.99).all(), centroids
    # a centroid pointing away from every point wins nothing and restarts at a data point
    init = np.array([[1.0, 0, 0], [0, 1, 0], [-1, -1, -1]])
    centroids = pf.spherical_kmeans(data, 3, iterations=1, seed=0, init=init)
    assert (centroids @ data.T).max(axis=1).min() > 0.9


def test_sample_patches_are_patches_of_the_images():
    images = synthetic_images(n=3, size=8)
    patches = pf.sample_patches(images, 50, patch_size=3, seed=4)
    assert patches.shape == (50, 27) and patches.dtype == np.float32
    # every sampled patch occurs somewhere, flattened channel first
    windows = {images[i, r:r + 3, c:c + 3].transpose(2, 0, 1).tobytes()
               for i in range(3) for r in range(6) for c in range(6)}
    assert all(p.astype(np.uint8).tobytes() in windows for p in patches)
    np.testing.assert_array_equal(patches, pf.sample_patches(images, 50, patch_size=3, seed=4))


def test_normalization_and_zca_whitening_match_a_direct_eigendecomposition():
    patches = pf.sample_patches(synthetic_images(n=20), 3000, patch_size=3, seed=0)
    normalized = pf.normalize_patches(patches, 10.0)
    expected = (patches - patches.mean(1, keepdims=True)) / np.sqrt(patches.var(1, ddof=1, keepdims=True) + 10.0)
    np.testing.assert_allclose(normalized, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pf.normalize_patches(torch.from_numpy(patches), 10.0).numpy(), expected, rtol=1e-4, atol=1e-5)

    whitening = Whitening(epsilon=0.1, kind="zca").fit(normalized)
    data = normalized.astype(np.float64)
    covariance = np.cov(data, rowvar=False)
    values, vectors = np.linalg.eigh(covariance)
    zca = vectors @ np.diag(1 / np.sqrt(np.clip(values, 0, None) + 0.1 * values.mean())) @ vectors.T
    np.testing.assert_allclose(whitening.projection, zca, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(whitening.mean, data.mean(0), atol=1e-10)


@pytest.mark.parametrize("dictionary,encoder", [("kmeans", "triangle"), ("kmeans", "soft-threshold"),
                                                ("kmeans-euclidean", "triangle"),
                                                ("rbm", "probability"), ("rbm", "rectified")])
def test_convolutional_encoding_matches_a_per_position_loop(dictionary, encoder):
    images = synthetic_images(n=3, size=9)
    model = pf.fit_patch_model(synthetic_images(n=20, seed=5), tiny_config(dictionary=dictionary, encoder=encoder))
    fast = model.transform(images, batch_size=2)
    size, units = model.config.patch_size, model.config.n_units
    positions = 9 - size + 1
    split = (positions + 1) // 2
    expected = np.zeros((3, 4, units))
    weights, bias = model.weights.astype(np.float64), model.bias.astype(np.float64)
    for i, image in enumerate(images):
        for r in range(positions):
            for c in range(positions):
                x = image[r:r + size, c:c + size].transpose(2, 0, 1).reshape(-1).astype(np.float64)
                x = (x - x.mean()) / np.sqrt(x.var(ddof=1) + model.config.normalization_epsilon)
                x = (x - model.whitening_mean) @ model.whitening_projection
                if encoder == "triangle":
                    z = np.array([np.linalg.norm(x - weights[:, k]) for k in range(units)])
                    f = np.maximum(0, z.mean() - z)
                elif encoder == "soft-threshold":
                    f = np.maximum(0, x @ weights - model.config.threshold)
                elif encoder == "probability":
                    f = 1 / (1 + np.exp(-(x @ weights + bias)))
                else:
                    f = np.maximum(0, x @ weights + bias)
                expected[i, 2 * (r >= split) + (c >= split)] += f
    np.testing.assert_allclose(fast, expected.reshape(3, -1), rtol=2e-4, atol=2e-4)


def test_quadrant_pooling_shapes_and_sums():
    rng = np.random.default_rng(0)
    maps = rng.normal(size=(2, 27, 27, 5))
    pooled = pf.pool_quadrants(maps)
    assert pooled.shape == (2, 4, 5)
    np.testing.assert_allclose(pooled.sum(1), maps.sum((1, 2)))
    np.testing.assert_allclose(pooled[:, 0], maps[:, :14, :14].sum((1, 2)))
    np.testing.assert_allclose(pooled[:, 3], maps[:, 14:, 14:].sum((1, 2)))
    np.testing.assert_allclose(pf.pool_quadrants(torch.from_numpy(maps)).numpy(), pooled)
    ones = pf.pool_quadrants(np.ones((1, 27, 27, 1)))[0, :, 0]
    np.testing.assert_array_equal(ones, [14 * 14, 14 * 13, 13 * 14, 13 * 13])


def test_model_state_round_trip():
    config = tiny_config(dictionary="rbm")
    model = pf.fit_patch_model(synthetic_images(n=20, seed=5), config)
    arrays = model.state_arrays()
    assert all(a.dtype != object for a in arrays.values())
    again = pf.PatchFeatureModel.from_state_arrays(arrays, config)
    images = synthetic_images(n=2)
    np.testing.assert_array_equal(again.transform(images), model.transform(images))
    assert again.history == model.history and len(model.history["reconstruction_error"]) == 2


def test_config_checks_and_round_trip():
    config = pf.PatchFeatureConfig(dictionary="rbm")
    assert config.encoder == "rectified" and config.n_features == 2000
    assert pf.PatchFeatureConfig.from_dict(config.to_dict()) == config
    assert config.replace(dictionary="kmeans").encoder == "triangle"
    with pytest.raises(ValueError, match="encoder 'triangle' does not fit"):
        pf.PatchFeatureConfig(dictionary="rbm", encoder="triangle")
    with pytest.raises(ValueError, match="dictionary must be one of"):
        pf.PatchFeatureConfig(dictionary="pca")
    with pytest.raises(ValueError, match="n_units must be a positive integer"):
        pf.PatchFeatureConfig(n_units=0)
    with pytest.raises(ValueError, match="unknown PatchFeatureConfig"):
        pf.PatchFeatureConfig.from_dict({"units": 3})
    with pytest.raises(ValueError, match="uint8"):
        pf.sample_patches(np.zeros((2, 8, 8, 3)), 5)
    with pytest.raises(ValueError, match="channels last"):
        pf.sample_patches(np.zeros((2, 3, 8, 8), np.uint8), 5)


# --------------------------------------------------------------------------- cache, probe, pair signal

@pytest.fixture
def small_cifar(monkeypatch, tmp_path):
    """``load_features('cifar10')`` on 60 / 40 synthetic labelled images and 80 unlabeled ones, cache in tmp_path."""
    from tgreedy_lib import datasets

    monkeypatch.setenv(datasets.ENV_CACHE_DIR, str(tmp_path / "cache"))
    images = synthetic_images(n=180, size=10, seed=7)
    labels = np.arange(180) % 3
    calls = []

    def fake_loader(data_dir=None, download=False, cache_dir=None, bundled_dir=None, per_class=1000, seed=0,
                    unlabeled=False):
        calls.append(unlabeled)
        return datasets.ImageDataset("cifar10", images[:60], labels[:60], images[60:100], labels[60:100], True,
                                     "synthetic", unlabeled_images=images[100:] if unlabeled else None)

    monkeypatch.setattr(datasets, "load_cifar10_paper", fake_loader)
    return calls


def test_patch_features_cache_round_trip(small_cifar):
    from tgreedy_lib import features

    config = tiny_config(n_units=5)
    first = features.load_features("cifar10", config=config, progress=False, probe=False)
    assert small_cifar == [True]  # the patch learner asked for the unlabeled pool
    assert first.info["kind"] == "patches" and not first.info["from_cache"] and first.dbn is None
    assert first.info["unlabeled_training_images"] == 80
    assert first.train_features.shape == (60, 20) and first.test_features.shape == (40, 20)
    assert set(first.info["seconds_per_stage"]) == {"patches", "whitening", "dictionary", "encoding"}
    np.testing.assert_array_equal(first.patch_model.transform(first.test_images), first.test_features)
    np.testing.assert_array_equal(first.transform(first.train_images), first.train_features)

    again = features.load_features("cifar10", config=config, progress=False, probe=False)
    assert again.info["from_cache"] and again.info["cache_key"] == first.info["cache_key"]
    np.testing.assert_array_equal(again.train_features, first.train_features)
    np.testing.assert_array_equal(again.patch_model.transform(again.test_images), first.test_features)
    paths = features.feature_cache_paths("cifar10", first.info["cache_key"], kind="patches")
    for name in ("features", "weights"):
        with np.load(paths[name], allow_pickle=False) as stored:
            assert all(stored[k].dtype != object for k in stored.files)

    other = features.load_features("cifar10", config={**config.to_dict(), "encoder": "soft-threshold"},
                                   progress=False, probe=False)
    assert not other.info["from_cache"] and other.info["cache_key"] != first.info["cache_key"]


def test_probe_accuracy_is_recorded_and_cached(small_cifar, monkeypatch):
    from tgreedy_lib import features
    from tgreedy_lib.features import probe

    monkeypatch.setattr(probe, "PROBE_C_GRID", (0.1, 1.0))
    fs = features.load_features("cifar10", config=tiny_config(n_units=5), progress=False)
    assert 0 <= fs.info["probe_accuracy"] <= 1 and fs.info["probe"]["C"] in (0.1, 1.0)
    path = fs.cache_path.with_name(fs.cache_path.name.replace("-features.npz", "-linear-probe.json"))
    assert path.is_file()
    calls = []
    monkeypatch.setattr(probe, "validated_probe", lambda *a, **k: calls.append(1))
    again = features.load_features("cifar10", config=tiny_config(n_units=5), progress=False)
    assert not calls and again.info["probe_accuracy"] == fs.info["probe_accuracy"]


def test_validated_probe_never_looks_at_the_test_labels():
    from tgreedy_lib import features

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    y = (x[:, 0] > 0).astype(int)
    scrambled = rng.permutation(y[200:])
    a = features.validated_probe(x[:200], y[:200], x[200:], y[200:], c_grid=(0.001, 0.1, 10.0))
    b = features.validated_probe(x[:200], y[:200], x[200:], scrambled, c_grid=(0.001, 0.1, 10.0))
    assert a["C"] == b["C"] and a["validation_accuracy"] == b["validation_accuracy"]
    assert a["validation_size"] == 40 and a["test_accuracy"] > 0.9
    with pytest.raises(ValueError, match="c_grid"):
        features.validated_probe(x[:200], y[:200], x[200:], y[200:], c_grid=(0.0,))


def test_validated_probe_warm_start_finds_what_cold_fits_find():
    """The validation fits are warm-started along ascending C: the same accuracies as one cold
    linear_probe per C (a convex problem; the grid is given out of order on purpose)."""
    from sklearn.model_selection import train_test_split

    from tgreedy_lib import features

    rng = np.random.default_rng(3)
    centres = rng.normal(size=(4, 30))
    y = rng.integers(0, 4, 500)
    x = centres[y] + 2.5 * rng.normal(size=(500, 30))
    grid = (0.1, 0.001, 1.0, 0.01)
    result = features.validated_probe(x[:400], y[:400], x[400:], y[400:], c_grid=grid)
    fit, validation = train_test_split(np.arange(400), test_size=0.2, random_state=0, stratify=y[:400])
    cold = [features.linear_probe(x[fit], y[fit], x[validation], y[validation], c, tol=1e-8)["test_accuracy"]
            for c in grid]
    assert result["validation_accuracy"] == pytest.approx(cold, abs=1 / 80)  # at most one of 80 rows differs
    assert len(set(cold)) > 1  # C matters here, so the check can fail
    assert result["C"] == grid[int(np.argmax(result["validation_accuracy"]))]


def test_similarity_reference_sees_pair_signal_only_where_there_is_some():
    from tgreedy_lib.experiments import runs as features

    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(4), 60)
    prototypes = rng.uniform(0, 1, (4, 12))

    def draw(noise):
        return np.clip(prototypes[labels] + rng.normal(0, noise, (len(labels), 12)), 0, None) + 0.01

    signal = features.similarity_reference_auroc(draw(0.2), labels, draw(0.2), labels, n_positive=80, n_negative=80)
    assert signal["source_auroc"] > 0.65 and len(signal["source_auroc_per_class"]) == 4
    noise = rng.uniform(0.01, 1, (240, 12))
    null = features.similarity_reference_auroc(noise, labels, rng.uniform(0.01, 1, (240, 12)), labels,
                                               n_positive=80, n_negative=80)
    assert abs(null["source_auroc"] - 0.5) < 0.1


def test_cifar10_training_subset_follows_the_design_seed(monkeypatch, tmp_path):
    """Each seed draws its own 1,000-a-class CIFAR-10 training subset, mapped through the same learnt features."""
    from tgreedy_lib import datasets, features
    from tgreedy_lib.experiments import inputs

    monkeypatch.setenv(datasets.ENV_CACHE_DIR, str(tmp_path / "cache"))
    images = synthetic_images(n=180, size=10, seed=7)
    labels = np.arange(180) % 3

    def fake_loader(data_dir=None, download=False, cache_dir=None, bundled_dir=None, per_class=1000, seed=0,
                    unlabeled=False):
        keep = np.sort(np.random.default_rng(seed).permutation(100)[:60])
        return datasets.ImageDataset("cifar10", images[keep], labels[keep], images[100:140], labels[100:140], True,
                                     f"synthetic, seed {seed}", unlabeled_images=images[100:] if unlabeled else None)

    monkeypatch.setattr(datasets, "load_cifar10_paper", fake_loader)
    config = tiny_config(n_units=5)
    monkeypatch.setattr(features, "load_features", lambda *a, **k: features.build.load_features(
        *a, **{**k, "config": config, "probe": False}))
    seed0 = inputs.load_experiment_features("cifar10", feature_map="conv", design_seed=0)
    seed1 = inputs.load_experiment_features("cifar10", feature_map="conv", design_seed=1)
    assert seed0.info["training_images"]["train_source"].endswith("seed 0")
    assert seed1.info["training_images"]["train_source"].endswith("seed 1")
    built = features.build.load_features("cifar10", config=config, progress=False, probe=False)
    np.testing.assert_array_equal(seed0.train_features, built.train_features)   # seed 0: the built subset
    subset1 = fake_loader(seed=1)
    np.testing.assert_array_equal(seed1.train_labels, subset1.train_labels)
    np.testing.assert_array_equal(seed1.train_features, built.transform(subset1.train_images).astype(np.float64))
    assert not np.array_equal(seed0.train_labels, seed1.train_labels) or not np.array_equal(
        seed0.train_features, seed1.train_features)
    np.testing.assert_array_equal(seed0.test_features, seed1.test_features)     # one test set
