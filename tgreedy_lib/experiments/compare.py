"""When to stop, and what else to try: stopping rules and baselines scored on the target domains.

Beyond the paper (Foster, Kakade & Salakhutdinov 2012 [1]_): its Discussion (section 5) names three
ways to decide how many features to keep and tests none; its experiments (section 4) compare
T-greedy only with greedy. ``python -m tgreedy_course compare`` runs, on the same splits,

* the stopping rules of :mod:`tgreedy_lib.domain_adaptation.stopping` on the T-greedy path, each
  as the paper's Discussion states it, scored against the *oracle* (the number of steps with the
  best target AUROC, which no rule can know): per rule the target AUROC it reaches, its gap to the
  oracle's, and the share of splits within ``TOLERANCE`` of it. These rows are descriptive: reading
  the best one off the table would choose the rule on the very splits it is scored on;
* the honest version of that choice, :func:`choose_rule_on_other_splits`: for each split, the rule
  that was within ``TOLERANCE`` of the oracle on the most *other* splits of the same experiment,
  scored on that split (nested, like cross-validation over splits);
* the baselines of :mod:`tgreedy_lib.domain_adaptation.baselines` (OMP [2]_, the lasso [3]_,
  V-REx [4]_, an invariance filter in the spirit of ICP [5]_, the univariate T filter) and greedy,
  each with its number of features (or penalty) chosen by the same procedure as T-greedy's row in
  the method table: leave-one-domain-out cross-validation on the source domains' squared loss.
  No method's choice looks at a target domain;

on simulated domains (notebook 05's generator, several numbers of domains), MNIST '2 vs other'
(section 4.1) and the MNIST and CIFAR-10 similarity tasks (section 4.2). This module scores the
splits (:func:`run_compare_experiment`); :mod:`tgreedy_course.compare` writes the tables,
``results/compare.json`` and ``results/compare.md``, and the README's block.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
       Approach", AISTATS 2012: section 5 (Discussion) names the stopping rules.
.. [2] Y. C. Pati, R. Rezaiifar and P. S. Krishnaprasad, "Orthogonal matching pursuit: recursive
       function approximation with applications to wavelet decomposition", Proc. 27th Asilomar
       Conference on Signals, Systems and Computers, 1993.
.. [3] R. Tibshirani, "Regression shrinkage and selection via the lasso", Journal of the Royal
       Statistical Society B 58(1):267-288, 1996.
.. [4] D. Krueger, E. Caballero, J.-H. Jacobsen, A. Zhang, J. Binas, D. Zhang, R. Le Priol and
       A. Courville, "Out-of-distribution generalization via risk extrapolation (REx)", ICML 2021.
.. [5] J. Peters, P. Buehlmann and N. Meinshausen, "Causal inference by using invariant prediction:
       identification and confidence intervals", Journal of the Royal Statistical Society B
       78(5):947-1012, 2016.

Examples
--------
>>> from tgreedy_lib.experiments import compare
>>> split = next(compare.simulated_splits(n_domains=6, n_splits=1, seed=0))
>>> result = compare.score_split(split, 5, baselines=("t_filter",))
>>> sorted(result["rules"]) == sorted(compare.RULES)
True
>>> result["oracle_auroc"] >= max(r["target_auroc"] for r in result["rules"].values())
True
>>> compare.choose_rule_on_other_splits({"a": [0.9, 0.5, 0.5], "b": [0.5, 0.6, 0.6]}, [0.9, 0.6, 0.6])
['b', 'a', 'a']
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import time
from numbers import Integral
from typing import Callable

import numpy as np
from sklearn.utils._param_validation import Interval

from ..domain_adaptation import baselines as baselines_module
from ..domain_adaptation import stopping
from ..domain_adaptation.evaluation import roc_auc
from ..domain_adaptation.lodo import steps_curve
from ..domain_adaptation.selection import greedy_path, tgreedy_path
from ..domain_adaptation.statistics import DomainStatistics
from ..domain_adaptation.theorems.simulate import make_problem
from . import domains

#: A rule "reaches the oracle" on a split when its target AUROC is within this of the oracle's.
TOLERANCE = 0.01
#: A bar fixed before any run: a rule that is within TOLERANCE of the oracle on at least this share of
#: splits would be as good as knowing the oracle in practice. ``goal_met`` of a summary compares the
#: rule that is best in hindsight (descriptive) with it; ``nested["share_within"]`` is the honest figure.
GOAL_SHARE = 0.8
#: Family-wise level of the Bonferroni, Theorem 1 and chance rules.
ALPHA = 0.05
#: Rules scored on each T-greedy path: name -> (rule, options). "lodo_auroc" scores held-out AUROC.
RULES = {
    "lodo": ("lodo", {}),
    "lodo_auroc": ("lodo", {"score": "auroc"}),
    "bonferroni": ("bonferroni", {"alpha": ALPHA}),
    "theorem1": ("theorem1", {"alpha": ALPHA}),
    "chance": ("chance", {"alpha": ALPHA, "null": "sign_flip"}),
    "chance_gaussian": ("chance", {"alpha": ALPHA, "null": "gaussian"}),
    "all_steps": (None, {}),
}
BASELINES = ("greedy", "omp", "lasso", "vrex", "icp", "t_filter")
#: Methods whose points are numbers of steps 1..K (their curves share the x-axis).
STEP_METHODS = ("tgreedy", "greedy", "omp", "icp", "t_filter")

#: Settings per experiment. Simulated: notebook 05's problem (5 robust, 5 spurious, 40 null features).
PAPER = {
    "simulated-n4": {"n_domains": 4, "n_splits": 30, "n_steps": 15},
    "simulated-n8": {"n_domains": 8, "n_splits": 30, "n_steps": 15},
    "simulated-n16": {"n_domains": 16, "n_splits": 30, "n_steps": 15},
    "mnist-2-vs-other": {"n_steps": 50},
    "mnist-similarity": {"n_steps": 100},
    "cifar-similarity": {"n_steps": 300},
}
QUICK = {
    "simulated-n4": {"n_domains": 4, "n_splits": 10, "n_steps": 15},
    "simulated-n8": {"n_domains": 8, "n_splits": 10, "n_steps": 15},
    "simulated-n16": {"n_domains": 16, "n_splits": 10, "n_steps": 15},
    "mnist-2-vs-other": {"n_steps": 15, "targets": (9, 3, 6, 1)},
    "mnist-similarity": {"n_steps": 30, "targets": (9, 3, 6)},
    "cifar-similarity": {"n_steps": 60, "targets": (9, 3, 6)},
}
EXPERIMENTS = tuple(PAPER)
#: A rule or baseline that takes this long on a split is reported to ``progress``.
STAGE_REPORT_SECONDS = 5.0
#: Features of the simulated experiments' problem (5 robust, 5 spurious, 40 null).
SIMULATED_FEATURES = 50


@dataclasses.dataclass
class Split:
    """One source/target split: the source statistics and how to score weights on the domains.

    ``target(W)`` gives the target AUROC of each row of ``W`` (m, p); ``source_auroc(label, W)``
    the AUROC on source domain ``label``'s own training samples (for the AUROC version of the
    leave-one-domain-out rule).
    """

    label: str
    stats: DomainStatistics
    target: Callable[[np.ndarray], np.ndarray]
    source_auroc: Callable | None = None


# --------------------------------------------------------------------------- splits

def _auroc_rows(y, scores: np.ndarray) -> np.ndarray:
    """AUROC of each column of scores; a constant column (w = 0) scores 0.5."""
    auc = np.atleast_1d(roc_auc(y, scores))
    constant = np.all(scores == scores[:1], axis=0)
    auc[constant] = 0.5
    return auc


def simulated_splits(n_domains: int = 8, n_splits: int = 10, *, n_samples: int = 500, n_target: int = 4000,
                     seed: int = 0, problem=None):
    """Splits of notebook 05's simulated world: ``n_domains`` training domains, one new target domain.

    Each domain has ``n_samples`` draws of ``X ~ N(0, I)``, ``Y = X.beta_d + noise``; the target is
    a new random domain with ``n_target`` draws, and the label scored by AUROC is ``Y > 0``.
    """
    problem = make_problem(n_robust=5, n_spurious=5, n_null=40) if problem is None else problem
    rng = np.random.default_rng([seed, n_domains])
    for s in range(int(n_splits)):
        data = problem.draw_samples(rng, n_domains, n_samples)
        (Xt, yt), = problem.draw_samples(rng, 1, n_target)
        stats = DomainStatistics.from_domains(data, lazy=False)

        def target(W, Xt=Xt, yt=yt):
            return _auroc_rows(yt > 0, Xt @ np.atleast_2d(W).T)

        def source_auroc(label, W, data=data):
            X, y = data[int(label)]
            return _auroc_rows(y > 0, X @ np.atleast_2d(W).T)

        yield Split(f"repeat {s}", stats, target, source_auroc)


def two_vs_other_compare_splits(features, targets=None, positive: int = domains.POSITIVE_DIGIT):
    """Section 4.1's splits: sources '2 vs k', target '2 vs t' on the test images."""
    columns = np.flatnonzero((features.train_features[features.train_labels == positive] != 0).any(axis=0))
    X_train = np.ascontiguousarray(features.train_features[:, columns])
    X_test = np.ascontiguousarray(features.test_features[:, columns])
    all_domains = domains.two_vs_other_statistics(X_train, features.train_labels, positive)
    positive_rows = np.flatnonzero(features.train_labels == positive)
    for split in domains.two_vs_other_splits(features.classes, positive, targets):
        stats = all_domains.subset(list(split.sources))
        _, target_set = domains.two_vs_other_evaluation(features.test_labels, split, positive)

        def target(W, rows=target_set.rows, y=target_set.y):
            return _auroc_rows(y, X_test[rows] @ np.atleast_2d(W).T)

        def source_auroc(label, W):
            rows = np.concatenate([positive_rows, np.flatnonzero(features.train_labels == int(label))])
            y = np.where(features.train_labels[rows] == positive, 1, -1)
            return _auroc_rows(y, X_train[rows] @ np.atleast_2d(W).T)

        yield Split(f"target {split.target}", stats, target, source_auroc)


