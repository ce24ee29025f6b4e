"""The paper's claims of sections 1, 4 and 5 as data, checked against our measured curves by one evaluator.

Each claim is a row of :data:`CLAIMS` (a :class:`ClaimSpec`): an id, the section and figure, the
sentence quoted from Foster, Kakade & Salakhutdinov (AISTATS 2012), what the paper asserts, the
*measured quantity* (the name of a function in :data:`MEASURES` that turns our results into named
values and one line of text) and the *rule* (two conditions on those values: when the claim is
``reproduced``, and when it is ``partly`` reproduced; otherwise ``not reproduced``). Only the
paper's side is typed in (it is the claim); every value and verdict is computed by
:func:`evaluate_claim` from the results written by :mod:`tgreedy_lib.experiments`, and the rule's
wording is generated from the same condition that decides, so text and verdict cannot disagree.

The claims are evaluated for a *comparison* of two selector readings (see
:mod:`tgreedy_lib.experiments.readings`): ``"paper"`` (signed T against stagewise greedy, the
default), ``"abs-T"`` and ``"stepwise-greedy"``. Over several seeds (:func:`aggregate_seeds`)
each claim gets two answers, each of which settles as seeds are added:

- *on average*: the rule applied to the seed means of the claim's measured values, its
  uncertainty from a bootstrap over seeds (:func:`average_verdict`): the verdict stands when at
  least 95 % of the bootstrap replicates give it, and the claim is ``unsettled`` otherwise;
- *in one run*: the share of seeds whose own run reproduces the claim, with a Wilson 95 %
  interval (:func:`one_run_rate`).

Conventions: curves are arrays (n_splits, n_steps); "gap" is source AUROC minus target AUROC (how
much the held-out source data overstate performance on the new domain); "mean" is over splits.
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Callable, Sequence

import numpy as np

from .prose import fmt, plural
from tgreedy_lib.experiments.readings import COMPARISONS, PAPER_COMPARISON, comparison_pair
from tgreedy_lib.experiments.runs import curve

REPRODUCED, PARTLY, NOT_REPRODUCED = "reproduced", "partly", "not reproduced"
NOT_RUN = "not run"
UNSETTLED = "unsettled"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_RUN)

#: Differences of mean AUROC gaps below this are treated as no difference (AUROC points).
GAP_TOLERANCE = 0.005
#: A method "overfits" on the target only if its mean source-target gap is at least this.
OVERFIT_GAP = 0.02
SECTION4_TASKS = ("mnist-2-vs-other", "mnist-similarity", "cifar-similarity")


# --------------------------------------------------------------------------- rules as data

@dataclasses.dataclass(frozen=True)
class Atom:
    """The condition ``values[left] op scale * values[right] + offset`` (``right=None``: ``op offset``)."""

    left: str
    op: str
    offset: float = 0.0
    right: str | None = None
    scale: float = 1.0

    _OPS = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal, ">": np.greater, "==": np.equal}

    def holds(self, values: dict) -> bool:
        """Whether the condition holds for ``values`` (a missing or NaN value makes it false)."""
        if self.op not in self._OPS:
            raise ValueError(f"unknown comparison {self.op!r}; use one of {sorted(self._OPS)}")
        left = values.get(self.left)
        right = self.offset if self.right is None else (
            None if values.get(self.right) is None else self.scale * values[self.right] + self.offset)
        if left is None or right is None or np.isnan(left) or np.isnan(right):
            return False  # an infinite value compares as such (an error ratio over a zero error)
        return bool(self._OPS[self.op](left, right))

    def text(self) -> str:
        """The condition in words, e.g. ``drop >= 0.05`` or ``error_odd >= 3 x error_even``."""
        if self.right is None:
            return f"{self.left} {self.op} {self.offset:g}"
        rhs = self.right if self.scale == 1 else f"{self.scale:g} x {self.right}"
        if self.offset:
            rhs += f" {'+' if self.offset > 0 else '-'} {abs(self.offset):g}"
        return f"{self.left} {self.op} {rhs}"


@dataclasses.dataclass(frozen=True)
class AllOf:
    """Every condition holds."""

    parts: tuple

    def holds(self, values: dict) -> bool:
        return all(p.holds(values) for p in self.parts)

    def text(self) -> str:
        return " and ".join(_wrap(p) for p in self.parts)


@dataclasses.dataclass(frozen=True)
class AnyOf:
    """At least one condition holds."""

    parts: tuple

    def holds(self, values: dict) -> bool:
        return any(p.holds(values) for p in self.parts)

    def text(self) -> str:
        return " or ".join(_wrap(p) for p in self.parts)


def _wrap(part) -> str:
    return f"({part.text()})" if isinstance(part, (AllOf, AnyOf)) and len(part.parts) > 1 else part.text()


def all_of(*parts) -> AllOf:
    """Conjunction of conditions (:class:`Atom`, :class:`AllOf`, :class:`AnyOf`)."""
    return AllOf(tuple(parts))


def any_of(*parts) -> AnyOf:
    """Disjunction of conditions."""
    return AnyOf(tuple(parts))


def cond(left: str, op: str, right: float | str, scale: float = 1.0, offset: float = 0.0) -> Atom:
    """``cond("drop", ">=", 0.05)`` or ``cond("error_odd", ">=", "error_even", scale=3)``."""
    if isinstance(right, str):
        return Atom(left, op, float(offset), right, float(scale))
    return Atom(left, op, float(right))


@dataclasses.dataclass(frozen=True)
class Rule:
    """``reproduced`` if the first condition holds, else ``partly`` if the second, else ``not reproduced``."""

    reproduced: object
    partly: object | None = None
    note: str = ""

    def verdict(self, values: dict) -> str:
        """The verdict for measured ``values``."""
        if self.reproduced.holds(values):
            return REPRODUCED
        if self.partly is not None and self.partly.holds(values):
            return PARTLY
        return NOT_REPRODUCED

    def text(self) -> str:
        """The rule in words, generated from the conditions."""
        out = f"reproduced if {self.reproduced.text()}"
        if self.partly is not None:
            out += f"; partly if {self.partly.text()}"
        return out + (f" ({self.note})" if self.note else "")


@dataclasses.dataclass(frozen=True)
class ClaimSpec:
    """One claim of the paper: what it says, what we measure, and the rule that decides.

    Attributes
    ----------
    id, section, figure : str
    quote : str
        The paper's sentence.
    paper : str
        The number or behaviour it asserts.
    experiments : tuple of str
        Results the measure needs (all of them; for section 5, any section-4 task).
    measure : str
        Name of the function in :data:`MEASURES`: ``measure(results, **params) -> (values, text)``,
        or a string saying why it cannot be measured.
    rule : Rule
    headline : str
        The value aggregated over seeds (mean and interval).
    params : dict
        Keyword arguments of the measure.
    """

    id: str
    section: str
    figure: str
    quote: str
    paper: str
    experiments: tuple
    measure: str
    rule: Rule
    headline: str
    params: dict = dataclasses.field(default_factory=dict)

    def as_json(self) -> dict:
        """The row as data (the rule as its text)."""
        return {"id": self.id, "section": self.section, "figure": self.figure, "claim": self.quote,
                "paper": self.paper, "experiments": list(self.experiments), "measure": self.measure,
                "rule": self.rule.text(), "headline": self.headline, "params": dict(self.params)}


# --------------------------------------------------------------------------- helpers of the measures

def _curve(result: dict, method: str, metric: str) -> np.ndarray:
    return curve(result, method, metric)  # the one reader of a stored curve (tgreedy_lib.experiments.runs)


def _gap(result: dict, method: str) -> np.ndarray:
    return _curve(result, method, "source_auroc") - _curve(result, method, "target_auroc")


def _at(curve: np.ndarray, step: int) -> float:
    """Value after ``step`` features (1-based), clipped to the path length."""
    return float(curve[min(step, curve.shape[-1]) - 1])


def _split(result: dict, target: int) -> int | None:
    targets = [s["target"] for s in result["splits"]]
    return targets.index(target) if target in targets else None


def useful_steps(target_curve: np.ndarray, tolerance: float = 0.005) -> int:
    """Features after which a target-AUROC curve first comes within ``tolerance`` of its maximum.

    Our reading of "T-greedy is able to select up to 25 reliable features": the number of features
    that still help on the new domain before the curve levels off or turns down.
    """
    curve = np.asarray(target_curve, dtype=float)
    return int(np.flatnonzero(curve >= curve.max() - tolerance)[0]) + 1


def hanley_mcneil_se(auc, n_pos: int, n_neg: int):
    """Standard error of an AUROC estimate from one sample (Hanley & McNeil, 1982).

    The within-domain sampling spread: how much the AUROC of one domain would move with a fresh
    sample of the same size from the same domain.
    """
    a = np.asarray(auc, dtype=float)
    q1 = a / (2 - a)
    q2 = 2 * a**2 / (1 + a)
    var = (a * (1 - a) + (n_pos - 1) * (q1 - a**2) + (n_neg - 1) * (q2 - a**2)) / (n_pos * n_neg)
    return np.sqrt(np.maximum(var, 0.0))


def _fmt(value: float, digits: int = 3) -> str:
    """A measured value in a claim's text: the course's one number format (never "-0.000")."""
    return fmt(value, digits=digits)


def _pct(value: float) -> str:
    return fmt(value, digits=2, percent=True)


def _first_last_max(curve):
    return float(curve[0]), float(curve[-1]), float(curve.max())


# --------------------------------------------------------------------------- measures: section 1

def intro_even(results):
    r = results["intro-logistic"]
    return {"error_even": r["error_even"]}, f"{_pct(r['error_even'])} (C = {r['main']['C']:g})"


def intro_odd(results):
    r = results["intro-logistic"]
    fpr_odd = {k: v for k, v in r["main"]["false_positive_rate"].items() if int(k) in r["test_negatives"]}
    values = {"error_odd": r["error_odd"], "error_even": r["error_even"],
              **{f"false_positive_rate_{k}": v for k, v in fpr_odd.items()}}
    return values, (f"{_pct(r['error_odd'])}; false alarms per odd digit: "
                    + ", ".join(f"{k}: {_pct(v)}" for k, v in fpr_odd.items()))


def intro_increase(results):
    r = results["intro-logistic"]
    return {"increase_percent": r["increase_percent"]}, f"{r['increase_percent']:.0f}%"


def intro_generic(results):
    sweep = results["intro-logistic"].get("c_sweep") or []
    if len(sweep) < 2:
        return "the regularization sweep (c_grid) was not run"
    ratios = [s["error_odd"] / max(s["error_even"], 1e-12) for s in sweep]
    text = "even / odd error for each regularization strength: " + "; ".join(
        f"C={s['C']:g}: {_pct(s['error_even'])} / {_pct(s['error_odd'])}" for s in sweep)
    at_3x = sum(s["error_odd"] >= 3 * s["error_even"] for s in sweep)
    return {"min_ratio": float(min(ratios)), "strengths_at_3x": int(at_3x),
            "strengths": len(sweep)}, text


# --------------------------------------------------------------------------- measures: section 4.1

def greedy_peak_and_drop(results):
    r = results["mnist-2-vs-other"]
    mean_tgt = _curve(r, "greedy", "target_auroc").mean(axis=0)
    g_gap = _gap(r, "greedy").mean(0)
    peak = int(np.argmax(mean_tgt)) + 1
    drop = float(mean_tgt.max() - mean_tgt[-1])
    text = (f"mean greedy target AUROC peaks at {plural(peak, 'feature')} ({_fmt(mean_tgt.max())}), ends at "
            f"{_fmt(mean_tgt[-1])} (drop {_fmt(drop)}); gap at 1/5/10 features: "
            f"{_fmt(_at(g_gap, 1))}/{_fmt(_at(g_gap, 5))}/{_fmt(_at(g_gap, 10))}")
    return {"peak_step": peak, "peak": float(mean_tgt.max()), "final": float(mean_tgt[-1]), "drop": drop}, text


def greedy_near_random_two_vs_nine(results):
    r = results["mnist-2-vs-other"]
    k = _split(r, 9)
    if k is None:
        return "the '2 vs 9' split was not run"
    g_tgt = _curve(r, "greedy", "target_auroc")
    at4 = _at(g_tgt[k], 4)
    low = float(g_tgt[k, 2:5].min()) if g_tgt.shape[1] >= 3 else at4
    text = (f"'2 vs 9': greedy target AUROC {_fmt(_at(g_tgt[k], 1))} after 1 feature, {_fmt(at4)} after 4 "
            f"(lowest over 3-5: {_fmt(low)}); mean over all splits after 4: {_fmt(_at(g_tgt.mean(0), 4))}")
    return {"after_1": _at(g_tgt[k], 1), "after_4": at4, "lowest_3_to_5": low}, text


def greedy_source_rises(results):
    r = results["mnist-2-vs-other"]
    first, last, best = _first_last_max(_curve(r, "greedy", "source_auroc").mean(axis=0))
    return ({"first": first, "last": last, "max": best},
            f"mean greedy source AUROC {_fmt(first)} -> {_fmt(last)} (max {_fmt(best)})")


def greedy_gap_grows(results, task="mnist-2-vs-other", late=5, split_target=None):
    r = results[task]
    g_gap, t_gap = _gap(r, "greedy"), _gap(r, "tgreedy")
    k = _split(r, split_target) if split_target is not None else None
    which, t_which = (g_gap[k], t_gap[k]) if k is not None else (g_gap.mean(0), t_gap.mean(0))
    where = f"'{split_target}' held out" if k is not None else "mean of splits"
    gap1, gap_late = _at(which, 1), _at(which, late)
    text = (f"{where}: greedy gap {_fmt(gap1)} after 1 feature, {_fmt(gap_late)} after {late}, "
            f"{_fmt(float(which[-1]))} at the end (T-greedy after {late}: {_fmt(_at(t_which, late))}); "
            f"mean over splits after {late}: {_fmt(_at(g_gap.mean(0), late))}")
    return {"gap_1": gap1, "gap_late": gap_late, "gap_last": float(which[-1])}, text


def source_difference(results):
    r = results["mnist-2-vs-other"]
    diff = float((_curve(r, "greedy", "source_auroc") - _curve(r, "tgreedy", "source_auroc")).mean())
    return {"difference": diff}, f"greedy minus T-greedy source AUROC, mean over splits and steps: {_fmt(diff)}"


def early_gaps(results):
    r = results["mnist-2-vs-other"]
    t_early, g_early = float(_gap(r, "tgreedy")[:, :5].mean()), float(_gap(r, "greedy")[:, :5].mean())
    return ({"tgreedy_gap_first5": t_early, "greedy_gap_first5": g_early},
            f"mean gap over the first 5 features: T-greedy {_fmt(t_early)}, greedy {_fmt(g_early)}")


def splits_with_smaller_gap(results):
    r = results["mnist-2-vs-other"]
    g_gap, t_gap = _gap(r, "greedy"), _gap(r, "tgreedy")
    n_splits, n_steps = g_gap.shape
    h = min(10, n_steps)
    wins = int((t_gap[:, :h].mean(1) < g_gap[:, :h].mean(1)).sum())
    text = (f"T-greedy's mean gap over the first {h} features is smaller in {wins} of {n_splits} splits "
            f"(mean {_fmt(t_gap[:, :h].mean())} vs {_fmt(g_gap[:, :h].mean())})")
    return {"splits_won": wins, "splits": n_splits, "share_won": wins / n_splits}, text


def splits_with_better_target(results):
    r = results["mnist-2-vs-other"]
    g_tgt, t_tgt = _curve(r, "greedy", "target_auroc"), _curve(r, "tgreedy", "target_auroc")
    n_splits, n_steps = g_tgt.shape
    h = min(10, n_steps)
    wins = int((t_tgt[:, :h].mean(1) > g_tgt[:, :h].mean(1)).sum())
    text = (f"T-greedy's mean target AUROC over the first {h} features is higher in {wins} of {n_splits} splits "
            f"(mean {_fmt(t_tgt[:, :h].mean())} vs {_fmt(g_tgt[:, :h].mean())})")
    return {"splits_won": wins, "splits": n_splits, "share_won": wins / n_splits}, text


def t_of_picks(results, task="mnist-2-vs-other"):
    r = results[task]
    g_t, t_t = np.abs(_curve(r, "greedy", "t_statistic")), np.abs(_curve(r, "tgreedy", "t_statistic"))
    share = float((t_t > g_t).mean())
    return ({"share_higher": share, "median_tgreedy": float(np.median(t_t)), "median_greedy": float(np.median(g_t))},
            f"|T| of T-greedy's pick exceeds greedy's at {100 * share:.0f}% of (split, step) pairs; median |T| "
            f"{_fmt(float(np.median(t_t)), 2)} vs {_fmt(float(np.median(g_t)), 2)}")


# --------------------------------------------------------------------------- measures: section 4.2

def _reference_text(result: dict) -> str:
    reference = result.get("all_features_reference")
    if not reference:
        return ""
    return (f"; for scale, all features together (ridge): source {_fmt(float(np.mean(reference['source_auroc'])))}, "
            f"target {_fmt(float(np.mean(reference['target_auroc'])))}")


def reliable_features(results, task, expected):
    r = results[task]
    g_tgt, t_tgt = _curve(r, "greedy", "target_auroc"), _curve(r, "tgreedy", "target_auroc")
    n_splits, n_steps = t_tgt.shape
    t_useful, g_useful = useful_steps(t_tgt.mean(0)), useful_steps(g_tgt.mean(0))
    per_split = [useful_steps(row) for row in t_tgt]
    gain = float(t_tgt.mean(0).max() - t_tgt.mean(0)[0])
    t_best, g_best = float(t_tgt.mean(0).max()), float(g_tgt.mean(0).max())
    improving = int(sum(row.max() - row[0] >= 0.02 for row in t_tgt))
    text = (f"mean T-greedy target AUROC levels off after {t_useful} features (greedy: {g_useful}), gaining "
            f"{_fmt(gain)} over the first feature, best {_fmt(t_best)} (greedy {_fmt(g_best)}); per split: "
            f"{per_split}; splits improving by >= 0.02: {improving} of {n_splits}"
            + ("" if n_steps >= 2 * expected else f" (path only {n_steps} steps)") + _reference_text(r))
    return {"tgreedy_useful_steps": t_useful, "greedy_useful_steps": g_useful, "gain": gain,
            "tgreedy_best": t_best, "greedy_best": g_best, "splits_improving": improving,
            "per_split": per_split}, text


def greedy_best_target(results, task="cifar-similarity"):
    r = results[task]
    g_tgt = _curve(r, "greedy", "target_auroc").mean(0)
    best = float(g_tgt.max())
    return {"greedy_max": best}, (f"mean greedy target AUROC: at most {_fmt(best)} over the path, {_fmt(g_tgt[-1])} at "
                                  f"the end (T-greedy at most {_fmt(float(_curve(r, 'tgreedy', 'target_auroc').mean(0).max()))})"
                                  + _reference_text(r))


def mean_gaps(results, task):
    r = results[task]
    g, t = float(_gap(r, "greedy").mean()), float(_gap(r, "tgreedy").mean())
    return ({"tgreedy_gap": t, "greedy_gap": g},
            f"mean source-target gap over all splits and steps: T-greedy {_fmt(t)}, greedy {_fmt(g)}")


# --------------------------------------------------------------------------- measures: section 5 (all tasks)

def _tasks(results):
    return [(n, results[n]) for n in SECTION4_TASKS if results.get(n)]


def correspondence(results):
    tasks = _tasks(results)
    corr = [(n, float(np.abs(_gap(t, "tgreedy")).mean()), float(np.abs(_gap(t, "greedy")).mean())) for n, t in tasks]
    better = sum(a < b - GAP_TOLERANCE for _, a, b in corr)
    values = {"tasks": len(tasks), "tasks_holding": better, "share_holding": better / len(tasks)}
    values.update({f"{n}_tgreedy": a for n, a, _ in corr})
    values.update({f"{n}_greedy": b for n, _, b in corr})
    return values, "; ".join(f"{n}: T-greedy {_fmt(a)} vs greedy {_fmt(b)}" for n, a, b in corr)


def first_gap(results):
    tasks = _tasks(results)
    first = [(n, float(np.abs(_gap(t, "tgreedy").mean(0)[0]))) for n, t in tasks]
    values = {"max_first_gap": max(v for _, v in first), **{n: v for n, v in first}}
    return values, "|mean gap| after 1 feature, T-greedy: " + "; ".join(f"{n}: {_fmt(v)}" for n, v in first)


def greedy_gap_after_two(results):
    tasks = _tasks(results)
    early = [(n, _at(_gap(t, "greedy").mean(0), 2), _at(_gap(t, "tgreedy").mean(0), 2)) for n, t in tasks]
    big = sum(g >= 0.05 and g > tg for _, g, tg in early)
    values = {"tasks": len(tasks), "tasks_holding": big, "share_holding": big / len(tasks),
              **{n: g for n, g, _ in early}}
    return values, "mean gap after 2 features, greedy vs T-greedy: " + "; ".join(
        f"{n}: {_fmt(g)} vs {_fmt(tg)}" for n, g, tg in early)


def eventual_overfitting(results):
    tasks = _tasks(results)
    turns = []
    for n, t in tasks:
        src, tgt = _curve(t, "tgreedy", "source_auroc").mean(0), _curve(t, "tgreedy", "target_auroc").mean(0)
        peak = int(np.argmax(tgt))
        turns.append((n, peak + 1, float(tgt.max() - tgt[-1]), float(src[-1] - src[peak])))
    seen = sum(drop >= 0.01 and rise > 0 for _, _, drop, rise in turns)
    values = {"tasks": len(tasks), "tasks_holding": seen, "share_holding": seen / len(tasks),
              **{f"{n}_peak_step": p for n, p, _, _ in turns}}
    return values, "; ".join(f"{n}: target peaks at {p} features, then falls {_fmt(d)} while source rises {_fmt(r)}"
                             for n, p, d, r in turns)


def between_within_ratio(results):
    tasks = _tasks(results)
    if min(len(t["splits"]) for _, t in tasks) < 2:
        return "needs two or more splits in every task"
    ratios = []
    for n, t in tasks:
        sizes = np.asarray(t["target_sizes"], dtype=float)
        per_method = []
        for method in ("greedy", "tgreedy"):
            tgt = _curve(t, method, "target_auroc")
            between = tgt.std(axis=0, ddof=1)
            within = hanley_mcneil_se(tgt, sizes[:, :1], sizes[:, 1:]).mean(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):  # AUROC exactly 0 or 1: no within-domain spread
                per_method.append(float(np.nanmedian(between / within)) if np.isfinite(between / within).any()
                                  else float("nan"))
        ratios.append((n, min(per_method)))
    return ({"min_ratio": min(v for _, v in ratios), **{n: v for n, v in ratios}},
            "median over steps of (s.d. of target AUROC across splits) / (Hanley-McNeil standard error within one "
            "domain), smaller of the two methods: " + "; ".join(f"{n}: {v:.1f}x" for n, v in ratios))


MEASURES: dict[str, Callable] = {f.__name__: f for f in (
    intro_even, intro_odd, intro_increase, intro_generic, greedy_peak_and_drop, greedy_near_random_two_vs_nine,
    greedy_source_rises, greedy_gap_grows, source_difference, early_gaps, splits_with_smaller_gap,
    splits_with_better_target, t_of_picks, reliable_features, greedy_best_target, mean_gaps, correspondence,
    first_gap, greedy_gap_after_two, eventual_overfitting, between_within_ratio)}


# --------------------------------------------------------------------------- the claims table

_TWO = ("mnist-2-vs-other",)
_INTRO = ("intro-logistic",)
_SIM_OVERFITS = ("The T-greedy algorithm is able to pick up many more robust features and overfits far less on the "
                 "target domain (difference in blue-dashed and blue-solid curves)")
_SIM_T_HIGHER = ("since we choose features based on T-statistics, our T-statistics are generally higher than that of "
                 "the greedy algorithm")
_OVERFITS_RULE = Rule(all_of(cond("greedy_gap", ">=", OVERFIT_GAP), cond("tgreedy_gap", "<", "greedy_gap", scale=0.5)),
                      all_of(cond("greedy_gap", ">=", OVERFIT_GAP),
                             cond("tgreedy_gap", "<", "greedy_gap", offset=-GAP_TOLERANCE)),
                      "greedy must overfit (gap >= 0.02) for T-greedy to overfit less")
_T_HIGHER_RULE = Rule(cond("share_higher", ">=", 0.75), cond("share_higher", ">=", 0.5))
_SPLITS_RULE = Rule(cond("share_won", ">=", 0.75), cond("share_won", ">=", 0.5))
_TASKS_RULE = Rule(cond("share_holding", ">=", 1.0), cond("tasks_holding", ">=", 1), "in every task; partly: in some")


def _reliable_rule(expected: int) -> Rule:
    return Rule(all_of(cond("tgreedy_useful_steps", ">=", expected / 2), cond("tgreedy_useful_steps", "<=", expected * 2),
                       cond("tgreedy_useful_steps", ">", "greedy_useful_steps"), cond("gain", ">=", 0.02),
                       cond("tgreedy_best", ">=", "greedy_best", offset=-0.02)),
                all_of(cond("tgreedy_useful_steps", ">", "greedy_useful_steps"), cond("gain", ">=", 0.02)),
                "useful steps: features after which the mean target curve is within 0.005 of its maximum")


CLAIMS: tuple[ClaimSpec, ...] = (
    # section 1
    ClaimSpec("intro.even", "1", "-", "a logistic regression algorithm, trained on this dataset and achieving a (true) "
              "test error rate of about 0.5% (against even digits)", "about 0.5%", _INTRO, "intro_even",
              Rule(cond("error_even", "<=", 0.01), cond("error_even", "<=", 0.025)), "error_even"),
    ClaimSpec("intro.odd", "1", "-", "jumps to 35% error rate when tested vs. odd digits", "35%", _INTRO, "intro_odd",
              Rule(all_of(cond("error_odd", ">=", 0.25), cond("error_odd", "<=", 0.45)),
                   cond("error_odd", ">=", "error_even", scale=3)), "error_odd"),
    ClaimSpec("intro.increase", "1", "-", "a startling 7000% increase in error",
              "7000% (hundreds to thousands of percent with other methods)", _INTRO, "intro_increase",
              Rule(cond("increase_percent", ">=", 3500), cond("increase_percent", ">=", 200),
                   "200%: the paper's 'hundreds of percent'"), "increase_percent"),
    ClaimSpec("intro.generic", "1", "-", "this situation is generic across many other common training methods we have "
              "tried ... (where error rates increase from hundreds to thousands of percent)",
              "an increase of hundreds to thousands of percent", _INTRO, "intro_generic",
              Rule(cond("strengths_at_3x", ">=", "strengths"), cond("strengths_at_3x", ">=", 1),
                   "strengths_at_3x: regularization strengths C at which the odd-digit error is >= 3x the even-digit error"),
              "min_ratio"),
    # section 4.1
    ClaimSpec("fig1.degrades", "1", "1", "Note two striking effects: 1) how rapidly the true test performance degrades; "
              "2) more troubling, how quickly the true performance for the training and test distributions diverge",
              "greedy's target AUROC peaks within a few features and then falls", _TWO, "greedy_peak_and_drop",
              Rule(all_of(cond("peak_step", "<=", 5), cond("drop", ">=", 0.05)),
                   any_of(cond("peak_step", "<=", 5), cond("drop", ">=", 0.05))), "drop"),
    ClaimSpec("fig2.greedy_random", "4.1", "2", "Observe that after adding only 3-4 features, test performance of the "
              "greedy algorithm on the new target domain (red solid curve) rapidly becomes close to random",
              "'2 vs 9': greedy target AUROC near 0.5 after 3-4 features", _TWO, "greedy_near_random_two_vs_nine",
              Rule(cond("lowest_3_to_5", "<=", 0.60), cond("lowest_3_to_5", "<", "after_1")), "lowest_3_to_5"),
    ClaimSpec("fig2.source_improves", "4.1", "2", "Test error on the source domains, however, keeps improving",
              "greedy's held-out source AUROC rises over the path", _TWO, "greedy_source_rises",
              Rule(all_of(cond("last", ">", "first"), cond("last", ">=", "max", offset=-0.01)), cond("last", ">", "first")),
              "last"),
    ClaimSpec("fig2.greedy_diverge", "4.1", "2", "Hence, for the greedy algorithm, the true error on the source and "
              "target domains rapidly diverge", "large source-target gap for greedy within a few features", _TWO,
              "greedy_gap_grows", Rule(all_of(cond("gap_late", ">=", 0.1), cond("gap_late", ">", "gap_1")),
                                       cond("gap_late", ">", "gap_1"), "gap_late: after 5 features"),
              "gap_late", {"task": "mnist-2-vs-other", "late": 5}),
    ClaimSpec("fig2.tgreedy_source_worse", "4.1", "2", "performance of the T-greedy algorithm on the source domains "
              "(blue dashed curve) is slightly worse", "T-greedy's source AUROC a little below greedy's", _TWO,
              "source_difference", Rule(all_of(cond("difference", ">", 0), cond("difference", "<=", 0.05)),
                                        cond("difference", ">", 0.05), "partly: worse, but not slightly"), "difference"),
    ClaimSpec("fig2.start_close", "4.1", "2", "the true AUROC on the source and target domains diverges less rapidly -- "
              "in particular, these curves start close together",
              "T-greedy's source-target gap over the first 5 features small and below greedy's", _TWO, "early_gaps",
              Rule(all_of(cond("tgreedy_gap_first5", "<=", 0.05), cond("tgreedy_gap_first5", "<", "greedy_gap_first5")),
                   cond("tgreedy_gap_first5", "<", "greedy_gap_first5")), "tgreedy_gap_first5"),
    ClaimSpec("fig2.overfits_less", "4.1", "2, 4", "We consistently observe that as we add few features, the T-greedy "
              "algorithm overfits much less on the target domain", "T-greedy's gap below greedy's in (nearly) every split",
              _TWO, "splits_with_smaller_gap", _SPLITS_RULE, "share_won"),
    ClaimSpec("fig2.target_better", "4.1", "2, 4", "(our reading) the point of overfitting less: T-greedy transfers "
              "better to the new digit", "T-greedy's target AUROC over the first 10 features above greedy's", _TWO,
              "splits_with_better_target", _SPLITS_RULE, "share_won"),
    ClaimSpec("fig2.t_higher", "4.1", "2", "since we choose features based on T-statistics, our T-statistics is "
              "generally higher than that of the greedy algorithm", "|T| of T-greedy's picks above greedy's", _TWO,
              "t_of_picks", _T_HIGHER_RULE, "share_higher", {"task": "mnist-2-vs-other"}),
    # section 4.2, MNIST
    ClaimSpec("mnist_sim.greedy_diverge", "4.2", "3", "Fig. 3, top leftmost plot, shows that the generalization error of "
              "the greedy algorithm on the source and target domains rapidly diverge",
              "large source-target gap for greedy after a few features", ("mnist-similarity",), "greedy_gap_grows",
              Rule(all_of(cond("gap_late", ">=", 0.05), cond("gap_late", ">", "gap_1")), cond("gap_late", ">", "gap_1"),
                   "gap_late: after 10 features, '9' held out"),
              "gap_late", {"task": "mnist-similarity", "late": 10, "split_target": 9}),
    ClaimSpec("mnist_sim.reliable", "4.2", "3, 4", "The T-greedy, on the other hand, is able to select up to 25 reliable "
              "features that help us generalize well to the new target domain",
              "T-greedy's target AUROC keeps improving for about 25 features", ("mnist-similarity",), "reliable_features",
              _reliable_rule(25), "tgreedy_useful_steps", {"task": "mnist-similarity", "expected": 25}),
    ClaimSpec("mnist_sim.overfits_less", "4.2, 5", "4", _SIM_OVERFITS, "T-greedy's source-target gap far below greedy's (Fig. 4)",
              ("mnist-similarity",), "mean_gaps", _OVERFITS_RULE, "tgreedy_gap", {"task": "mnist-similarity"}),
    ClaimSpec("mnist_sim.t_higher", "4.2", "3", _SIM_T_HIGHER, "|T| of T-greedy's picks above greedy's",
              ("mnist-similarity",), "t_of_picks", _T_HIGHER_RULE, "share_higher", {"task": "mnist-similarity"}),
    # section 4.2, CIFAR-10
    ClaimSpec("cifar_sim.reliable", "4.2", "3, 4", "the T-greedy algorithm is able to consistently pick up to 50 robust "
              "features that are useful for transfer to a new domain",
              "T-greedy's target AUROC keeps improving for about 50 features", ("cifar-similarity",), "reliable_features",
              _reliable_rule(50), "tgreedy_useful_steps", {"task": "cifar-similarity", "expected": 50}),
    ClaimSpec("cifar_sim.greedy_random", "4.2", "3, 4", "The greedy algorithm, however, barely improves upon making "
              "random predictions", "greedy's target AUROC stays near 0.5", ("cifar-similarity",), "greedy_best_target",
              Rule(cond("greedy_max", "<=", 0.55), cond("greedy_max", "<=", 0.60)), "greedy_max",
              {"task": "cifar-similarity"}),
    ClaimSpec("cifar_sim.overfits_less", "4.2, 5", "4", _SIM_OVERFITS, "T-greedy's source-target gap far below greedy's (Fig. 4)",
              ("cifar-similarity",), "mean_gaps", _OVERFITS_RULE, "tgreedy_gap", {"task": "cifar-similarity"}),
    ClaimSpec("cifar_sim.t_higher", "4.2", "3", _SIM_T_HIGHER, "|T| of T-greedy's picks above greedy's",
              ("cifar-similarity",), "t_of_picks", _T_HIGHER_RULE, "share_higher", {"task": "cifar-similarity"}),
    # section 5
    ClaimSpec("disc.correspondence", "5", "4", "All experiments demonstrate that the T-greedy algorithm has better "
              "correspondence between training AUROC and testing AUROC",
              "smaller |source - target| for T-greedy in every task", SECTION4_TASKS, "correspondence",
              _TASKS_RULE, "share_holding"),
    ClaimSpec("disc.start_same", "5", "4", "The curves start out with the training and the testing AUROC curves with "
              "about the same value. This is particularly striking in the averaged curves, shown in Fig. 4",
              "T-greedy's averaged curves nearly equal after the first feature", SECTION4_TASKS, "first_gap",
              Rule(cond("max_first_gap", "<=", 0.03), cond("max_first_gap", "<=", 0.06), "largest over the tasks"),
              "max_first_gap"),
    ClaimSpec("disc.greedy_single", "4.2", "4", "The greedy algorithm's test error diverges after adding only a single "
              "feature. Almost immediately we see a big gap", "greedy's averaged gap large after 1-2 features",
              SECTION4_TASKS, "greedy_gap_after_two",
              Rule(cond("share_holding", ">=", 1.0), cond("tasks_holding", ">=", 1),
                   "a task holds if greedy's mean gap after 2 features is >= 0.05 and above T-greedy's"), "share_holding"),
    ClaimSpec("disc.eventually", "5", "4", "As expected, eventually overfitting occurs, since the training AUROC "
              "continues to improve whereas the testing AUROC decreases",
              "T-greedy's target curve turns down while the source curve rises", SECTION4_TASKS, "eventual_overfitting",
              Rule(cond("share_holding", ">=", 1.0), cond("tasks_holding", ">=", 1),
                   "a task holds if the mean T-greedy target falls >= 0.01 after its peak while the source rises"),
              "share_holding"),
    ClaimSpec("disc.variability", "5", "2-4", "the variability between domains is much greater than the variability "
              "within any given domain", "spread of target AUROC across splits >> sampling error within one domain",
              SECTION4_TASKS, "between_within_ratio", Rule(cond("min_ratio", ">=", 3), cond("min_ratio", ">=", 1.5),
                                                           "smallest over the tasks"), "min_ratio"),
)
CLAIM_IDS = tuple(c.id for c in CLAIMS)


# --------------------------------------------------------------------------- the evaluator

def comparison_view(results: dict, comparison: str = PAPER_COMPARISON) -> dict:
    """``results`` with each result's curves ``greedy`` / ``tgreedy`` set to the comparison's two readings.

    A result that lacks one of the two readings is left out (its claims are then 'not run').
    """
    greedy, tgreedy = comparison_pair(comparison)
    view = {}
    for name, result in results.items():
        if result is None:
            continue
        if "curves" not in result:
            view[name] = result
            continue
        if greedy in result["curves"] and tgreedy in result["curves"]:
            view[name] = {**result, "curves": {"greedy": result["curves"][greedy], "tgreedy": result["curves"][tgreedy]}}
    return view


def _json_value(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.floating, np.integer)):
        return float(v)
    return v


def evaluate_claim(spec: ClaimSpec, results: dict) -> dict:
    """The claim's row with ``measured`` text, ``values``, the ``rule`` text and the ``verdict``.

    ``results`` maps experiment names to results whose curves ``greedy`` and ``tgreedy`` are the
    two readings compared (see :func:`comparison_view`).
    """
    row = {"id": spec.id, "section": spec.section, "figure": spec.figure, "claim": spec.quote, "paper": spec.paper,
           "rule": spec.rule.text(), "headline": spec.headline}
    needs_any = spec.experiments == SECTION4_TASKS
    present = [e for e in spec.experiments if results.get(e)]
    if (needs_any and not present) or (not needs_any and len(present) < len(spec.experiments)):
        missing = "any section-4 experiment" if needs_any else ", ".join(e for e in spec.experiments if not results.get(e))
        return {**row, "measured": f"experiment {missing} not run", "rule": "", "verdict": NOT_RUN, "values": {}}
    measured = MEASURES[spec.measure](results, **spec.params)
    if isinstance(measured, str):
        return {**row, "measured": measured, "rule": "", "verdict": NOT_RUN, "values": {}}
    values, text = measured
    return {**row, "measured": text, "verdict": spec.rule.verdict(values),
            "values": {k: _json_value(v) for k, v in values.items()}}


def all_claims(results: dict, comparison: str = PAPER_COMPARISON, ids: Sequence[str] | None = None) -> list[dict]:
    """Every claim (or those in ``ids``) for ``results`` (experiment name -> result), under ``comparison``."""
    view = comparison_view(results, comparison)
    return [evaluate_claim(spec, view) for spec in CLAIMS if ids is None or spec.id in ids]


def claims_by_comparison(results: dict, comparisons: Sequence[str] = tuple(COMPARISONS)) -> dict:
    """``{comparison: all_claims(results, comparison)}``."""
    return {c: all_claims(results, c) for c in comparisons}


def intro_claims(result: dict | None, comparison: str = PAPER_COMPARISON) -> list[dict]:
    """Section 1's claims."""
    return all_claims({"intro-logistic": result}, comparison, [c.id for c in CLAIMS if c.id.startswith("intro.")])


