"""Every candidate's T-statistic at each step of a selection path, and the candidate each rule would take.

Section 3.3 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach"
(AISTATS 2012) adds "the feature with the highest T-statistic"; section 4's T-greedy takes "the largest
T-statistic". Once the positive T are used up, the signed rule takes the largest T left, near zero or
below, while a large *negative* T, which the |T| rule and greedy would take, stays unused.
"""
from __future__ import annotations

import numpy as np

from ..domain_adaptation.selectors import get_selector
from .style import SMALLEST_TEXT_PT, selector_style

__all__ = ["rule_picks", "plot_candidate_t"]

#: Marker of each rule's pick (others: a circle).
RULE_MARKERS = {"tgreedy-signed": "^", "tgreedy": "v", "greedy": "x", "greedy-stepwise": "+"}
#: Legend text of each rule (others: the selector's label).
PICK_LABELS = {"tgreedy-signed": "signed rule: largest T", "tgreedy": "|T| rule: largest |T|",
               "greedy": "greedy: largest loss decrease"}


def rule_picks(t_statistics, greedy_scores=None) -> dict[str, np.ndarray]:
    """The candidate each rule would add at each step, ``{selector name: index per step}``: largest T
    (``"tgreedy-signed"``), largest |T| (``"tgreedy"``), largest ``greedy_scores`` (``"greedy"``, if given).
    Both arrays are (n_steps, n_features), NaN where a feature is no candidate.
    """
    t = np.asarray(t_statistics, dtype=float)
    if t.ndim != 2:
        raise ValueError(f"t_statistics must be 2-d (steps x features), got shape {t.shape}")
    if np.isnan(t).all(axis=1).any():
        raise ValueError("a step has no candidate (every entry NaN): pass the steps of a path that had candidates")
    picks = {"tgreedy-signed": np.nanargmax(t, axis=1), "tgreedy": np.nanargmax(np.abs(t), axis=1)}
    if greedy_scores is not None:
        scores = np.asarray(greedy_scores, dtype=float)
        if scores.shape != t.shape:
            raise ValueError(f"greedy_scores has shape {scores.shape}, t_statistics {t.shape}; "
                             "give both per step and feature")
        picks["greedy"] = np.nanargmax(scores, axis=1)
    return picks


def plot_candidate_t(ax, t_statistics, picks, *, path_label: str | None = None, linthresh: float = 1.0,
                     legend: bool = True):
    """Every candidate's signed T at each step (gray dots) and the pick of each rule of ``picks``
    (:func:`rule_picks`); ``path_label`` names the path, the y axis is linear within ``linthresh``."""
    t = np.asarray(t_statistics, dtype=float)
    if t.ndim != 2:
        raise ValueError(f"t_statistics must be 2-d (steps x features), got shape {t.shape}")
    n_steps = t.shape[0]
    steps = np.arange(1, n_steps + 1)
    jitter = np.random.default_rng(0).uniform(-0.3, 0.3, size=t.shape)
    rows, cols = np.nonzero(~np.isnan(t))
    ax.scatter(steps[rows] + jitter[rows, cols], t[rows, cols], s=2, color="0.6", alpha=0.25, lw=0,
               rasterized=True, label="every candidate")
    offsets = np.linspace(-0.25, 0.25, max(len(picks), 1))
    for offset, (name, chosen) in zip(offsets, picks.items()):
        chosen = np.asarray(chosen, dtype=int)
        if chosen.shape != (n_steps,):
            raise ValueError(f"picks[{name!r}] has {chosen.size} entries for {n_steps} steps; give one index per step")
        ax.plot(steps + offset, t[np.arange(n_steps), chosen], ls="none", marker=RULE_MARKERS.get(name, "o"), ms=5,
                color=selector_style(name).color, label=f"{PICK_LABELS.get(name, get_selector(name).label)} would add")
    ax.axhline(0, color="k", lw=0.7)
    ax.set_yscale("symlog", linthresh=linthresh)
    ax.set_xlabel("step")
    ax.set_ylabel("T of each candidate (signed)")
    ax.set_title("every candidate, before each step" + (f" of {path_label}" if path_label else ""))
    if legend:
        ax.legend(fontsize=SMALLEST_TEXT_PT, loc="upper right", markerscale=1.5)
    return ax
