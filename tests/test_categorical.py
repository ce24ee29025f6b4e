"""Tests of tgreedy_lib.categorical and the categorical.* verify checks.

Exact expectations are compared with brute-force enumeration of every training set of
size m over a tiny V (each with its exact probability); the closed-form estimator
(Eq. 9) with the leave-one-out / pairwise computations of Eq. (10).
"""
from __future__ import annotations

import itertools
import json
import math
import tracemalloc

import numpy as np
import pytest
from scipy.stats import binom

from tgreedy_lib import categorical as cat
from tgreedy_course import verify
from tgreedy_course.__main__ import main as course_main


# ----------------------------------------------------------------------------- brute force


def _enumerate_training_sets(p, q, m):
    """Yield (probability, x, y) for every ordered training set of m examples."""
    n_values = len(p)
    examples = [(v, label) for v in range(n_values) for label in (0, 1)]
    weights = [p[v] * (q[v] if label else 1 - q[v]) for v, label in examples]
    for sequence in itertools.product(range(len(examples)), repeat=m):
        probability = math.prod(weights[j] for j in sequence)
        x = np.array([examples[j][0] for j in sequence])
        y = np.array([examples[j][1] for j in sequence])
        yield probability, x, y


def _brute_force(p, q, m):
    """E[l_hat], E[l(h_Gini)], E[l(h_Bayes)], E[M_k] (k = 0..m), each by enumeration, from definitions."""
    n_values = len(p)
    totals = {"estimate": 0.0, "gini": 0.0, "bayes": 0.0, "mass": np.zeros(m + 1), "probability": 0.0}
    for probability, x, y in _enumerate_training_sets(p, q, m):
        totals["probability"] += probability
        totals["estimate"] += probability * cat.gini_error_estimate_pairs(x, y)
        gini_error = bayes_error = 0.0
        for v in range(n_values):
            labels = y[x == v]
            c = labels.size
            q_hat = labels.mean() if c else 0.5
            h_bayes = 1.0 if q_hat > 0.5 else (0.0 if q_hat < 0.5 else 0.5)
            gini_error += p[v] * (q[v] * (1 - q_hat) + (1 - q[v]) * q_hat)
            bayes_error += p[v] * (q[v] * (1 - h_bayes) + (1 - q[v]) * h_bayes)
            totals["mass"][c] += probability * p[v]
        totals["gini"] += probability * gini_error
        totals["bayes"] += probability * bayes_error
    return totals


TINY_CASES = [
    (np.array([1.0]), np.array([0.3]), 1),
    (np.array([0.5, 0.3, 0.2]), np.array([0.9, 0.5, 0.1]), 1),
    (np.array([0.5, 0.3, 0.2]), np.array([0.9, 0.5, 0.1]), 2),
    (np.array([0.5, 0.3, 0.2]), np.array([0.7, 0.0, 1.0]), 3),
    (np.array([0.6, 0.4]), np.array([0.35, 0.8]), 4),
    (np.array([0.25, 0.25, 0.5]), np.array([0.62, 0.41, 0.5]), 4),
]


@pytest.mark.parametrize("p, q, m", TINY_CASES)
def test_exact_expectations_match_enumeration(p, q, m):
    brute = _brute_force(p, q, m)
    assert brute["probability"] == pytest.approx(1.0, abs=1e-13)
    assert cat.expected_gini_estimate(p, q, m) == pytest.approx(brute["estimate"], abs=1e-12)
    assert cat.expected_gini_estimate_eq14(p, q, m) == pytest.approx(brute["estimate"], abs=1e-12)
    assert cat.expected_gini_error(p, q, m) == pytest.approx(brute["gini"], abs=1e-12)
    assert cat.expected_bayes_error(p, q, m) == pytest.approx(brute["bayes"], abs=1e-12)
    np.testing.assert_allclose(cat.expected_missing_mass(p, m, np.arange(m + 1)), brute["mass"], rtol=0, atol=1e-12)
    assert cat.gini_estimate_bias(p, q, m) == pytest.approx(brute["estimate"] - brute["gini"], abs=1e-12)
    # symmetric-rule route (Thm. 3) gives the same numbers for h_Gini and h_Bayes
    assert cat.expected_symmetric_error(p, q, m, cat.gini_rule_table(m)) == pytest.approx(brute["gini"], abs=1e-12)
    assert cat.expected_symmetric_error(p, q, m, cat.bayes_rule_table(m)) == pytest.approx(brute["bayes"], abs=1e-12)