def similarity_compare_splits(features, targets=None, *, n_positive: int = 1000, n_negative: int = 1000,
                              seed: int = 0):
    """Section 4.2's splits: pair-product features, one class held out as the target."""
    from .runs import _usable_similarity_columns

    classes = [int(c) for c in features.classes]
    columns = np.flatnonzero(_usable_similarity_columns(features.train_features, features.train_labels, classes))
    F_train = np.ascontiguousarray(features.train_features[:, columns])
    F_test = np.ascontiguousarray(features.test_features[:, columns])
    train_design = domains.draw_pair_design(features.train_labels, classes, n_positive, n_negative, seed)
    moments = domains.SimilarityMoments(F_train, train_design)
    for split in domains.similarity_splits(classes, targets):
        stats = moments.split_statistics(split)
        pairs, y_target = domains.target_pairs(features.test_labels, split, n_positive, n_negative, seed + 2)
        target_products = domains.pair_products(F_test, pairs)

        def target(W, P=target_products, y=y_target):
            return _auroc_rows(y, P @ np.atleast_2d(W).T)

        def source_auroc(label, W, held=split.target):
            pairs_c, y_c = train_design.domain_pairs(int(label), held)
            return _auroc_rows(y_c, domains.pair_products(F_train, pairs_c) @ np.atleast_2d(W).T)

        yield Split(f"target {split.target}", stats, target, source_auroc)


