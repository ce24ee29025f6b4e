"""When to stop, and what else to try: stopping rules and baselines scored on the target domains.

Beyond the paper (Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
Approach", AISTATS 2012), whose section 5 names ways to decide how many features to keep and tests none.
On simulated domains, MNIST '2 vs other' (4.1) and the similarity tasks (4.2), the stopping rules on the
T-greedy path are scored against the *oracle* (the step with the best target AUROC, which no rule can
know), a rule is chosen for each split on the *other* splits (:func:`choose_rule_on_other_splits`), and
the baselines are tuned by leave-one-domain-out on the sources. No choice looks at a target domain.
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
from ..validation import check_options
from . import catalog, domains
from .inputs import load_experiment_features
from .runs import two_vs_other_columns, usable_similarity_columns

#: A rule "reaches the oracle" on a split when its target AUROC is within this of the oracle's.
TOLERANCE = 0.01
#: A bar fixed before any run: within TOLERANCE of the oracle on this share of splits is as good as knowing it.
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

#: Settings per experiment: notebook 05's simulated problem with 4, 8 or 16 domains, then the section-4
#: experiments with the reproduction's settings (:data:`tgreedy_lib.experiments.catalog.PAPER`).
PAPER = {**{f"simulated-n{n}": {"n_domains": n, "n_splits": 30, "n_steps": 15} for n in (4, 8, 16)},
         **{name: dict(v) for name, v in catalog.PAPER.items() if name != "intro-logistic"}}
QUICK = {**{f"simulated-n{n}": {"n_domains": n, "n_splits": 10, "n_steps": 15} for n in (4, 8, 16)},
         **{name: dict(v) for name, v in catalog.QUICK.items() if name != "intro-logistic"}}
EXPERIMENTS = tuple(PAPER)
#: A rule or baseline that takes this long on a split is reported to ``progress``.
STAGE_REPORT_SECONDS = 5.0
#: Features of the simulated experiments' problem (5 robust, 5 spurious, 40 null).
SIMULATED_FEATURES = 50


@dataclasses.dataclass
class Split:
    """Source statistics, ``target(W)`` (target AUROC of each row of W), ``source_auroc(label, W)``."""

    label: str
    stats: DomainStatistics
    target: Callable[[np.ndarray], np.ndarray]
    source_auroc: Callable | None = None


def _auroc_rows(y, scores: np.ndarray) -> np.ndarray:
    """AUROC of each column of scores; a constant column (w = 0) scores 0.5."""
    auc = np.atleast_1d(roc_auc(y, scores))
    auc[np.all(scores == scores[:1], axis=0)] = 0.5
    return auc


def _scorer(X: np.ndarray, y):
    """``W -> AUROC`` of the scores ``X w`` of each row ``w`` of ``W`` on labels ``y``."""
    return lambda W: _auroc_rows(y, X @ np.atleast_2d(W).T)


def simulated_splits(n_domains: int = 8, n_splits: int = 10, *, n_samples: int = 500, n_target: int = 4000,
                     seed: int = 0):
    """Splits of notebook 05's simulated world: ``n_domains`` of ``n_samples`` draws, a new target domain
    of ``n_target``; AUROC scores the label ``Y > 0``."""
    problem = make_problem(n_robust=5, n_spurious=5, n_null=40)
    rng = np.random.default_rng([seed, n_domains])
    for s in range(int(n_splits)):
        data = problem.draw_samples(rng, n_domains, n_samples)
        (Xt, yt), = problem.draw_samples(rng, 1, n_target)
        stats = DomainStatistics.from_domains(data, lazy=False)

        def source_auroc(label, W, data=data):
            X, y = data[int(label)]
            return _scorer(X, y > 0)(W)

        yield Split(f"repeat {s}", stats, _scorer(Xt, yt > 0), source_auroc)


def two_vs_other_compare_splits(features, targets=None, positive: int = domains.POSITIVE_DIGIT):
    """Section 4.1's splits: sources '2 vs k', target '2 vs t' on the test images."""
    columns = two_vs_other_columns(features, positive)
    X_train = np.ascontiguousarray(features.train_features[:, columns])
    X_test = np.ascontiguousarray(features.test_features[:, columns])
    all_domains = domains.two_vs_other_statistics(X_train, features.train_labels, positive)
    positive_rows = np.flatnonzero(features.train_labels == positive)
    for split in domains.two_vs_other_splits(features.classes, positive, targets):
        stats = all_domains.subset(list(split.sources))
        _, target_set = domains.two_vs_other_evaluation(features.test_labels, split, positive)

        def source_auroc(label, W):
            rows = np.concatenate([positive_rows, np.flatnonzero(features.train_labels == int(label))])
            return _scorer(X_train[rows], np.where(features.train_labels[rows] == positive, 1, -1))(W)

        yield Split(f"target {split.target}", stats, _scorer(X_test[target_set.rows], target_set.y), source_auroc)