def test_bayes_is_best_deterministic_symmetric_rule_by_enumeration():
    """Thm. 3, first part: every deterministic symmetric rule for m = 3, scored by enumeration."""
    p, q, m = np.array([0.5, 0.3, 0.2]), np.array([0.7, 0.2, 0.55]), 3
    free_cells = [(k, i) for k in range(1, m + 1) for i in range(k + 1) if 2 * i < k]
    sets = list(_enumerate_training_sets(p, q, m))
    scores = []
    for choice in itertools.product((0.0, 1.0), repeat=len(free_cells)):
        table = cat.bayes_rule_table(m).copy()
        for (k, i), value in zip(free_cells, choice):
            table[k, i], table[k, k - i] = value, 1 - value
        expected = 0.0
        for probability, x, y in sets:
            h = np.array([table[np.sum(x == v), np.sum(y[x == v])] for v in range(3)])
            expected += probability * cat.generalization_error(h, p, q)
        assert cat.expected_symmetric_error(p, q, m, table) == pytest.approx(expected, abs=1e-12)
        scores.append(expected)
    assert len(scores) == 16
    assert min(scores) == pytest.approx(cat.expected_bayes_error(p, q, m), abs=1e-12)
    assert np.argmin(scores) == 0  # all-zero choice on minority counts = h_Bayes
    # the rule displayed in the paper's proof (1 on minority counts) is the worst one
    assert np.argmax(scores) == len(scores) - 1


# ----------------------------------------------------------------------------- estimator and filters


def test_filters_on_a_hand_computed_sample():
    x = np.array([0, 0, 1, 1, 1, 2])
    y = np.array([0, 1, 1, 1, 0, 1])
    c, cp = cat.count_table(x, y, n_values=4)  # value 3 never seen
    np.testing.assert_array_equal(c, [2, 3, 1, 0])
    np.testing.assert_array_equal(cp, [1, 2, 1, 0])
    assert cat.misclassification_error(c, cp) == pytest.approx(1 / 3)
    assert cat.gini_index(c, cp) == pytest.approx(7 / 18)
    assert cat.gini_error_estimate(c, cp) == pytest.approx(1 / 3 + 1 / 3 + 1 / 12)
    h = lambda t: -t * math.log2(t) - (1 - t) * math.log2(1 - t)
    gain = h(2 / 3) - (2 / 6) * 1.0 - (3 / 6) * h(1 / 3)
    assert cat.information_gain(c, cp) == pytest.approx(gain)
    split = -sum(f * math.log2(f) for f in (2 / 6, 3 / 6, 1 / 6))
    assert cat.gain_ratio(c, cp) == pytest.approx(gain / split)
    p_hat, q_hat = cat.estimated_probabilities(c, cp)
    np.testing.assert_allclose(q_hat, [0.5, 2 / 3, 1.0, 0.5])  # q_hat = 1/2 for the unseen value (Eq. 1)
    np.testing.assert_array_equal(cat.bayes_hypothesis(c, cp), [0.5, 1.0, 1.0, 0.5])


@pytest.mark.parametrize("seed", range(6))
def test_closed_form_equals_leave_one_out_and_pairs(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 60))
    x = rng.integers(0, int(rng.integers(1, 25)), m)
    y = rng.integers(0, 2, m)
    closed = float(cat.gini_error_estimate(*cat.count_table(x, y)))
    assert cat.gini_error_estimate_leave_one_out(x, y) == pytest.approx(closed, abs=1e-14)
    assert cat.gini_error_estimate_pairs(x, y) == pytest.approx(closed, abs=1e-14)


