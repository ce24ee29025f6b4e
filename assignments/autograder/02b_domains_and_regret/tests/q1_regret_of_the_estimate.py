from otter.test_files import test_case

OK_FORMAT = False

name = "q1_regret_of_the_estimate"
points = 2

@test_case(points=0, hidden=False)
def test_one_regret_per_feature(regret_estimate):
    import numpy as np
    assert np.shape(regret_estimate) == (50,), 'one regret per feature: 50 values'

@test_case(points=None, hidden=True)
def test_regret_is_the_squared_error_of_the_mean(regret_estimate, beta, problem):
    import numpy as np
    assert np.allclose(regret_estimate, (beta.mean(axis=0) - problem.effect) ** 2)

@test_case(points=None, hidden=True)
def test_worse_than_zero(worse_than_zero, beta, problem):
    import numpy as np
    expected = np.flatnonzero((beta.mean(axis=0) - problem.effect) ** 2 > problem.effect ** 2)
    assert np.array_equal(np.sort(np.asarray(worse_than_zero)), expected)