# --------------------------------------------------------------------------- scoring one split

def _steps_matrix(path, n_steps: int) -> np.ndarray:
    """Weights after 0..n_steps steps (row 0 = no feature)."""
    return steps_curve(path, n_steps)


#: Bytes of leave-one-domain-out subsets :func:`_with_cached_subsets` keeps (the subsets past it are taken
#: afresh each time): MNIST's 8 subsets of p = 2,000 (1.8 GB) fit, 3,000 domains' (171 GB) do not.
SUBSET_CACHE_BYTES = 2 * 2**30


def _subset_bytes(stats: DomainStatistics, n_kept: int) -> int:
    """What one subset of ``n_kept`` domains holds of its own: the copied Gram, or the per-domain vectors."""
    gram = stats._xx is not None
    return 8 * n_kept * (stats.n_features * stats.n_features if gram else 3 * stats.n_features + 1)


def _with_cached_subsets(stats: DomainStatistics, budget: int | None = None) -> DomainStatistics:
    """A shallow copy of ``stats`` whose ``subset`` returns the same object for the same labels, up to a budget.

    Every leave-one-domain-out choice on a split (five baselines) takes the same n subsets; with the
    whole Gram each is a copy of n - 1 (p, p) matrices (224 MB for MNIST's 8 domains and p = 2,000),
    so taking each once saves most of a split's memory traffic. The subsets kept are bounded by
    ``budget`` bytes (default :data:`SUBSET_CACHE_BYTES`): those past it are taken afresh and
    dropped after use, so 3,000 domains do not hold 3,000 copies. The subsets are only read, never
    changed, so the results are the same.
    """
    import copy

    budget = SUBSET_CACHE_BYTES if budget is None else budget
    cached = copy.copy(stats)
    memo = {}
    held = [0]

    def subset(labels):
        key = tuple(np.atleast_1d(np.asarray(labels)).tolist())
        if key in memo:
            return memo[key]
        sub = stats.subset(labels)
        size = _subset_bytes(stats, sub.n_domains)
        if held[0] + size <= budget:
            memo[key] = sub
            held[0] += size
        return sub

    cached.subset = subset
    return cached