def test_identifier_fools_training_filters_but_not_estimator():
    rng = np.random.default_rng(3)
    m = 200
    mortgage = rng.integers(0, 2, m)
    y = (rng.uniform(size=m) < np.where(mortgage == 1, 0.05, 0.5)).astype(int)
    identifier = np.arange(m)  # every example a new SSN
    X = np.column_stack([identifier, mortgage])
    scores = cat.filter_scores(X, y)
    assert scores["misclassification"][0] == 0 and scores["gini"][0] == 0
    assert scores["gini_estimate"][0] == pytest.approx(0.5)
    for name in ("misclassification", "gini", "information_gain"):
        assert cat.feature_ranking(scores[name], name)[0] == 0
    assert cat.feature_ranking(scores["gini_estimate"], "gini_estimate")[0] == 1


FILTER_FUNCTIONS = (cat.misclassification_error, cat.gini_index, cat.information_gain, cat.gain_ratio,
                    cat.gini_error_estimate)


def test_vectorized_counts_match_per_column():
    rng = np.random.default_rng(7)
    X = np.column_stack([rng.integers(0, 3, 50), rng.integers(0, 40, 50), rng.choice(list("abcde"), 50)])
    y = rng.integers(0, 2, 50)
    scores = cat.filter_scores(X, y)
    padded_counts, padded_positives = cat.count_tables(X, y)
    np.testing.assert_array_equal(padded_counts.sum(axis=1), [50, 50, 50])
    np.testing.assert_allclose(cat.gini_error_estimate(padded_counts, padded_positives), scores["gini_estimate"], atol=1e-14)
    for j in range(X.shape[1]):
        _, codes = np.unique(X[:, j], return_inverse=True)
        c, cp = cat.count_table(codes, y)
        for name, function in zip(cat.FILTERS, FILTER_FUNCTIONS):
            assert scores[name][j] == pytest.approx(float(function(c, cp)), abs=1e-14)


def test_single_example_gives_one_half():
    """m = 1 is allowed and degenerate: the only value is seen once, l_hat = 1/2 whatever the label."""
    for label in (0, 1):
        assert cat.gini_error_estimate(*cat.count_table(np.array([4]), np.array([label]))) == 0.5
    p, q = np.array([1.0]), np.array([0.0])
    assert cat.gini_estimate_bias(p, q, 1) == pytest.approx(0.5)  # Thm. 1's bound 1/(2m) is attained


def test_generalization_error_and_missing_mass():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.9, 0.5, 0.1])
    assert cat.generalization_error([1.0, 0.5, 0.0], p, q) == pytest.approx(0.5 * 0.1 + 0.3 * 0.5 + 0.2 * 0.1)
    assert cat.bayes_optimal_error(p, q) == pytest.approx(0.05 + 0.15 + 0.02)
    counts = np.array([[2, 0, 0], [0, 1, 1]])
    np.testing.assert_allclose(cat.missing_mass(counts, p, 0), [0.5, 0.5])
    np.testing.assert_allclose(cat.missing_mass(counts, p, 1), [0.0, 0.5])


