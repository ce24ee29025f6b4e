"""The experiments of sections 1 and 4, run on feature vectors, returned as JSON-ready dicts.

* :func:`run_intro_logistic` -- the introduction: logistic regression for '2' vs the other even
  digits, tested against even and against odd digits.
* :func:`run_two_vs_other` -- section 4.1 (Figures 1, 2 and the left of Figure 4): greedy and
  T-greedy paths for '2 vs k' source domains, one held-out digit at a time.
* :func:`run_similarity` -- section 4.2 (Figure 3, middle and right of Figure 4): a similarity
  function y = sgn(sum_i w_i phi_i(x1) phi_i(x2)) learnt on pairs, one held-out class at a time.

Each path is evaluated after every step by the area under the ROC curve (AUROC) of the linear
score w.x on held-out data of the source domains (the mean of the per-domain AUROCs, the paper's
dashed curves) and of the target domain (solid curves), with the T-statistic of the feature added
at each step (the paper's rightmost panels).

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import re
import time
from typing import Callable, Sequence

import numpy as np

from .._validation import check_whole_number
from ..domain_adaptation.evaluation import mann_whitney_u, path_scores, roc_auc
from ..domain_adaptation.selection import SelectionPath
from ..domain_adaptation.selectors import get_selector
from . import domains
from .design import PAPER_DESIGN, Design
from .inputs import ExperimentFeatures, drop_constant_features
from .readings import ALL_READINGS, reading_json

#: Every reading of the selectors (registered names; see :mod:`tgreedy_lib.experiments.readings`):
#: "greedy" and "tgreedy-signed" are the paper's readings, "tgreedy" (|T|) and "greedy-stepwise" the others.
METHODS = ALL_READINGS
#: Even digits other than '2': the introduction's training negatives.
EVEN_OTHERS = (0, 4, 6, 8)
ODD_DIGITS = (1, 3, 5, 7, 9)
#: Inverse regularization strengths tried for the introduction's logistic regression (C = 1 is reported).
LOGISTIC_C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)


#: Ridge strength of the all-features reference, relative to the mean diagonal of the pooled E[XX^T].
REFERENCE_RIDGE = 1e-3


def all_features_reference(stats) -> np.ndarray:
    """Weights of least squares on *all* features (slightly ridged), pooled over the source domains.

    Not in the paper: a yardstick for the selectors. ``w = (E[XX^T] + lambda I)^{-1} E[XY]`` with the
    moments averaged over the domains and lambda = ``REFERENCE_RIDGE`` times the mean diagonal. Its
    held-out AUROC says how much the features can do together; if even this is near 0.5 on the
    source domains, no selection of them can do better.

    See Also
    --------
    run_two_vs_other, run_similarity : The experiments that report it.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics
    >>> from tgreedy_lib.experiments.runs import all_features_reference
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 3)); y = X @ [1.0, -0.5, 0.0] + 0.1 * rng.standard_normal(300)
    >>> w = all_features_reference(DomainStatistics.from_samples(X, y, np.arange(300) % 3))
    >>> w[:2].round(2), bool(abs(w[2]) < 0.05)  # the true weights are 1, -0.5 and 0
    (array([ 1.  , -0.49]), True)
    """
    xx = stats.xx.mean(axis=0)
    xy = stats.xy.mean(axis=0)
    ridge = REFERENCE_RIDGE * float(np.trace(xx)) / xx.shape[0]
    from scipy import linalg

    xx[np.diag_indices_from(xx)] += ridge  # xx is a fresh mean: add the ridge in place, no p x p copy
    return linalg.cho_solve(linalg.cho_factor(xx, check_finite=False), xy, check_finite=False)


def _select(stats, method: str, n_steps: int) -> SelectionPath:
    """The reading's path; a stepwise refit that meets an exactly dependent feature stops there."""
    try:
        return get_selector(method).run(stats, n_steps)
    except ValueError as error:
        found = re.match(r"step (\d+): .*linearly dependent", str(error))
        if not found or int(found.group(1)) < 2:
            raise
        return get_selector(method).run(stats, int(found.group(1)) - 1)


