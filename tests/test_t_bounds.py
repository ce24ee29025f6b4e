"""Tests of tgreedy_lib.domain_adaptation.theorems.t_bounds: Theorem 1's algebra and coverage, Corollary 3's constants."""
import math

import numpy as np
import pytest
from scipy import stats

from tgreedy_lib.domain_adaptation.theorems import t_bounds as tb
from tgreedy_lib.domain_adaptation.theorems.simulate import symmetric_noise


@pytest.mark.parametrize("distribution", ["gaussian", "cauchy", "rademacher", "pareto"])
@pytest.mark.parametrize("n", [2, 3, 9, 30])
def test_appendix_identity_between_t_and_t_tilde(distribution, n):
    rng = np.random.default_rng(n)
    z = symmetric_noise(rng, distribution, (n, 500))
    t = tb.t_statistic(z)
    tilde = tb.tilde_t_squared(z)
    np.testing.assert_allclose(tb.tilde_from_t_printed(t, n), tilde, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(tb.tilde_from_t(t, n), tilde, rtol=1e-9, atol=1e-9)


def test_t_statistic_matches_scipy_and_handles_zero_spread():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 5))
    np.testing.assert_allclose(tb.t_statistic(x, center=0.1), stats.ttest_1samp(x, 0.1).statistic)
    assert tb.t_statistic(np.full((4, 1), 2.0))[0] == np.inf
    assert tb.t_statistic(np.zeros((4, 1)))[0] == 0.0
    with pytest.raises(ValueError, match="n >= 2"):
        tb.t_statistic(np.ones((1, 3)))


def test_size_condition_at_the_papers_number_of_domains():
    # (delta/2) e^(n/8) < 1 at n = 8 or 9 for every usual delta: the theorem admits no feature.
    for n in (8, 9):
        for delta in (0.01, 0.05, 0.1, 0.5):
            assert tb.max_features(n, delta) < 1
    assert tb.min_domains(1, 0.05) == 30
    assert tb.min_domains(2000, 0.05) == 91


def test_widths_ordering_and_asymptotics():
    f = np.array([1.0, 10.0, 2000.0, 1e30])
    paper = tb.paper_factor(f, 0.05)
    normal = tb.normal_factor(f, 0.05)
    assert np.all(normal < paper)
    # "the constant of 4 would become a 2": normal^2 / log(2F/delta) -> 2 slowly (from below).
    ratio = normal ** 2 / np.log(2 * f / 0.05)
    assert np.all(np.diff(ratio) > 0) and 1.8 < ratio[-1] < 2.0
    # with 8 domains the exact Gaussian Bonferroni width exceeds the paper's for many features
    assert tb.bonferroni_t_factor(8, 2000, 0.05) > tb.paper_factor(2000, 0.05)


def test_rademacher_failure_probability_includes_zero_spread_atom():
    # All n signs agree with probability 2^(1-n): sigma_hat = 0 and |T| = inf.
    for n in (3, 8, 12):
        assert tb.failure_probability_exact("rademacher", n, 1e6) == pytest.approx(2.0 ** (1 - n))


@pytest.mark.parametrize("distribution", ["gaussian", "rademacher"])
def test_exact_failure_matches_monte_carlo(distribution):
    rng = np.random.default_rng(4)
    c = np.array([1.0, 2.0, 3.5])
    p_mc, se = tb.failure_probability_monte_carlo(rng, distribution, 6, c, n_trials=40000)
    p = tb.failure_probability_exact(distribution, 6, c)
    assert np.all(np.abs(p_mc - p) <= 4 * se + 1e-12)


def test_coverage_holds_under_condition_and_fails_without_it():
    rng = np.random.default_rng(5)
    # Admissible: n = 24, delta = 0.5 admits floor(0.25 e^3) = 5 features.
    assert math.floor(tb.max_features(24, 0.5)) == 5
    cov, se = tb.coverage_monte_carlo(rng, "cauchy", 24, 5, 0.5, n_trials=3000)
    assert cov > 0.5
    # Dropped: n = 8 domains, 2000 features, delta = 0.05, Rademacher effects.
    cov, se = tb.coverage_monte_carlo(rng, "rademacher", 8, 2000, 0.05, n_trials=200)
    expected = tb.coverage_independent(tb.failure_probability_exact("rademacher", 8, tb.paper_factor(2000, 0.05)), 2000)
    assert cov < 0.95 and abs(cov - expected) <= 4 * math.sqrt(max(expected * (1 - expected), 1e-3) / 200)


def test_proof_factor_is_below_printed_under_condition():
    for n in (30, 64, 100):
        f_max = int(tb.max_features(n, 0.05))
        for f in range(1, f_max + 1, max(1, f_max // 5)):
            assert tb.proof_factor(n, f, 0.05) <= math.sqrt(8 / 3 * math.log(2 * f / 0.05)) + 1e-12
            assert tb.proof_factor(n, f, 0.05) <= tb.paper_factor(f, 0.05)
    assert np.isinf(tb.proof_factor(8, 10**6, 0.05))


def test_corollary_constants():
    # The printed factor is smaller than what the proof supports for small p.
    assert tb.corollary_printed_factor(1, 1, 0.05) == pytest.approx(math.log(40))
    assert tb.corollary_proof_factor(1, 1, 0.05) == pytest.approx(4 * math.log(40))
    for p, q in [(2, 1), (5, 2), (100, 3)]:
        assert tb.corollary_proof_factor(p, q, 0.05) <= tb.corollary_proof_factor_simplified(p, q, 0.05) + 1e-12
    assert tb.corollary_min_domains(1, 1, 0.05) == 30
    with pytest.raises(ValueError, match="exceeds"):
        tb.corollary_printed_factor(2, 3, 0.05)


def test_corollary_printed_bound_fails_at_p_1():
    n = tb.corollary_min_domains(1, 1, 0.05)
    exact = tb.failure_probability_exact("gaussian", n, math.sqrt(tb.corollary_printed_factor(1, 1, 0.05)))
    assert exact > 0.06
    sim = tb.subset_regret_simulation(np.random.default_rng(6), "gaussian", n, 1, 1, 0.05, n_trials=20000)
    freq = np.mean(sim["worst_ratio_printed"] > 1)
    assert abs(freq - exact) < 4 * math.sqrt(exact * (1 - exact) / 20000)
    assert np.mean(sim["worst_ratio_proof"] > 1) < 0.05


def test_subset_simulation_identity_basis_matches_direct_regret():
    rng = np.random.default_rng(10)
    sim = tb.subset_regret_simulation(rng, "laplace", 12, 3, 2, 0.1, n_trials=50)
    rng = np.random.default_rng(10)
    effects = symmetric_noise(rng, "laplace", (50, 12, 3))
    for j, s in enumerate(sim["subsets"]):
        direct = np.sum(effects[:, :, s].mean(axis=1) ** 2, axis=1)
        np.testing.assert_allclose(sim["regret"][:, j], direct)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 2.0])
