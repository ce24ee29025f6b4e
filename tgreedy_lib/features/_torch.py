"""torch (the ``dbn`` extra), or an error that says how to install it."""
from __future__ import annotations

try:
    import torch
except ModuleNotFoundError as error:
    if error.name != "torch":
        raise
    raise ModuleNotFoundError(
        "tgreedy_lib.features (the deep belief network and the patch features of section 4, and the "
        "experiments that load them) needs torch, which is not installed: run `make install`, or "
        "`pip install -e '.[dbn]'` (the pinned CPU build, torch==2.13.0)", name="torch") from None

__all__ = ["torch"]
