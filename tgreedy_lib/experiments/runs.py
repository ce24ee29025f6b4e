"""The experiments of sections 1 and 4 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small
Sample Statistical Approach" (AISTATS 2012), run on feature vectors and returned as JSON-ready dicts.

Each path is scored after every step by the AUROC of w.x on held-out data of the source domains (the
mean over domains, the paper's dashed curves) and of the target domain (solid), with the T-statistic of
the feature added (the rightmost panels); least squares on all features (:func:`all_features_reference`)
is a yardstick that is not in the paper.
"""
from __future__ import annotations

import re
import time
from typing import Callable, Sequence

import numpy as np

from ..validation import check_whole_number
from ..domain_adaptation.evaluation import path_scores, roc_auc
from ..domain_adaptation.selection import SelectionPath
from ..domain_adaptation.selectors import get_selector
from . import domains
from .design import PAPER_DESIGN, Design
from .inputs import ExperimentFeatures, drop_constant_features
from .readings import ALL_READINGS, reading_json

#: The readings every experiment runs (:mod:`tgreedy_lib.experiments.readings`).
METHODS = ALL_READINGS
#: The introduction's negatives: the even digits other than '2' (training), the odd digits.
EVEN_OTHERS = (0, 4, 6, 8)
ODD_DIGITS = (1, 3, 5, 7, 9)
#: Inverse regularization strengths tried for the introduction's logistic regression (C = 1 is reported).
LOGISTIC_C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
#: Ridge strength of the all-features reference, relative to the mean diagonal of the pooled E[XX^T].
REFERENCE_RIDGE = 1e-3
#: A similarity feature must be nonzero on this share of every class's training images (pixels may not be).
MIN_NONZERO_FRACTION = 0.1
#: The clock of a result's per-stage ``timings`` (a benchmark may set ``time.process_time``).
STAGE_CLOCK = time.perf_counter


def all_features_reference(stats) -> np.ndarray:
    """Ridge on all features, ``(E[XX^T] + lambda I)^{-1} E[XY]`` pooled, lambda ``REFERENCE_RIDGE`` times the
    mean diagonal: if even this scores near 0.5 on the sources, no selection can do better."""
    xx = stats.xx.mean(axis=0)
    xy = stats.xy.mean(axis=0)
    ridge = REFERENCE_RIDGE * float(np.trace(xx)) / xx.shape[0]
    from scipy import linalg

    xx[np.diag_indices_from(xx)] += ridge  # xx is a fresh mean: add the ridge in place, no p x p copy
    return linalg.cho_solve(linalg.cho_factor(xx, check_finite=False), xy, check_finite=False)


def two_vs_other_columns(features: ExperimentFeatures, positive: int = domains.POSITIVE_DIGIT) -> np.ndarray:
    """Features nonzero on some training image of ``positive`` (else E[X_i^2] may vanish in a whole split)."""
    return np.flatnonzero((features.train_features[features.train_labels == positive] != 0).any(axis=0))


def usable_similarity_columns(F: np.ndarray, labels: np.ndarray, classes) -> np.ndarray:
    """Mask of the features nonzero on at least ``MIN_NONZERO_FRACTION`` of every class's images."""
    keep = np.ones(F.shape[1], dtype=bool)
    for c in classes:
        keep &= (F[labels == c] != 0).mean(axis=0) >= MIN_NONZERO_FRACTION
    return keep


def curve(result: dict, method: str, metric: str) -> np.ndarray:
    """A stored curve (``"source_auroc"``, ``"target_auroc"``, ``"t_statistic"``) as an array (splits, steps)."""
    return np.asarray(result["curves"][method][metric], dtype=float)


def _select(stats, method: str, n_steps: int) -> SelectionPath:
    """The reading's path, stopped before a stepwise refit meets an exactly dependent feature."""
    try:
        return get_selector(method).run(stats, n_steps)
    except ValueError as error:
        found = re.match(r"step (\d+): .*linearly dependent", str(error))
        if not found or int(found.group(1)) < 2:
            raise
        return get_selector(method).run(stats, int(found.group(1)) - 1)


def _check_design(design) -> Design:
    if not isinstance(design, Design):
        raise TypeError(f"design must be a tgreedy_lib.experiments.design.Design, got {type(design).__name__}")
    return design