def test_bad_delta_raises(delta):
    with pytest.raises(ValueError, match="delta must lie in"):
        tb.paper_factor(10, delta)


@pytest.mark.parametrize("axis", [0, 1])
def test_the_one_t_statistic_is_the_one_sample_t_test_on_any_axis(axis):
    from tgreedy_lib.domain_adaptation.statistics import t_statistic

    effects = symmetric_noise(np.random.default_rng(12), "laplace", (9, 40)) + 0.3
    effects = effects if axis == 0 else effects.T
    np.testing.assert_allclose(t_statistic(effects, axis=axis), stats.ttest_1samp(effects, 0.0, axis=axis).statistic,
                               rtol=1e-12)
    np.testing.assert_allclose(t_statistic(effects, axis=axis, center=0.3),
                               stats.ttest_1samp(effects, 0.3, axis=axis).statistic, rtol=1e-10)
    assert tb.t_statistic is t_statistic  # Theorem 1's T is the selectors' T


def test_the_one_t_statistic_takes_its_limits_where_sigma_is_zero():
    from tgreedy_lib.domain_adaptation.statistics import t_statistic

    values = np.array([[1.0, 0.0, -2.0, 1.0], [1.0, 0.0, -2.0, 3.0]])  # two domains, four features
    assert t_statistic(values).tolist()[:3] == [np.inf, 0.0, -np.inf]
    assert t_statistic(values, center=1.0)[0] == 0.0 and t_statistic(values, center=3.0)[0] == -np.inf
    assert t_statistic(values.T, axis=1).tolist()[:3] == [np.inf, 0.0, -np.inf]
    assert t_statistic(np.array([2.0, 2.0, 2.0])) == np.inf  # one feature: a 0-d result
    with pytest.raises(ValueError, match="at least two domains"):
        t_statistic(np.ones((1, 3)))
    with pytest.raises(ValueError, match="at least two domains"):
        t_statistic(np.ones((3, 1)), axis=1)


def test_coverage_curves_are_the_exact_coverage_of_the_papers_width():
    f = np.array([1.0, 10.0, 1000.0])
    curves = tb.coverage_curves(8, 0.05, f, rng=np.random.default_rng(0), n_trials=2000)
    c = tb.paper_factor(f, 0.05)
    expected = tb.coverage_independent(tb.failure_probability_exact("gaussian", 8, c), f)
    np.testing.assert_allclose(curves["exact"]["gaussian"], expected)
    assert set(curves["monte_carlo"]) == {"cauchy"} and np.all(np.diff(curves["exact"]["rademacher"]) <= 1e-12)
    assert curves["max_features"] == pytest.approx(float(tb.max_features(8, 0.05)))
    with pytest.raises(ValueError, match="rng"):
        tb.coverage_curves(8, 0.05, f)


def test_corollary_failure_curves_show_the_printed_factor_failing_at_small_delta():
    curves = tb.corollary_failure_curves([1e-4, 0.05], p_values=(1,))
    # the README's worst case: p = q = 1, delta = 1e-4 fails with probability ~23 delta; the proof's factor holds
    assert curves["printed"][1][0] > 10 * 1e-4
    assert np.all(curves["proof"][1] <= np.array([1e-4, 0.05]))


def test_coverage_curves_bound_a_monte_carlo_zero_by_the_rule_of_three():
    f = np.array([1.0, 100.0, 20000.0])
    curves = tb.coverage_curves(8, 0.05, f, rng=np.random.default_rng(0), n_trials=2000)
    mc = curves["monte_carlo"]["cauchy"]
    assert np.all(mc["lower"] <= mc["estimate"] + 1e-12)
    zero = mc["failures"] == 0
    assert zero.any(), "at |F| = 20000 no Cauchy draw of 2000 exceeds the width"
    p_upper = 1 - 0.05 ** (1 / 2000)                       # Clopper-Pearson with no failure, ~ 3/N
    assert p_upper == pytest.approx(3 / 2000, rel=0.01)
    np.testing.assert_allclose(mc["lower"][zero], (1 - p_upper) ** f[zero], rtol=1e-9)
    assert np.all(mc["estimate"][zero] == 1.0) and np.all(mc["lower"][zero] < 1.0)


def test_first_features_below_is_where_the_exact_coverage_crosses_the_target():
    first = tb.first_features_below(8, 0.05, 0.95)
    coverage = lambda f: float(tb.coverage_independent(tb.failure_probability_exact("gaussian", 8, tb.paper_factor(f, 0.05)), f))
    assert coverage(first) < 0.95 <= coverage(first - 1)
