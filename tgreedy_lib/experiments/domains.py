"""Source and target domains of section 4 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A
Small Sample Statistical Approach" (AISTATS 2012): '2 vs other' (4.1) and similarity learning (4.2).

Every experiment holds one class out: the *target* domain is built from it, the *source* domains
from the other classes. The selectors need only each source domain's moments E[XX^T | d_k],
E[XY | d_k], E[Y^2 | d_k] (section 2), so they are computed once per data set from per-class (or
per-pair-block) Gram matrices and each split's
:class:`~tgreedy_lib.domain_adaptation.statistics.DomainStatistics` is assembled from them.

'2 vs other' (4.1)
    Source domain '2 vs k': the training '2's (y = +1) and 'k's (y = -1), each class weighted one
    half (the sample moments when the counts are equal, as the paper's 1,000 + 1,000).
Similarity (4.2)
    A pair's regression features are phi(x1) * phi(x2). Source domain c: ``n_positive`` pairs of two
    training images of c (y = +1) and ``n_negative`` pairs of an image of c with one of another
    *source* class (y = -1), drawn at random (the paper) or stratified by partner class.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from ..domain_adaptation.statistics import DomainStatistics

#: The digit to recognize in section 4.1 and in the introduction.
POSITIVE_DIGIT = 2


@dataclasses.dataclass(frozen=True)
class Split:
    """One source/target split: the held-out ``target`` class and the ``sources`` (class labels)."""

    target: int
    sources: tuple[int, ...]

    def as_json(self) -> dict:
        return {"target": int(self.target), "sources": [int(s) for s in self.sources]}


def check_classes_present(labels: np.ndarray, wanted: Sequence[int], what: str) -> None:
    present = set(np.unique(labels).tolist())
    missing = [int(c) for c in wanted if int(c) not in present]
    if missing:
        raise ValueError(f"{what}: class(es) {missing} have no images; present: {sorted(present)}")


def two_vs_other_splits(classes: Sequence[int] = range(10), positive: int = POSITIVE_DIGIT,
                        targets: Sequence[int] | None = None) -> list[Split]:
    """Splits of section 4.1: hold out each digit t of ``targets`` (default: all but ``positive``); the
    sources are the other digits k."""
    classes = [int(c) for c in classes]
    if positive not in classes:
        raise ValueError(f"the positive digit {positive} is not among the classes {classes}")
    negatives = [c for c in classes if c != positive]
    if len(negatives) < 3:
        raise ValueError(f"'{positive} vs other' needs at least three other classes (two source domains), "
                         f"got {negatives}")
    return _hold_out(negatives, targets, "must be one of the other classes")


def similarity_splits(classes: Sequence[int] = range(10), targets: Sequence[int] | None = None) -> list[Split]:
    """Splits of section 4.2: hold out one class t; each other class is a source domain."""
    classes = [int(c) for c in classes]
    if len(classes) < 4:
        raise ValueError(f"similarity learning needs at least four classes (three source domains, each with "
                         f"another source class to pair with), got {classes}")
    return _hold_out(classes, targets, "is not one of the classes")


def _hold_out(classes: list[int], targets, refusal: str) -> list[Split]:
    targets = classes if targets is None else [int(t) for t in targets]
    for t in targets:
        if t not in classes:
            raise ValueError(f"target {t} {refusal} {classes}")
    if len(set(targets)) != len(targets):
        raise ValueError(f"targets repeat a class: {targets}")
    return [Split(t, tuple(c for c in classes if c != t)) for t in targets]


def two_vs_other_statistics(X: np.ndarray, labels: np.ndarray, positive: int = POSITIVE_DIGIT,
                            negatives: Sequence[int] | None = None) -> DomainStatistics:
    """Moments of every source domain 'positive vs k' (section 4.1), balanced, labelled by k.

    E[XX^T | d_k] = (G_pos / n_pos + G_k / n_k) / 2, E[XY | d_k] = (s_pos / n_pos - s_k / n_k) / 2,
    E[Y^2 | d_k] = 1, with G a class's Gram and s its column sums; ``negatives`` default to every
    other class. Build once, then ``.subset(split.sources)`` per split.
    """
    labels = np.asarray(labels)
    if negatives is None:
        negatives = [int(c) for c in np.unique(labels) if c != positive]
    negatives = [int(k) for k in negatives]
    if positive in negatives:
        raise ValueError(f"the positive class {positive} cannot also be a negative class")
    if len(negatives) < 2:
        raise ValueError(f"need at least two source domains, got negatives {negatives}")
    classes = [positive] + negatives
    X = np.asarray(X, dtype=np.float64)
    check_classes_present(labels, classes, "class_moments")
    gram = np.empty((len(classes), X.shape[1], X.shape[1]))
    sums = np.empty((len(classes), X.shape[1]))
    counts = np.empty(len(classes), dtype=np.int64)
    for k, c in enumerate(classes):
        rows = np.ascontiguousarray(X[labels == c])
        np.matmul(rows.T, rows, out=gram[k])
        sums[k] = rows.sum(axis=0)
        counts[k] = rows.shape[0]
    mean_gram = gram / counts[:, None, None]
    mean = sums / counts[:, None]
    xx = 0.5 * (mean_gram[0][None] + mean_gram[1:])
    xy = 0.5 * (mean[0][None] - mean[1:])
    yy = np.ones(len(negatives))
    return DomainStatistics.from_moments(xx, xy, yy, counts=counts[0] + counts[1:], labels=np.asarray(negatives))


@dataclasses.dataclass
class EvaluationSet:
    """Held-out rows of one domain (indices into the test set) and their labels y = +1/-1."""

    rows: np.ndarray
    y: np.ndarray


def two_vs_other_evaluation(test_labels: np.ndarray, split: Split, positive: int = POSITIVE_DIGIT,
                            per_class: int | None = None,
                            seed: int = 0) -> tuple[list[EvaluationSet], EvaluationSet]:
    """Held-out source domains 'positive vs k' and the target 'positive vs target' on the test images, each
    ``min(per_class, n_positive, n_k)`` images a class ("a balanced set of 2000 examples"), or all (None)."""
    test_labels = np.asarray(test_labels)
    check_classes_present(test_labels, (positive, split.target) + tuple(split.sources), "test set")
    if per_class is not None and (not isinstance(per_class, (int, np.integer)) or per_class < 1):
        raise ValueError(f"per_class must be a positive integer or None, got {per_class!r}")
    positive_rows = np.flatnonzero(test_labels == positive)

    def domain(k):
        pos, neg = positive_rows, np.flatnonzero(test_labels == k)
        if per_class is not None:
            m = min(int(per_class), len(pos), len(neg))
            rng = np.random.default_rng([seed, positive, k, 11])
            pos, neg = np.sort(rng.choice(pos, m, replace=False)), np.sort(rng.choice(neg, m, replace=False))
        rows = np.concatenate([pos, neg])
        y = np.concatenate([np.ones(len(pos)), -np.ones(len(neg))])
        return EvaluationSet(rows, y)

    return [domain(k) for k in split.sources], domain(split.target)


#: Negative pairs: the partner image uniform over the other source classes' images (``"random"``, the
#: paper's "randomly sampled from the remaining digits") or as many with each partner class.
NEGATIVE_SAMPLING = ("random", "stratified")


@dataclasses.dataclass
class PairDesign:
    """Index pairs of images for the similarity domains (section 4.2): ``positives[c]`` two images of c,
    ``negatives[c]`` a pool of (image of c, image of class ``partners[c]``). Holding out t, domain c takes
    the pool pairs whose partner is not t: all (``"stratified"``) or the first ``n_negative`` (``"random"``).
    """

    classes: tuple[int, ...]
    positives: dict
    negatives: dict
    partners: dict
    n_negative: int
    sampling: str = "random"
    per_partner: int = 0

    def negative_rows(self, c: int, held_out: int) -> np.ndarray:
        """Indices into ``negatives[c]`` of the negatives of domain ``c`` when ``held_out`` is the target."""
        if c == held_out:
            raise ValueError(f"class {c} is held out; it is not a source domain of this split")
        if c not in self.negatives:
            raise ValueError(f"class {c} is not in the pair design {self.classes}")
        eligible = np.flatnonzero(self.partners[c] != held_out)
        return eligible if self.sampling == "stratified" else eligible[:self.n_negative]

    def domain_pairs(self, c: int, held_out: int) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (m, 2) and labels +1/-1 of domain ``c`` when class ``held_out`` is the target."""
        negatives = self.negatives[c][self.negative_rows(c, held_out)]
        pairs = np.concatenate([self.positives[c], negatives])
        y = np.concatenate([np.ones(len(self.positives[c])), -np.ones(len(negatives))])
        return pairs, y

    def as_json(self) -> dict:
        return {"positive_per_domain": int(len(next(iter(self.positives.values())))),
                "negative_per_domain": int(self.n_negative if self.sampling == "random"
                                           else self.per_partner * (len(self.classes) - 2)),
                "negative_sampling": self.sampling, "negative_per_partner_class": int(self.per_partner)}


