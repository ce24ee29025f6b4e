"""CIFAR-10 (Krizhevsky 2009): the official python batches, found, or downloaded and checked."""
from __future__ import annotations

import pathlib

import numpy as np

from .sources import BUNDLED_DIR, ENV_DATA_DIR, download_verified, resolve_cache_dir, resolve_data_dir
from .formats import ImageDataset, extract_safely, read_cifar10_batch


CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR10_FOLDER = "cifar-10-batches-py"
CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
CIFAR10_TEST_BATCH = "test_batch"
CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
CIFAR10_HOWTO = (
    "CIFAR-10 is not bundled. Unpack the official python version (cifar-10-python.tar.gz from "
    "https://www.cs.toronto.edu/~kriz/cifar.html) so that TGREEDY_DATA_DIR/cifar-10-batches-py/ holds "
    "data_batch_1..5 and test_batch, or pass download=True."
)


def find_cifar10_folder(data_dir=None, download: bool = False, cache_dir=None,
                        bundled_dir=None) -> pathlib.Path:
    """Folder holding CIFAR-10's ``data_batch_1..5`` and ``test_batch``, found or downloaded into the cache."""
    data_dir = resolve_data_dir(data_dir)
    cache_dir = resolve_cache_dir(cache_dir)
    bundled_dir = pathlib.Path(bundled_dir) if bundled_dir is not None else BUNDLED_DIR
    folders = ([data_dir / CIFAR10_FOLDER, data_dir] if data_dir is not None else []) + \
        [bundled_dir / CIFAR10_FOLDER, cache_dir / CIFAR10_FOLDER]
    needed = CIFAR10_TRAIN_BATCHES + (CIFAR10_TEST_BATCH,)
    partial = None
    for folder in folders:
        present = [name for name in needed if (folder / name).is_file()]
        if len(present) == len(needed):
            return folder
        if present and partial is None:
            partial = f"; a folder there has only {len(present)} of the 6 batch files"
    if download:
        archive = download_verified(CIFAR10_URL, cache_dir / "cifar-10-python.tar.gz", CIFAR10_MD5)
        extract_safely(archive, cache_dir)
        return cache_dir / CIFAR10_FOLDER
    where = "TGREEDY_DATA_DIR, the bundled data and the cache" if data_dir else \
        f"the bundled data and the cache ({ENV_DATA_DIR} is not set)"
    raise FileNotFoundError(f"CIFAR-10 python batches not found in {where}{partial or ''}. {CIFAR10_HOWTO}")


def load_cifar10(split: str = "test", data_dir=None, download: bool = False, cache_dir=None,
                 bundled_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """The official CIFAR-10 ``split``: ``"train"`` (50,000 images) or ``"test"`` (10,000), channels last."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    folder = find_cifar10_folder(data_dir, download, cache_dir, bundled_dir)
    names = CIFAR10_TRAIN_BATCHES if split == "train" else (CIFAR10_TEST_BATCH,)
    parts = [read_cifar10_batch(folder / name) for name in names]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def balanced_subset(labels: np.ndarray, per_class: int, seed: int = 0) -> np.ndarray:
    """Indices (sorted) of ``per_class`` examples of each class, drawn without replacement, seeded."""
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    chosen = []
    for cls in np.unique(labels):
        where = np.flatnonzero(labels == cls)
        if len(where) < per_class:
            raise ValueError(f"class {cls} has {len(where)} examples, fewer than the {per_class} asked for")
        chosen.append(rng.choice(where, size=per_class, replace=False))
    return np.sort(np.concatenate(chosen))


def load_cifar10_paper(data_dir=None, download: bool = False, cache_dir=None, per_class: int = 1000, seed: int = 0,
                       unlabeled: bool = False) -> ImageDataset:
    """CIFAR-10 as in section 4: a seeded ``per_class`` training images a class, the 10,000 test images; with
    ``unlabeled``, the 50,000 official training images as ``unlabeled_images``."""
    train_images, train_labels = load_cifar10("train", data_dir, download, cache_dir)
    test_images, test_labels = load_cifar10("test", data_dir, download, cache_dir)
    keep = balanced_subset(train_labels, per_class, seed)
    source = f"CIFAR-10 python batches: {per_class} training images a class (seed {seed}), official test set"
    if unlabeled:
        source += f", {len(train_images):,} official training images (unlabeled, for the feature learner)"
    return ImageDataset("cifar10", train_images[keep], train_labels[keep], test_images, test_labels,
                        official_test=True, source=source, unlabeled_images=train_images if unlabeled else None)