def _check_steps(n_steps, n_features: int, clip_steps: bool) -> int:
    if clip_steps:
        n_steps = min(n_steps, n_features)
    n_steps = check_whole_number(n_steps, "n_steps", 1, integral_floats=False)
    if n_steps > n_features:
        raise ValueError(f"n_steps={n_steps} exceeds the {n_features} candidate features")
    return int(n_steps)


class _Timer:
    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.now = STAGE_CLOCK

    def add(self, stage: str, start: float) -> float:
        now = self.now()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - start
        return now


def _run_splits(splits, methods, n_steps: int, columns, timer: _Timer, tick: float, prepare, progress, done) -> dict:
    """Per split: ``prepare(split)`` -> statistics, ``score_weights``, ``score_path``, target sizes; then score."""
    curves = {m: {"source_auroc": [], "target_auroc": [], "t_statistic": [], "features": []} for m in methods}
    reference = {"source_auroc": [], "target_auroc": []}
    target_sizes = []
    for split in splits:
        stats, score_weights, score_path, sizes = prepare(split)
        target_sizes.append(sizes)
        tick = timer.add("statistics", tick)
        source, target = score_weights(all_features_reference(stats))
        reference["source_auroc"].append(source)
        reference["target_auroc"].append(target)
        tick = timer.add("reference", tick)
        for method in methods:
            path = _select(stats, method, n_steps)
            tick = timer.add("selection", tick)
            source, target = score_path(path)
            pad = [float("nan")] * (n_steps - len(path.features))  # a path that stopped early: NaN (JSON null)
            record = curves[method]
            record["source_auroc"].append([float(v) for v in source] + pad)
            record["target_auroc"].append([float(v) for v in target] + pad)
            record["t_statistic"].append([float(v) for v in path.t_statistic] + pad)
            record["features"].append([int(v) for v in columns[path.features]] + [-1] * len(pad))
            tick = timer.add("evaluation", tick)
        if progress is not None:
            progress(done(split))
    return {"curves": curves, "all_features_reference": reference, "target_sizes": target_sizes}


def _result(experiment: str, n_steps: int, columns, splits, runs: dict, methods, design, data, start, timer,
            head=(), tail=()) -> dict:
    return {"experiment": experiment, "n_features": n_steps, "n_candidate_features": int(len(columns)), **dict(head),
            "splits": [s.as_json() for s in splits], **runs, **dict(tail),
            "readings": {m: reading_json(m) for m in methods}, "design": design.as_json(), "data": data,
            "seconds": round(time.perf_counter() - start, 3),
            "timings": {k: round(v, 3) for k, v in timer.seconds.items()}}


def run_intro_logistic(features: ExperimentFeatures, positive: int = domains.POSITIVE_DIGIT,
                       train_negatives: Sequence[int] = EVEN_OTHERS, test_negatives: Sequence[int] = ODD_DIGITS,
                       C: float = 1.0, c_grid: Sequence[float] | None = LOGISTIC_C_GRID) -> dict:
    """Section 1: logistic regression for '2' vs the other even digits, tested on even and on odd digits.

    "a logistic regression algorithm ... achieving a (true) test error rate of about 0.5% (against even
    digits), jumps to 35% error rate when tested vs. odd digits". The result holds ``error_even``,
    ``error_odd``, per-digit false positive rates, the '2's' miss rate, balanced errors, and each C of ``c_grid``.
    """
    from sklearn.linear_model import LogisticRegression

    if C <= 0:
        raise ValueError(f"C must be positive, got {C}")
    start = time.perf_counter()
    train_classes = (positive,) + tuple(train_negatives)
    test_classes = train_classes + tuple(test_negatives)
    domains.check_classes_present(features.train_labels, train_classes, "training set")
    domains.check_classes_present(features.test_labels, test_classes, "test set")
    train_rows = np.isin(features.train_labels, train_classes)
    X_train = features.train_features[train_rows]
    y_train = (features.train_labels[train_rows] == positive).astype(int)
    test_labels = features.test_labels

    def errors_for(c_value: float) -> dict:
        model = LogisticRegression(C=c_value, max_iter=5000)
        model.fit(X_train, y_train)
        rows = np.isin(test_labels, test_classes)
        predicted = np.zeros(len(test_labels), dtype=bool)
        predicted[rows] = model.predict(features.test_features[rows]) == 1
        truth = test_labels == positive

        def error_on(classes):
            mask = np.isin(test_labels, (positive,) + tuple(classes))
            return float(np.mean(predicted[mask] != truth[mask]))

        fpr = {str(k): float(np.mean(predicted[test_labels == k]))
               for k in sorted(set(train_negatives) | set(test_negatives))}
        fnr = float(np.mean(~predicted[truth]))
        return {"C": float(c_value), "error_even": error_on(train_negatives), "error_odd": error_on(test_negatives),
                "balanced_error_even": 0.5 * (fnr + float(np.mean([fpr[str(k)] for k in train_negatives]))),
                "balanced_error_odd": 0.5 * (fnr + float(np.mean([fpr[str(k)] for k in test_negatives]))),
                "false_negative_rate": fnr, "false_positive_rate": fpr,
                "training_error": float(np.mean(model.predict(X_train) != y_train))}

    main = errors_for(C)
    sweep = [main if c == C else errors_for(c) for c in (c_grid or ())]
    even, odd = main["error_even"], main["error_odd"]
    return {"experiment": "intro-logistic", "error_even": even, "error_odd": odd,
            "increase_percent": 100.0 * (odd - even) / even if even > 0 else float("inf"), "positive": int(positive),
            "train_negatives": [int(k) for k in train_negatives], "test_negatives": [int(k) for k in test_negatives],
            "main": main, "c_sweep": sweep, "train_size": int(train_rows.sum()),
            "test_size_even": int(np.isin(test_labels, train_classes).sum()),
            "test_size_odd": int(np.isin(test_labels, (positive,) + tuple(test_negatives)).sum()),
            "data": features.data_summary(), "seconds": round(time.perf_counter() - start, 3)}


