"""The paper's claims of sections 1, 4 and 5 as data, checked against our measured curves by one evaluator.

Each claim of Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical Approach*
(AISTATS 2012) is a row of :data:`CLAIMS`: the quoted sentence, what it asserts, a *measure* of
:data:`MEASURES` (our results -> named values and one line of text) and a *rule*: the conditions for
``reproduced`` and for ``partly`` (else ``not reproduced``), whose wording is generated from the conditions, so
text and verdict cannot disagree. Claims are evaluated for a *comparison* of two selector readings
(:mod:`tgreedy_lib.experiments.readings`; ``"paper"`` by default). Curves are arrays (n_splits, n_steps);
"gap" is source AUROC minus target AUROC; "mean" is over splits.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from .prose import fmt, plural
from tgreedy_lib.experiments.readings import COMPARISONS, PAPER_COMPARISON, comparison_pair
from tgreedy_lib.experiments.runs import curve as _curve

REPRODUCED, PARTLY, NOT_REPRODUCED = "reproduced", "partly", "not reproduced"
NOT_RUN, UNSETTLED = "not run", "unsettled"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_RUN)
#: The order in which verdict counts are listed.
COUNT_ORDER = (REPRODUCED, PARTLY, NOT_REPRODUCED, UNSETTLED, NOT_RUN, "n/a")

#: Differences of mean AUROC gaps below this are treated as no difference (AUROC points).
GAP_TOLERANCE = 0.005
#: A method "overfits" on the target only if its mean source-target gap is at least this.
OVERFIT_GAP = 0.02
SECTION4_TASKS = ("mnist-2-vs-other", "mnist-similarity", "cifar-similarity")


# --------------------------------------------------------------------------- rules as data

_OPS = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal, ">": np.greater, "==": np.equal}


@dataclasses.dataclass(frozen=True)
class Cond:
    """``values[left] op right`` for a number ``right``, else ``values[left] op scale * values[right] + offset``:
    ``cond("drop", ">=", 0.05)``, ``cond("error_odd", ">=", "error_even", scale=3)``."""

    left: str
    op: str
    right: float | str
    scale: float = 1.0
    offset: float = 0.0

    def holds(self, values: dict) -> bool:
        left, right = values.get(self.left), self.right
        if isinstance(right, str):
            right = None if values.get(right) is None else self.scale * values[right] + self.offset
        if left is None or right is None or np.isnan(left) or np.isnan(right):
            return False  # an infinite value compares as such (an error ratio over a zero error)
        return bool(_OPS[self.op](left, right))

    def text(self) -> str:
        if not isinstance(self.right, str):
            return f"{self.left} {self.op} {self.right:g}"
        rhs = self.right if self.scale == 1 else f"{self.scale:g} x {self.right}"
        return f"{self.left} {self.op} {rhs}" + (f" {'+' if self.offset > 0 else '-'} {abs(self.offset):g}" if self.offset else "")


cond = Cond


@dataclasses.dataclass(frozen=True)
class Join:
    """Every part holds (``word="and"``) or at least one does (``"or"``)."""

    word: str
    parts: tuple

    def holds(self, values: dict) -> bool:
        return (all if self.word == "and" else any)(p.holds(values) for p in self.parts)

    def text(self) -> str:
        return f" {self.word} ".join(f"({p.text()})" if isinstance(p, Join) and len(p.parts) > 1 else p.text()
                                     for p in self.parts)


def all_of(*parts) -> Join:
    return Join("and", parts)


def any_of(*parts) -> Join:
    return Join("or", parts)


@dataclasses.dataclass(frozen=True)
class Rule:
    """``reproduced`` if the first condition holds, else ``partly`` if the second, else ``not reproduced``."""

    reproduced: object
    partly: object | None = None
    note: str = ""

    def verdict(self, values: dict) -> str:
        if self.reproduced.holds(values):
            return REPRODUCED
        return PARTLY if self.partly is not None and self.partly.holds(values) else NOT_REPRODUCED

    def text(self) -> str:
        return (f"reproduced if {self.reproduced.text()}" + (f"; partly if {self.partly.text()}" if self.partly else "")
                + (f" ({self.note})" if self.note else ""))


@dataclasses.dataclass(frozen=True)
class ClaimSpec:
    """One claim: the ``quote``, what it asserts (``paper``), the ``experiments`` its ``measure`` (of :data:`MEASURES`,
    called with ``params``) needs (section 5: any section-4 task), the ``rule`` and the ``headline`` value."""

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


# --------------------------------------------------------------------------- helpers of the measures

def _gap(result: dict, method: str) -> np.ndarray:
    return _curve(result, method, "source_auroc") - _curve(result, method, "target_auroc")


def _at(curve: np.ndarray, step: int) -> float:
    """Value after ``step`` features (1-based), clipped to the path length."""
    return float(curve[min(step, curve.shape[-1]) - 1])


def _split(result: dict, target: int) -> int | None:
    targets = [s["target"] for s in result["splits"]]
    return targets.index(target) if target in targets else None


def useful_steps(target_curve: np.ndarray, tolerance: float = 0.005) -> int:
    """Features after which a target-AUROC curve first comes within ``tolerance`` of its maximum ("reliable features")."""
    curve = np.asarray(target_curve, dtype=float)
    return int(np.flatnonzero(curve >= curve.max() - tolerance)[0]) + 1


def hanley_mcneil_se(auc, n_pos: int, n_neg: int):
    """Standard error of one domain's AUROC estimate from one sample (Hanley & McNeil, 1982)."""
    a = np.asarray(auc, dtype=float)
    q1 = a / (2 - a)
    q2 = 2 * a**2 / (1 + a)
    var = (a * (1 - a) + (n_pos - 1) * (q1 - a**2) + (n_neg - 1) * (q2 - a**2)) / (n_pos * n_neg)
    return np.sqrt(np.maximum(var, 0.0))


