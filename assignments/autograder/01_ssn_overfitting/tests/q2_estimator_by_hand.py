from otter.test_files import test_case

OK_FORMAT = False

name = "q2_estimator_by_hand"
points = 3

@test_case(points=0, hidden=False)
def test_is_a_function_returning_a_number(l_hat, X, y):
    assert callable(l_hat), 'l_hat must be a function'
    value = l_hat(X[:, 1], y)
    assert isinstance(value, float) and 0 <= value <= 1, 'a float between 0 and 1'

@test_case(points=None, hidden=True)
def test_equals_eq9_on_every_feature(l_hat, X, y, scores):
    for j in range(X.shape[1]):
        assert abs(l_hat(X[:, j], y) - scores['gini_estimate'][j]) < 1e-12, f'feature {j}'

@test_case(points=None, hidden=True)
def test_values_seen_once_cost_one_half(l_hat):
    import numpy as np
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    assert abs(l_hat(np.arange(8), y) - 0.5) < 1e-12, 'all values distinct: the estimate is 1/2'
    assert abs(l_hat(np.zeros(8, dtype=int), y) - 2 * 8 / 7 * 0.25) < 1e-12

@test_case(points=None, hidden=True)
def test_equals_leave_one_out(l_hat, cat):
    import numpy as np
    rng = np.random.default_rng(7)
    x, y = (rng.integers(0, 6, 40), rng.integers(0, 2, 40))
    assert abs(l_hat(x, y) - cat.gini_error_estimate_leave_one_out(x, y)) < 1e-12

@test_case(points=0, hidden=True)
def test_rule_l_hat_by_hand(env, cat):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['l_hat'], [cat], allowed=[cat.count_table])
    assert not used, 'question 2 allows only cat.count_table from the library; l_hat uses ' + ', '.join(used)