def _pairs_of_distinct(rng: np.random.Generator, rows: np.ndarray, n: int) -> np.ndarray:
    if len(rows) < 2:
        raise ValueError(f"a positive pair needs two different images of a class; the class has {len(rows)}")
    first = rng.integers(0, len(rows), n)
    offset = rng.integers(1, len(rows), n)  # second != first
    second = (first + offset) % len(rows)
    return np.stack([rows[first], rows[second]], axis=1)


def _check_sampling(negatives: str) -> None:
    if negatives not in NEGATIVE_SAMPLING:
        raise ValueError(f"negatives must be one of {NEGATIVE_SAMPLING}, got {negatives!r}")


def draw_pair_design(labels: np.ndarray, classes: Sequence[int], n_positive: int = 1000,
                     n_negative: int = 1000, seed: int = 0, negatives: str = "random") -> PairDesign:
    """Draw the positive and negative index pairs of every class of ``classes`` (at least four), seeded:
    "1000 positive and 1000 negative examples, ... randomly sampled from the remaining digits" (4.2)."""
    labels = np.asarray(labels)
    classes = tuple(int(c) for c in classes)
    _check_sampling(negatives)
    if len(classes) < 4:
        raise ValueError(f"need at least four classes, got {classes}")
    if n_positive < 1 or n_negative < 1:
        raise ValueError(f"n_positive and n_negative must be positive, got {n_positive} and {n_negative}")
    per_partner = n_negative // (len(classes) - 2)
    if negatives == "stratified" and per_partner < 1:
        raise ValueError(f"n_negative={n_negative} is fewer than the {len(classes) - 2} partner classes")
    check_classes_present(labels, classes, "pair design")
    rng = np.random.default_rng(seed)
    rows = {c: np.flatnonzero(labels == c) for c in classes}
    positives = {c: _pairs_of_distinct(rng, rows[c], n_positive) for c in classes}
    pools, partners = {}, {}
    for c in classes:
        if negatives == "stratified":
            blocks = [np.stack([rng.choice(rows[c], per_partner), rng.choice(rows[j], per_partner)], axis=1)
                      for j in classes if j != c]
            pools[c] = np.concatenate(blocks)
            partners[c] = np.repeat([j for j in classes if j != c], per_partner)
            continue
        others = np.concatenate([rows[j] for j in classes if j != c])
        other_class = labels[others]
        size = max(64, int(1.3 * n_negative * (len(classes) - 1) / (len(classes) - 2)))
        chunks, chunk_partners = [], []
        while True:  # grow the pool until every held-out class leaves n_negative pairs
            second = rng.integers(0, len(others), size)
            chunks.append(np.stack([rng.choice(rows[c], size), others[second]], axis=1))
            chunk_partners.append(other_class[second])
            partner = np.concatenate(chunk_partners)
            if all((partner != t).sum() >= n_negative for t in classes if t != c):
                break
        pools[c], partners[c] = np.concatenate(chunks), partner.astype(np.int64)
    return PairDesign(classes, positives, pools, partners, int(n_negative), negatives,
                      per_partner if negatives == "stratified" else 0)