def _fmt(value: float, digits: int = 3) -> str:
    return fmt(value, digits=digits)


def _pct(value: float) -> str:
    return fmt(value, digits=2, percent=True)


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
    return {"min_ratio": float(min(ratios)), "strengths_at_3x": int(at_3x), "strengths": len(sweep)}, text


# --------------------------------------------------------------------------- measures: section 4.1

def greedy_peak_and_drop(results):
    r = results["mnist-2-vs-other"]
    mean_tgt, g_gap = _curve(r, "greedy", "target_auroc").mean(axis=0), _gap(r, "greedy").mean(0)
    peak, drop = int(np.argmax(mean_tgt)) + 1, float(mean_tgt.max() - mean_tgt[-1])
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
    mean_src = _curve(r, "greedy", "source_auroc").mean(axis=0)
    first, last, best = float(mean_src[0]), float(mean_src[-1]), float(mean_src.max())
    return ({"first": first, "last": last, "max": best},
            f"mean greedy source AUROC {_fmt(first)} -> {_fmt(last)} (max {_fmt(best)})")


def greedy_gap_grows(results, task="mnist-2-vs-other", late=5, split_target=None):
    r = results[task]
    g_gap, t_gap = _gap(r, "greedy"), _gap(r, "tgreedy")
    k = _split(r, split_target) if split_target is not None else None
    which, t_which, where = ((g_gap[k], t_gap[k], f"'{split_target}' held out") if k is not None
                             else (g_gap.mean(0), t_gap.mean(0), "mean of splits"))
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


def splits_won(results, what):
    """In how many splits T-greedy's mean ``what`` ("gap": smaller, else "target AUROC": higher) over the first 10
    features beats greedy's."""
    r, smaller = results["mnist-2-vs-other"], what == "gap"
    t_curves, g_curves = (_gap(r, m) if smaller else _curve(r, m, "target_auroc") for m in ("tgreedy", "greedy"))
    n_splits, n_steps = g_curves.shape
    h = min(10, n_steps)
    t_mean, g_mean = t_curves[:, :h].mean(1), g_curves[:, :h].mean(1)
    wins = int(((t_mean < g_mean) if smaller else (t_mean > g_mean)).sum())
    text = (f"T-greedy's mean {what} over the first {h} features is {'smaller' if smaller else 'higher'} in {wins} of "
            f"{n_splits} splits (mean {_fmt(t_curves[:, :h].mean())} vs {_fmt(g_curves[:, :h].mean())})")
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
    t_useful, g_useful, per_split = useful_steps(t_tgt.mean(0)), useful_steps(g_tgt.mean(0)), [useful_steps(row) for row in t_tgt]
    t_best, g_best = float(t_tgt.mean(0).max()), float(g_tgt.mean(0).max())
    gain = t_best - float(t_tgt.mean(0)[0])
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


def _holding(tasks, holding: int, **values) -> dict:
    return {"tasks": len(tasks), "tasks_holding": holding, "share_holding": holding / len(tasks), **values}


