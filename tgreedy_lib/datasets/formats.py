"""The file formats: MNIST's IDX files, CIFAR-10's python batches and archive, and the in-memory data set.

IDX is the format of LeCun, Cortes & Burges's MNIST distribution: two zero bytes, a type code
(0x08 = unsigned byte, ...), the number of dimensions, each dimension as a big-endian 32-bit integer,
then the data in C order. CIFAR-10 (Krizhevsky 2009) ships pickled python batches; they are read
with :class:`RestrictedUnpickler`, which rebuilds only plain containers and numpy arrays. Every
reader bounds what it reads by what the file can hold, and names the file in its errors.
"""
from __future__ import annotations

import dataclasses
import gzip
import io
import math
import os
import pathlib
import pickle
import struct
import tarfile
import zlib

import numpy as np

_IDX_TYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
              0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


@dataclasses.dataclass
class ImageDataset:
    """Training and test images (uint8, MNIST (n, 28, 28), CIFAR-10 (n, 32, 32, 3)) with int64 labels.

    ``source`` says where they came from; ``unlabeled_images`` (never a test image) are what a feature
    learner may use without labels (``None``: the training images only).
    """

    name: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    official_test: bool
    source: str
    unlabeled_images: np.ndarray | None = None


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """The array of an IDX file (gzipped or not), in native byte order; ``ValueError`` if it is not whole IDX."""
    path = pathlib.Path(path)
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        compressed = handle.read(2) == b"\x1f\x8b"
        handle.seek(0)
        if not compressed:
            return _read_idx_stream(handle, path.name, size, compressed)
        try:
            with gzip.GzipFile(fileobj=handle, mode="rb") as stream:
                return _read_idx_stream(stream, path.name, size, compressed)
        except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
            raise ValueError(f"{path.name}: the gzip stream is corrupt or truncated ({error}); "
                             "fetch the file again") from None


#: Bytes past the declared data that are read to report them (the rest is never inflated).
IDX_TRAILING_LIMIT = 1 << 20
#: The most one byte of a deflate stream can inflate to (zlib's ratio limit is about 1032:1).
DEFLATE_MAX_RATIO = 1032
_READ_CHUNK = 1 << 22


def _read_idx_stream(stream, name: str, size: int, compressed: bool) -> np.ndarray:
    """The array of an IDX stream, refusing a header that declares more than a file of ``size`` bytes can hold."""
    head = stream.read(4)
    if len(head) < 4 or head[0] != 0 or head[1] != 0 or head[2] not in _IDX_TYPES:
        raise ValueError(f"{name}: not an IDX file (bad magic number {head.hex() or 'empty file'})")
    ndim = head[3]
    dimensions = stream.read(4 * ndim)
    if ndim == 0 or len(dimensions) < 4 * ndim:
        raise ValueError(f"{name}: IDX header is truncated or declares no dimensions")
    shape = struct.unpack(f">{ndim}I", dimensions)
    dtype = _IDX_TYPES[head[2]]
    header_size = 4 + 4 * ndim
    # Python integers: a product of four 32-bit dimensions overflows int64 (and could wrap to 0).
    expected = math.prod(shape) * dtype.itemsize
    room = DEFLATE_MAX_RATIO * size if compressed else size - header_size
    if expected > room:
        raise ValueError(f"{name}: truncated, the header promises shape {shape} ({expected} data bytes) but a "
                         f"{'gzipped ' if compressed else ''}file of {size} bytes cannot hold that many; "
                         "fetch the file again")
    data = np.empty(expected, dtype=np.uint8)
    view, found = memoryview(data), 0
    while found < expected:
        n = stream.readinto(view[found:found + _READ_CHUNK])
        if not n:
            break
        found += n
    if found < expected:
        raise ValueError(f"{name}: truncated, the header promises shape {shape} ({expected} data bytes) "
                         f"but only {found} are there; fetch the file again")
    extra = stream.read(IDX_TRAILING_LIMIT + 1)  # to the end: a gzip stream's checksum is verified there
    if len(extra) > IDX_TRAILING_LIMIT:
        raise ValueError(f"{name}: more than {IDX_TRAILING_LIMIT} unexpected bytes after the data of shape {shape} "
                         "(the rest was not read); the file is not what its header says, fetch it again")
    if extra:
        raise ValueError(f"{name}: {len(extra)} unexpected bytes after the data of shape {shape}")
    return data.view(dtype).reshape(shape).astype(dtype.newbyteorder("="), copy=False)


def check_images_labels(images: np.ndarray, labels: np.ndarray, what: str, image_shape: tuple[int, ...]) -> None:
    """Refuse images not of ``image_shape``, labels not one per image or outside 0..9 (``ValueError`` naming ``what``)."""
    if images.ndim != 1 + len(image_shape) or images.shape[1:] != image_shape:
        raise ValueError(f"{what}: images have shape {images.shape}, expected (n, {', '.join(map(str, image_shape))})")
    if labels.ndim != 1 or len(labels) != len(images):
        raise ValueError(f"{what}: {len(labels)} labels for {len(images)} images")
    if len(labels) and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"{what}: labels must lie in 0..9, found {labels.min()}..{labels.max()}")


class ForbiddenGlobalError(pickle.UnpicklingError):
    """Raised when a pickle asks for a global that :class:`RestrictedUnpickler` does not allow."""


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that allows only the globals a CIFAR-10 batch needs (numpy arrays, plain builtins)."""

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
    """Images (uint8, (n, 32, 32, 3)) and int64 labels of one CIFAR-10 python batch; ``ValueError`` if it is not one."""
    path = pathlib.Path(path)
    size = path.stat().st_size
    if size > CIFAR10_BATCH_LIMIT:
        raise ValueError(f"{path.name}: {size} bytes is far more than a CIFAR-10 batch holds (about 31 MB for "
                         "10,000 images); it is not a batch, fetch the data again")
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
    check_images_labels(images, labels, path.name, (32, 32, 3))
    return np.ascontiguousarray(images), labels


#: The largest file a CIFAR-10 python batch may be (a real one has 30.7 MB: 10,000 images of 3,072 bytes).
CIFAR10_BATCH_LIMIT = 64 * 2**20
#: Limits of an archive to extract: the official CIFAR-10 archive has 8 members and 178 MB unpacked.
ARCHIVE_MEMBER_LIMIT = 64
ARCHIVE_SIZE_LIMIT = 512 * 2**20


def extract_safely(archive: pathlib.Path, destination: pathlib.Path) -> None:
    """Extract regular files and folders only, refusing absolute paths, ``..``, links and oversized archives
    before anything is written."""
    with tarfile.open(archive, "r:gz") as tar:
        members, total = [], 0
        for member in tar:
            parts = pathlib.PurePosixPath(member.name).parts
            if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
                raise ValueError(f"{archive.name}: refusing to extract {member.name!r} (absolute path, '..' or link)")
            members.append(member)
            total += member.size if member.isfile() else 0
            if len(members) > ARCHIVE_MEMBER_LIMIT or total > ARCHIVE_SIZE_LIMIT:
                raise ValueError(f"{archive.name}: refusing to extract an archive of more than {ARCHIVE_MEMBER_LIMIT} "
                                 f"members or {ARCHIVE_SIZE_LIMIT // 2**20} MiB unpacked (the CIFAR-10 archive has "
                                 "8 members, 178 MB); it is not the official archive")
        if hasattr(tarfile, "data_filter"):
            tar.extractall(destination, members=members, filter="data")
        else:  # Python without extraction filters: the checks above already ran
            tar.extractall(destination, members=members)
