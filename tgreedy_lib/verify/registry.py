"""Numerical checks of the papers' theorems, and the ``verify`` command.

Each check is a function registered with :func:`register_check` in one of the
modules listed in :data:`CHECK_MODULES`. A check receives ``quick`` (a smaller
budget for CI and for ``--quick``) and a seeded :class:`numpy.random.Generator`
derived from its id alone, so running one check or all of them gives the same
numbers, and the same command gives the same JSON.

The JSON written by ``python -m tgreedy_lib verify --json PATH`` is::

    {"checks": [{"id", "claim", "holds_as_printed", "trials",
                 "worst_case": {"parameters", "observed", "bound"},
                 "corrected_claim"}]}

``corrected_claim`` is ``None`` (JSON ``null``) where the claim holds as printed.
"""
from __future__ import annotations

import dataclasses
import importlib
import time
import zlib
from typing import Any, Callable

import numpy as np

from .._json import jsonable, write_json

__all__ = ["CheckResult", "register_check", "available_checks", "run_checks", "main"]

#: Modules that register checks when imported: one a paper.
CHECK_MODULES = ("tgreedy_lib.verify.domain_adaptation", "tgreedy_lib.verify.categorical")


@dataclasses.dataclass
class CheckResult:
    """Outcome of one numerical check of a printed claim."""

    id: str
    claim: str
    holds_as_printed: bool
    trials: int
    worst_case: dict[str, Any]
    corrected_claim: str | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The documented JSON record (``seconds`` is left out: it is not reproducible)."""
        worst = {k: jsonable(self.worst_case.get(k), nonfinite="string") for k in ("parameters", "observed", "bound")}
        return {
            "id": self.id,
            "claim": self.claim,
            "holds_as_printed": bool(self.holds_as_printed),
            "trials": int(self.trials),
            "worst_case": worst,
            "corrected_claim": self.corrected_claim,
        }


@dataclasses.dataclass(frozen=True)
class _Check:
    id: str
    claim: str
    function: Callable[..., CheckResult]


_REGISTRY: dict[str, _Check] = {}


def register_check(check_id: str, claim: str):
    """Register ``function(quick: bool, rng: Generator) -> CheckResult`` under ``check_id``."""

    def decorate(function):
        if check_id in _REGISTRY and _REGISTRY[check_id].function is not function:
            raise ValueError(f"check id {check_id!r} is registered twice")
        _REGISTRY[check_id] = _Check(check_id, claim, function)
        return function

    return decorate


def _load_modules() -> None:
    for name in CHECK_MODULES:
        importlib.import_module(name)


def available_checks() -> list[str]:
    """Ids of every registered check, sorted."""
    _load_modules()
    return sorted(_REGISTRY)


def _seed_for(check_id: str) -> int:
    return zlib.crc32(check_id.encode("utf-8"))


def run_checks(ids: list[str] | None = None, quick: bool = False) -> list[CheckResult]:
    """Run the checks named in ``ids`` (all when ``None``); each seeded by its id.

    An id may also be a prefix ending in a dot, e.g. ``"domains."``.
    """
    known = available_checks()
    if not ids:
        chosen = known
    else:
        chosen = []
        for wanted in ids:
            matches = [k for k in known if k == wanted or (wanted.endswith(".") and k.startswith(wanted))]
            if not matches:
                raise ValueError(f"unknown check id {wanted!r}; known ids: {', '.join(known) or 'none'}")
            chosen.extend(m for m in matches if m not in chosen)
    results = []
    for check_id in chosen:
        check = _REGISTRY[check_id]
        rng = np.random.default_rng(_seed_for(check_id))
        start = time.perf_counter()
        result = check.function(quick=quick, rng=rng)
        result.seconds = time.perf_counter() - start
        if result.id != check_id:
            raise RuntimeError(f"check {check_id!r} returned a result for {result.id!r}")
        results.append(result)
    return results


def format_table(results: list[CheckResult]) -> str:
    """A plain-text table: id, verdict, trials, worst observed against the bound."""
    rows = [("id", "as printed", "trials", "worst observed", "bound", "seconds")]
    for r in results:
        obs, bound = r.worst_case.get("observed"), r.worst_case.get("bound")
        rows.append(
            (
                r.id,
                "holds" if r.holds_as_printed else "FAILS",
                str(r.trials),
                _short(obs),
                _short(bound),
                f"{r.seconds:.1f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for r in results:
        if r.corrected_claim:
            lines.append(f"\n{r.id}: {r.claim}\n  corrected: {r.corrected_claim}")
    return "\n".join(lines)


def _short(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    return str(value)


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_lib verify") -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description="Run the numerical checks of the papers' claims.")
    parser.add_argument("ids", nargs="*", help="check ids (default: all); a prefix such as 'domains.' selects a group")
    parser.add_argument("--quick", action="store_true", help="small budget (under a minute)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--list", action="store_true", help="list the check ids and exit")
    args = parser.parse_args(argv)
    if args.list:
        for check_id in available_checks():
            print(f"{check_id}: {_REGISTRY[check_id].claim}")
        return 0
    try:
        results = run_checks(args.ids, quick=args.quick)
    except ValueError as err:
        parser.error(str(err))
    print(format_table(results))
    if args.json:
        import pathlib

        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"checks": [r.to_json() for r in results]}, indent=2)
    return 0
