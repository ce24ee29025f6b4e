"""Feature cache: reused when nothing changed, rebuilt when the configuration or data change (offline, tiny DBN)."""
import json

import numpy as np
import pytest
import torch

from tgreedy_lib import datasets, features
from tgreedy_lib.features.dbn import RBMTraining

TINY = features.FeatureConfig(layer_sizes=(784, 12, 6), visible="bernoulli",
                              training=(RBMTraining(epochs=1, batch_size=500), RBMTraining(epochs=1, batch_size=500)))


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.delenv(datasets.ENV_DATA_DIR, raising=False)
    monkeypatch.setenv(datasets.ENV_CACHE_DIR, str(tmp_path / "cache"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_features_are_cached_reused_and_rebuilt(tmp_path):
    empty = tmp_path / "no-data"
    empty.mkdir()
    first = features.load_features("mnist", data_dir=empty, config=TINY, progress=False, device="cpu", probe=False)
    assert not first.info["from_cache"] and first.info["official"] is False
    assert first.train_features.shape == (first.info["train_size"], 6)
    assert first.test_features.shape == (first.info["test_size"], 6)
    assert first.train_features.dtype == np.float32 and first.train_labels.dtype == np.int64
    assert first.info["train_size"] + first.info["test_size"] == 10000
    json.dumps(first.info)  # JSON-ready

    again = features.load_features("mnist", data_dir=empty, config=TINY, progress=False, device="cpu", probe=False)
    assert again.info["from_cache"] and again.info["cache_key"] == first.info["cache_key"]
    np.testing.assert_array_equal(again.test_features, first.test_features)
    np.testing.assert_array_equal(again.dbn.transform(features.dbn_inputs(again.test_images)), first.test_features)
    np.testing.assert_array_equal(again.transform(again.test_images), first.test_features)
    assert again.dbn.history == first.dbn.history

    changed = TINY.replace(training=(RBMTraining(epochs=2, batch_size=500), RBMTraining(epochs=1, batch_size=500)))
    rebuilt = features.load_features("mnist", data_dir=empty, config=changed, progress=False, device="cpu", probe=False)
    assert not rebuilt.info["from_cache"] and rebuilt.info["cache_key"] != first.info["cache_key"]
    assert len(rebuilt.dbn.history[0]) == 2

    forced = features.load_features("mnist", data_dir=empty, config=TINY, rebuild=True, progress=False, device="cpu", probe=False)
    assert not forced.info["from_cache"]
    np.testing.assert_array_equal(forced.test_features, first.test_features)  # deterministic for a seed


def test_cache_key_follows_the_data(tmp_path):
    data = datasets.load_mnist_paper(data_dir=tmp_path)
    key = features.cache_key(data, TINY)
    assert features.cache_key(data, TINY) == key
    data.test_images = data.test_images.copy()
    data.test_images[0, 0, 0] ^= 1
    assert features.cache_key(data, TINY) != key
    assert features.cache_key(data, TINY.replace(seed=1)) != features.cache_key(data, TINY)


def test_cache_files_load_without_pickle(tmp_path):
    fs = features.load_features("mnist", data_dir=tmp_path, config=TINY, progress=False, device="cpu", probe=False)
    paths = features.feature_cache_paths("mnist", fs.info["cache_key"])
    for name in ("features", "weights"):
        with np.load(paths[name], allow_pickle=False) as stored:
            assert all(stored[k].dtype != object for k in stored.files)


def test_probe_report_is_written_beside_the_cache_and_reused(tmp_path):
    fs = features.load_features("mnist", data_dir=tmp_path, config=TINY, progress=False, device="cpu", probe=False)
    # Keep the probe fast: a 1,000-image subset.
    fs.train_features, fs.train_labels, fs.train_images = fs.train_features[::8], fs.train_labels[::8], fs.train_images[::8]
    report = features.probe_report(fs, regularization=0.1)
    assert set(report) >= {"dbn_features", "raw_pixels", "gain", "official"}
    assert 0.1 < report["raw_pixels"]["test_accuracy"] <= 1 and report["raw_pixels"]["n_features"] == 784
    path = features.feature_cache_paths("mnist", fs.info["cache_key"])["probe"]
    assert json.loads(path.read_text()) == report
    report["marker"] = True
    path.write_text(json.dumps(report))
    assert features.probe_report(fs, regularization=0.1)["marker"] is True  # reused, not recomputed
    report["dbn_features"]["tol"] = 1e-3  # a report from a looser probe is stale
    path.write_text(json.dumps(report))
    fresh = features.probe_report(fs, regularization=0.1)
    assert "marker" not in fresh and fresh["dbn_features"]["tol"] == features.PROBE_TOLERANCE


def test_linear_probe_separates_separable_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 5))
    y = (x[:, 0] > 0).astype(int) + 2 * (x[:, 1] > 0)
    result = features.linear_probe(x[:200], y[:200], x[200:], y[200:], regularization=10.0)
    assert result["test_accuracy"] > 0.9 and result["n_features"] == 5
    assert result["iterations"] < 1000  # converged, not stopped by max_iter


