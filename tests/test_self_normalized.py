"""Tests of tgreedy_lib.domain_adaptation.theorems.self_normalized: exact tails of (sum Z)^2 / sum Z^2 (Theorem 2)."""
import itertools

import numpy as np
import pytest

from tgreedy_lib.domain_adaptation.theorems import self_normalized as sn
from tgreedy_lib.domain_adaptation.theorems.simulate import symmetric_magnitudes, symmetric_noise


def brute_force_tail(magnitudes, t):
    """All 2^n sign patterns with itertools, no vectorisation."""
    count = 0
    patterns = list(itertools.product((-1.0, 1.0), repeat=len(magnitudes)))
    for signs in patterns:
        z = np.array(signs) * magnitudes
        count += (z.sum() ** 2) / np.sum(z**2) > t
    return count / len(patterns)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_enumeration_matches_itertools_brute_force(n):
    rng = np.random.default_rng(n)
    magnitudes = symmetric_magnitudes(rng, "cauchy", n)
    t = np.array([0.05, 0.5, 0.99, 1.5, 2.7, n - 0.01])
    expected = [brute_force_tail(magnitudes, ti) for ti in t]
    np.testing.assert_allclose(sn.exact_tail_given_magnitudes(magnitudes, t), expected, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 12, 40])
def test_rademacher_closed_form_matches_enumeration(n):
    t = np.linspace(0.05, n + 0.5, 37)
    expected = sn.exact_tail_given_magnitudes(np.ones(min(n, 12)), t) if n <= 12 else None
    got = sn.rademacher_tail(n, t)
    if expected is not None:
        np.testing.assert_allclose(got, expected, atol=1e-12)
    values, probs = sn.rademacher_atoms(n)
    assert probs.sum() == pytest.approx(1.0)
    assert values.max() == pytest.approx(n)  # all signs equal
    assert probs[-1] == pytest.approx(2.0 ** (1 - n))


@pytest.mark.parametrize("distribution, n", [("gaussian", 5), ("cauchy", 4), ("uniform", 7), ("pareto", 3)])
def test_exact_mixture_over_magnitudes_matches_monte_carlo(distribution, n):
    """Averaging the exact sign-pattern tail over drawn |Z| is the tail of the law (the proof's symmetrization)."""
    rng = np.random.default_rng(123)
    t = np.array([0.3, 1.0, 2.0, 3.5])
    magnitudes = symmetric_magnitudes(rng, distribution, (400, n))
    exact_mix = np.mean([sn.exact_tail_given_magnitudes(m, t) for m in magnitudes], axis=0)
    estimate, se = sn.monte_carlo_tail(rng, distribution, n, t, n_trials=60000)
    # Exact-given-magnitude averaging has its own sampling error from 400 magnitude draws.
    exact_se = np.std([sn.exact_tail_given_magnitudes(m, t) for m in magnitudes], axis=0) / np.sqrt(400)
    assert np.all(np.abs(exact_mix - estimate) < 4 * np.sqrt(se**2 + exact_se**2) + 1e-9)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 30])
def test_gaussian_beta_law_matches_monte_carlo(n):
    rng = np.random.default_rng(7)
    t = np.array([0.1, 0.5, 0.9, 2.0, 4.0])
    estimate, se = sn.monte_carlo_tail(rng, "gaussian", n, t, n_trials=40000)
    exact = sn.gaussian_tail(n, t)
    assert np.all(np.abs(estimate - exact) <= 4 * se + 1e-12)


def test_printed_bound_fails_for_n_equal_one():
    """n = 1: the ratio is identically 1, so Pr[ratio > t] = 1 > exp(-t/2) for every t in (0, 1)."""
    t = np.array([0.1, 0.5, 0.999])
    assert np.all(sn.rademacher_tail(1, t) == 1.0)
    assert np.all(sn.gaussian_tail(1, t) == 1.0)
    assert np.all(sn.printed_bound(t) < 1.0)
    excess, atom, tail = sn.worst_excess_discrete(*sn.rademacher_atoms(1))
    assert atom == 1.0 and tail == 1.0
    assert excess == pytest.approx(1 - np.exp(-0.5))