def similarity_compare_splits(features, targets=None, *, n_positive: int = 1000, n_negative: int = 1000,
                              seed: int = 0):
    """Section 4.2's splits: pair-product features, one class held out as the target."""
    classes = [int(c) for c in features.classes]
    columns = np.flatnonzero(usable_similarity_columns(features.train_features, features.train_labels, classes))
    F_train = np.ascontiguousarray(features.train_features[:, columns])
    F_test = np.ascontiguousarray(features.test_features[:, columns])
    train_design = domains.draw_pair_design(features.train_labels, classes, n_positive, n_negative, seed)
    moments = domains.SimilarityMoments(F_train, train_design)
    for split in domains.similarity_splits(classes, targets):
        stats = moments.split_statistics(split)
        pairs, y_target = domains.target_pairs(features.test_labels, split, n_positive, n_negative, seed + 2)
        target_products = domains.pair_products(F_test, pairs)

        def source_auroc(label, W, held=split.target):
            pairs_c, y_c = train_design.domain_pairs(int(label), held)
            return _scorer(domains.pair_products(F_train, pairs_c), y_c)(W)

        yield Split(f"target {split.target}", stats, _scorer(target_products, y_target), source_auroc)


#: Bytes of leave-one-domain-out subsets kept: MNIST's 8 subsets of p = 2,000 (1.8 GB) fit, 3,000 domains' do not.
SUBSET_CACHE_BYTES = 2 * 2**30


def _subset_bytes(stats: DomainStatistics, n_kept: int) -> int:
    gram = stats._xx is not None
    return 8 * n_kept * (stats.n_features * stats.n_features if gram else 3 * stats.n_features + 1)


def _with_cached_subsets(stats: DomainStatistics, budget: int | None = None) -> DomainStatistics:
    """A shallow copy of ``stats`` whose ``subset`` memoizes by labels, up to ``budget`` bytes (read only)."""
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
    """Rules on the T-greedy path and the baselines, scored by target AUROC on one split; ``progress`` gets
    a line per stage that took :data:`STAGE_REPORT_SECONDS` or more."""
    stats = _with_cached_subsets(split.stats)
    if int(n_steps) > stats.n_features:
        raise ValueError(f"n_steps={n_steps} exceeds the {stats.n_features} features of {split.label}; "
                         f"pass n_steps of at most {stats.n_features}")
    n_steps = int(n_steps)
    report = progress if callable(progress) else (lambda line: None)
    timings = {}

    def timed(stage: str, name: str, tick: float) -> None:
        timings[f"{stage}:{name}"] = seconds = time.perf_counter() - tick
        if seconds >= STAGE_REPORT_SECONDS:
            report(f"    {split.label}: {stage} {name} ({seconds:.1f} s)")

    tick = time.perf_counter()
    path = tgreedy_path(stats, n_steps)
    curve = split.target(steps_curve(path, n_steps))  # steps 0..K
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
        timed("rule", name, tick)
    for name in baselines:
        tick = time.perf_counter()
        if name == "greedy":
            g = greedy_path(stats, n_steps)
            W = steps_curve(g, n_steps)[1:]
            chosen = stopping.stop_lodo(g, stats, progress=False).k - 1
            n_selected = parameter = np.arange(1, n_steps + 1)
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
        timed("baseline", name, tick)
    out["seconds"] = {k: round(v, 3) for k, v in timings.items()}
    return out


