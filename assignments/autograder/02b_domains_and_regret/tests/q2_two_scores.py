from otter.test_files import test_case

OK_FORMAT = False

name = "q2_two_scores"
points = 2

@test_case(points=0, hidden=False)
def test_one_t_per_feature(t_abs):
    import numpy as np
    assert np.shape(t_abs) == (50,) and np.all(np.asarray(t_abs) >= 0), '50 non-negative |T| values'

@test_case(points=None, hidden=True)
def test_t_and_first_picks(t_abs, greedy_first, tgreedy_first, beta, problem, n):
    import numpy as np
    mu = beta.mean(axis=0)
    t = np.abs(mu) / (beta.std(axis=0, ddof=1) / np.sqrt(n))
    assert np.allclose(t_abs, t)
    assert greedy_first == problem.kind[np.argmax(mu ** 2)] and tgreedy_first == problem.kind[np.argmax(t)]

