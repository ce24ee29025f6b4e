"""The numerical checks of both papers by id: :data:`BUILTIN_CHECKS`, :func:`register_check`, :func:`run_checks`.

A check is ``function(quick, rng) -> CheckResult``: ``quick`` asks for a smaller budget (CI, ``--quick``), ``rng`` is
seeded from the check's id alone, so one check or all give the same numbers. The JSON record is
:meth:`CheckResult.to_json`'s: ``worst_case`` is the searched case with the largest ``ratio = observed / bound``
(above 1 the printed claim fails), ``cases`` the further cases the README quotes, ``summary`` its two cells.
"""
from __future__ import annotations

import time
import zlib
from typing import Callable, NamedTuple

import numpy as np

from . import categorical_checks as cc
from . import domains_checks as dc
from .result import CheckResult


class _Check(NamedTuple):
    id: str
    claim: str
    function: Callable[..., CheckResult]


#: Foster, Kakade & Salakhutdinov as ``domains.*``, Sabato & Shalev-Shwartz as ``categorical.*``.
BUILTIN_CHECKS = (
    _Check("domains.theorem2", dc.THEOREM2_CLAIM, dc.check_theorem2),
    _Check("domains.theorem1", dc.THEOREM1_CLAIM, dc.check_theorem1),
    _Check("domains.corollary3", dc.COROLLARY3_CLAIM, dc.check_corollary3),
    _Check("categorical.theorem1", cc.THEOREM1_CLAIM, cc.theorem1_check),
    _Check("categorical.theorem2", cc.THEOREM2_CLAIM, cc.theorem2_check),
    _Check("categorical.theorem4", cc.THEOREM4_CLAIM, cc.theorem4_check),
    _Check("categorical.theorem3", cc.THEOREM3_CLAIM, cc.theorem3_check),
    _Check("categorical.lemma11", cc.LEMMA11_CLAIM, cc.lemma11_check),
)

_REGISTRY: dict[str, _Check] = {check.id: check for check in BUILTIN_CHECKS}


def register_check(check_id: str, claim: str):
    """Decorator: register ``function(quick: bool, rng: Generator) -> CheckResult`` under ``check_id``."""

    def decorate(function):
        if check_id in _REGISTRY and _REGISTRY[check_id].function is not function:
            raise ValueError(f"check id {check_id!r} is registered twice")
        _REGISTRY[check_id] = _Check(check_id, claim, function)
        return function

    return decorate


def available_checks() -> list[str]:
    """Ids of every registered check, sorted."""
    return sorted(_REGISTRY)


def claim_of(check_id: str) -> str:
    """The printed claim a registered check tests."""
    return _REGISTRY[check_id].claim


def run_checks(ids: list[str] | None = None, quick: bool = False) -> list[CheckResult]:
    """Run the checks named in ``ids`` (all when ``None``; an id ending in a dot, e.g. ``"domains."``, is a prefix)."""
    known = available_checks()
    chosen = [] if ids else known
    for wanted in ids or ():
        matches = [k for k in known if k == wanted or (wanted.endswith(".") and k.startswith(wanted))]
        if not matches:
            raise ValueError(f"unknown check id {wanted!r}; known ids: {', '.join(known) or 'none'}")
        chosen.extend(m for m in matches if m not in chosen)
    results = []
    for check_id in chosen:
        rng = np.random.default_rng(zlib.crc32(check_id.encode("utf-8")))
        start = time.perf_counter()
        result = _REGISTRY[check_id].function(quick=quick, rng=rng)
        result.seconds = time.perf_counter() - start
        if result.id != check_id:
            raise RuntimeError(f"check {check_id!r} returned a result for {result.id!r}")
        results.append(result)
    return results