P3, Q3 = [0.5, 0.3, 0.2], [0.9, 0.5, 0.1]
C4, CP4 = np.array([3, 1, 0, 4]), np.array([2, 1, 0, 0])  # m = 8
#: Worked values, rounded to 4 digits: each call and what it gives.
WORKED_VALUES = [
    (lambda: cat.estimated_probabilities(C4, CP4), ([0.375, 0.125, 0, 0.5], [0.6667, 1, 0.5, 0])),
    (lambda: cat.misclassification_error(C4, CP4), 0.125),
    (lambda: cat.gini_index(C4, CP4), 0.1667),
    (lambda: cat.information_gain(C4, CP4), 0.6101),
    (lambda: cat.gain_ratio(C4, CP4), 0.434),
    (lambda: cat.gini_error_estimate(C4, CP4), 0.3125),
    (lambda: cat.gini_hypothesis(C4, CP4), [0.6667, 1, 0.5, 0]),
    (lambda: cat.bayes_hypothesis(C4, CP4), [1, 1, 0.5, 0]),
    (lambda: cat.gini_error_estimate_pairs([0, 0, 0, 1, 2, 2], [1, 1, 0, 1, 0, 0]), 0.4167),
    (lambda: cat.count_table([0, 0, 1, 2, 2, 2], [1, 0, 1, 0, 0, 1]), ([2, 1, 3], [1, 1, 1])),
    (lambda: cat.count_tables(np.array([["a", "x"], ["b", "x"], ["a", "y"]]), [1, 0, 1]),
     ([[2, 1], [2, 1]], [[2, 0], [1, 1]])),
    (lambda: cat.sample_counts(P3, Q3, 10, 2, np.random.default_rng(0)),
     ([[6, 3, 1], [2, 8, 0]], [[5, 3, 0], [2, 4, 0]])),
    (lambda: cat.generalization_error([1.0, 0.0], [0.5, 0.5], [0.9, 0.2]), 0.15),
    (lambda: cat.missing_mass([3, 1, 0, 0], [0.4, 0.3, 0.2, 0.1], 1), 0.3),
    (lambda: cat.feature_ranking([0.3, 0.1, 0.2], "gini"), [1, 2, 0]),
    (lambda: cat.count_probabilities([0.5, 0.5], 2), [[0.25, 0.5, 0.25], [0.25, 0.5, 0.25]]),
    (lambda: cat.expected_missing_mass(P3, 10, [0, 1]), [0.0304, 0.0949]),
    (lambda: cat.expected_gini_estimate(P3, Q3, 10), 0.2849),
    (lambda: cat.expected_gini_error(P3, Q3, 10), 0.283),
    (lambda: cat.gini_estimate_bias(P3, Q3, 10), 0.0019),
    (lambda: cat.expected_symmetric_error(P3, Q3, 10, cat.bayes_rule_table(10)), 0.2467),
    (lambda: cat.expected_bayes_error(P3, Q3, 10) - cat.bayes_optimal_error(P3, Q3), 0.0267),
    (lambda: cat.bayes_bias_bound(P3, 10), 0.255),
    (lambda: cat.gini_rule_table(2), [[0.5, 0, 0], [0, 1, 0], [0, 0.5, 1]]),
    (lambda: cat.smoothed_rule_table(2), [[0.5, 0, 0], [0.3333, 0.6667, 0], [0.25, 0.5, 0.75]]),
    (lambda: cat.bayes_regret_per_count(0.7, [1, 2, 3]), [0.12, 0.12, 0.0864]),
    (lambda: cat.per_count_regret_maximum([0, 1, 2, 3])[0], [0.5, 0.125, 0.125, 0.087]),
    (lambda: cat.bias_bound_coefficients([0, 1, 2, 3, 4]), [0.5, 0.125, 0.125, 0.3502, 0.3033]),
    (lambda: cat.lemma3_bound(1000, 0.05), 0.5154),
    (lambda: cat.lemma7_bound(1000, 0.05), 6.3425),
    (lambda: cat.theorem2_bound([10**3, 10**6], 0.05), [7.8073, 0.3789]),
    (lambda: cat.lemma8_bound(10**6, 0.05), 28.5273),
    (lambda: cat.lemma9_bound(10**6, 0.05), 0.4401),
    (lambda: cat.lemma12_bound(10**4), 0.1),
    (lambda: cat.lemma13_bound(10**6), 0.1),
    (lambda: cat.theorem4_bound([10**3, 10**9], 0.05), [78.3616, 16.2236]),
    (lambda: [cat.lemma11_bound(10, 0.05), cat.lemma11_bound(10, 0.05, corrected=True)], [0.4695, 0.774]),
    (lambda: cat.lemma11_exceedance(10, 0.6, 0.05), -0.05),
    (lambda: cat.lemma11_deviation_quantile(10, 0.6, 0.05), 0.1467),
    (lambda: cat.first_m_below(lambda m: 10 / m, 0.5), 21),
    (lambda: cat.estimator_bounded_difference(4, 2), 0.625),
    (lambda: cat.random_symmetric_table(4, np.random.default_rng(0))[2, 1], 0.5),
]