def test_printed_bound_fails_for_n_two_at_t_below_two():
    # Two equal magnitudes: ratio is 2 with probability 1/2, else 0.
    assert sn.rademacher_tail(2, 1.999) == pytest.approx(0.5)
    assert sn.printed_bound(1.999) < 0.37


def test_proof_bound_holds_for_every_realization():
    """Hoeffding: Pr_eps[ratio > t] <= 2 exp(-t/2) for every fixed |z| (checked on random and extremal |z|)."""
    rng = np.random.default_rng(99)
    t = np.geomspace(0.01, 20, 300)
    for n in range(1, 13):
        cases = [np.ones(n), np.r_[1.0, np.full(n - 1, 1e-3)], symmetric_magnitudes(rng, "pareto", n)]
        for m in cases:
            assert np.all(sn.exact_tail_given_magnitudes(m, t) <= sn.proof_bound(t) + 1e-12)
            assert np.all(sn.one_sided_tail_given_magnitudes(m, t) <= sn.printed_bound(t) + 1e-12)


def test_dominant_magnitude_violates_printed_bound_at_larger_n():
    values, probs = sn.sign_pattern_distribution(np.r_[1.0, np.full(9, 1e-3)])
    excess, atom, tail = sn.worst_excess_discrete(values, probs)
    assert excess > 0.35


def test_ratio_of_all_zero_is_zero_and_bounded_by_n():
    assert sn.self_normalized_ratio(np.zeros(4)) == 0.0
    z = symmetric_noise(np.random.default_rng(1), "cauchy", (1000, 6))
    r = sn.self_normalized_ratio(z)
    assert np.all((r >= 0) & (r <= 6 + 1e-12))


@pytest.mark.parametrize("bad_t", [0.0, -1.0, np.inf, np.nan])
def test_bad_t_raises(bad_t):
    with pytest.raises(ValueError, match="t must be positive"):
        sn.rademacher_tail(3, bad_t)


def test_bad_n_raises():
    with pytest.raises(ValueError, match="n must be a positive integer"):
        sn.gaussian_tail(0, 1.0)
    with pytest.raises(ValueError, match="too large"):
        sn.sign_patterns(sn.MAX_ENUMERATION_N + 1)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_dominant_magnitude_closed_form_matches_enumeration(n):
    values, probs = sn.dominant_magnitude_atoms(n, 0.01)
    assert probs.sum() == pytest.approx(1.0)
    t = np.array([0.5, 0.95, 0.99, 1.01, 1.05])
    closed = np.array([probs[values > ti].sum() for ti in t])
    enumerated = sn.exact_tail_given_magnitudes(np.r_[1.0, np.full(n - 1, 0.01)], t)
    np.testing.assert_allclose(closed, enumerated, atol=1e-12)


def test_dominant_magnitude_violates_printed_bound_for_every_n():
    """Bounded, independent, symmetric Z_i (not identically distributed): violation at every n <= 50."""
    for n in range(1, 51):
        excess, atom, tail = sn.worst_excess_discrete(*sn.dominant_magnitude_atoms(n, 1e-3))
        assert excess > 0.3, n


def test_theorem2_excess_grid_is_the_worst_case_bound_minus_the_printed_one():
    table = sn.theorem2_excess(range(1, 4), t=[0.5, 2.0, 8.0])
    assert table["excess"].shape == (3, 3)
    # n = 1: the ratio is identically 1, so Pr[ratio > t] = 1 for t < 1 and the printed bound fails there
    np.testing.assert_allclose(table["excess"][0, 0], 1 - np.exp(-0.25))
    for i, n in enumerate(table["n"]):
        np.testing.assert_allclose(table["excess"][i], sn.worst_case_tail_lower_bound(int(n), table["t"]) - np.exp(-table["t"] / 2))


def test_tail_curves_default_grid_and_order():
    curves = sn.tail_curves(3, distributions=("gaussian", "rademacher"))
    assert list(curves) == ["n", "t", "printed", "proof", "gaussian", "rademacher"]
    assert curves["t"].size == 400 and curves["t"][0] == 0.02 and curves["t"][-1] == 6.0
    np.testing.assert_allclose(curves["rademacher"], sn.rademacher_tail(3, curves["t"]))