def score_split(split: Split, n_steps: int, *, rules=RULES, baselines=BASELINES, seed: int = 0,
                progress=None) -> dict:
    """Rules on the T-greedy path and the baselines, all scored by target AUROC on one split.

    ``n_steps`` beyond the split's features is refused (a ValueError saying how many there are), so
    the number recorded is the number run. ``progress``, a callable, gets a line for each rule and
    baseline that took :data:`STAGE_REPORT_SECONDS` or more.
    """
    stats = _with_cached_subsets(split.stats)
    if int(n_steps) > stats.n_features:
        raise ValueError(f"n_steps={n_steps} exceeds the {stats.n_features} features of {split.label}; "
                         f"pass n_steps of at most {stats.n_features}")
    n_steps = int(n_steps)
    report = progress if callable(progress) else (lambda line: None)
    timings = {}
    tick = time.perf_counter()
    path = tgreedy_path(stats, n_steps)
    curve = split.target(_steps_matrix(path, n_steps))  # steps 0..K
    oracle_k = int(1 + np.argmax(curve[1:]))
    timings["tgreedy"] = time.perf_counter() - tick
    out = {"split": split.label, "n_domains": int(stats.n_domains), "n_features": int(stats.n_features),
           "tgreedy_target_auroc": curve[1:].tolist(), "oracle_k": oracle_k,
           "oracle_auroc": float(curve[oracle_k]), "rules": {}, "baselines": {}}
    for name, (rule, options) in rules.items():
        tick = time.perf_counter()
        if rule is None:
            k, evidence = n_steps, {}
        else:
            options = dict(options)
            if options.get("score") == "auroc":
                if split.source_auroc is None:
                    continue
                options["score"] = split.source_auroc
            if rule == "chance":
                options.setdefault("seed", seed)
            if rule == "lodo":
                options.setdefault("progress", False)
            result = stopping.choose_k(path, stats, rule=rule, **options)
            k, evidence = result.k, result.evidence
        auroc = float(curve[k])
        out["rules"][name] = {"k": int(k), "target_auroc": auroc, "gap": float(curve[oracle_k] - auroc),
                              "threshold": evidence.get("threshold")}
        timings[f"rule:{name}"] = time.perf_counter() - tick
        if timings[f"rule:{name}"] >= STAGE_REPORT_SECONDS:
            report(f"    {split.label}: rule {name} ({timings[f'rule:{name}']:.1f} s)")
    for name in baselines:
        tick = time.perf_counter()
        if name == "greedy":
            g = greedy_path(stats, n_steps)
            W = _steps_matrix(g, n_steps)[1:]
            chosen = stopping.stop_lodo(g, stats, progress=False).k - 1
            n_selected = np.arange(1, n_steps + 1)
            parameter = n_selected
        else:
            b = baselines_module.run_baseline(name, stats, n_steps)
            W, chosen, n_selected, parameter = b.coef, b.chosen, b.n_selected, b.parameter
        target = split.target(W)
        out["baselines"][name] = {
            "target_auroc": target.tolist(), "n_selected": [int(v) for v in n_selected],
            "parameter": [float(v) for v in parameter], "chosen": int(chosen),
            "chosen_auroc": float(target[chosen]), "chosen_n_selected": int(n_selected[chosen]),
            "best_auroc": float(np.max(target)),
        }
        timings[f"baseline:{name}"] = time.perf_counter() - tick
        if timings[f"baseline:{name}"] >= STAGE_REPORT_SECONDS:
            report(f"    {split.label}: baseline {name} ({timings[f'baseline:{name}']:.1f} s)")
    out["seconds"] = {k: round(v, 3) for k, v in timings.items()}
    return out