def _best_rule(names: list[str], gaps: np.ndarray) -> str:
    """The rule within TOLERANCE of the oracle on most splits of ``gaps`` (rules, splits); ties: smaller mean gap."""
    share = np.mean(gaps <= TOLERANCE, axis=1)
    mean_gap = gaps.mean(axis=1)
    return names[min(range(len(names)), key=lambda r: (-share[r], mean_gap[r], r))]


def choose_rule_on_other_splits(target_auroc, oracle_auroc) -> list[str]:
    """For each split, the rule within ``TOLERANCE`` of the oracle on the most *other* splits (ties: smaller
    mean gap, then first listed). ``target_auroc``: ``{rule: [AUROC per split]}``; ``oracle_auroc``: per split.
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


def _gaps(splits: list[dict], names) -> np.ndarray:
    return np.array([[s["oracle_auroc"] - s["rules"][name]["target_auroc"] for s in splits] for name in names])


def _outcome(splits: list[dict], hindsight: bool) -> dict | None:
    """Each split's chosen rule, its k, target AUROC and gap: chosen on the other splits (None with fewer
    than two), or (``hindsight``) the rule best on all of them."""
    names = list(splits[0]["rules"])
    if hindsight:
        chosen = [_best_rule(names, _gaps(splits, names))] * len(splits)
    elif len(splits) < 2:
        return None
    else:
        chosen = choose_rule_on_other_splits({name: [s["rules"][name]["target_auroc"] for s in splits]
                                              for name in names}, [s["oracle_auroc"] for s in splits])
    return {"rule": chosen,
            "k": [int(s["rules"][r]["k"]) for s, r in zip(splits, chosen)],
            "target_auroc": [float(s["rules"][r]["target_auroc"]) for s, r in zip(splits, chosen)],
            "gap": [float(s["oracle_auroc"] - s["rules"][r]["target_auroc"]) for s, r in zip(splits, chosen)]}


def _row(auroc, gap, k) -> dict:
    auroc, gap, k = (np.asarray(v, dtype=np.float64) for v in (auroc, gap, k))
    return {"mean_auroc": float(auroc.mean()), "sd_auroc": float(auroc.std(ddof=1)) if len(auroc) > 1 else 0.0,
            "mean_gap": float(gap.mean()), "max_gap": float(gap.max()),
            "share_within": float(np.mean(gap <= TOLERANCE)), "mean_k": float(k.mean()), "n_splits": int(len(auroc))}


def _choice_row(outcomes: list[dict]) -> dict | None:
    outcomes = [o for o in outcomes if o is not None]
    if not outcomes:
        return None
    joined = {key: [v for o in outcomes for v in o[key]] for key in ("rule", "k", "target_auroc", "gap")}
    row = _row(joined["target_auroc"], joined["gap"], joined["k"])
    counts = {rule: joined["rule"].count(rule) for rule in dict.fromkeys(joined["rule"])}
    row.update({"chosen_rules": joined["rule"], "times_chosen": counts})
    return row


def summarize(splits: list[dict], *, per_experiment: list[list[dict]] | None = None) -> dict:
    """Target AUROC, gap to the oracle, share within ``TOLERANCE``: per rule (``rules``), for the rule chosen
    on the other splits of each experiment of ``per_experiment`` (``nested``), the best in hindsight
    (``hindsight``), per baseline at its leave-one-domain-out choice; ``best_rule`` and ``goal_met``."""
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
    best_rule = _best_rule(list(rules), _gaps(splits, rules))
    return {"oracle_mean_auroc": float(oracle.mean()), "rules": rules,
            "nested": _choice_row([_outcome(g, False) for g in groups]),
            "hindsight": _choice_row([_outcome(g, True) for g in groups]), "baselines": base,
            "best_rule": best_rule, "goal_met": bool(rules[best_rule]["share_within"] >= GOAL_SHARE)}


def pooled_summary(experiments: dict) -> dict:
    """Every split of every experiment; the nested rule of each split is still chosen within its experiment."""
    splits = [s for e in experiments.values() for s in e["splits"]]
    if not splits:
        return {}
    return summarize(splits, per_experiment=[e["splits"] for e in experiments.values()])


def default_feature_map(dataset: str) -> str:
    """The data set's default learned features when they are in the feature cache, else ``"random"``."""
    try:
        from ..features import DEFAULT_KIND, load_features

        load_features(dataset, only_cached=True, progress=False)
        return {"dbn": "dbn", "patches": "conv"}[DEFAULT_KIND[dataset]]
    except Exception:  # noqa: BLE001 - any failure to find the cached features means: use the stand-in
        return "random"


