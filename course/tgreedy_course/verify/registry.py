"""Numerical checks of the papers' theorems, by id: :data:`BUILTIN_CHECKS` and :func:`register_check`.

Each check is a function of one of the paper modules (:mod:`.domain_adaptation`, :mod:`.categorical`),
listed with its id and claim in :data:`BUILTIN_CHECKS`; :func:`register_check` adds more. A check receives ``quick`` (a smaller
budget for CI and for ``--quick``) and a seeded :class:`numpy.random.Generator`
derived from its id alone, so running one check or all of them gives the same
numbers, and the same command gives the same JSON.

The JSON written by ``python -m tgreedy_course verify --json PATH`` is::

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

The command line and the README's table are the collection's (:mod:`tgreedy_course.verify.command`).

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
.. [2] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import dataclasses
import time
import zlib
from typing import Callable

import numpy as np

from . import categorical_checks as categorical, domains_checks as domain_adaptation
from .result import CheckResult, exact

__all__ = ["CheckResult", "BUILTIN_CHECKS", "register_check", "available_checks", "run_checks", "exact"]


@dataclasses.dataclass(frozen=True)
class _Check:
    id: str
    claim: str
    function: Callable[..., CheckResult]


#: The checks of both papers, by id: those of Foster, Kakade & Salakhutdinov (AISTATS 2012) as
#: ``domains.*``, those of Sabato & Shalev-Shwartz (JMLR 2008) as ``categorical.*``.
BUILTIN_CHECKS = (
    _Check("domains.theorem2", domain_adaptation.THEOREM2_CLAIM, domain_adaptation.check_theorem2),
    _Check("domains.theorem1", domain_adaptation.THEOREM1_CLAIM, domain_adaptation.check_theorem1),
    _Check("domains.corollary3", domain_adaptation.COROLLARY3_CLAIM, domain_adaptation.check_corollary3),
    _Check("categorical.theorem1", categorical.THEOREM1_CLAIM, categorical.theorem1_check),
    _Check("categorical.theorem2", categorical.THEOREM2_CLAIM, categorical.theorem2_check),
    _Check("categorical.theorem4", categorical.THEOREM4_CLAIM, categorical.theorem4_check),
    _Check("categorical.theorem3", categorical.THEOREM3_CLAIM, categorical.theorem3_check),
    _Check("categorical.lemma11", categorical.LEMMA11_CLAIM, categorical.lemma11_check),
)

_REGISTRY: dict[str, _Check] = {check.id: check for check in BUILTIN_CHECKS}


def register_check(check_id: str, claim: str):
    """Register ``function(quick: bool, rng: Generator) -> CheckResult`` under ``check_id``.

    See Also
    --------
    run_checks : Run registered checks.
    available_checks : Their ids.
    CheckResult : What a check returns.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References) (checks ``domains.*``).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References) (checks ``categorical.*``).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_course.verify import CheckResult, register_check

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


def available_checks() -> list[str]:
    """Ids of every registered check, sorted.

    See Also
    --------
    run_checks : Run registered checks.
    register_check : Add one.
    CheckResult : What a check returns.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References) (checks ``domains.*``).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References) (checks ``categorical.*``).

    Examples
    --------
    >>> from tgreedy_course.verify import available_checks
    >>> [c for c in available_checks() if c.startswith(("domains.", "categorical."))]
    ['categorical.lemma11', 'categorical.theorem1', 'categorical.theorem2', 'categorical.theorem3', 'categorical.theorem4', 'domains.corollary3', 'domains.theorem1', 'domains.theorem2']
    """
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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References) (checks ``domains.*``).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References) (checks ``categorical.*``).

    Examples
    --------
    >>> from tgreedy_course.verify import run_checks
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