# --------------------------------------------------------------------------- summaries: choosing a rule fairly

def _best_rule(names: list[str], gaps: np.ndarray) -> str:
    """The rule within TOLERANCE of the oracle on the most splits of ``gaps`` (rules, splits); ties: smaller mean gap, then first."""
    share = np.mean(gaps <= TOLERANCE, axis=1)
    mean_gap = gaps.mean(axis=1)
    return names[min(range(len(names)), key=lambda r: (-share[r], mean_gap[r], r))]


def choose_rule_on_other_splits(target_auroc, oracle_auroc) -> list[str]:
    """For each split, the stopping rule that did best on the *other* splits (leave one split out).

    Reading the best rule off a table of every rule's results chooses the rule on the same
    splits it is then scored on: an optimistic figure (the best of several noisy rows). The
    nested choice never looks at the split it is scored on: split i gets the rule that was within
    ``TOLERANCE`` of the oracle on the most splits j != i (ties: the smaller mean gap to the
    oracle on those splits, then the rule listed first), the criterion by which a summary's
    ``best_rule`` is chosen in hindsight. The choice for a split cannot change when only that
    split's results change.

    Parameters
    ----------
    target_auroc : mapping of str to sequence of float
        ``{rule: [target AUROC on split 0, on split 1, ...]}``, every rule on the same splits.
    oracle_auroc : sequence of float
        The oracle's target AUROC on each split (the best number of steps on the target).

    Returns
    -------
    list of str
        The rule chosen for each split.

    Raises
    ------
    ValueError
        With fewer than two splits (nothing else to choose on), no rules, rules scored on
        different splits than the oracle, or a value that is not finite.

    See Also
    --------
    summarize : Scores the nested choice beside each rule's own row.
    tgreedy_lib.domain_adaptation.stopping.choose_k : The rules themselves.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 5 (Discussion) names the rules.

    Examples
    --------
    >>> from tgreedy_lib.experiments.compare import choose_rule_on_other_splits
    >>> oracle = [0.80, 0.80, 0.80, 0.80]
    >>> auroc = {"a": [0.80, 0.80, 0.70, 0.70], "b": [0.60, 0.75, 0.80, 0.80]}
    >>> choose_rule_on_other_splits(auroc, oracle)   # in hindsight "a" and "b" both reach it twice; "a" is closer
    ['b', 'b', 'a', 'a']

    Split 0 and 1, where "a" reaches the oracle, are the splits on which "a" is not chosen.
    """
    names = list(target_auroc)
    if not names:
        raise ValueError("no rules to choose from; pass {rule: [target AUROC per split]}")
    oracle = np.asarray(oracle_auroc, dtype=np.float64)
    lengths = {name: len(target_auroc[name]) for name in names}
    if oracle.ndim != 1 or any(n != len(oracle) for n in lengths.values()):
        raise ValueError(f"every rule must be scored on the oracle's {len(oracle)} splits; scores per rule: {lengths}")
    if len(oracle) < 2:
        raise ValueError(f"choosing a rule on the other splits needs at least 2 splits, got {len(oracle)}")
    gaps = oracle[None, :] - np.array([np.asarray(target_auroc[name], dtype=np.float64) for name in names])
    if not np.all(np.isfinite(gaps)):
        raise ValueError("target and oracle AUROC must be finite numbers")
    return [_best_rule(names, np.delete(gaps, i, axis=1)) for i in range(len(oracle))]  # split i is not read


def _nested_outcome(splits: list[dict]) -> dict | None:
    """Per split: the rule chosen on the other splits, and its k, target AUROC and gap on this split."""
    if len(splits) < 2:
        return None
    names = list(splits[0]["rules"])
    chosen = choose_rule_on_other_splits({name: [s["rules"][name]["target_auroc"] for s in splits] for name in names},
                                         [s["oracle_auroc"] for s in splits])
    return {"rule": chosen,
            "k": [int(s["rules"][r]["k"]) for s, r in zip(splits, chosen)],
            "target_auroc": [float(s["rules"][r]["target_auroc"]) for s, r in zip(splits, chosen)],
            "gap": [float(s["oracle_auroc"] - s["rules"][r]["target_auroc"]) for s, r in zip(splits, chosen)]}


