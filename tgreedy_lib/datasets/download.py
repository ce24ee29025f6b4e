"""Where data are looked for: the data folder, the bundled package data, the cache; verified downloads."""
from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile
import urllib.request
from importlib import resources


ENV_DATA_DIR = "TGREEDY_DATA_DIR"
ENV_CACHE_DIR = "TGREEDY_CACHE_DIR"
DEFAULT_CACHE_DIR = pathlib.Path("~/.cache/tgreedy")
#: The bundled data, package data of :mod:`tgreedy_lib.datasets` (found in an installed package too).
BUNDLED_DIR = pathlib.Path(str(resources.files(__package__).joinpath("bundled")))


# --------------------------------------------------------------------------- folders

def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> pathlib.Path | None:
    """The data folder: ``data_dir`` if given, else ``$TGREEDY_DATA_DIR``, else ``None``.

    Raises
    ------
    FileNotFoundError
        If a folder is named but does not exist.

    See Also
    --------
    resolve_cache_dir : The cache folder.
    download_verified : Checksum-verified downloads into the cache.
    file_digest : A file's checksum.

    Examples
    --------
    >>> from tgreedy_lib.datasets import resolve_data_dir
    >>> resolve_data_dir() is None  # TGREEDY_DATA_DIR unset
    True
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
        raise FileNotFoundError(
            f"the data folder named by {origin} does not exist or is not a folder: {path}. "
            "Create it and put the data there, or fetch the data into the cache with "
            "`python -m tgreedy_course download mnist` (or `... download cifar10`) and leave "
            f"data_dir and {ENV_DATA_DIR} unset"
        )
    return path


def resolve_cache_dir(cache_dir: str | os.PathLike | None = None) -> pathlib.Path:
    """The cache folder: ``cache_dir``, else ``$TGREEDY_CACHE_DIR``, else ``~/.cache/tgreedy``.

    See Also
    --------
    resolve_data_dir : The data folder.
    download_verified : Checksum-verified downloads into the cache.
    file_digest : A file's checksum.

    Examples
    --------
    >>> from tgreedy_lib.datasets import resolve_cache_dir
    >>> resolve_cache_dir("my-cache").name
    'my-cache'
    """
    if cache_dir is None:
        cache_dir = os.environ.get(ENV_CACHE_DIR) or DEFAULT_CACHE_DIR
    return pathlib.Path(cache_dir).expanduser()


def file_digest(path: str | os.PathLike, algorithm: str = "sha256") -> str:
    """Hex digest of a file's bytes (``algorithm`` is any name :func:`hashlib.new` accepts).

    See Also
    --------
    resolve_data_dir : The data folder.
    resolve_cache_dir : The cache folder.
    download_verified : Checksum-verified downloads into the cache.

    Examples
    --------
    >>> import pathlib
    >>> from tgreedy_lib.datasets import file_digest
    >>> _ = pathlib.Path("hello.txt").write_bytes(b"hello")
    >>> file_digest("hello.txt", "md5")
    '5d41402abc4b2a76b9719d911017c592'
    """
    digest = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download_verified(urls: str | tuple[str, ...], destination: pathlib.Path, md5: str) -> pathlib.Path:
    """Download the first reachable of ``urls`` to ``destination``, keeping it only if its MD5 matches.

    An existing ``destination`` whose checksum matches is reused without downloading; one whose
    checksum does not match is removed first, so a failed download never leaves a corrupt file
    behind. The bytes go to a temporary file beside ``destination`` and are renamed into place
    (atomically) only after their checksum is verified.

    Raises
    ------
    ValueError
        If the downloaded bytes do not have the expected MD5 (the partial file is removed).
    OSError
        If no URL could be fetched (for example, no internet).

    See Also
    --------
    resolve_data_dir : The data folder.
    resolve_cache_dir : The cache folder.
    file_digest : A file's checksum.

    Examples
    --------
    >>> import pathlib
    >>> from tgreedy_lib.datasets import MNIST_MD5, download_verified
    >>> download_verified("https://example.org/t10k-labels-idx1-ubyte.gz",
    ...                   pathlib.Path("t10k-labels-idx1-ubyte.gz"), MNIST_MD5["t10k-labels-idx1-ubyte.gz"])  # doctest: +SKIP
    """
    urls = (urls,) if isinstance(urls, str) else tuple(urls)
    if destination.is_file():
        if file_digest(destination, "md5") == md5:
            return destination
        destination.unlink()  # corrupt or altered: never keep it, whatever happens below
    destination.parent.mkdir(parents=True, exist_ok=True)
    from .._io import remove_leftovers

    remove_leftovers(destination.parent, earlier=True)  # partial downloads of killed processes
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