def _readings_json(methods) -> dict:
    return {m: reading_json(m) for m in methods}


def _check_design(design) -> Design:
    if not isinstance(design, Design):
        raise TypeError(f"design must be a tgreedy_lib.experiments.design.Design, got {type(design).__name__}")
    return design


def _check_steps(n_steps, n_features: int) -> int:
    n_steps = check_whole_number(n_steps, "n_steps", 1, integral_floats=False)
    if n_steps > n_features:
        raise ValueError(f"n_steps={n_steps} exceeds the {n_features} candidate features")
    return int(n_steps)


def _empty_curves(methods) -> dict:
    return {m: {"source_auroc": [], "target_auroc": [], "t_statistic": [], "features": []} for m in methods}


def curve(result: dict, method: str, metric: str) -> np.ndarray:
    """A curve stored in an experiment's result, as an array (n_splits, n_steps).

    ``metric`` is ``"source_auroc"``, ``"target_auroc"`` or ``"t_statistic"``; ``method`` a selector name.
    """
    return np.asarray(result["curves"][method][metric], dtype=float)


def _record(curves: dict, method: str, path: SelectionPath, source_auroc, target_auroc, columns,
            n_steps: int | None = None) -> None:
    """Append one split's curves; a path that stopped early is padded with NaN (JSON null) to ``n_steps``."""
    pad = [] if n_steps is None else [float("nan")] * (n_steps - len(path.features))
    curves[method]["source_auroc"].append([float(v) for v in source_auroc] + pad)
    curves[method]["target_auroc"].append([float(v) for v in target_auroc] + pad)
    curves[method]["t_statistic"].append([float(v) for v in path.t_statistic] + pad)
    curves[method]["features"].append([int(v) for v in columns[path.features]] + [-1] * len(pad))


#: The clock of the per-stage ``timings`` of a result: wall seconds; a benchmark that wants CPU
#: seconds (on a shared machine) sets ``time.process_time`` (see benchmarks/bench_reproduce.py).
STAGE_CLOCK = time.perf_counter