def _row(auroc, gap, k) -> dict:
    """Mean and s.d. of the target AUROC, the gap to the oracle, the share within TOLERANCE, mean k."""
    auroc, gap, k = (np.asarray(v, dtype=np.float64) for v in (auroc, gap, k))
    return {"mean_auroc": float(auroc.mean()), "sd_auroc": float(auroc.std(ddof=1)) if len(auroc) > 1 else 0.0,
            "mean_gap": float(gap.mean()), "max_gap": float(gap.max()),
            "share_within": float(np.mean(gap <= TOLERANCE)), "mean_k": float(k.mean()), "n_splits": int(len(auroc))}


def _choice_row(outcomes: list[dict]) -> dict | None:
    """The row of a rule choice over the splits of ``outcomes`` (each made within its own experiment)."""
    outcomes = [o for o in outcomes if o is not None]
    if not outcomes:
        return None
    joined = {key: [v for o in outcomes for v in o[key]] for key in ("rule", "k", "target_auroc", "gap")}
    row = _row(joined["target_auroc"], joined["gap"], joined["k"])
    counts = {}
    for rule in joined["rule"]:
        counts[rule] = counts.get(rule, 0) + 1
    row.update({"chosen_rules": joined["rule"], "times_chosen": counts})
    return row


def _hindsight_outcome(splits: list[dict]) -> dict:
    """Per split: the rule best on all these splits, its own included (descriptive), and its k, AUROC, gap."""
    names = list(splits[0]["rules"])
    gaps = np.array([[s["oracle_auroc"] - s["rules"][name]["target_auroc"] for s in splits] for name in names])
    rule = _best_rule(names, gaps)
    return {"rule": [rule] * len(splits), "k": [int(s["rules"][rule]["k"]) for s in splits],
            "target_auroc": [float(s["rules"][rule]["target_auroc"]) for s in splits],
            "gap": [float(s["oracle_auroc"] - s["rules"][rule]["target_auroc"]) for s in splits]}


def summarize(splits: list[dict], *, per_experiment: list[list[dict]] | None = None) -> dict:
    """Per rule, for the rule chosen on other splits and per baseline: target AUROC, gap to the oracle, share within TOLERANCE.

    * ``rules``: one row per rule on the T-greedy path (descriptive);
    * ``nested``: the rule chosen for each split on the other splits of its experiment
      (:func:`choose_rule_on_other_splits`), a method; None with fewer than two splits;
    * ``hindsight``: each experiment's best rule chosen on its own splits and scored on them
      (descriptive, optimistic: what reading the best row off the table reports);
    * ``best_rule``: the best rule over all of ``splits`` by the same criterion (descriptive);
      ``goal_met``: whether it is within TOLERANCE on at least ``GOAL_SHARE`` of them;
    * ``baselines``: each at its leave-one-domain-out choice, the procedure of the ``lodo`` rule.

    ``per_experiment`` (used by :func:`pooled_summary`) groups ``splits`` by experiment, so that
    the nested and hindsight choices are made within each experiment; by default all ``splits``
    are one experiment.
    """
    groups = [splits] if per_experiment is None else per_experiment
    oracle = np.array([s["oracle_auroc"] for s in splits])
    rules = {}
    for name in splits[0]["rules"]:
        auroc = np.array([s["rules"][name]["target_auroc"] for s in splits])
        rules[name] = _row(auroc, oracle - auroc, [s["rules"][name]["k"] for s in splits])
    base = {}
    for name in splits[0]["baselines"]:
        chosen = np.array([s["baselines"][name]["chosen_auroc"] for s in splits])
        best = np.array([s["baselines"][name]["best_auroc"] for s in splits])
        n_sel = np.array([s["baselines"][name]["chosen_n_selected"] for s in splits])
        base[name] = {"mean_auroc": float(chosen.mean()),
                      "sd_auroc": float(chosen.std(ddof=1)) if len(chosen) > 1 else 0.0,
                      "mean_best_auroc": float(best.mean()), "mean_n_selected": float(n_sel.mean()),
                      "mean_gap_to_tgreedy_oracle": float((oracle - chosen).mean()),
                      "share_within_tgreedy_oracle": float(np.mean(oracle - chosen <= TOLERANCE))}
    names = list(rules)
    best_rule = _best_rule(names, np.array([[s["oracle_auroc"] - s["rules"][n]["target_auroc"] for s in splits]
                                            for n in names]))
    return {"oracle_mean_auroc": float(oracle.mean()), "rules": rules,
            "nested": _choice_row([_nested_outcome(g) for g in groups]),
            "hindsight": _choice_row([_hindsight_outcome(g) for g in groups]), "baselines": base,
            "best_rule": best_rule, "goal_met": bool(rules[best_rule]["share_within"] >= GOAL_SHARE)}


