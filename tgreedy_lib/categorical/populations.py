"""Simulated populations and distributions: the SSN example and the families that test Theorems 2 and 4.

Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization Properties", JMLR 9
(2008). Section 1's example: a social security number fits any training set perfectly and
generalizes not at all. A finite population of people with categorical features *is* the
distribution of section 2; :func:`ranking_study` asks how often each filter ranks its truly best
feature first (notebook 01). The families of ``(p, q)`` of :func:`distribution_family` are the
bad cases searched for when simulated training sets are held against Theorems 2 and 4 (notebook 02).
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import check_labels
from .counts import check_sample_size, count_table, estimated_probabilities, sample_counts
from .expectations import expected_bayes_error, expected_gini_error, expected_gini_estimate_eq14
from .filters import FILTERS, LARGER_IS_BETTER, feature_ranking, filter_scores
from .gini_estimator import (bayes_hypothesis, bayes_optimal_error, generalization_error, gini_error_estimate,
                             gini_hypothesis)


class CategoricalPopulation:
    """A finite population of people (int ``codes``, people x features) with a 0/1 label.

    A training set is ``m`` people drawn with replacement, so ``p_v``, ``q_v`` are the population's
    frequencies; ``n_values`` gives each ``|V_j|`` (default: largest code + 1).
    """

    def __init__(self, names, codes, labels, n_values=None):
        codes = np.asarray(codes)
        if codes.ndim != 2 or codes.dtype.kind not in "iu":
            raise ValueError(f"codes must be a 2-D integer array (people x features), got {codes.dtype} {codes.shape}")
        if len(names) != codes.shape[1]:
            raise ValueError(f"{len(names)} names for {codes.shape[1]} feature columns")
        self.labels = check_labels(labels, "labels").astype(np.int64)
        if self.labels.size != codes.shape[0]:
            raise ValueError(f"codes and labels have different lengths: {codes.shape[0]} vs {self.labels.size}")
        self.names = tuple(names)
        self.codes = codes
        self.n_values = np.asarray(codes.max(axis=0) + 1 if n_values is None else n_values, dtype=np.int64)
        self._distributions = [None] * codes.shape[1]

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    def distribution(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """``(p_v, q_v)`` of feature ``j`` over its ``|V_j|`` values (q_v = 1/2 where p_v = 0)."""
        if self._distributions[j] is None:
            counts = count_table(self.codes[:, j], self.labels, int(self.n_values[j]))
            self._distributions[j] = estimated_probabilities(*counts)
        return self._distributions[j]

    def sample(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """A training set: ``m`` people drawn uniformly with replacement; returns ``(X, y)``."""
        m = check_sample_size(m)
        rows = rng.integers(0, self.codes.shape[0], m)
        return self.codes[rows], self.labels[rows]

    def bayes_optimal_errors(self) -> np.ndarray:
        """``l(h_Bayes_inf)`` of each feature."""
        return np.array([bayes_optimal_error(*self.distribution(j)) for j in range(self.n_features)])

    def expected_gini_errors(self, m: int) -> np.ndarray:
        """``E[l(h_Gini)]`` of each feature at sample size ``m`` (Lemma 2): the ranking we want."""
        return np.array([expected_gini_error(*self.distribution(j), m) for j in range(self.n_features)])

    def sample_errors(self, X, y) -> dict[str, np.ndarray]:
        """True generalization errors ``l(h_Gini_S)`` and ``l(h_Bayes_S)`` of each feature (Eqs. 4-7)."""
        X = np.asarray(X)
        out = {"gini": np.empty(self.n_features), "bayes": np.empty(self.n_features)}
        for j in range(self.n_features):
            p, q = self.distribution(j)
            counts, positives = count_table(X[:, j], y, int(self.n_values[j]))
            out["gini"][j] = generalization_error(gini_hypothesis(counts, positives), p, q)
            out["bayes"][j] = generalization_error(bayes_hypothesis(counts, positives), p, q)
        return out


def ssn_population(rng: np.random.Generator, n_people: int = 100_000) -> CategoricalPopulation:
    """The SSN example of section 1: ``unemployed`` (about 40%) depends on ``mortgage`` strongly,
    ``education``, ``region`` and ``zip_code`` less; ``birthday`` is noise, ``ssn`` an identifier."""
    n = int(n_people)
    if n < 2:
        raise ValueError(f"n_people must be at least 2, got {n_people}")
    mortgage = (rng.uniform(size=n) < 0.4).astype(np.int64)
    education = rng.choice(5, size=n, p=[0.1, 0.3, 0.3, 0.2, 0.1])
    region = rng.integers(0, 20, n)
    zip_code = rng.integers(0, 2000, n)
    birthday = rng.integers(0, 365, n)
    ssn = rng.permutation(n)
    logit = (0.5 - 2.4 * mortgage + np.array([0.9, 0.45, 0.0, -0.45, -0.9])[education]
             + rng.normal(0, 0.3, 20)[region] + rng.normal(0, 0.3, 2000)[zip_code])
    unemployed = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    names = ("ssn", "mortgage", "education", "region", "birthday", "zip_code")
    codes = np.column_stack([ssn, mortgage, education, region, birthday, zip_code])
    return CategoricalPopulation(names, codes, unemployed, n_values=[n, 2, 5, 20, 365, 2000])


def flag_versus_code_population(n_values: int, rng: np.random.Generator,
                                n_people: int = 50_000) -> CategoricalPopulation:
    """A noisy binary ``flag`` and a ``code`` with ``n_values`` values that fixes the label (about 35% of
    the codes are labelled 1): with few values ``code`` is the perfect feature, with many an SSN."""
    n = int(n_people)
    code = rng.integers(0, int(n_values), n)
    n_positive = min(max(1, round(0.35 * int(n_values))), int(n_values) - 1) if int(n_values) > 1 else 1
    label_of_code = rng.permutation(np.arange(int(n_values)) < n_positive).astype(np.int64)
    labels = label_of_code[code]
    flag = (rng.uniform(size=n) < np.where(labels == 1, 0.2, 0.6)).astype(np.int64)
    return CategoricalPopulation(("flag", "code"), np.column_stack([flag, code]), labels, n_values=[2, int(n_values)])


def ranking_study(population: CategoricalPopulation, sizes, repetitions: int, rng: np.random.Generator,
                  filters=FILTERS, focus: int = 0) -> dict[str, dict[str, np.ndarray]]:
    """How well each filter ranks the features against ``E[l(h_Gini)]`` at each m: per filter, arrays over
    ``sizes`` of the mean ``kendall_tau`` and the shares ``picks_best`` and ``focus_first`` (feature ``focus``)."""
    from scipy.stats import kendalltau

    sizes = [int(m) for m in sizes]
    result = {f: {k: np.zeros(len(sizes)) for k in ("kendall_tau", "picks_best", "focus_first")} for f in filters}
    for index, m in enumerate(sizes):
        truth = population.expected_gini_errors(m)
        best = int(np.argmin(truth))
        for _ in range(int(repetitions)):
            X, y = population.sample(m, rng)
            scores = filter_scores(X, y, filters)
            for name in filters:
                oriented = -scores[name] if name in LARGER_IS_BETTER else scores[name]
                tau = kendalltau(oriented, truth).statistic if population.n_features > 2 else (
                    1.0 if (oriented[0] < oriented[1]) == (truth[0] < truth[1]) else -1.0)
                top = int(feature_ranking(scores[name], name)[0])
                result[name]["kendall_tau"][index] += (0.0 if np.isnan(tau) else tau) / repetitions
                result[name]["picks_best"][index] += (top == best) / repetitions
                result[name]["focus_first"][index] += (top == focus) / repetitions
    return result


#: Families of (p, q) used to search for bad cases in the concentration checks.
FAMILIES = ("identifier", "uniform_half", "uniform_random_q", "zipf_random_q", "near_half", "dominant")


def distribution_family(kind: str, n_values: int, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A distribution ``(p, q)`` over ``n_values`` values from a named family.

    * ``identifier``: uniform ``p``, ``q_v`` in {0, 1} (the SSN: the value fixes the label);
    * ``uniform_half``: uniform ``p``, ``q_v = 1/2`` (no information at all);
    * ``uniform_random_q``: uniform ``p``, ``q_v ~ U(0, 1)``;
    * ``zipf_random_q``: ``p_v`` proportional to ``1/v``, ``q_v ~ U(0, 1)``;
    * ``near_half``: uniform ``p``, ``q_v = 1/2 +- 1/(2 sqrt(m p_v))``: the majority vote
      is wrong with a fair probability, the hard case for h_Bayes;
    * ``dominant``: one value with ``p = 0.85`` and ``q = 1/2 + 1/(2 sqrt(0.85 m))``, the rest
      uniform with random ``q``: a value heavy enough to fall in Thm. 4's set ``V_3`` for large m.
    """
    n = int(n_values)
    if kind == "zipf_random_q":
        p = 1.0 / np.arange(1, n + 1)
    elif kind == "dominant":
        p = np.r_[0.85, np.full(n - 1, 0.15 / max(n - 1, 1))] if n > 1 else np.ones(1)
    else:
        p = np.ones(n)
    p = p / p.sum()
    if kind == "identifier":
        q = rng.integers(0, 2, n).astype(float)
    elif kind == "uniform_half":
        q = np.full(n, 0.5)
    elif kind in ("uniform_random_q", "zipf_random_q"):
        q = rng.uniform(0, 1, n)
    elif kind == "dominant":
        q = np.r_[0.5 + 0.5 / math.sqrt(0.85 * m), rng.uniform(0, 1, n - 1)]
    elif kind == "near_half":
        q = np.clip(0.5 + rng.choice([-0.5, 0.5], n) / np.sqrt(max(m * p[0], 1.0)), 0, 1)
    else:
        raise ValueError(f"unknown family {kind!r}; known: {', '.join(FAMILIES)}")
    return p, q


def simulate_deviations(kind, n_values, m, trials, rng, which):
    """Deviations over ``trials`` training sets of :func:`distribution_family`: ``which="gini"``: ``estimator_gap``
    (Thm. 2), ``lemma3``, ``lemma7``; ``which="bayes"``: ``deviation`` = |l(h_Bayes) - E l(h_Bayes)| (Thm. 4)."""
    p, q = distribution_family(kind, n_values, m, rng)
    counts, positives = sample_counts(p, q, m, trials, rng)
    if which == "gini":
        error = generalization_error(gini_hypothesis(counts, positives), p, q)
        estimate = gini_error_estimate(counts, positives)
        return {
            "estimator_gap": np.abs(error - estimate),
            "lemma3": np.abs(estimate - expected_gini_estimate_eq14(p, q, m)),
            "lemma7": np.abs(error - expected_gini_error(p, q, m)),
        }
    error = generalization_error(bayes_hypothesis(counts, positives), p, q)
    return {"deviation": np.abs(error - expected_bayes_error(p, q, m))}