@pytest.mark.parametrize("call, expected", WORKED_VALUES)
def test_worked_values(call, expected):
    got = call()
    if isinstance(expected, tuple):
        for part, value in zip(got, expected):
            np.testing.assert_allclose(np.round(part, 4), value, atol=1e-12)
    else:
        np.testing.assert_allclose(np.round(np.asarray(got, dtype=float), 4), expected, atol=1e-12)


def test_populations_and_families():
    population = cat.flag_versus_code_population(20, np.random.default_rng(0), n_people=2000)
    assert (population.names, population.n_features, population.n_values.tolist()) == (("flag", "code"), 2, [2, 20])
    assert cat.ssn_population(np.random.default_rng(0), n_people=5000).names == (
        "ssn", "mortgage", "education", "region", "birthday", "zip_code")
    p, q = cat.distribution_family("identifier", 4, 10, np.random.default_rng(0))
    assert p.tolist() == [0.25] * 4 and set(q.tolist()) <= {0.0, 1.0}
    assert sorted(cat.simulate_deviations("uniform_half", 5, 20, 50, np.random.default_rng(0), "gini")) == [
        "estimator_gap", "lemma3", "lemma7"]
    counts, positives = cat.sample_counts(P3, Q3, 100, 3, np.random.default_rng(0))
    assert sorted(cat.bayes_error_decomposition(counts, positives, P3, Q3, 0.05)) == [
        "A1", "A2", "A3", "A4", "deviation", "n_values_in_part"]


# ----------------------------------------------------------------------------- theorems


def test_theorem1_bias_is_between_zero_and_its_supremum():
    for m in (1, 2, 5, 40):
        supremum = (1 - 1 / m) ** (m - 1) / (2 * m)
        p = np.full(m, 1 / m)
        assert cat.gini_estimate_bias(p, np.zeros(m), m) == pytest.approx(supremum, rel=1e-12)
        assert supremum <= 1 / (2 * m)
        assert cat.gini_estimate_bias(p, np.full(m, 0.5), m) == 0.0


def test_estimator_bounded_difference_is_five_halves_over_m():
    """Lemma 3's bounded difference: brute force over all samples (m = 4, |V| = 2) and replacements."""
    m, n_values = 4, 2
    examples = [(v, label) for v in range(n_values) for label in (0, 1)]
    largest = 0.0
    for sample in itertools.product(range(len(examples)), repeat=m):
        x = np.array([examples[j][0] for j in sample])
        y = np.array([examples[j][1] for j in sample])
        base = cat.gini_error_estimate_pairs(x, y)
        for i in range(m):
            for value, label in examples:
                x2, y2 = x.copy(), y.copy()
                x2[i], y2[i] = value, label
                largest = max(largest, abs(cat.gini_error_estimate_pairs(x2, y2) - base))
    assert largest == pytest.approx(2.5 / m, abs=1e-12)
    assert cat.estimator_bounded_difference(m, n_values) == pytest.approx(2.5 / m, abs=1e-12)
    assert largest < 12 / m


def test_theorem3_constants_one_eighth():
    maxima, arguments = cat.per_count_regret_maximum(np.array([0, 1, 2, 3]))
    np.testing.assert_allclose(maxima[:3], [0.5, 1 / 8, 1 / 8], atol=1e-10)
    np.testing.assert_allclose(arguments[1:3], [0.75, 0.75], atol=1e-5)
    assert maxima[3] < 1 / math.sqrt(3 * math.e)


def test_lemma11_counterexample_independently():
    k, q, delta = 53, 0.63, 0.01
    pmf = binom.pmf(np.arange(k + 1), k, q)
    successes = np.arange(k + 1)
    alpha, gamma = pmf[2 * successes > k].sum(), pmf[2 * successes == k].sum()
    beta = 1 - alpha - gamma
    mean = alpha * (1 - q) + beta * q + gamma * 0.5
    printed = math.sqrt(2 * math.log(1 / delta) / (math.e * k))
    tail = sum(prob for value, prob in ((1 - q, alpha), (q, beta), (0.5, gamma)) if abs(value - mean) > printed)
    assert tail > delta  # the printed Lemma 11 fails here
    assert cat.lemma11_exceedance(k, q, delta) == pytest.approx(tail - delta, abs=1e-12)
    assert cat.lemma11_exceedance(k, q, delta, corrected=True) <= 0