def target_pairs(labels: np.ndarray, split: Split, n_positive: int = 1000, n_negative: int = 1000,
                 seed: int = 0, negatives: str = "random") -> tuple[np.ndarray, np.ndarray]:
    """The target domain of a similarity split: ``n_positive`` pairs of two images of ``split.target`` (y = +1)
    and ``n_negative`` of one with an image of a source class (y = -1), "randomly sampled from images of
    0-to-8" (section 4.2): uniform over those images (``"random"``), or a class first (``"stratified"``)."""
    labels = np.asarray(labels)
    _check_sampling(negatives)
    check_classes_present(labels, (split.target,) + tuple(split.sources), "target pairs")
    rng = np.random.default_rng([seed, split.target, 7])
    target_rows = np.flatnonzero(labels == split.target)
    positives = _pairs_of_distinct(rng, target_rows, n_positive)
    if negatives == "random":
        source_rows = np.flatnonzero(np.isin(labels, np.asarray(split.sources)))
        partner = source_rows[rng.integers(0, len(source_rows), n_negative)]
    else:
        partner_class = rng.choice(np.asarray(split.sources), n_negative)
        partner = np.empty(n_negative, dtype=np.int64)
        for c in split.sources:
            where = partner_class == c
            partner[where] = rng.choice(np.flatnonzero(labels == c), int(where.sum()))
    negatives_ = np.stack([rng.choice(target_rows, n_negative), partner], axis=1)
    pairs = np.concatenate([positives, negatives_])
    y = np.concatenate([np.ones(n_positive), -np.ones(n_negative)])
    return pairs, y


