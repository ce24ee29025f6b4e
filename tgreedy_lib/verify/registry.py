"""Numerical checks of the papers' theorems, and the ``verify`` command.

Each check is a function registered with :func:`register_check` in one of the
modules listed in :data:`CHECK_MODULES`. A check receives ``quick`` (a smaller
budget for CI and for ``--quick``) and a seeded :class:`numpy.random.Generator`
derived from its id alone, so running one check or all of them gives the same
numbers, and the same command gives the same JSON.

The JSON written by ``python -m tgreedy_lib verify --json PATH`` is::

    {"checks": [{"id", "claim", "holds_as_printed", "trials",
                 "worst_case": {"parameters", "observed", "bound", "ratio"},
                 "cases", "summary", "corrected_claim"}]}

``worst_case`` is the case of the check's search with the largest ratio of the
observed quantity to the printed bound (``ratio = observed / bound``; above 1 the
printed claim fails there). Its ``parameters`` are exact: integers, decimals as
written, and rationals as strings such as ``"349/600"`` (never rounded). ``cases``
lists further computed cases the README quotes (each ``{"label", "parameters",
"observed", "bound", "ratio"}``, or a computed constant with ``"value"``);
``summary`` holds the two README cells (``"worst_case"``, ``"holds_instead"``),
formatted from the computed numbers. ``corrected_claim`` is ``None`` (JSON ``null``)
where the claim holds as printed.

``python -m tgreedy_lib verify --json results/verify.json --readme README.md`` also
rewrites the README's table between the markers :data:`README_BEGIN` and
:data:`README_END` (``--from-json PATH`` renders an earlier run instead of running).
"""
from __future__ import annotations

import dataclasses
import fractions
import importlib
import json
import pathlib
import time
import zlib
from typing import Any, Callable

import numpy as np

from .._io import atomic_write_text, check_outputs
from .._json import jsonable, write_json

__all__ = ["CheckResult", "register_check", "available_checks", "run_checks", "main", "exact",
           "markdown_table", "update_readme", "README_BEGIN", "README_END"]

#: Modules that register checks when imported: one a paper.
CHECK_MODULES = ("tgreedy_lib.verify.domain_adaptation", "tgreedy_lib.verify.categorical")