def pooled_summary(experiments: dict) -> dict:
    """Every split of every experiment; the nested rule of each split is still chosen within its experiment."""
    splits = [s for e in experiments.values() for s in e["splits"]]
    if not splits:
        return {}
    return summarize(splits, per_experiment=[e["splits"] for e in experiments.values()])


# --------------------------------------------------------------------------- running

#: The experiments' name of each feature learner of :func:`tgreedy_lib.features.load_features`.
_FEATURE_MAP_OF_KIND = {"dbn": "dbn", "patches": "conv"}


def default_feature_map(dataset: str) -> str:
    """The feature map ``compare`` uses when none is given: the data set's default learned features.

    That is :data:`tgreedy_lib.features.DEFAULT_KIND` (the DBN for MNIST, the convolutional patch
    features ``"conv"`` for CIFAR-10) when they are in the feature cache, otherwise the random stand-in.
    """
    try:
        from ..features import DEFAULT_KIND, load_features

        load_features(dataset, only_cached=True, progress=False)
        return _FEATURE_MAP_OF_KIND[DEFAULT_KIND[dataset]]
    except Exception:  # noqa: BLE001 - any failure to find the cached features means: use the stand-in
        return "random"


def _features(dataset: str, feature_map: str | None):
    from .inputs import load_experiment_features

    return load_experiment_features(dataset, default_feature_map(dataset) if feature_map is None else feature_map)


#: The settings each experiment takes (its keys in :data:`PAPER`), and what each must be.
_SETTINGS = {name: tuple(PAPER[name]) + (("targets",) if "targets" in QUICK[name] else ()) for name in EXPERIMENTS}
_SETTING_CONSTRAINTS = {
    "n_domains": [Interval(Integral, 3, None, closed="left")],   # leave-one-domain-out needs 3
    "n_splits": [Interval(Integral, 1, None, closed="left")],
    "n_steps": [Interval(Integral, 1, None, closed="left")],
    "targets": [tuple, list, None],
    "seed": [Interval(Integral, 0, None, closed="left")],
    "quick": ["boolean"],
    "feature_map": [str, None],
    "progress": [callable, "boolean", None],
}
#: ``run_compare_experiment(progress=None)`` is quiet for this many seconds, then writes a line to
#: standard error every as many (a run with thousands of domains says where it is).
QUIET_SECONDS = 30.0


