from otter.test_files import test_case

OK_FORMAT = False

name = "q3_stagewise_step"
points = 3

@test_case(points=0, hidden=False)
def test_shapes(residuals_after_step, second_pick, sample_stats, first):
    import numpy as np
    r = residuals_after_step(sample_stats.xy, sample_stats.gram_row(first), first)
    assert np.shape(r) == sample_stats.xy.shape, 'one residual covariance per domain and feature'
    assert isinstance(second_pick, (int, np.integer)) and 0 <= second_pick < 50, 'a feature index'

@test_case(points=None, hidden=True)
def test_residuals_match_the_library(residuals_after_step, sample_stats, first, tgreedy_path):
    import numpy as np
    path = tgreedy_path(sample_stats, n_steps=1)
    assert path.features[0] == first
    expected = sample_stats.residual_covariances(path.coef[0])
    got = residuals_after_step(sample_stats.xy, sample_stats.gram_row(first), first)
    assert np.allclose(got, expected, atol=1e-10)
    assert abs(np.mean(got[:, first])) < 1e-10, "the chosen feature's mean residual covariance is 0"
    rng = np.random.default_rng(5)
    xy, g = (rng.normal(size=(4, 6)), rng.normal(size=(4, 6)))
    g[:, 2] = rng.uniform(0.5, 2.0, 4)
    assert np.allclose(residuals_after_step(xy, g, 2), xy - xy[:, 2].mean() / g[:, 2].mean() * g)

@test_case(points=None, hidden=True)
def test_second_pick(second_pick, sample_stats, tgreedy_path):
    assert second_pick == tgreedy_path(sample_stats, n_steps=2).features[1]

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['residuals_after_step', 'second_pick'], ['tgreedy_lib.domain_adaptation.selection', 'tgreedy_lib.domain_adaptation.selectors', 'tgreedy_lib.domain_adaptation.theorems.simulated_selection', 'tgreedy_lib.domain_adaptation.statistics.DomainStatistics.residual_covariances'])
    assert not used, 'question 3 asks for the step by hand; your answer uses ' + ', '.join(used)