class _Timer:
    """Accumulates seconds per stage (where the time goes), read from :data:`STAGE_CLOCK`."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.now = STAGE_CLOCK

    def add(self, stage: str, start: float) -> float:
        now = self.now()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - start
        return now

    def as_json(self) -> dict:
        return {k: round(v, 3) for k, v in self.seconds.items()}


def _progress(report: Callable[[str], None] | None, message: str) -> None:
    if report is not None:
        report(message)


# --------------------------------------------------------------------------- introduction

def run_intro_logistic(features: ExperimentFeatures, positive: int = domains.POSITIVE_DIGIT,
                       train_negatives: Sequence[int] = EVEN_OTHERS, test_negatives: Sequence[int] = ODD_DIGITS,
                       C: float = 1.0, c_grid: Sequence[float] | None = LOGISTIC_C_GRID) -> dict:
    """The introduction's experiment: '2' vs the other even digits by logistic regression.

    "a logistic regression algorithm, trained on this dataset and achieving a (true) test error
    rate of about 0.5% (against even digits), jumps to 35% error rate when tested vs. odd digits"
    (section 1).

    The classifier (scikit-learn's L2-regularized ``LogisticRegression``, inverse strength ``C``) is
    trained on the training images of ``positive`` (label 1) and ``train_negatives`` (label 0).
    Errors are measured on the test images:

    ``error_even``
        error rate on the test '2's together with the test images of the other even digits;
    ``error_odd``
        error rate on the test '2's together with the test images of the odd digits;
    ``false_positive_rate`` per digit, ``false_negative_rate`` on the '2's, and the balanced
    errors (mean of the '2's' miss rate and the negatives' false-alarm rate).

    With ``c_grid`` the same errors are also reported for other regularization strengths, to show
    how much the conclusion depends on that choice.

    Returns
    -------
    dict
        ``{"experiment": "intro-logistic", "error_even", "error_odd", "increase_percent", ...}``.

    See Also
    --------
    run_two_vs_other : Section 4.1, '2' against an unseen digit.
    run_similarity : Section 4.2, a similarity function for an unseen class.
    tgreedy_lib.experiments.run_experiment : Any experiment by name, with its features.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

    Examples
    --------
    Toy features (ten Gaussian clusters in 20 dimensions standing in for the digit classes), so
    that the example runs in a moment; the experiments use the paper's DBN features:

    >>> import numpy as np
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> rng = np.random.default_rng(0)
    >>> centres = rng.standard_normal((10, 20))
    >>> train_labels, test_labels = np.repeat(np.arange(10), 60), np.repeat(np.arange(10), 30)
    >>> features = ExperimentFeatures(
    ...     centres[train_labels] + rng.standard_normal((600, 20)), train_labels,
    ...     centres[test_labels] + rng.standard_normal((300, 20)), test_labels,
    ...     {"dataset": "toy", "feature_map": "gaussian clusters", "official": False})
    >>> from tgreedy_lib.experiments import run_intro_logistic
    >>> result = run_intro_logistic(features)
    >>> result["train_size"], result["test_size_even"], result["test_size_odd"]
    (300, 150, 180)
    """
    from sklearn.linear_model import LogisticRegression

    if C <= 0:
        raise ValueError(f"C must be positive, got {C}")
    start = time.perf_counter()
    train_classes = (positive,) + tuple(train_negatives)
    test_classes = train_classes + tuple(test_negatives)
    domains._check_classes_present(features.train_labels, train_classes, "training set")
    domains._check_classes_present(features.test_labels, test_classes, "test set")
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

        fpr = {str(k): float(np.mean(predicted[test_labels == k])) for k in sorted(set(train_negatives) | set(test_negatives))}
        fnr = float(np.mean(~predicted[truth]))
        return {
            "C": float(c_value),
            "error_even": error_on(train_negatives),
            "error_odd": error_on(test_negatives),
            "balanced_error_even": 0.5 * (fnr + float(np.mean([fpr[str(k)] for k in train_negatives]))),
            "balanced_error_odd": 0.5 * (fnr + float(np.mean([fpr[str(k)] for k in test_negatives]))),
            "false_negative_rate": fnr,
            "false_positive_rate": fpr,
            "training_error": float(np.mean(model.predict(X_train) != y_train)),
        }

    main = errors_for(C)
    sweep = [main if c == C else errors_for(c) for c in (c_grid or ())]
    result = {
        "experiment": "intro-logistic",
        "error_even": main["error_even"],
        "error_odd": main["error_odd"],
        "increase_percent": 100.0 * (main["error_odd"] - main["error_even"]) / main["error_even"]
        if main["error_even"] > 0 else float("inf"),
        "positive": int(positive),
        "train_negatives": [int(k) for k in train_negatives],
        "test_negatives": [int(k) for k in test_negatives],
        "main": main,
        "c_sweep": sweep,
        "train_size": int(train_rows.sum()),
        "test_size_even": int(np.isin(test_labels, train_classes).sum()),
        "test_size_odd": int(np.isin(test_labels, (positive,) + tuple(test_negatives)).sum()),
        "data": features.data_summary(),
    }
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


# --------------------------------------------------------------------------- section 4.1

def run_two_vs_other(features: ExperimentFeatures, n_steps: int = 50, targets: Sequence[int] | None = None,
                     positive: int = domains.POSITIVE_DIGIT, methods: Sequence[str] = METHODS,
                     progress: Callable[[str], None] | None = None, design: Design = PAPER_DESIGN,
                     clip_steps: bool = False) -> dict:
    """Section 4.1: recognize '2' against a digit never seen in training (Figures 1, 2, 4 left).

    For each held-out digit t, the source domains are '2 vs k' for the eight other digits k (the
    training images, balanced), the target domain is '2 vs t' on the test images, and the held-out
    source data are '2 vs k' on the test images. Greedy and T-greedy each add ``n_steps`` features.
    The statistics of all nine '2 vs k' domains are built once; each split takes a subset.

    Parameters
    ----------
    features : ExperimentFeatures
        MNIST features (the paper: 2,000 DBN features).
    n_steps : int
        Features added by each selector (the x-axis of the figures).
    targets : sequence of int, optional
        Held-out digits (default: all nine).
    positive : int
        The digit to recognize.
    methods : sequence of str
        Registered selector names (:mod:`tgreedy_lib.domain_adaptation.selectors`); default: every reading
        of :mod:`tgreedy_lib.experiments.readings`.
    progress : callable, optional
        Called with one line of text per split.
    design : Design
        ``design.target_per_class`` balances the test domains (the paper: 1,000 + 1,000).
    clip_steps : bool
        Stop at the number of candidate features when ``n_steps`` exceeds it (otherwise a ValueError).

    Returns
    -------
    dict
        The experiment's JSON: ``experiment``, ``n_features`` (= ``n_steps``), ``splits``, ``curves``
        (per method: ``source_auroc``, ``target_auroc``, ``t_statistic``, ``features``, each a list
        per split of one value per step), ``data``, ``seconds``, ``timings`` and ``target_sizes``.

    See Also
    --------
    run_intro_logistic : Section 1's logistic regression.
    run_similarity : Section 4.2, a similarity function for an unseen class.
    tgreedy_lib.experiments.run_experiment : Any experiment by name, with its features.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

    Examples
    --------
    Toy features (ten Gaussian clusters in 20 dimensions standing in for the digit classes), so
    that the example runs in a moment; the experiments use the paper's DBN features:

    >>> import numpy as np
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> rng = np.random.default_rng(0)
    >>> centres = rng.standard_normal((10, 20))
    >>> train_labels, test_labels = np.repeat(np.arange(10), 60), np.repeat(np.arange(10), 30)
    >>> features = ExperimentFeatures(
    ...     centres[train_labels] + rng.standard_normal((600, 20)), train_labels,
    ...     centres[test_labels] + rng.standard_normal((300, 20)), test_labels,
    ...     {"dataset": "toy", "feature_map": "gaussian clusters", "official": False})
    >>> from tgreedy_lib.experiments import run_two_vs_other
    >>> result = run_two_vs_other(features, n_steps=3, targets=[7])
    >>> {m: np.round(c["target_auroc"][0], 3).tolist() for m, c in result["curves"].items()}
    {'greedy': [0.778, 0.54, 0.573], 'tgreedy-signed': [0.634, 0.776, 0.888], 'tgreedy': [0.778, 0.797, 0.6], 'greedy-stepwise': [0.778, 0.472, 0.473]}
    """
    design = _check_design(design)
    methods = [get_selector(m).name for m in methods]
    timer = _Timer()
    start = time.perf_counter()
    splits = domains.two_vs_other_splits(features.classes, positive, targets)
    # A feature that is zero on every training '2' could have E[X_i^2] = 0 in a whole split (the
    # pixel stand-in's border pixels); DBN features never are.
    columns = np.flatnonzero((features.train_features[features.train_labels == positive] != 0).any(axis=0))
    X_train = features.train_features[:, columns]
    X_test = features.test_features[:, columns]
    if clip_steps:
        n_steps = min(n_steps, len(columns))
    n_steps = _check_steps(n_steps, len(columns))
    tick = timer.now()
    all_domains = domains.two_vs_other_statistics(X_train, features.train_labels, positive)
    tick = timer.add("statistics", tick)
    curves = _empty_curves(methods)
    reference = {"source_auroc": [], "target_auroc": []}
    target_sizes = []
    for split in splits:
        stats = all_domains.subset(list(split.sources))
        source_sets, target_set = domains.two_vs_other_evaluation(features.test_labels, split, positive,
                                                                     design.target_per_class, design.seed)
        target_sizes.append([int((target_set.y > 0).sum()), int((target_set.y < 0).sum())])
        tick = timer.add("statistics", tick)
        scores = (X_test @ all_features_reference(stats))[:, None]
        reference["source_auroc"].append(float(np.mean([roc_auc(s.y, scores[s.rows]) for s in source_sets])))
        reference["target_auroc"].append(float(roc_auc(target_set.y, scores[target_set.rows])[0]))
        tick = timer.add("reference", tick)
        for method in methods:
            path = _select(stats, method, n_steps)
            tick = timer.add("selection", tick)
            scores = path_scores(path, X_test)
            source = np.mean([roc_auc(s.y, scores[s.rows]) for s in source_sets], axis=0)
            target = roc_auc(target_set.y, scores[target_set.rows])
            _record(curves, method, path, source, target, columns, n_steps)
            tick = timer.add("evaluation", tick)
        _progress(progress, f"  '{positive} vs {split.target}' held out: done")
    return {
        "experiment": "mnist-2-vs-other",
        "n_features": n_steps,
        "n_candidate_features": int(len(columns)),
        "positive": int(positive),
        "splits": [s.as_json() for s in splits],
        "curves": curves,
        "all_features_reference": reference,
        "target_sizes": target_sizes,
        "readings": _readings_json(methods),
        "design": design.as_json(),
        "data": features.data_summary(),
        "seconds": round(time.perf_counter() - start, 3),
        "timings": timer.as_json(),
    }


# --------------------------------------------------------------------------- section 4.2

#: A feature enters the similarity experiment only if it is nonzero in at least this fraction of
#: every class's training images (DBN features always are; for the pixel stand-in it removes pixels
#: whose pair products would be zero in a whole domain).
MIN_NONZERO_FRACTION = 0.1


def _usable_similarity_columns(F: np.ndarray, labels: np.ndarray, classes) -> np.ndarray:
    keep = np.ones(F.shape[1], dtype=bool)
    for c in classes:
        keep &= (F[labels == c] != 0).mean(axis=0) >= MIN_NONZERO_FRACTION
    return keep


def run_similarity(features: ExperimentFeatures, n_steps: int = 100, targets: Sequence[int] | None = None,
                   n_positive: int | None = None, n_negative: int | None = None, seed: int | None = None,
                   methods: Sequence[str] = METHODS, experiment: str | None = None,
                   progress: Callable[[str], None] | None = None, design: Design = PAPER_DESIGN,
                   clip_steps: bool = False) -> dict:
    """Section 4.2: learn a similarity function that transfers to a class never seen (Figures 3, 4).

    The regression features of a pair (x1, x2) are the products phi_i(x1) phi_i(x2) of the image
    features, and y = +1 for two images of the same class, -1 otherwise. For each held-out class t:

    * source domain c (every other class): ``n_positive`` pairs of two training images of c and
      ``n_negative`` pairs of an image of c with an image of another source class;
    * target domain: ``n_positive`` pairs of two test images of t and ``n_negative`` pairs of a
      test image of t with a test image of a random source class;
    * held-out source data: the source domains drawn again from the test images (mean AUROC over
      the domains).

    Parameters
    ----------
    features : ExperimentFeatures
        MNIST or CIFAR-10 features.
    n_steps : int
        Features added (the paper: up to about 100 for MNIST, 300 for CIFAR-10).
    targets : sequence of int, optional
        Held-out classes (default: every class).
    n_positive, n_negative : int, optional
        Pairs per domain (default: the design's, the paper's 1,000 and 1,000).
    seed : int, optional
        Seeds the pair draws (the only randomness; default: the design's seed).
    methods : sequence of str
        Registered selector names; default: every reading of :mod:`tgreedy_lib.experiments.readings`.
    design : Design
        Pair counts, the negatives' sampling (the paper: random) and the seed.
    clip_steps : bool
        Stop at the number of candidate features when ``n_steps`` exceeds it (otherwise a ValueError).
    experiment : str, optional
        Name stored in the result (default ``"<dataset>-similarity"``, with ``cifar`` for CIFAR-10).
    progress : callable, optional

    Returns
    -------
    dict
        As :func:`run_two_vs_other`, plus ``pairs`` (the pair counts and seed).

    See Also
    --------
    run_intro_logistic : Section 1's logistic regression.
    run_two_vs_other : Section 4.1, '2' against an unseen digit.
    tgreedy_lib.experiments.run_experiment : Any experiment by name, with its features.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

    Examples
    --------
    Toy features (ten Gaussian clusters in 20 dimensions standing in for the digit classes), so
    that the example runs in a moment; the experiments use the paper's DBN features:

    >>> import numpy as np
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> rng = np.random.default_rng(0)
    >>> centres = rng.standard_normal((10, 20))
    >>> train_labels, test_labels = np.repeat(np.arange(10), 60), np.repeat(np.arange(10), 30)
    >>> features = ExperimentFeatures(
    ...     centres[train_labels] + rng.standard_normal((600, 20)), train_labels,
    ...     centres[test_labels] + rng.standard_normal((300, 20)), test_labels,
    ...     {"dataset": "toy", "feature_map": "gaussian clusters", "official": False})
    >>> from tgreedy_lib.experiments import run_similarity
    >>> result = run_similarity(features, n_steps=3, targets=[3], n_positive=100, n_negative=100)
    >>> {m: np.round(c["target_auroc"][0], 3).tolist() for m, c in result["curves"].items()}
    {'greedy': [0.611, 0.785, 0.848], 'tgreedy-signed': [0.895, 0.841, 0.831], 'tgreedy': [0.895, 0.841, 0.831], 'greedy-stepwise': [0.611, 0.791, 0.856]}
    """
    design = _with_pairs(_check_design(design), n_positive, n_negative, seed)
    n_positive, n_negative, seed = design.n_positive_pairs, design.n_negative_pairs, design.seed
    methods = [get_selector(m).name for m in methods]
    timer = _Timer()
    start = time.perf_counter()
    dataset = features.info.get("dataset", "mnist")
    if experiment is None:
        experiment = ("cifar" if dataset == "cifar10" else dataset) + "-similarity"
    classes = [int(c) for c in features.classes]
    columns = np.flatnonzero(_usable_similarity_columns(features.train_features, features.train_labels, classes))
    F_train = np.ascontiguousarray(features.train_features[:, columns])
    F_test = np.ascontiguousarray(features.test_features[:, columns])
    if clip_steps:
        n_steps = min(n_steps, F_train.shape[1])
    n_steps = _check_steps(n_steps, F_train.shape[1])
    splits = domains.similarity_splits(classes, targets)
    tick = timer.now()
    train_design = domains.draw_pair_design(features.train_labels, classes, n_positive, n_negative, seed,
                                            design.negatives)
    test_design = domains.draw_pair_design(features.test_labels, classes, n_positive, n_negative, seed + 1,
                                           design.negatives)
    moments = domains.SimilarityMoments(F_train, train_design)
    tick = timer.add("statistics", tick)
    curves = _empty_curves(methods)
    reference = {"source_auroc": [], "target_auroc": []}
    target_sizes = []
    for split in splits:
        stats = moments.split_statistics(split)
        source_sets = [test_design.domain_pairs(c, split.target) for c in split.sources]
        target_pair_index, target_y = domains.target_pairs(features.test_labels, split, n_positive, n_negative,
                                                           seed + 2, design.negatives)
        target_sizes.append([int((target_y > 0).sum()), int((target_y < 0).sum())])
        tick = timer.add("statistics", tick)
        source, target = _similarity_aurocs(F_test, all_features_reference(stats)[:, None], source_sets,
                                            target_pair_index, target_y)
        reference["source_auroc"].append(float(np.mean(source)))
        reference["target_auroc"].append(float(target[0]))
        tick = timer.add("reference", tick)
        for method in methods:
            path = _select(stats, method, n_steps)
            tick = timer.add("selection", tick)
            support = np.unique(path.features)
            source, target = _similarity_aurocs(F_test[:, support], path.coef[:, support].T, source_sets,
                                                target_pair_index, target_y)
            _record(curves, method, path, np.mean(source, axis=0), target, columns, n_steps)
            tick = timer.add("evaluation", tick)
        _progress(progress, f"  class {split.target} held out: done")
    data = features.data_summary()
    data["similarity_features"] = int(len(columns))
    return {
        "experiment": experiment,
        "n_features": n_steps,
        "n_candidate_features": int(len(columns)),
        "splits": [s.as_json() for s in splits],
        "curves": curves,
        "all_features_reference": reference,
        "target_sizes": target_sizes,
        "pairs": {**train_design.as_json(), "seed": int(seed)},
        "readings": _readings_json(methods),
        "design": design.as_json(),
        "data": data,
        "seconds": round(time.perf_counter() - start, 3),
        "timings": timer.as_json(),
    }


def _with_pairs(design: Design, n_positive: int | None, n_negative: int | None, seed: int | None) -> Design:
    """``design`` with the pair counts and seed given (``None`` keeps the design's own)."""
    return design.replace(n_positive_pairs=design.n_positive_pairs if n_positive is None else int(n_positive),
                          n_negative_pairs=design.n_negative_pairs if n_negative is None else int(n_negative),
                          seed=design.seed if seed is None else int(seed))


def _similarity_aurocs(F: np.ndarray, weights: np.ndarray, source_sets, target_pair_index,
                       target_y) -> tuple[list, np.ndarray]:
    """AUROC of the pair scores ``(phi(x1) * phi(x2)) @ weights`` (a column of weights per step) on each held-out
    source domain's pairs and on the target's: ``([per source domain], target)``, one value per step each."""
    source = [_pair_auroc(y, domains.pair_products(F, pairs) @ weights) for pairs, y in source_sets]
    return source, _pair_auroc(target_y, domains.pair_products(F, target_pair_index) @ weights)


def _pair_auroc(y: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """:func:`roc_auc` of each column of ``scores`` for labels y = +1 / -1 drawn by this module (no second validation)."""
    positive = y > 0
    n_positive = int(positive.sum())
    return mann_whitney_u(positive, scores) / (n_positive * (positive.size - n_positive))


def similarity_reference_auroc(train_features, train_labels, test_features, test_labels, n_positive: int = 1000,
                               n_negative: int = 1000, seed: int = 0) -> dict:
    """How much pair signal features carry: the all-features similarity fit of section 4.2, on held-out pairs.

    Exactly what :func:`run_similarity` reports as
    ``all_features_reference``: for each held-out class, least squares (slightly ridged) on *all*
    pair products ``phi_i(x1) phi_i(x2)`` of the source domains' training pairs, scored by AUROC on
    pairs of test images of the source domains (``source_auroc``) and of the held-out class
    (``target_auroc``). Constant features and features that are zero on most images of a class are
    dropped first, as the experiments do. If ``source_auroc`` is near 0.5, no selection of these
    features can learn a similarity.

    Returns
    -------
    dict
        ``source_auroc`` and ``target_auroc`` (means over the held-out classes), the per-class
        lists ``source_auroc_per_class`` and ``target_auroc_per_class``, ``n_features`` used, ``seconds``.
    """
    features = drop_constant_features(ExperimentFeatures(
        np.asarray(train_features, dtype=np.float64), np.asarray(train_labels, dtype=np.int64),
        np.asarray(test_features, dtype=np.float64), np.asarray(test_labels, dtype=np.int64), {"dataset": "features"}))
    result = run_similarity(features, n_steps=1, n_positive=n_positive, n_negative=n_negative, seed=seed, methods=())
    reference = result["all_features_reference"]
    return {"source_auroc": float(np.mean(reference["source_auroc"])),
            "target_auroc": float(np.mean(reference["target_auroc"])),
            "source_auroc_per_class": reference["source_auroc"], "target_auroc_per_class": reference["target_auroc"],
            "n_features": int(result["n_candidate_features"]), "seconds": result["seconds"]}