def _check_settings(name: str, overrides: dict, baselines) -> None:
    """Unknown settings refused with the known ones listed; ranges checked; baselines known and not repeated."""
    from .._validation import check_options

    unknown = sorted(set(overrides) - set(_SETTINGS[name]))
    if unknown:
        raise ValueError(f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for "
                         f"{name}; its settings are {', '.join(_SETTINGS[name])} (and quick, features, "
                         "feature_map, progress, seed, baselines)")
    check_options(_SETTING_CONSTRAINTS, overrides, "run_compare_experiment")
    if isinstance(baselines, str):
        raise ValueError(f"baselines must be a sequence of names, got the string {baselines!r}; "
                         f"pass ({baselines!r},)")
    names = list(baselines)
    unknown = [b for b in names if not isinstance(b, str) or b not in BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline {unknown[0]!r}; choose from {', '.join(BASELINES)}")
    repeated = sorted({b for b in names if names.count(b) > 1})
    if repeated:
        raise ValueError(f"baseline {repeated[0]!r} is named twice; name each baseline once")


def _progress_writer(progress):
    """``progress`` as a callable: a callable as given, True: standard error, False: nothing, None: standard
    error once a run has lasted :data:`QUIET_SECONDS` (then every as many)."""
    import sys

    if callable(progress) and progress is not True:
        return progress
    if progress is False:
        return lambda line: None
    start, last = time.perf_counter(), [None]
    quiet = QUIET_SECONDS if progress is None else 0.0

    def write(line):
        now = time.perf_counter()
        if now - start >= quiet and (last[0] is None or now - last[0] >= quiet):
            print(line, file=sys.stderr, flush=True)
            last[0] = now

    return write


def run_compare_experiment(name: str, *, quick: bool = False, features=None, feature_map: str | None = None,
                           progress=None, seed: int = 0, baselines=BASELINES, **overrides) -> dict:
    """Run one experiment of the comparison and return its JSON-ready result.

    ``overrides`` change the experiment's settings (:data:`PAPER`, :data:`QUICK`): ``n_steps`` for
    all, ``n_domains`` (at least 3) and ``n_splits`` (at least 1) for the simulated ones, ``targets``
    for the image ones. An unknown setting is refused with the known ones listed, a value out of
    range with what it must be, ``n_steps`` beyond the features with their number; so the settings
    recorded in the result are those that ran. ``baselines`` are names from :data:`BASELINES`, each
    at most once. ``progress``: a callable gets a line per split and per rule and baseline; ``True``
    writes them to standard error, ``False`` nowhere, ``None`` (default) to standard error once the
    run has lasted :data:`QUIET_SECONDS`. Memory stays bounded in the number of domains: leave-one-
    domain-out subsets are kept up to :data:`SUBSET_CACHE_BYTES`, and T-greedy's and greedy's leave-
    one-domain-out choices take no subsets at all.
    """
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; choose from {EXPERIMENTS}")
    from .._validation import check_options

    check_options(_SETTING_CONSTRAINTS, {"seed": seed, "quick": quick, "feature_map": feature_map,
                                         "progress": progress}, "run_compare_experiment")
    _check_settings(name, overrides, baselines)
    baselines = tuple(baselines)
    report = _progress_writer(progress)
    settings = dict((QUICK if quick else PAPER)[name])
    settings.update(overrides)
    if name.startswith("simulated") and settings["n_steps"] > SIMULATED_FEATURES:
        raise ValueError(f"n_steps={settings['n_steps']} exceeds the {SIMULATED_FEATURES} features of {name}; "
                         f"pass n_steps of at most {SIMULATED_FEATURES}")
    start = time.perf_counter()
    data = {}
    if name.startswith("simulated"):
        splits = simulated_splits(settings["n_domains"], settings["n_splits"], seed=seed)
        data = {"dataset": "simulated", "problem": "make_problem(n_robust=5, n_spurious=5, n_null=40)",
                "n_domains": settings["n_domains"], "n_samples_per_domain": 500, "n_target_samples": 4000}
    else:
        dataset = "cifar10" if name.startswith("cifar") else "mnist"
        if features is None:
            features = _features(dataset, feature_map)
        data = features.data_summary()
        if name == "mnist-2-vs-other":
            splits = two_vs_other_compare_splits(features, settings.get("targets"))
        else:
            splits = similarity_compare_splits(features, settings.get("targets"), seed=seed)
    loaded = time.perf_counter() - start
    results = []
    for split in splits:
        results.append(score_split(split, settings["n_steps"], seed=seed, baselines=baselines, progress=report))
        report(f"  {name}: {split.label} done ({time.perf_counter() - start:.0f} s)")
    if not results:
        raise ValueError(f"{name} has no splits to score (targets={settings.get('targets')!r})")
    return {"experiment": name, "n_steps": int(settings["n_steps"]), "quick": bool(quick), "data": data,
            "splits": results, "summary": summarize(results), "seconds": round(time.perf_counter() - start, 2),
            "seconds_loading": round(loaded, 2)}


def data_available(dataset: str) -> bool:
    """Whether the images of ``dataset`` can be loaded (CIFAR-10 is not bundled)."""
    if dataset == "mnist":
        return True
    root = os.environ.get("TGREEDY_DATA_DIR")
    return bool(root) and (pathlib.Path(root) / "cifar-10-batches-py").is_dir()
