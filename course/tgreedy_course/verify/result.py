"""The outcome of one numerical check of a printed claim (:class:`CheckResult`) and its JSON record."""
from __future__ import annotations

import dataclasses
from typing import Any

from tgreedy_lib.files import jsonable


@dataclasses.dataclass
class CheckResult:
    """Outcome of one numerical check of a printed claim; :meth:`to_json` gives the record of
    :mod:`tgreedy_course.verify.registry`."""

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
        """The JSON record (without ``seconds``, which is not reproducible); ``ratio`` defaults to observed / bound."""
        worst = {k: exact(self.worst_case.get(k)) for k in ("parameters", "observed", "bound")}
        ratio = self.worst_case.get("ratio")
        if ratio is None:
            try:
                observed, bound = float(self.worst_case.get("observed")), float(self.worst_case.get("bound"))
                ratio = observed / bound if bound != 0 else None
            except (TypeError, ValueError):
                ratio = None
        worst["ratio"] = exact(ratio)
        return {"id": self.id, "claim": self.claim, "holds_as_printed": bool(self.holds_as_printed),
                "trials": int(self.trials), "worst_case": worst, "cases": exact(list(self.cases)),
                "summary": {k: str(self.summary.get(k, "")) for k in ("worst_case", "holds_instead")},
                "corrected_claim": self.corrected_claim}


def exact(value):
    """A value as plain JSON, written exactly: an int, a decimal float as it is, a ``Fraction`` as ``"p/q"``
    (non-finite floats as strings).

    >>> from fractions import Fraction
    >>> exact(Fraction(349, 600)), exact(Fraction(4, 2)), exact(0.0001)
    ('349/600', 2, 0.0001)
    """
    return jsonable(value, nonfinite="string")
