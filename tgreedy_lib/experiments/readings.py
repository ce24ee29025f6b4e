"""The readings of section 3.3 and section 4 that the reproduction runs, in one place.

Foster, Kakade & Salakhutdinov (AISTATS 2012) leave two choices open that decide the headline
numbers, so every experiment runs every reading below on the same statistics, and the claims are
evaluated for each *comparison* (a greedy reading against a T-greedy reading).

T-greedy
    ``"tgreedy"`` (the paper's reading, the reproduction's default): section 3.3, "Now we just add
    the feature with the highest T-statistic, e.g. add the feature: i* = arg max T_i" -- the signed
    T, so a feature whose covariance with the residual is consistently *negative* is never picked
    (``tgreedy_path(sign="positive")``).

    ``"tgreedy-abs"``: ranks by |T_i| (``sign="abs"``), the library's default for users: the same
    confidence with either sign; the stagewise step then moves the weight in the direction of mu_i.
    Section 4 says "chooses a feature with the largest T-statistic", which this reading takes as
    largest in size.

Greedy
    ``"greedy"`` (the paper's reading, the reproduction's default): section 4, "The greedy
    algorithm chooses the next feature which decreases the squared loss the most on the training
    set", run as the *stagewise* procedure of section 3.3 ("We now present a stagewise variant ...
    w_i* <- w_i* + mu_i / E[X_i^2]"). Adding feature i by that update decreases the pooled squared
    loss by exactly mu_i^2 / E[X_i^2], so greedy takes the arg max of that decrease and then makes
    the same update as T-greedy. Why this is the default: section 3.3 introduces T-greedy as the
    stagewise procedure that replaces "finding the feature which decreases the error the most" by
    "the feature which has the highest T-statistic"; the two differ only in the score, which is the
    comparison Figures 2-4 are about (``greedy_path(refit="stagewise")``).

    ``"greedy-stepwise"``: forward selection with a least-squares refit on the chosen set after
    every step (orthogonal matching pursuit; "We should point out that stepwise variants are also
    possible", section 3.3). It picks the same feature first and different ones once the features
    correlate (``greedy_path(refit="stepwise")``).

Every reading is an entry of :data:`READINGS` (name -> :class:`Reading`); :data:`COMPARISONS`
names the (greedy, T-greedy) pairs the claims are evaluated on, the first being the paper's.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from ..selection import SelectionPath, greedy_path, tgreedy_path


@dataclasses.dataclass(frozen=True)
class Reading:
    """One reading of a selector: how to run it and how to call it.

    Attributes
    ----------
    name : str
        Key in the experiments' JSON ``curves``.
    family : {"greedy", "tgreedy"}
        Which of the paper's two algorithms it reads.
    label : str
        Legend text.
    color, linestyle : str
        Matplotlib colour and line style.
    path : callable
        ``path(stats, n_steps, **options) -> SelectionPath``.
    options : dict
        Keyword arguments for ``path``.
    quote : str
        The sentence of the paper this reading takes literally.
    paper_default : bool
        Whether the reproduction uses it as the paper's reading.
    """

    name: str
    family: str
    label: str
    color: str
    linestyle: str
    path: Callable[..., SelectionPath]
    options: dict
    quote: str
    paper_default: bool = False

    def run(self, stats, n_steps: int) -> SelectionPath:
        """The selection path of ``n_steps`` features on ``stats``."""
        return self.path(stats, n_steps, **self.options)

    def as_json(self) -> dict:
        """Name, family, label, options and quote (what a result file records about the reading)."""
        return {"name": self.name, "family": self.family, "label": self.label, "options": dict(self.options),
                "path": self.path.__name__, "quote": self.quote, "paper_default": self.paper_default}


READINGS: dict[str, Reading] = {
    reading.name: reading for reading in (
        Reading("greedy", "greedy", "greedy (stagewise, paper)", "tab:red", "-", greedy_path,
                {"refit": "stagewise"},
                "The greedy algorithm chooses the next feature which decreases the squared loss the most on the "
                "training set (section 4), with the stagewise update of section 3.3", paper_default=True),
        Reading("tgreedy", "tgreedy", "T-greedy (signed T, paper)", "tab:blue", "-", tgreedy_path,
                {"sign": "positive", "refit": "stagewise"},
                "Now we just add the feature with the highest T-statistic, e.g. add the feature: "
                "i* = arg max T_i (section 3.3)", paper_default=True),
        Reading("tgreedy-abs", "tgreedy", "T-greedy (|T|)", "tab:cyan", "-.", tgreedy_path,
                {"sign": "abs", "refit": "stagewise"},
                "The T-greedy algorithm ... chooses a feature with the largest T-statistic (section 4), "
                "largest in size"),
        Reading("greedy-stepwise", "greedy", "greedy (stepwise refit, OMP)", "tab:orange", "-.", greedy_path,
                {"refit": "stepwise"},
                "We should point out that stepwise variants are also possible (section 3.3): forward selection "
                "with a least-squares refit"),
    )
}

#: The (greedy, T-greedy) pairs the claims are evaluated on; the first is the paper's reading.
COMPARISONS: dict[str, tuple[str, str]] = {
    "paper": ("greedy", "tgreedy"),
    "abs-T": ("greedy", "tgreedy-abs"),
    "stepwise-greedy": ("greedy-stepwise", "tgreedy"),
}
COMPARISON_LABELS = {
    "paper": "paper's reading: signed T vs stagewise greedy",
    "abs-T": "|T| vs stagewise greedy",
    "stepwise-greedy": "signed T vs stepwise (least-squares refit) greedy",
}
PAPER_COMPARISON = "paper"
#: Every reading a full run computes (the union of the comparisons).
ALL_READINGS = tuple(READINGS)


def get_reading(name: str) -> Reading:
    """The :class:`Reading` called ``name``; a ``ValueError`` lists the known ones."""
    try:
        return READINGS[name]
    except KeyError:
        raise ValueError(f"unknown selector reading {name!r}; choose from {sorted(READINGS)}") from None


def comparison_pair(comparison: str) -> tuple[str, str]:
    """The (greedy reading, T-greedy reading) of a comparison name."""
    try:
        return COMPARISONS[comparison]
    except KeyError:
        raise ValueError(f"unknown comparison {comparison!r}; choose from {sorted(COMPARISONS)}") from None
