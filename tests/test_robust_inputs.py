"""Bad input a new user might give (issue 16, "Found"): each gets a clear error or the right answer."""
from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from tgreedy_lib import datasets


# ----------------------------------------------------------------------------- datasets


def test_missing_data_dir_says_how_to_get_the_data(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m tgreedy_lib download mnist") as info:
        datasets.resolve_data_dir(tmp_path / "nowhere")
    assert "TGREEDY_DATA_DIR" in str(info.value)


def test_failed_download_removes_an_earlier_corrupt_file(tmp_path):
    target = tmp_path / "cache" / "file.gz"
    target.parent.mkdir()
    target.write_bytes(b"half a file")  # an earlier, interrupted or altered download
    missing_source = (tmp_path / "no-such-source.gz").as_uri()
    with pytest.raises(OSError, match="could not download"):
        datasets.download_verified(missing_source, target, hashlib.md5(b"the real bytes").hexdigest())
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no partial temporary file either


def test_good_earlier_file_is_kept_without_downloading(tmp_path):
    target = tmp_path / "file.gz"
    target.write_bytes(b"the real bytes")
    got = datasets.download_verified((tmp_path / "unreachable").as_uri(), target, hashlib.md5(b"the real bytes").hexdigest())
    assert got.read_bytes() == b"the real bytes"


def test_idx_header_whose_dimensions_overflow_names_the_file(tmp_path):
    path = tmp_path / "huge-idx3-ubyte"
    # four dimensions of 2^16: their product 2^64 wraps to 0 in int64 arithmetic
    path.write_bytes(b"\x00\x00\x08\x04" + struct.pack(">4I", 65536, 65536, 65536, 65536))
    with pytest.raises(ValueError, match="huge-idx3-ubyte.*truncated"):
        datasets.read_idx(path)