def test_explicit_bounds_values():
    assert cat.lemma3_bound(200, 0.1) == pytest.approx(12 * math.sqrt(math.log(20) / 400))
    m, d = 1000, 0.05
    expected = 2 / m + 12 * math.log(8 * m / d) * math.sqrt(math.log(8 / d)) / math.sqrt(2 * m) + 12 * math.sqrt(
        math.log(4 / d) / (2 * m))
    assert cat.theorem2_bound(m, d) == pytest.approx(expected)
    assert cat.theorem4_bound(m, d) > 1  # vacuous at every simulable m


def test_theorem4_decomposition_bounds_the_deviation():
    rng = np.random.default_rng(11)
    for m, p, q in ((12, np.full(6, 1 / 6), rng.uniform(0, 1, 6)),
                    (20000, np.r_[0.85, np.full(9, 0.15 / 9)], np.r_[0.51, rng.uniform(0, 1, 9)])):
        counts, positives = cat.sample_counts(p, q, m, 200, rng)
        terms = cat.bayes_error_decomposition(counts, positives, p, q, 0.05)
        total = terms["A1"] + terms["A2"] + terms["A3"] + terms["A4"]
        assert np.all(terms["deviation"] <= total + 1e-12)
        errors = cat.generalization_error(cat.bayes_hypothesis(counts, positives), p, q)
        np.testing.assert_allclose(terms["deviation"], np.abs(errors - cat.expected_bayes_error(p, q, m)), atol=1e-12)
        if m == 12:  # every value is light: A_1 is the whole deviation
            assert terms["n_values_in_part"].tolist() == [6, 0, 0]
            np.testing.assert_allclose(terms["A1"], terms["deviation"], atol=1e-12)
        else:
            assert terms["n_values_in_part"][2] == 1


def test_population_and_ranking_study():
    rng = np.random.default_rng(5)
    population = cat.ssn_population(rng, n_people=3000)
    p, q = population.distribution(0)
    assert p.size == 3000 and np.allclose(p, 1 / 3000) and set(np.unique(q)) <= {0.0, 1.0}
    assert population.bayes_optimal_errors()[0] == 0.0
    study = cat.ranking_study(population, [60], repetitions=4, rng=rng, focus=0)
    assert study["gini"]["focus_first"][0] == 1.0  # the identifier always wins on training error
    assert study["gini_estimate"]["focus_first"][0] == 0.0
    for name in cat.FILTERS:
        assert -1.0 <= study[name]["kendall_tau"][0] <= 1.0
    two = cat.flag_versus_code_population(2, rng, n_people=2000)
    assert two.n_values.tolist() == [2, 2] and 0 < two.labels.mean() < 1


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "x, y, message",
    [
        ([0, 1, 1], [0, 2, 1], r"\{0, 1\}"),
        ([0, 1, 1], [0, -1, 1], r"\{0, 1\}"),
        ([0, 1, 1], [0, 0.5, 1], r"\{0, 1\}"),
        ([], [], "empty"),
        ([0, 1], [0, 1, 1], "different lengths"),
        ([0, -1], [0, 1], "negative"),
        ([0.5, 1.0], [0, 1], "integer"),
    ],
)
def test_bad_samples(x, y, message):
    with pytest.raises(ValueError, match=message):
        cat.count_table(np.array(x, dtype=float if x and isinstance(x[0], float) else int), np.array(y))