def run_two_vs_other(features: ExperimentFeatures, n_steps: int = 50, targets: Sequence[int] | None = None,
                     positive: int = domains.POSITIVE_DIGIT, methods: Sequence[str] = METHODS,
                     progress: Callable[[str], None] | None = None, design: Design = PAPER_DESIGN,
                     clip_steps: bool = False) -> dict:
    """Section 4.1: recognize '2' against a digit never seen in training.

    For each held-out digit t of ``targets`` (default all): sources '2 vs k' on the training images, the
    target '2 vs t' and held-out sources on the test images. Each reading of ``methods`` adds ``n_steps``
    features (``clip_steps``: at most the candidates); ``curves`` hold per method and split a value a step.
    """
    design = _check_design(design)
    methods = [get_selector(m).name for m in methods]
    timer = _Timer()
    start = time.perf_counter()
    splits = domains.two_vs_other_splits(features.classes, positive, targets)
    columns = two_vs_other_columns(features, positive)
    X_train = features.train_features[:, columns]
    X_test = features.test_features[:, columns]
    n_steps = _check_steps(n_steps, len(columns), clip_steps)
    tick = timer.now()
    all_domains = domains.two_vs_other_statistics(X_train, features.train_labels, positive)
    tick = timer.add("statistics", tick)

    def prepare(split):
        source_sets, target_set = domains.two_vs_other_evaluation(features.test_labels, split, positive,
                                                                   design.target_per_class, design.seed)

        def score_weights(w):
            scores = (X_test @ w)[:, None]
            return (float(np.mean([roc_auc(s.y, scores[s.rows]) for s in source_sets])),
                    float(roc_auc(target_set.y, scores[target_set.rows])[0]))

        def score_path(path):
            scores = path_scores(path, X_test)
            return (np.mean([roc_auc(s.y, scores[s.rows]) for s in source_sets], axis=0),
                    roc_auc(target_set.y, scores[target_set.rows]))

        sizes = [int((target_set.y > 0).sum()), int((target_set.y < 0).sum())]
        return all_domains.subset(list(split.sources)), score_weights, score_path, sizes

    runs = _run_splits(splits, methods, n_steps, columns, timer, tick, prepare, progress,
                       lambda split: f"  '{positive} vs {split.target}' held out: done")
    return _result("mnist-2-vs-other", n_steps, columns, splits, runs, methods, design, features.data_summary(),
                   start, timer, head={"positive": int(positive)})


