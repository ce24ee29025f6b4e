"""Tests of tgreedy_lib.domain_adaptation.theorems.simulated_selection: T-greedy against greedy on simulated domains."""
import numpy as np
import pytest

from tgreedy_lib.domain_adaptation.theorems.simulate import make_problem
from tgreedy_lib.domain_adaptation.theorems.simulated_selection import compare_selectors, sweep_selectors, training_statistics


def test_tgreedy_avoids_spurious_features_and_has_lower_regret():
    problem = make_problem(n_robust=3, n_spurious=3, n_null=10)
    res = compare_selectors(problem, np.random.default_rng(0), n_domains=8, n_steps=3, n_repeats=30)
    assert res["tgreedy"]["regret"].shape == (30, 4)
    assert res["tgreedy"]["spurious"].shape == (30, 3)
    np.testing.assert_allclose(res["tgreedy"]["regret"][:, 0], res["null_regret"])
    # With 3 robust features, T-greedy's first 3 picks are robust; greedy often takes spurious ones.
    assert res["tgreedy"]["spurious"].mean() < 0.05
    assert res["greedy"]["spurious"].mean() > 0.3
    assert res["tgreedy"]["regret"][:, 3].mean() < res["greedy"]["regret"][:, 3].mean()


def test_new_domain_excess_estimates_exact_regret():
    problem = make_problem(n_robust=2, n_spurious=2, n_null=2)
    res = compare_selectors(problem, np.random.default_rng(1), n_domains=6, n_steps=2, n_repeats=5,
                            n_new_domains=20000)
    for name in ("tgreedy", "greedy"):
        diff = res[name]["new_domain_excess"] - res[name]["regret"]
        assert np.all(np.abs(diff) < 0.05 * (1 + res[name]["regret"]))


def test_deterministic_and_samples_path():
    problem = make_problem(n_robust=2, n_spurious=2, n_null=4)
    a = sweep_selectors(problem, np.random.default_rng(3), (4,), (None, 100), n_steps=3, n_repeats=3, at_step=2)
    b = sweep_selectors(problem, np.random.default_rng(3), (4,), (None, 100), n_steps=3, n_repeats=3, at_step=2)
    assert a == b and len(a) == 2


def test_bad_input():
    problem = make_problem(n_robust=1, n_spurious=1, n_null=1)
    with pytest.raises(ValueError, match="n_domains"):
        training_statistics(problem, np.random.default_rng(0), 1)
    with pytest.raises(ValueError, match="at_step"):
        sweep_selectors(problem, np.random.default_rng(0), (4,), n_steps=2, at_step=3)
