"""Tests of tgreedy_lib.domain_adaptation.theorems.simulate: symmetric domain effects and synthetic domain problems."""
import numpy as np
import pytest
from scipy import stats

from tgreedy_lib.domain_adaptation.theorems.simulate import DISTRIBUTIONS, domain_effects, make_problem, risk_on_domains, symmetric_noise


@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
def test_draws_and_their_reflection_have_matching_quantiles(distribution):
    rng = np.random.default_rng(11)
    mean = np.array([0.7, -2.0, 0.0])
    effects = domain_effects(rng, mean, 4000, distribution, scale=[1.0, 0.5, 3.0])
    assert effects.shape == (4000, 3)
    reflected = 2 * mean - effects
    for j in range(3):
        # Two-sample KS test: draws and their reflection about the mean come from one law.
        assert stats.ks_2samp(effects[:, j], reflected[:, j]).pvalue > 1e-3
        # Lower and upper tails match at the quartiles and deciles of |effect - mean|.
        centred = effects[:, j] - mean[j]
        for x in np.quantile(np.abs(centred), [0.1, 0.25, 0.5, 0.75, 0.9]):
            below, above = np.mean(centred < -x), np.mean(centred > x)
            assert abs(below - above) < 0.035, (x, below, above)

def test_rademacher_effects_are_exactly_symmetric_two_point():
    rng = np.random.default_rng(2)
    effects = domain_effects(rng, [1.0], 10000, "rademacher", scale=0.25)
    assert set(np.round(np.unique(effects), 12)) == {0.75, 1.25}
    # Binomial test of the fair sign.
    k = int(np.sum(effects > 1.0))
    assert stats.binomtest(k, effects.size, 0.5).pvalue > 1e-3


def test_sign_is_independent_of_magnitude():
    rng = np.random.default_rng(3)
    z = symmetric_noise(rng, "laplace", 20000)
    positive, negative = np.abs(z[z > 0]), np.abs(z[z < 0])
    assert stats.ks_2samp(positive, negative).pvalue > 1e-3


def test_same_seed_same_draws_and_shape():
    a = domain_effects(np.random.default_rng(5), np.zeros(7), 9, "cauchy")
    b = domain_effects(np.random.default_rng(5), np.zeros(7), 9, "cauchy")
    assert a.shape == (9, 7)
    np.testing.assert_array_equal(a, b)


def test_student_t_with_df_one_matches_cauchy_quantiles():
    rng = np.random.default_rng(4)
    t1 = symmetric_noise(rng, "student_t", 20000, df=1.0)
    cauchy = symmetric_noise(rng, "cauchy", 20000)
    assert stats.ks_2samp(t1, cauchy).pvalue > 1e-3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(distribution="lognormal"), "unknown distribution"),
        (dict(distribution="student_t", df=-1.0), "df must be"),
        (dict(scale=-1.0), "non-negative"),
        (dict(n_domains=0), "n_domains"),
    ],
)
def test_bad_input_raises_value_error(kwargs, message):
    args = dict(rng=np.random.default_rng(0), mean=np.zeros(2), n_domains=3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        domain_effects(**args)


def test_problem_moments_and_samples_are_consistent():
    problem = make_problem(n_robust=2, n_spurious=2, n_null=3, noise_sd=0.5)
    assert problem.n_features == 7
    np.testing.assert_array_equal(problem.robust, [0, 1])
    np.testing.assert_array_equal(problem.spurious, [2, 3])
    rng = np.random.default_rng(8)
    xx, xy, yy = problem.draw_moments(rng, 5)
    assert xx.shape == (5, 7, 7) and xy.shape == (5, 7) and yy.shape == (5,)
    np.testing.assert_allclose(yy, np.sum(xy**2, axis=1) + 0.25)
    # Samples from given domains: the sample covariance approaches E[XY | d].
    domains = problem.draw_samples(rng, 2, 40000, coefficients=xy[:2])
    for (X, y), beta in zip(domains, xy[:2]):
        assert X.shape == (40000, 7) and y.shape == (40000,)
        np.testing.assert_allclose(X.T @ y / len(y), beta, atol=0.06)


def test_risk_on_domains_matches_sample_risk_and_regret_formula():
    problem = make_problem(n_robust=1, n_spurious=1, n_null=1, spurious_spread=0.5)
    rng = np.random.default_rng(9)
    xx, xy, yy = problem.draw_moments(rng, 3)
    w = np.array([0.2, -0.1, 0.05])
    risk = risk_on_domains(w, xx, xy, yy)
    domains = problem.draw_samples(rng, 3, 100000, coefficients=xy)
    sample_risk = [np.mean((y - X @ w) ** 2) for X, y in domains]
    np.testing.assert_allclose(risk, sample_risk, rtol=0.03)
    # Averaged over many new domains, the excess over w* = E[XY] is the regret ||w - E[XY]||^2.
    xx, xy, yy = problem.draw_moments(rng, 200000)
    excess = risk_on_domains(np.vstack([w, problem.effect]), xx, xy, yy).mean(axis=1)
    assert abs((excess[0] - excess[1]) - problem.regret(w)) < 0.01
    for law, df in [("cauchy", 3.0), ("pareto", 3.0), ("student_t", 1.0)]:
        with pytest.raises(ValueError, match="no mean"):
            make_problem(n_robust=1, n_spurious=1, n_null=1, distribution=law, df=df).regret(w)
    assert np.isfinite(make_problem(n_robust=1, n_spurious=1, n_null=1, distribution="student_t", df=2.0).regret(w))
