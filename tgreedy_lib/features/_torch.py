"""torch, or an error that says which extra installs it.

The deep belief network (:mod:`.dbn`) and the patch features (:mod:`.patches`) train with torch, an
optional dependency (the ``dbn`` extra): the selectors, the theory and notebooks 00-05 need none.
"""
from __future__ import annotations

try:
    import torch
except ModuleNotFoundError as error:  # only torch itself missing; a broken torch install raises as it is
    if error.name != "torch":
        raise
    raise ModuleNotFoundError(
        "tgreedy_lib.features (the deep belief network and the patch features of section 4, and the "
        "experiments that load them) needs torch, which is not installed: run `make install`, or "
        "`pip install -e '.[dbn]'` (the pinned CPU build, torch==2.13.0)", name="torch") from None

__all__ = ["torch"]