@dataclasses.dataclass
class CheckResult:
    """Outcome of one numerical check of a printed claim.

    See Also
    --------
    run_checks : Run registered checks.
    available_checks : Their ids.
    register_check : Add one.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012 (checks ``domains.*``).
    .. [2] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008 (checks ``categorical.*``).

    Examples
    --------
    >>> from tgreedy_lib.verify import run_checks
    >>> result, = run_checks(["categorical.lemma11"], quick=True)
    >>> result.id, result.holds_as_printed
    ('categorical.lemma11', False)
    >>> sorted(result.to_json())
    ['cases', 'claim', 'corrected_claim', 'holds_as_printed', 'id', 'summary', 'trials', 'worst_case']
    """

    id: str
    claim: str
    holds_as_printed: bool
    trials: int
    worst_case: dict[str, Any]
    corrected_claim: str | None = None
    seconds: float = 0.0
    cases: list = dataclasses.field(default_factory=list)
    summary: dict = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The documented JSON record (``seconds`` is left out: it is not reproducible).

        ``worst_case["ratio"]`` is ``observed / bound`` unless the check gives it.
        """
        worst = {k: _jsonable(self.worst_case.get(k)) for k in ("parameters", "observed", "bound")}
        ratio = self.worst_case.get("ratio")
        if ratio is None:
            ratio = _ratio(self.worst_case.get("observed"), self.worst_case.get("bound"))
        worst["ratio"] = _jsonable(ratio)
        return {
            "id": self.id,
            "claim": self.claim,
            "holds_as_printed": bool(self.holds_as_printed),
            "trials": int(self.trials),
            "worst_case": worst,
            "cases": _jsonable(list(self.cases)),
            "summary": {k: str(self.summary.get(k, "")) for k in ("worst_case", "holds_instead")},
            "corrected_claim": self.corrected_claim,
        }


def _ratio(observed, bound):
    try:
        observed, bound = float(observed), float(bound)
    except (TypeError, ValueError):
        return None
    return observed / bound if bound != 0 else None


def exact(value):
    """A parameter written exactly: an int, a decimal float as it is, a ``Fraction`` as ``"p/q"``.

    Examples
    --------
    >>> exact(fractions.Fraction(349, 600)), exact(fractions.Fraction(4, 2)), exact(0.0001)
    ('349/600', 2, 0.0001)
    """
    return _jsonable(value)


@dataclasses.dataclass(frozen=True)
class _Check:
    id: str
    claim: str
    function: Callable[..., CheckResult]


_REGISTRY: dict[str, _Check] = {}


def register_check(check_id: str, claim: str):
    """Register ``function(quick: bool, rng: Generator) -> CheckResult`` under ``check_id``.

    See Also
    --------
    run_checks : Run registered checks.
    available_checks : Their ids.
    CheckResult : What a check returns.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012 (checks ``domains.*``).
    .. [2] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008 (checks ``categorical.*``).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib.verify import CheckResult, register_check

    A check is a function of ``quick`` and a seeded generator (registering one changes the
    registry for the whole session, so this example is not run):

    >>> @register_check("demo.mean", "the mean of 1000 standard normals lies within 0.2 of 0")  # doctest: +SKIP
    ... def check_mean(quick, rng):
    ...     observed = abs(rng.standard_normal(1000).mean())
    ...     return CheckResult("demo.mean", "the mean lies within 0.2 of 0", observed <= 0.2, 1000,
    ...                        {"observed": observed, "bound": 0.2})
    """

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
    """Ids of every registered check, sorted.

    See Also
    --------
    run_checks : Run registered checks.
    register_check : Add one.
    CheckResult : What a check returns.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012 (checks ``domains.*``).
    .. [2] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008 (checks ``categorical.*``).

    Examples
    --------
    >>> from tgreedy_lib.verify import available_checks
    >>> [c for c in available_checks() if c.startswith(("domains.", "categorical."))]
    ['categorical.lemma11', 'categorical.theorem1', 'categorical.theorem2', 'categorical.theorem3', 'categorical.theorem4', 'domains.corollary3', 'domains.theorem1', 'domains.theorem2']
    """
    _load_modules()
    return sorted(_REGISTRY)


def _seed_for(check_id: str) -> int:
    return zlib.crc32(check_id.encode("utf-8"))


def run_checks(ids: list[str] | None = None, quick: bool = False) -> list[CheckResult]:
    """Run the checks named in ``ids`` (all when ``None``); each seeded by its id.

    An id may also be a prefix ending in a dot, e.g. ``"domains."``.

    See Also
    --------
    available_checks : Their ids.
    register_check : Add one.
    CheckResult : What a check returns.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012 (checks ``domains.*``).
    .. [2] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008 (checks ``categorical.*``).

    Examples
    --------
    >>> from tgreedy_lib.verify import run_checks
    >>> [(r.id, r.holds_as_printed) for r in run_checks(["categorical.lemma11"], quick=True)]
    [('categorical.lemma11', False)]

    All checks of one paper by prefix (``quick=True`` runs fewer trials):

    >>> results = run_checks(["domains."], quick=True)  # doctest: +SKIP
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


def _jsonable(value):
    """Plain JSON through the library's one encoder (strict: non-finite floats as strings)."""
    return jsonable(value, nonfinite="string")