def two_vs_other_claims(result: dict | None, comparison: str = PAPER_COMPARISON) -> list[dict]:
    """Section 1 (Figure 1) and section 4.1 (Figures 2 and 4, left)."""
    return all_claims({"mnist-2-vs-other": result}, comparison, [c.id for c in CLAIMS if c.id.startswith("fig")])


def similarity_claims(result: dict | None, dataset: str, comparison: str = PAPER_COMPARISON) -> list[dict]:
    """Section 4.2 for ``dataset`` "mnist" or "cifar"."""
    name = "mnist-similarity" if dataset == "mnist" else "cifar-similarity"
    return all_claims({name: result}, comparison, [c.id for c in CLAIMS if c.id.startswith(f"{dataset}_sim.")])


def discussion_claims(results: dict, comparison: str = PAPER_COMPARISON) -> list[dict]:
    """Section 5 over every task that was run (``results`` maps experiment name to result)."""
    return all_claims(results, comparison, [c.id for c in CLAIMS if c.id.startswith("disc.")])


# --------------------------------------------------------------------------- seeds

def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (scipy)."""
    from scipy import stats

    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    return float(stats.t.ppf(0.975, df))


def mean_interval(values: Sequence[float]) -> dict:
    """Mean and 95 % t interval over seeds: mean +- t_{0.975, n-1} s / sqrt(n) (none for one seed)."""
    x = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if len(x) == 0:
        return {"mean": None, "ci95": None, "n": 0}
    mean = float(x.mean())
    if len(x) < 2:
        return {"mean": mean, "ci95": None, "n": 1}
    half = t_quantile_975(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": int(len(x))}


#: Bootstrap replicates over seeds behind the "on average" verdict, and the seed of their draws.
BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_SEED = 0
#: Share of the bootstrap replicates that must give the verdict for it to stand (else ``unsettled``).
SETTLED_SHARE = 0.95


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""Wilson score interval of a binomial proportion [1]_.

    Parameters
    ----------
    successes, trials : int
        ``0 <= successes <= trials``, ``trials >= 1``.
    confidence : float
        Two-sided confidence level.

    Returns
    -------
    (low, high) : tuple of float
        Within [0, 1]; unlike the Wald interval it is not degenerate at 0 or ``trials`` successes.

    Notes
    -----
    With :math:`\hat p = k / n` and :math:`z` the :math:`(1 + c) / 2` normal quantile,

    .. math:: \frac{\hat p + z^2 / 2n \pm z \sqrt{\hat p (1 - \hat p) / n + z^2 / 4n^2}}{1 + z^2 / n}.

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
       Journal of the American Statistical Association 22(158):209-212, 1927.

    Examples
    --------
    >>> low, high = wilson_interval(14, 20)
    >>> round(low, 3), round(high, 3)
    (0.481, 0.855)
    >>> wilson_interval(0, 5)[0]
    0.0
    """
    from scipy import stats

    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {successes} of {trials}")
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = successes / trials
    centre = p + z * z / (2 * trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    return max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _numeric_values(rows: Sequence[dict]) -> dict[str, np.ndarray]:
    """``{name: per-seed array}`` of every scalar measured value (NaN where a seed lacks it)."""
    names = dict.fromkeys(k for r in rows for k, v in r.get("values", {}).items() if _is_number(v))
    return {k: np.array([float(r["values"][k]) if _is_number(r.get("values", {}).get(k)) else np.nan for r in rows])
            for k in names}


def _nanmean(x: np.ndarray, axis=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a value that no seed has stays NaN (its condition fails)
        return np.nanmean(x, axis=axis)


def average_verdict(rule: Rule, rows: Sequence[dict], replicates: int = BOOTSTRAP_REPLICATES,
                    seed: int = BOOTSTRAP_SEED) -> dict:
    """The rule on the seed means of the measured values, and how stable it is under a bootstrap over seeds.

    Parameters
    ----------
    rule : Rule
    rows : sequence of dict
        The claim's row of every seed where it was run (each with ``values``).
    replicates : int
        Bootstrap replicates: seeds drawn with replacement, the means recomputed, the rule applied.
    seed : int
        Seed of the bootstrap draws (the verdict is reproducible).

    Returns
    -------
    dict
        ``verdict`` (the rule on the means when at least :data:`SETTLED_SHARE` of the replicates give
        it, else ``unsettled``), ``point_verdict``, ``shares`` (verdict -> share of replicates),
        ``replicates``, ``mean_values``.

    Notes
    -----
    A rule is one or two thresholds on measured values. Applied to their means over seeds it answers
    "does the claim hold on average?", and the bootstrap agreement converges as seeds are added (to
    1 wherever the mean lies clear of the thresholds), unlike a call that needs every seed to agree,
    which only becomes harder to meet. With one seed the verdict is that seed's.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993.

    Examples
    --------
    >>> rule = Rule(cond("share", ">=", 0.75), cond("share", ">=", 0.5))
    >>> rows = [{"values": {"share": s}} for s in (0.9, 0.8, 0.85, 0.95, 0.7)]
    >>> average_verdict(rule, rows)["verdict"]
    'reproduced'
    >>> rows = [{"values": {"share": s}} for s in (0.9, 0.4, 0.8, 0.5, 0.7)]
    >>> average_verdict(rule, rows)["verdict"]
    'unsettled'
    """
    values = _numeric_values(rows)
    means = {k: float(_nanmean(v)) for k, v in values.items()}
    point = rule.verdict(means)
    n = len(rows)
    if n < 2:
        return {"verdict": point, "point_verdict": point, "shares": {point: 1.0}, "replicates": 0,
                "mean_values": means}
    draws = np.random.default_rng(seed).integers(0, n, size=(replicates, n))
    boot = {k: _nanmean(v[draws], axis=1) for k, v in values.items()}
    tally: dict[str, int] = {}
    for b in range(replicates):
        verdict = rule.verdict({k: float(v[b]) for k, v in boot.items()})
        tally[verdict] = tally.get(verdict, 0) + 1
    shares = {v: tally[v] / replicates for v in (REPRODUCED, PARTLY, NOT_REPRODUCED) if v in tally}
    verdict = point if shares.get(point, 0.0) >= SETTLED_SHARE else UNSETTLED
    return {"verdict": verdict, "point_verdict": point, "shares": shares, "replicates": int(replicates),
            "mean_values": means}


def one_run_rate(verdicts: Sequence[str], confidence: float = 0.95) -> dict:
    """How often a single run shows the claim: the verdict counts over the seeds run, and the Wilson
    interval of the share of runs that reproduce it.

    Examples
    --------
    >>> rate = one_run_rate(["reproduced"] * 14 + ["partly"] * 6)
    >>> rate["reproduced"], rate["runs"], [round(x, 2) for x in rate["wilson95"]]
    (14, 20, [0.48, 0.85])
    >>> one_run_text(rate)
    'one run: reproduced in 14 of 20 runs (48-85 %)'
    """
    ran = [v for v in verdicts if v != NOT_RUN]
    out: dict = {v: ran.count(v) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED)}
    out["runs"] = len(ran)
    if ran:
        out["rate"] = out[REPRODUCED] / len(ran)
        out["wilson95"] = list(wilson_interval(out[REPRODUCED], len(ran), confidence))
    return out


def one_run_text(rate: dict) -> str:
    """``"one run: reproduced in 14 of 20 runs (48-85 %)"``, from :func:`one_run_rate`."""
    if not rate.get("runs"):
        return "one run: not run"
    lo, hi = rate["wilson95"]
    return f"one run: reproduced in {rate[REPRODUCED]} of {rate['runs']} runs ({100 * lo:.0f}-{100 * hi:.0f} %)"


def average_text(average: dict) -> str:
    """How settled the on-average verdict is, in words, from :func:`average_verdict`.

    Examples
    --------
    >>> average_text({"replicates": 2000, "shares": {"partly": 0.3, "reproduced": 0.7}})
    'on average: reproduced in 70 % of 2,000 bootstrap replicates, partly in 30 %'
    """
    if not average.get("replicates"):
        return "one seed"
    ranked = sorted(average["shares"].items(), key=lambda kv: -kv[1])
    head, rest = ranked[0], ranked[1:]
    text = f"on average: {head[0]} in {100 * head[1]:.0f} % of {average['replicates']:,} bootstrap replicates"
    return text + "".join(f", {v} in {100 * s:.0f} %" for v, s in rest)


def aggregate_seeds(per_seed: Sequence[Sequence[dict]], rules: dict | None = None) -> list[dict]:
    """Combine the claims of several seeds (each a list from :func:`all_claims`, same order).

    Parameters
    ----------
    per_seed : sequence of lists of dict
        One claims table per seed.
    rules : dict, optional
        Claim id -> :class:`Rule`; default: the rules of :data:`CLAIMS`.

    Returns
    -------
    list of dict
        Each claim with the first seed's quote, rule and paper value, and ``seeds``: the headline
        value per seed, its ``mean`` and 95 % t interval ``ci95``, the verdict per seed, ``counts``,
        ``average`` (:func:`average_verdict`) and ``one_run`` (:func:`one_run_rate`). ``verdict`` is
        the on-average verdict (``unsettled`` when the bootstrap does not settle it);
        ``verdict_count`` says both answers in words; ``measured`` gives the mean and interval.
    """
    if not per_seed:
        raise ValueError("aggregate_seeds needs the claims of at least one seed")
    n = len(per_seed[0])
    if any(len(table) != n for table in per_seed):
        raise ValueError("every seed must have the same claims in the same order")
    rules = rules if rules is not None else {spec.id: spec.rule for spec in CLAIMS}
    out = []
    for i in range(n):
        rows = [table[i] for table in per_seed]
        ids = {r["id"] for r in rows}
        if len(ids) != 1:
            raise ValueError(f"claims out of order across seeds: {sorted(ids)}")
        claim_id = next(iter(ids))
        if claim_id not in rules:
            raise ValueError(f"no rule for the claim {claim_id!r}; pass rules={{claim id: Rule}}")
        first = next((r for r in rows if r["verdict"] != NOT_RUN), rows[0])
        key = first.get("headline")
        values = [r["values"].get(key) if r["verdict"] != NOT_RUN else None for r in rows]
        verdicts = [r["verdict"] for r in rows]
        ran = [r for r in rows if r["verdict"] != NOT_RUN]
        summary = mean_interval([v for v in values if v is not None])
        counts = {v: verdicts.count(v) for v in VERDICTS if verdicts.count(v)}
        rate = one_run_rate(verdicts)
        if ran:
            average = average_verdict(rules[claim_id], ran)
            count_text = f"{average_text(average)}; {one_run_text(rate)}"
        else:
            average = {"verdict": NOT_RUN, "point_verdict": NOT_RUN, "shares": {}, "replicates": 0, "mean_values": {}}
            count_text = f"not run in {plural(len(verdicts), 'seed')}"
        if summary["mean"] is None:
            measured = first["measured"]
        elif summary["ci95"] is None:
            measured = f"{key} = {_fmt(summary['mean'])} (one seed): {first['measured']}"
        else:
            lo, hi = summary["ci95"]
            measured = (f"{key}: mean {_fmt(summary['mean'])}, 95% interval [{_fmt(lo)}, {_fmt(hi)}] over "
                        f"{summary['n']} seeds; per seed " + ", ".join("-" if v is None else _fmt(v) for v in values))
        out.append({**first, "verdict": average["verdict"], "verdict_count": count_text, "measured": measured,
                    "seeds": {"values": values, "verdicts": verdicts, "counts": counts, **summary,
                              "average": average, "one_run": rate}})
    return out


# --------------------------------------------------------------------------- output

def _cell(x) -> str:
    return str(x).replace("|", "\\|")


def claims_markdown(claims: list[dict]) -> str:
    """A Markdown table: claim (quoted), paper, measured, verdict (with the seed count), rule."""
    lines = ["| id | section / fig. | the paper says | paper | measured | verdict | rule |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in claims:
        verdict = f"**{c['verdict']}**" + (f" ({c['verdict_count']})" if c.get("verdict_count") else "")
        cells = [c["id"], f"{c['section']} / {c['figure']}", f"\"{c['claim']}\"", c["paper"], c["measured"],
                 verdict, c["rule"]]
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return "\n".join(lines) + "\n"


def verdict_matrix_markdown(tables: dict, labels: dict | None = None) -> str:
    """One row per claim, one column per table (a comparison of readings, or a feature map): the verdicts.

    Over seeds a cell holds both answers: the on-average verdict, then the verdicts of the seeds' own runs
    (:func:`single_runs_text`): ``partly (single runs: reproduced in 14, partly in 6 of 20)``. A claim partly
    reproduced on average whose runs are each partly reproduced reads ``partly (single runs: partly in all 20)``,
    never "partly (reproduced in 0 of 20 runs)".

    Examples
    --------
    >>> rows = [{"id": "a", "verdict": "partly", "seeds": {"verdicts": ["partly"] * 20}}]
    >>> print(verdict_matrix_markdown({"x": rows}).splitlines()[-1])
    | a | partly (single runs: partly in all 20) |
    """
    names = list(tables)
    labels = labels or {}
    lines = ["| claim | " + " | ".join(_cell(labels.get(n, n)) for n in names) + " |",
             "| --- |" + " --- |" * len(names)]
    ids = [c["id"] for c in next(iter(tables.values()))]
    for i, cid in enumerate(ids):
        cells = []
        for n in names:
            c = tables[n][i]
            counted = c.get("seeds") and c["verdict"] not in (NOT_RUN, "n/a")
            cells.append(c["verdict"] + (f" ({_count_short(c)})" if counted else ""))
        lines.append(f"| {cid} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _count_short(claim: dict) -> str:
    return "single runs: " + single_runs_text(claim_one_run(claim))


def single_runs_text(rate: dict | None) -> str:
    """The verdicts of the single runs, each counted, none left out: what a claim does run by run.

    Every verdict that some run gave is named with its count, so a claim that each run reproduces only
    partly reads ``partly in all 20``, not "reproduced in 0 of 20".

    Examples
    --------
    >>> single_runs_text(one_run_rate(["partly"] * 20))
    'partly in all 20'
    >>> single_runs_text(one_run_rate(["reproduced"] * 17 + ["partly"] * 2 + ["not reproduced"]))
    'reproduced in 17, partly in 2, not reproduced in 1 of 20'
    >>> single_runs_text(one_run_rate(["not reproduced"])), single_runs_text(None)
    ('not reproduced in its one run', 'not run')
    """
    if not rate or not rate.get("runs"):
        return NOT_RUN
    n = rate["runs"]
    shown = [(v, rate[v]) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED) if rate.get(v)]
    if len(shown) == 1:
        return f"{shown[0][0]} in all {n}" if n > 1 else f"{shown[0][0]} in its one run"
    return ", ".join(f"{v} in {k}" for v, k in shown) + f" of {n}"


def claim_one_run(claim: dict) -> dict | None:
    """A claim's one-run answer (:func:`one_run_rate`) over its seeds, or None for a claim of one run.

    Read from ``seeds["one_run"]``; a record that has only the per-seed ``verdicts`` gets it computed from them.
    """
    seeds = claim.get("seeds") if isinstance(claim.get("seeds"), dict) else None
    if not seeds:
        return None
    if seeds.get("one_run"):
        return seeds["one_run"]
    return one_run_rate(seeds["verdicts"]) if seeds.get("verdicts") else None


def claim_answers(claim: dict) -> tuple[str, str]:
    """A claim's two answers in a few words: ``(on average, in one run)``.

    *On average*: the verdict of the rule on the seed means, with the share of bootstrap replicates that
    give it (for an unsettled claim, the verdicts the replicates split between). *In one run*: how many of
    the seeds' own runs reproduce the claim, with the Wilson 95 % interval. A claim of a single run has no
    average: its verdict is both answers.

    Examples
    --------
    >>> claim = {"verdict": "unsettled", "seeds": {
    ...     "verdicts": ["reproduced"] * 14 + ["partly"] * 6,
    ...     "average": {"verdict": "unsettled", "point_verdict": "reproduced", "replicates": 2000,
    ...                 "shares": {"reproduced": 0.62, "partly": 0.38}}}}
    >>> claim_answers(claim)
    ('unsettled (reproduced in 62 %, partly in 38 % of the replicates)', 'reproduced in 14 of 20 runs (48-85 %), partly in 6')
    >>> claim_answers({"verdict": "partly"})
    ('partly (one run)', 'partly')
    """
    verdict = claim["verdict"]
    rate = claim_one_run(claim)
    if rate is None:
        return (f"{verdict} (one run)" if verdict in (REPRODUCED, PARTLY, NOT_REPRODUCED) else verdict), verdict
    if not rate.get("runs"):
        return verdict, NOT_RUN
    lo, hi = rate["wilson95"]
    one = f"reproduced in {rate[REPRODUCED]} of {rate['runs']} runs ({100 * lo:.0f}-{100 * hi:.0f} %)"
    if rate.get(PARTLY):
        one += f", partly in {rate[PARTLY]}"
    average = claim["seeds"].get("average") or {}
    shares = average.get("shares") or {}
    if not average.get("replicates") or not shares:
        return verdict, one
    if verdict == UNSETTLED:
        ranked = sorted(shares.items(), key=lambda kv: -kv[1])
        return (f"{verdict} (" + ", ".join(f"{v} in {100 * s:.0f} %" for v, s in ranked) + " of the replicates)"), one
    return f"{verdict} ({100 * shares.get(verdict, 0.0):.0f} % of the replicates)", one


#: The order in which verdict counts are listed.
COUNT_ORDER = (REPRODUCED, PARTLY, NOT_REPRODUCED, UNSETTLED, NOT_RUN, "n/a")


def verdict_counts(claims: list[dict]) -> dict:
    """How many claims got each verdict, in the order of :data:`COUNT_ORDER` (others after).

    Examples
    --------
    >>> verdict_counts([{"verdict": "unsettled"}, {"verdict": "reproduced"}, {"verdict": "unsettled"}])
    {'reproduced': 1, 'unsettled': 2}
    """
    counts = {}
    for c in claims:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    rank = {v: i for i, v in enumerate(COUNT_ORDER)}
    return dict(sorted(counts.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def counts_text(counts: dict) -> str:
    """``"9 reproduced, 4 partly, 10 not reproduced, 3 unsettled"``: counts of verdicts in the order of :data:`COUNT_ORDER`.

    Examples
    --------
    >>> counts_text({"n/a": 17, "unsettled": 1, "reproduced": 2})
    '2 reproduced, 1 unsettled, 17 n/a'
    """
    rank = {v: i for i, v in enumerate(COUNT_ORDER)}
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def verdict_sentence(claim: dict) -> str:
    """One Markdown sentence for a claim: its id, the paper's assertion, our verdict (with the seed count) and value."""
    text = f"`{claim['id']}` ({claim['paper']}): **{claim['verdict']}**"
    if claim.get("verdict_count"):
        text += f" ({claim['verdict_count']})"
    seeds = claim.get("seeds") or {}
    if seeds.get("ci95"):
        lo, hi = seeds["ci95"]
        text += f"; {claim['headline']} {_fmt(seeds['mean'])}, 95% interval [{_fmt(lo)}, {_fmt(hi)}]"
    elif claim["verdict"] != NOT_RUN and claim.get("headline") in claim.get("values", {}):
        text += f"; {claim['headline']} = {_fmt(claim['values'][claim['headline']])}"
    return text + "."


def verdicts_that_differ(tables: dict) -> list[tuple[str, dict]]:
    """``(claim id, {table name: verdict})`` for every claim whose verdict is not the same in all ``tables``.

    Tables where the claim was not run are left out of the comparison (and of the returned verdicts).
    """
    names = list(tables)
    out = []
    for i, first in enumerate(tables[names[0]]):
        verdicts = {n: tables[n][i]["verdict"] for n in names if tables[n][i]["verdict"] != NOT_RUN}
        if len(set(verdicts.values())) > 1:
            out.append((first["id"], verdicts))
    return out