def correspondence(results):
    tasks = _tasks(results)
    corr = [(n, float(np.abs(_gap(t, "tgreedy")).mean()), float(np.abs(_gap(t, "greedy")).mean())) for n, t in tasks]
    values = _holding(tasks, sum(a < b - GAP_TOLERANCE for _, a, b in corr), **{f"{n}_tgreedy": a for n, a, _ in corr},
                      **{f"{n}_greedy": b for n, _, b in corr})
    return values, "; ".join(f"{n}: T-greedy {_fmt(a)} vs greedy {_fmt(b)}" for n, a, b in corr)


def first_gap(results):
    tasks = _tasks(results)
    first = [(n, float(np.abs(_gap(t, "tgreedy").mean(0)[0]))) for n, t in tasks]
    values = {"max_first_gap": max(v for _, v in first), **{n: v for n, v in first}}
    return values, "|mean gap| after 1 feature, T-greedy: " + "; ".join(f"{n}: {_fmt(v)}" for n, v in first)


def greedy_gap_after_two(results):
    tasks = _tasks(results)
    early = [(n, _at(_gap(t, "greedy").mean(0), 2), _at(_gap(t, "tgreedy").mean(0), 2)) for n, t in tasks]
    values = _holding(tasks, sum(g >= 0.05 and g > tg for _, g, tg in early), **{n: g for n, g, _ in early})
    return values, "mean gap after 2 features, greedy vs T-greedy: " + "; ".join(
        f"{n}: {_fmt(g)} vs {_fmt(tg)}" for n, g, tg in early)


def eventual_overfitting(results):
    tasks = _tasks(results)
    turns = []
    for n, t in tasks:
        src, tgt = _curve(t, "tgreedy", "source_auroc").mean(0), _curve(t, "tgreedy", "target_auroc").mean(0)
        peak = int(np.argmax(tgt))
        turns.append((n, peak + 1, float(tgt.max() - tgt[-1]), float(src[-1] - src[peak])))
    values = _holding(tasks, sum(drop >= 0.01 and rise > 0 for _, _, drop, rise in turns),
                      **{f"{n}_peak_step": p for n, p, _, _ in turns})
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
    greedy_source_rises, greedy_gap_grows, source_difference, early_gaps, splits_won, t_of_picks, reliable_features, greedy_best_target, mean_gaps, correspondence,
    first_gap, greedy_gap_after_two, eventual_overfitting, between_within_ratio)}


# --------------------------------------------------------------------------- the claims table

_TWO = ("mnist-2-vs-other",)
_INTRO = ("intro-logistic",)
_SIM_OVERFITS = ("The T-greedy algorithm is able to pick up many more robust features and overfits far less on the "
                 "target domain (difference in blue-dashed and blue-solid curves)")
_SIM_T_HIGHER = ("since we choose features based on T-statistics, our T-statistics are generally higher than that of "
                 "the greedy algorithm")
_OVERFITS_RULE = Rule(all_of(cond("greedy_gap", ">=", OVERFIT_GAP), cond("tgreedy_gap", "<", "greedy_gap", scale=0.5)),
                      all_of(cond("greedy_gap", ">=", OVERFIT_GAP), cond("tgreedy_gap", "<", "greedy_gap", offset=-GAP_TOLERANCE)),
                      "greedy must overfit (gap >= 0.02) for T-greedy to overfit less")
_T_HIGHER_RULE = Rule(cond("share_higher", ">=", 0.75), cond("share_higher", ">=", 0.5))
_SPLITS_RULE = Rule(cond("share_won", ">=", 0.75), cond("share_won", ">=", 0.5))