def run_similarity(features: ExperimentFeatures, n_steps: int = 100, targets: Sequence[int] | None = None,
                   n_positive: int | None = None, n_negative: int | None = None, seed: int | None = None,
                   methods: Sequence[str] = METHODS, experiment: str | None = None,
                   progress: Callable[[str], None] | None = None, design: Design = PAPER_DESIGN,
                   clip_steps: bool = False) -> dict:
    """Section 4.2: learn a similarity function that transfers to a class never seen.

    Features of a pair: phi_i(x1) phi_i(x2), y = +1 for one class, -1 otherwise. For each held-out class
    t, source domain c holds pairs of training images of c, the target pairs of test images of t, the
    held-out sources pairs of test images. Pair counts and seed default to the design's; the rest is
    :func:`run_two_vs_other`'s, with ``pairs`` added, named ``experiment`` (default ``"<dataset>-similarity"``).
    """
    design = _check_design(design)
    design = design.replace(n_positive_pairs=design.n_positive_pairs if n_positive is None else int(n_positive),
                            n_negative_pairs=design.n_negative_pairs if n_negative is None else int(n_negative),
                            seed=design.seed if seed is None else int(seed))
    n_positive, n_negative, seed = design.n_positive_pairs, design.n_negative_pairs, design.seed
    methods = [get_selector(m).name for m in methods]
    timer = _Timer()
    start = time.perf_counter()
    dataset = features.info.get("dataset", "mnist")
    if experiment is None:
        experiment = ("cifar" if dataset == "cifar10" else dataset) + "-similarity"
    classes = [int(c) for c in features.classes]
    columns = np.flatnonzero(usable_similarity_columns(features.train_features, features.train_labels, classes))
    F_train = np.ascontiguousarray(features.train_features[:, columns])
    F_test = np.ascontiguousarray(features.test_features[:, columns])
    n_steps = _check_steps(n_steps, F_train.shape[1], clip_steps)
    splits = domains.similarity_splits(classes, targets)
    tick = timer.now()
    train_design = domains.draw_pair_design(features.train_labels, classes, n_positive, n_negative, seed,
                                            design.negatives)
    test_design = domains.draw_pair_design(features.test_labels, classes, n_positive, n_negative, seed + 1,
                                           design.negatives)
    moments = domains.SimilarityMoments(F_train, train_design)
    tick = timer.add("statistics", tick)

    def prepare(split):
        source_sets = [test_design.domain_pairs(c, split.target) for c in split.sources]
        pairs, y = domains.target_pairs(features.test_labels, split, n_positive, n_negative, seed + 2,
                                        design.negatives)

        def aurocs(F, weights):  # one AUROC per column of weights, on each source domain's pairs and the target's
            source = [roc_auc(y_c, domains.pair_products(F, pairs_c) @ weights) for pairs_c, y_c in source_sets]
            return source, roc_auc(y, domains.pair_products(F, pairs) @ weights)

        def score_weights(w):
            source, target = aurocs(F_test, w[:, None])
            return float(np.mean(source)), float(target[0])

        def score_path(path):
            support = np.unique(path.features)
            source, target = aurocs(F_test[:, support], path.coef[:, support].T)
            return np.mean(source, axis=0), target

        sizes = [int((y > 0).sum()), int((y < 0).sum())]
        return moments.split_statistics(split), score_weights, score_path, sizes

    runs = _run_splits(splits, methods, n_steps, columns, timer, tick, prepare, progress,
                       lambda split: f"  class {split.target} held out: done")
    data = features.data_summary()
    data["similarity_features"] = int(len(columns))
    return _result(experiment, n_steps, columns, splits, runs, methods, design, data, start, timer,
                   tail={"pairs": {**train_design.as_json(), "seed": int(seed)}})


def similarity_reference_auroc(train_features, train_labels, test_features, test_labels, n_positive: int = 1000,
                               n_negative: int = 1000, seed: int = 0) -> dict:
    """How much pair signal features carry: :func:`run_similarity`'s ``all_features_reference`` alone, mean
    and ``..._per_class`` source and target AUROC, ``n_features`` and ``seconds``."""
    features = drop_constant_features(ExperimentFeatures(
        np.asarray(train_features, dtype=np.float64), np.asarray(train_labels, dtype=np.int64),
        np.asarray(test_features, dtype=np.float64), np.asarray(test_labels, dtype=np.int64), {"dataset": "features"}))
    result = run_similarity(features, n_steps=1, n_positive=n_positive, n_negative=n_negative, seed=seed, methods=())
    reference = result["all_features_reference"]
    return {"source_auroc": float(np.mean(reference["source_auroc"])),
            "target_auroc": float(np.mean(reference["target_auroc"])),
            "source_auroc_per_class": reference["source_auroc"], "target_auroc_per_class": reference["target_auroc"],
            "n_features": int(result["n_candidate_features"]), "seconds": result["seconds"]}