def pair_products(F: np.ndarray, pairs: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
    """The regression features phi(x1) * phi(x2) of each pair (section 4.2), optionally only some columns."""
    first, second = F[pairs[:, 0]], F[pairs[:, 1]]
    if columns is not None:
        first, second = first[:, columns], second[:, columns]
    return np.multiply(first, second, out=first)  # into the fresh gather: one (pairs, p) array, not two


class SimilarityMoments:
    """Moments of the training pairs: per class c, Gram and signed sums of the positives and of U_c, the pool
    negatives some split uses; a split holding out t subtracts those of U_c it does not use."""

    def __init__(self, F: np.ndarray, design: PairDesign):
        self.F = np.asarray(F, dtype=np.float64)
        self.design = design
        self.gram = {}
        self.signed_sum = {}
        self.union = {}
        for c in design.classes:
            used = np.zeros(len(design.negatives[c]), dtype=bool)
            for t in design.classes:
                if t != c:
                    used[design.negative_rows(c, t)] = True
            self.union[c] = used
            positive = pair_products(self.F, design.positives[c])
            negative = pair_products(self.F, design.negatives[c][used])
            gram = positive.T @ positive
            gram += negative.T @ negative
            self.gram[c] = gram
            self.signed_sum[c] = positive.sum(axis=0) - negative.sum(axis=0)
        self.n_features = self.F.shape[1]

    def split_statistics(self, split: Split) -> DomainStatistics:
        design = self.design
        for c in split.sources:
            if c not in self.gram:
                raise ValueError(f"class {c} is not in the pair design {design.classes}")
        if split.target not in design.classes:
            raise ValueError(f"target class {split.target} is not in the pair design {design.classes}")
        n = len(split.sources)
        p = self.n_features
        xx = np.empty((n, p, p))
        xy = np.empty((n, p))
        counts = np.empty(n, dtype=np.int64)
        for k, c in enumerate(split.sources):
            rows = design.negative_rows(c, split.target)
            unused = self.union[c].copy()
            unused[rows] = False
            dropped = pair_products(self.F, design.negatives[c][unused])
            np.matmul(dropped.T, dropped, out=xx[k])
            np.subtract(self.gram[c], xx[k], out=xx[k])
            xy[k] = self.signed_sum[c] + dropped.sum(axis=0)
            counts[k] = len(design.positives[c]) + len(rows)
            xx[k] /= counts[k]
            xy[k] /= counts[k]
        return DomainStatistics.from_moments(xx, xy, np.ones(n), counts=counts, labels=np.asarray(split.sources))