def test_bad_samples_elsewhere():
    with pytest.raises(ValueError, match="different numbers of examples"):
        cat.filter_scores(np.zeros((3, 2), dtype=int), np.array([0, 1]))
    with pytest.raises(ValueError, match="two-dimensional"):
        cat.filter_scores(np.zeros(3, dtype=int), np.array([0, 1, 0]))
    with pytest.raises(ValueError, match=r"\{0, 1\}"):
        cat.gini_error_estimate_pairs(np.array([0, 0]), np.array([1, 3]))
    with pytest.raises(ValueError, match="empty"):
        cat.gini_error_estimate(np.zeros(3, dtype=int), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="exceed"):
        cat.gini_error_estimate(np.array([1, 2]), np.array([2, 0]))
    with pytest.raises(ValueError, match="outside"):
        cat.count_table(np.array([0, 5]), np.array([0, 1]), n_values=3)
    with pytest.raises(ValueError, match="unknown filter"):
        cat.filter_scores(np.zeros((2, 1), dtype=int), np.array([0, 1]), filters=["entropy"])


@pytest.mark.parametrize(
    "p, q, message",
    [
        ([0.5, 0.4], [0.1, 0.2], "sum to 1"),
        ([1.2, -0.2], [0.1, 0.2], "non-negative"),
        ([0.5, 0.5], [0.1, 1.2], r"\[0, 1\]"),
        ([0.5, 0.5], [-0.1, 0.2], r"\[0, 1\]"),
        ([0.5, 0.5], [0.1, 0.2, 0.3], "same length"),
        ([0.5, np.nan], [0.1, 0.2], "NaN"),
        ([], [], "empty"),
    ],
)
def test_bad_distributions(p, q, message):
    with pytest.raises(ValueError, match=message):
        cat.expected_gini_error(p, q, 5)
    with pytest.raises(ValueError, match=message):
        cat.generalization_error(np.full(len(q), 0.5), p, q)


def test_bad_sizes_rules_and_deltas():
    p, q = np.array([0.5, 0.5]), np.array([0.2, 0.9])
    for m in (0, -3, 2.5):
        with pytest.raises(ValueError, match="sample size m"):
            cat.expected_bayes_error(p, q, m)
    with pytest.raises(ValueError, match="not symmetric"):
        cat.expected_symmetric_error(p, q, 2, np.ones((3, 3)))
    with pytest.raises(ValueError, match="shape"):
        cat.expected_symmetric_error(p, q, 3, cat.bayes_rule_table(2))
    with pytest.raises(ValueError, match="delta"):
        cat.theorem2_bound(100, 1.5)
    with pytest.raises(ValueError, match=r"h must lie in \[0, 1\]"):
        cat.generalization_error([0.5, 1.5], p, q)


# ----------------------------------------------------------------------------- verify