def _tasks_rule(note: str = "in every task; partly: in some") -> Rule:
    return Rule(cond("share_holding", ">=", 1.0), cond("tasks_holding", ">=", 1), note)


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
              _TWO, "splits_won", _SPLITS_RULE, "share_won", {"what": "gap"}),
    ClaimSpec("fig2.target_better", "4.1", "2, 4", "(our reading) the point of overfitting less: T-greedy transfers "
              "better to the new digit", "T-greedy's target AUROC over the first 10 features above greedy's", _TWO,
              "splits_won", _SPLITS_RULE, "share_won", {"what": "target AUROC"}),
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
              _tasks_rule(), "share_holding"),
    ClaimSpec("disc.start_same", "5", "4", "The curves start out with the training and the testing AUROC curves with "
              "about the same value. This is particularly striking in the averaged curves, shown in Fig. 4",
              "T-greedy's averaged curves nearly equal after the first feature", SECTION4_TASKS, "first_gap",
              Rule(cond("max_first_gap", "<=", 0.03), cond("max_first_gap", "<=", 0.06), "largest over the tasks"),
              "max_first_gap"),
    ClaimSpec("disc.greedy_single", "4.2", "4", "The greedy algorithm's test error diverges after adding only a single "
              "feature. Almost immediately we see a big gap", "greedy's averaged gap large after 1-2 features",
              SECTION4_TASKS, "greedy_gap_after_two", _tasks_rule(
                  "a task holds if greedy's mean gap after 2 features is >= 0.05 and above T-greedy's"), "share_holding"),
    ClaimSpec("disc.eventually", "5", "4", "As expected, eventually overfitting occurs, since the training AUROC "
              "continues to improve whereas the testing AUROC decreases",
              "T-greedy's target curve turns down while the source curve rises", SECTION4_TASKS, "eventual_overfitting",
              _tasks_rule("a task holds if the mean T-greedy target falls >= 0.01 after its peak while the source rises"),
              "share_holding"),
    ClaimSpec("disc.variability", "5", "2-4", "the variability between domains is much greater than the variability "
              "within any given domain", "spread of target AUROC across splits >> sampling error within one domain",
              SECTION4_TASKS, "between_within_ratio", Rule(cond("min_ratio", ">=", 3), cond("min_ratio", ">=", 1.5),
                                                           "smallest over the tasks"), "min_ratio"),
)
CLAIM_IDS = tuple(c.id for c in CLAIMS)


# --------------------------------------------------------------------------- the evaluator

def comparison_view(results: dict, comparison: str = PAPER_COMPARISON) -> dict:
    """``results`` with curves ``greedy`` / ``tgreedy`` set to the comparison's readings (results lacking one left out)."""
    greedy, tgreedy = comparison_pair(comparison)
    return {name: result if "curves" not in result else
            {**result, "curves": {"greedy": result["curves"][greedy], "tgreedy": result["curves"][tgreedy]}}
            for name, result in results.items()
            if result is not None and ("curves" not in result or {greedy, tgreedy} <= set(result["curves"]))}


def evaluate_claim(spec: ClaimSpec, results: dict) -> dict:
    """The claim's row with ``measured`` text, ``values``, ``rule`` text and ``verdict`` (``results``: a comparison view)."""
    row = {"id": spec.id, "section": spec.section, "figure": spec.figure, "claim": spec.quote, "paper": spec.paper,
           "rule": spec.rule.text(), "headline": spec.headline}
    missing = [e for e in spec.experiments if not results.get(e)]
    if spec.experiments == SECTION4_TASKS:
        missing = ["any section-4 experiment"] if len(missing) == len(SECTION4_TASKS) else []
    measured = f"experiment {', '.join(missing)} not run" if missing else MEASURES[spec.measure](results, **spec.params)
    if isinstance(measured, str):
        return {**row, "measured": measured, "rule": "", "verdict": NOT_RUN, "values": {}}
    values, text = measured
    return {**row, "measured": text, "verdict": spec.rule.verdict(values), "values": {
        k: bool(v) if isinstance(v, (bool, np.bool_)) else float(v) if isinstance(v, (int, float, np.number)) else v
        for k, v in values.items()}}


def all_claims(results: dict, comparison: str = PAPER_COMPARISON, ids: Sequence[str] | None = None) -> list[dict]:
    """Every claim (or those in ``ids``) for ``results`` (experiment name -> result), under ``comparison``."""
    view = comparison_view(results, comparison)
    return [evaluate_claim(spec, view) for spec in CLAIMS if ids is None or spec.id in ids]


def claims_by_comparison(results: dict, comparisons: Sequence[str] = tuple(COMPARISONS)) -> dict:
    """``{comparison: all_claims(results, comparison)}``."""
    return {c: all_claims(results, c) for c in comparisons}


def verdict_counts(claims: list[dict]) -> dict:
    return in_count_order(Counter(c["verdict"] for c in claims))


def in_count_order(counts: dict) -> dict:
    """``counts`` (verdict -> number) in the order of :data:`COUNT_ORDER`, other verdicts after."""
    rank = {v: i for i, v in enumerate(COUNT_ORDER)}
    return dict(sorted(counts.items(), key=lambda kv: rank.get(kv[0], len(rank))))
