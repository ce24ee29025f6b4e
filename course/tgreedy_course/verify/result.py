"""The outcome of one numerical check of a printed claim (:class:`CheckResult`) and its JSON record.

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
.. [2] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import dataclasses
import fractions  # noqa: F401  (the examples write exact parameters as Fractions)
from typing import Any

from tgreedy_lib.files import jsonable

__all__ = ["CheckResult", "exact"]


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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References) (checks ``domains.*``).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References) (checks ``categorical.*``).

    Examples
    --------
    >>> from tgreedy_course.verify import run_checks
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


def _jsonable(value):
    """Plain JSON through the library's one encoder (strict: non-finite floats as strings)."""
    return jsonable(value, nonfinite="string")