@pytest.fixture(scope="module")
def quick_json(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "categorical.json"
    assert course_main(["verify", "categorical.", "--quick", "--json", str(path)]) == 0
    return json.loads(path.read_text())


def test_verify_json_shape(quick_json):
    records = {r["id"]: r for r in quick_json["checks"]}
    expected_ids = {f"categorical.theorem{i}" for i in range(1, 5)}
    assert expected_ids <= set(records)
    for record in records.values():
        assert set(record) == {"id", "claim", "holds_as_printed", "trials", "worst_case", "cases", "summary",
                                "corrected_claim"}
        assert set(record["worst_case"]) == {"parameters", "observed", "bound", "ratio"}
        assert isinstance(record["worst_case"]["observed"], float) and isinstance(record["worst_case"]["bound"], float)
        assert record["trials"] > 0
        assert (record["corrected_claim"] is None) == record["holds_as_printed"]
    for i in (1, 2, 3, 4):
        assert records[f"categorical.theorem{i}"]["holds_as_printed"] is True
    assert records["categorical.theorem1"]["worst_case"]["observed"] <= records["categorical.theorem1"]["worst_case"]["bound"]
    assert records["categorical.lemma11"]["holds_as_printed"] is False
    worst = records["categorical.lemma11"]["worst_case"]
    assert worst["observed"] > worst["bound"]


def test_verify_is_deterministic(quick_json):
    again = [r.to_json() for r in verify.run_checks(["categorical.theorem1", "categorical.lemma11"], quick=True)]
    first = {r["id"]: r for r in quick_json["checks"]}
    for record in again:
        assert json.dumps(record, sort_keys=True) == json.dumps(first[record["id"]], sort_keys=True)


# ------------------------------------------------------------------ values a user keeps apart

_LOOK_ALIKE = [
    ([1, "1"], "print alike"),
    (["a", b"a"], "print alike"),
    ([1, True], "are equal"),
    ([1, 1.0], "are equal"),
    ([0, False], "are equal"),
    ([(1, "x"), (1.0, "x")], "are equal"),
    ([2.5, "2.5"], "print alike"),
]


@pytest.mark.parametrize("pair,how", _LOOK_ALIKE)
def test_values_of_different_types_that_look_alike_are_refused_not_merged(pair, how):
    x = [pair[0], pair[1]] * 3 + ["other", "other"]
    y = [1, 0] * 3 + [0, 1]
    for estimate in (cat.gini_error_estimate_leave_one_out, cat.gini_error_estimate_pairs):
        with pytest.raises(ValueError, match=how + ".*one type"):
            estimate(x, y)
    with pytest.raises(ValueError, match="column 0 of X .*" + how):
        cat.count_tables([[value] for value in x], y)
    with pytest.raises(ValueError, match="column 0 of X"):
        cat.filter_scores([[value, 0] for value in x], y)


def test_values_of_one_type_or_distinct_values_of_several_types_are_counted():
    y = [1, 0, 1, 1, 0, 0]
    mixed = [1, "one", 1, "one", None, None]          # different types, nothing alike: three values
    counts, positives = cat.count_tables([[v] for v in mixed], y)
    assert sorted(counts[0].tolist()) == [2, 2, 2]
    assert cat.gini_error_estimate_pairs(mixed, y) == cat.gini_error_estimate_pairs([0, 1, 0, 1, 2, 2], y)
    same = [np.int64(1), 1, 2, 2, 1, 2]                 # numpy and Python ints of one kind: one value each
    assert sorted(cat.count_tables([[v] for v in same], y)[0][0].tolist()) == [3, 3]


# ------------------------------------------------------------------ exact expectations at large m: closed forms, bounded memory

def _large_problem(n_values=100, seed=0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n_values)), rng.uniform(size=n_values)


def test_expected_gini_estimate_at_large_m_is_eq14_without_a_table():
    p, q = _large_problem()
    tracemalloc.start()
    value = cat.expected_gini_estimate(p, q, 10**7)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert value == cat.expected_gini_estimate_eq14(p, q, 10**7)
    assert peak < 10 * 2**20   # the binomial table would be 8 GB


def test_expected_bayes_error_by_windows_equals_the_table_and_stays_small(monkeypatch):
    from tgreedy_lib.categorical import expectations

    p, q = _large_problem(30, seed=1)
    table_value = expectations.expected_bayes_error(p, q, 2000)
    table_bound = expectations.bayes_bias_bound(p, 2000)
    rule = expectations.bayes_rule_table(40)
    table_symmetric = expectations.expected_symmetric_error(p, q, 40, rule)
    monkeypatch.setattr(expectations, "TABLE_ENTRIES", 10)          # force the window sums
    assert expectations.expected_bayes_error(p, q, 2000) == pytest.approx(table_value, rel=1e-13, abs=1e-16)
    assert expectations.bayes_bias_bound(p, 2000) == pytest.approx(table_bound, rel=1e-13)
    assert expectations.expected_symmetric_error(p, q, 40, rule) == pytest.approx(table_symmetric, rel=1e-13)
    monkeypatch.undo()
    p, q = _large_problem(100)
    tracemalloc.start()
    big = expectations.expected_bayes_error(p, q, 10**6)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert cat.bayes_optimal_error(p, q) <= big <= 0.5 and np.isfinite(big)
    assert peak < 50 * 2**20   # the binomial table would be 800 MB


def test_sums_and_tables_past_their_size_are_refused_in_one_line():
    p, q = _large_problem(1000)
    with pytest.raises(ValueError, match=r"needs .* binomial terms .* more than") as info:
        cat.expected_bayes_error(p, q, 10**12)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=r"table of Pr\[c_v = k\] would have .* entries"):
        cat.count_probabilities(p, 10**6)
