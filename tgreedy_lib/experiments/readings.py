"""The readings of sections 3.3 and 4 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small
Sample Statistical Approach" (AISTATS 2012) that the reproduction runs side by side.

The paper leaves two choices open that decide some headline numbers, so every experiment runs each
reading below on the same statistics (each a selector of :mod:`tgreedy_lib.domain_adaptation.selectors`;
:data:`READING_QUOTES` gives the sentence it reads), and the claims are evaluated for each comparison
of :data:`COMPARISONS` (a greedy reading against a T-greedy one, the paper's first).

``"tgreedy-signed"`` (the paper's, the default)
    section 3.3's "add the feature: i* = arg max T_i": signed, so a feature whose covariance with the
    residual is consistently negative is never picked (``tgreedy_path(sign="positive")``).
``"tgreedy"``
    section 4's "the largest T-statistic" read as largest |T_i| (``sign="abs"``, the library's default:
    a consistently negative covariance is as much evidence, and the update moves with mu_i's sign).
``"greedy"`` (the paper's, the default)
    section 4's "decreases the squared loss the most", run as section 3.3's stagewise procedure: adding
    feature i decreases the pooled loss by mu_i^2 / E[X_i^2], so greedy takes its arg max and makes
    T-greedy's update; the two differ only in the score, which is what Figures 2-4 compare.
``"greedy-stepwise"``
    forward selection with a least-squares refit after each step (orthogonal matching pursuit; "stepwise
    variants are also possible", section 3.3).
"""
from __future__ import annotations

from ..domain_adaptation.selectors import get_selector

#: The sentence of the paper each reading takes literally.
READING_QUOTES = {
    "greedy": "The greedy algorithm chooses the next feature which decreases the squared loss the most on the "
              "training set (section 4), with the stagewise update of section 3.3",
    "tgreedy-signed": "Now we just add the feature with the highest T-statistic, e.g. add the feature: "
                      "i* = arg max T_i (section 3.3)",
    "tgreedy": "The T-greedy algorithm ... chooses a feature with the largest T-statistic (section 4), largest in size",
    "greedy-stepwise": "We should point out that stepwise variants are also possible (section 3.3): forward "
                       "selection with a least-squares refit",
}
#: The paper's readings (the reproduction's defaults).
PAPER_READINGS = ("greedy", "tgreedy-signed")
#: Every reading a full run computes.
ALL_READINGS = ("greedy", "tgreedy-signed", "tgreedy", "greedy-stepwise")

#: The (greedy, T-greedy) pairs the claims are evaluated on; the first is the paper's reading.
COMPARISONS: dict[str, tuple[str, str]] = {
    "paper": ("greedy", "tgreedy-signed"),
    "abs-T": ("greedy", "tgreedy"),
    "stepwise-greedy": ("greedy-stepwise", "tgreedy-signed"),
}
COMPARISON_LABELS = {
    "paper": "paper's reading: signed T vs stagewise greedy",
    "abs-T": "|T| vs stagewise greedy",
    "stepwise-greedy": "signed T vs stepwise (least-squares refit) greedy",
}
PAPER_COMPARISON = "paper"


def reading_json(name: str) -> dict:
    """What a result records about the selector ``name``: label, path function, options, the quote it reads."""
    selector = get_selector(name)
    return {"name": selector.name, "label": selector.label, "path": selector.path.__name__,
            "options": dict(selector.options), "quote": READING_QUOTES.get(name, ""),
            "paper_default": name in PAPER_READINGS}


def comparison_pair(comparison: str) -> tuple[str, str]:
    """The (greedy reading, T-greedy reading) of a comparison name."""
    try:
        return COMPARISONS[comparison]
    except KeyError:
        raise ValueError(f"unknown comparison {comparison!r}; choose from {sorted(COMPARISONS)}") from None
