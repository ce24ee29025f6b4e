"""Where data are looked for: the data folder, the bundled package data, the cache; verified downloads."""
from __future__ import annotations

import hashlib
import os
import pathlib
import urllib.request
from importlib import resources

from ..files import atomic_writer, remove_leftovers

ENV_DATA_DIR = "TGREEDY_DATA_DIR"
ENV_CACHE_DIR = "TGREEDY_CACHE_DIR"
DEFAULT_CACHE_DIR = pathlib.Path("~/.cache/tgreedy")
#: The bundled data, package data of :mod:`tgreedy_lib.datasets` (found in an installed package too).
BUNDLED_DIR = pathlib.Path(str(resources.files(__package__).joinpath("bundled")))


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> pathlib.Path | None:
    """The data folder: ``data_dir``, else ``$TGREEDY_DATA_DIR``, else ``None``; a named but missing one raises."""
    origin = "the data_dir argument" if data_dir is not None else f"the environment variable {ENV_DATA_DIR}"
    if data_dir is None:
        data_dir = os.environ.get(ENV_DATA_DIR) or None
    if data_dir is None:
        return None
    path = pathlib.Path(data_dir).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(
            f"the data folder named by {origin} does not exist or is not a folder: {path}. "
            "Create it and put the data there, or fetch the data into the cache with "
            "`python -m tgreedy_course download mnist` (or `... download cifar10`) and leave "
            f"data_dir and {ENV_DATA_DIR} unset")
    return path


def resolve_cache_dir(cache_dir: str | os.PathLike | None = None) -> pathlib.Path:
    """The cache folder: ``cache_dir``, else ``$TGREEDY_CACHE_DIR``, else ``~/.cache/tgreedy``."""
    if cache_dir is None:
        cache_dir = os.environ.get(ENV_CACHE_DIR) or DEFAULT_CACHE_DIR
    return pathlib.Path(cache_dir).expanduser()


def file_digest(path: str | os.PathLike, algorithm: str = "sha256") -> str:
    """Hex digest of a file's bytes (``algorithm``: any name :func:`hashlib.new` accepts)."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download_verified(urls: str | tuple[str, ...], destination: pathlib.Path, md5: str) -> pathlib.Path:
    """Download the first reachable of ``urls`` to ``destination``, kept (or reused) only if its MD5 matches.

    Raises ``ValueError`` on a checksum mismatch, ``OSError`` when no URL could be fetched.
    """
    urls = (urls,) if isinstance(urls, str) else tuple(urls)
    if destination.is_file():
        if file_digest(destination, "md5") == md5:
            return destination
        destination.unlink()
    destination.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(destination.parent)
    errors = []
    for url in urls:
        try:
            with atomic_writer(destination, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
                digest = hashlib.md5()
                for chunk in iter(lambda: response.read(1 << 20), b""):
                    out.write(chunk)
                    digest.update(chunk)
                if digest.hexdigest() != md5:
                    raise ValueError(f"{url}: MD5 {digest.hexdigest()} does not match the published {md5}; "
                                     "the download is corrupt or altered")
            return destination
        except (OSError, ValueError) as error:  # URLError is an OSError
            errors.append(f"{url}: {error}")
            if isinstance(error, ValueError) and len(urls) == 1:
                raise
    raise OSError(f"could not download {destination.name}: " + "; ".join(errors))