def format_table(results: list[CheckResult]) -> str:
    """A plain-text table: id, verdict, trials, worst observed against the bound."""
    rows = [("id", "as printed", "trials", "worst observed", "bound", "ratio", "seconds")]
    for r in results:
        record = r.to_json()["worst_case"]
        rows.append(
            (
                r.id,
                "holds" if r.holds_as_printed else "FAILS",
                str(r.trials),
                _short(record["observed"]),
                _short(record["bound"]),
                _short(record["ratio"]),
                f"{r.seconds:.1f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for r in results:
        parameters = json.dumps(r.to_json()["worst_case"]["parameters"])
        lines.append(f"\n{r.id}: worst case {parameters}")
        if r.corrected_claim:
            lines.append(f"{r.id}: {r.claim}\n  corrected: {r.corrected_claim}")
    return "\n".join(lines)


#: The README's "What the checks found" table lies between these two lines.
README_BEGIN = "<!-- verify-table: generated by python -m tgreedy_lib verify --readme README.md; do not edit -->"
README_END = "<!-- verify-table: end -->"


def markdown_table(records: list[dict[str, Any]]) -> str:
    """The README's table of verdicts from JSON records (``CheckResult.to_json()``), in id order.

    See Also
    --------
    update_readme : Writes this table into the README.
    CheckResult.to_json : The records.

    Examples
    --------
    >>> from tgreedy_lib.verify.registry import markdown_table
    >>> record = {"id": "domains.theorem2", "holds_as_printed": False,
    ...           "summary": {"worst_case": "n = 1: Pr = 1", "holds_instead": "2 exp(-t/2)"}}
    >>> print(markdown_table([record]))
    | id | as printed | worst case (largest observed / bound) | what holds instead |
    |---|---|---|---|
    | `domains.theorem2` | **fails** | n = 1: Pr = 1 | 2 exp(-t/2) |
    """
    lines = ["| id | as printed | worst case (largest observed / bound) | what holds instead |",
             "|---|---|---|---|"]
    for record in sorted(records, key=lambda r: (r["id"].split(".")[0] != "domains", r["id"])):
        verdict = "holds" if record["holds_as_printed"] else "**fails**"
        summary = record.get("summary") or {}
        cells = [f"`{record['id']}`", verdict, summary.get("worst_case", ""), summary.get("holds_instead", "")]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines)


def update_readme(path, records: list[dict[str, Any]]) -> bool:
    """Rewrite the table between :data:`README_BEGIN` and :data:`README_END` in ``path``.

    Returns whether the file changed; ValueError when the markers are missing.

    See Also
    --------
    markdown_table : The table it writes.

    Examples
    --------
    >>> from tgreedy_lib.verify.registry import update_readme
    >>> update_readme("README.md", records)  # doctest: +SKIP
    True
    """
    import pathlib

    path = pathlib.Path(path)
    text = path.read_text()
    if README_BEGIN not in text or README_END not in text:
        raise ValueError(f"{path} lacks the verify-table markers; put {README_BEGIN!r} and {README_END!r} "
                         "around the table first")
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    new = head + README_BEGIN + "\n" + markdown_table(records) + "\n" + README_END + tail
    if new != text:
        atomic_write_text(path, new)
    return new != text


def _short(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    return str(value)


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_lib verify") -> int:
    """Command line ``python -m tgreedy_lib verify``: run the checks, print their table, optionally write JSON.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``); ``--help`` lists them.
    prog : str
        The program name shown in the usage line.

    Returns
    -------
    status : int
        The exit status.

    See Also
    --------
    run_checks : The same from Python.

    Examples
    --------
    >>> from tgreedy_lib.verify import main
    >>> main(["--quick", "categorical.lemma11"])  # doctest: +SKIP
    """
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description="Run the numerical checks of the papers' claims.")
    parser.add_argument("ids", nargs="*", help="check ids (default: all); a prefix such as 'domains.' selects a group")
    parser.add_argument("--quick", action="store_true", help="small budget (under a minute)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--list", action="store_true", help="list the check ids and exit")
    parser.add_argument("--readme", metavar="PATH", help="rewrite the verdict table in this README")
    parser.add_argument("--from-json", metavar="PATH", help="with --readme: render this earlier JSON, run nothing")
    args = parser.parse_args(argv)
    status = check_outputs(prog, files={"--json": args.json}, existing_files={"--readme": args.readme})
    if status is not None:  # before any check runs: a long run never fails at its end for want of a folder
        return status
    if args.list:
        for check_id in available_checks():
            print(f"{check_id}: {_REGISTRY[check_id].claim}")
        return 0
    if args.from_json:
        if not args.readme:
            parser.error("--from-json needs --readme PATH")
        records = json.loads(pathlib.Path(args.from_json).read_text())["checks"]
        changed = update_readme(args.readme, records)
        print(f"{args.readme}: table {'rewritten' if changed else 'already up to date'}")
        return 0
    try:
        results = run_checks(args.ids, quick=args.quick)
    except ValueError as err:
        parser.error(str(err))
    print(format_table(results))
    if args.json:
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"checks": [r.to_json() for r in results]}, indent=2)
    if args.readme:
        if args.quick or args.ids:
            parser.error("--readme quotes the full run of every check: leave out --quick and the ids")
        changed = update_readme(args.readme, [r.to_json() for r in results])
        print(f"{args.readme}: table {'rewritten' if changed else 'already up to date'}")
    return 0