def test_dbn_learns_from_the_unlabeled_pool_when_there_is_one(tmp_path):
    from test_datasets import write_mnist  # official-format files, as the loader tests write them

    folder = tmp_path / "data" / "mnist"
    write_mnist(folder, "test", 30, gz=True)
    write_mnist(folder, "train", 700, gz=True, seed=1)
    pooled = features.load_features("mnist", data_dir=tmp_path / "data", config=TINY, progress=False, device="cpu", probe=False)
    assert pooled.info["dbn_training_images"] == 700 and pooled.info["official"]
    assert pooled.train_features.shape == (10000, 6) and pooled.test_features.shape == (30, 6)
    alone = features.load_features("mnist", data_dir=tmp_path / "data", config=TINY, progress=False, device="cpu", probe=False,
                                   unlabeled=False)
    assert alone.info["dbn_training_images"] == 10000
    assert alone.info["cache_key"] != pooled.info["cache_key"]  # the pool is part of the data digest
    assert not np.allclose(alone.test_features, pooled.test_features)
    # With no config given, the pool chooses the configuration tuned for it.
    assert features.build._resolve_config("mnist", None, unlabeled=True) == features.default_config("mnist", unlabeled=True)
    assert features.default_config("mnist", unlabeled=True) != features.default_config("mnist")


def test_configuration_errors_are_named(tmp_path):
    with pytest.raises(ValueError, match="dataset must be"):
        features.load_features("svhn")
    with pytest.raises(ValueError, match="unknown FeatureConfig"):
        features.load_features("mnist", config={"epochs": 3})
    with pytest.raises(ValueError, match="training settings"):
        features.FeatureConfig(layer_sizes=(784, 10, 10), visible="bernoulli", training=(RBMTraining(),))
    assert features.FeatureConfig.from_dict(TINY.to_dict()) == TINY
    assert features.default_config("mnist").layer_sizes == (784, 500, 500, 2000)
    assert features.default_config("cifar10").layer_sizes[-1] == 2000


def test_cifar10_without_data_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="CIFAR-10"):
        features.load_features("cifar10", data_dir=tmp_path, progress=False)


def test_probe_arrays_are_cached_by_their_digest_and_read_back(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] > 0).astype(int)
    first = features.probe_arrays(x[:200], y[:200], x[200:], y[200:], cache_dir=tmp_path)
    again = features.probe_arrays(x[:200], y[:200], x[200:], y[200:], cache_dir=tmp_path)  # read back, not refitted
    assert first["test_accuracy"] > 0.9 and again == first
    assert [p.name.startswith("probe-") for p in (tmp_path / "features").iterdir()] == [True]


def test_the_files_of_a_cache_key():
    paths = features.feature_cache_paths("mnist", "0123456789abcdef0123", cache_dir="cache")
    assert {name: path.as_posix() for name, path in paths.items()} == {
        "features": "cache/features/mnist-0123456789abcdef-features.npz",
        "weights": "cache/features/mnist-0123456789abcdef-dbn.npz",
        "probe": "cache/features/mnist-0123456789abcdef-probe.json",
        "linear_probe": "cache/features/mnist-0123456789abcdef-linear-probe.json"}