def features_for(dataset: str, feature_map: str | None = None):
    """``feature_map``'s features, or :func:`default_feature_map`'s."""
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
#: ``run_compare_experiment(progress=None)`` is quiet this many seconds, then writes to standard error as often.
QUIET_SECONDS = 30.0


def _progress_writer(progress):
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

    ``overrides`` change the settings of :data:`PAPER` / :data:`QUICK` (anything else is refused);
    ``baselines``: names of :data:`BASELINES`, each once; ``progress``: a callable gets a line per split
    and slow stage, ``True`` standard error, ``False`` nothing, ``None`` standard error after
    :data:`QUIET_SECONDS`.
    """
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; choose from {EXPERIMENTS}")
    check_options(_SETTING_CONSTRAINTS, {"seed": seed, "quick": quick, "feature_map": feature_map,
                                         "progress": progress}, "run_compare_experiment")
    unknown = sorted(set(overrides) - set(_SETTINGS[name]))
    if unknown:
        raise ValueError(f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for "
                         f"{name}; its settings are {', '.join(_SETTINGS[name])} (and quick, features, "
                         "feature_map, progress, seed, baselines)")
    check_options(_SETTING_CONSTRAINTS, overrides, "run_compare_experiment")
    if isinstance(baselines, str):
        raise ValueError(f"baselines must be a sequence of names, got the string {baselines!r}; "
                         f"pass ({baselines!r},)")
    baselines = tuple(baselines)
    unknown = [b for b in baselines if not isinstance(b, str) or b not in BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline {unknown[0]!r}; choose from {', '.join(BASELINES)}")
    repeated = sorted({b for b in baselines if baselines.count(b) > 1})
    if repeated:
        raise ValueError(f"baseline {repeated[0]!r} is named twice; name each baseline once")
    report = _progress_writer(progress)
    settings = dict((QUICK if quick else PAPER)[name])
    settings.update(overrides)
    if name.startswith("simulated") and settings["n_steps"] > SIMULATED_FEATURES:
        raise ValueError(f"n_steps={settings['n_steps']} exceeds the {SIMULATED_FEATURES} features of {name}; "
                         f"pass n_steps of at most {SIMULATED_FEATURES}")
    start = time.perf_counter()
    if name.startswith("simulated"):
        splits = simulated_splits(settings["n_domains"], settings["n_splits"], seed=seed)
        data = {"dataset": "simulated", "problem": "make_problem(n_robust=5, n_spurious=5, n_null=40)",
                "n_domains": settings["n_domains"], "n_samples_per_domain": 500, "n_target_samples": 4000}
    else:
        dataset = "cifar10" if name.startswith("cifar") else "mnist"
        if features is None:
            features = features_for(dataset, feature_map)
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
