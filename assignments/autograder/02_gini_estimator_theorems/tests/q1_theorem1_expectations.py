from otter.test_files import test_case

OK_FORMAT = False

name = "q1_theorem1_expectations"
points = 3

@test_case(points=0, hidden=False)
def test_types(expected_l_hat, expected_gini_error, bias_30):
    import numpy as np
    p, q = (np.array([0.6, 0.4]), np.array([0.2, 0.7]))
    assert isinstance(expected_l_hat(p, q, 3), float) and isinstance(expected_gini_error(p, q, 3), float), 'floats'
    assert isinstance(bias_30, (float, np.floating)), 'bias_30: a float'

@test_case(points=None, hidden=True)
def test_equal_exact_enumeration(expected_l_hat, expected_gini_error, cat):
    import itertools
    import numpy as np
    p, q = (np.array([0.5, 0.3, 0.2]), np.array([0.9, 0.5, 0.2]))
    examples = [(v, label) for v in range(3) for label in range(2)]
    for m in (1, 2, 3, 4):
        e_hat = e_err = 0.0
        for sample in itertools.product(examples, repeat=m):
            prob = np.prod([p[v] * (q[v] if label else 1 - q[v]) for v, label in sample])
            c = np.bincount([v for v, _ in sample], minlength=3)
            c_plus = np.bincount([v for v, label in sample if label], minlength=3)
            e_hat += prob * float(cat.gini_error_estimate(c, c_plus))
            e_err += prob * float(cat.generalization_error(cat.gini_hypothesis(c, c_plus), p, q))
        assert abs(expected_l_hat(p, q, m) - e_hat) < 1e-12, m
        assert abs(expected_gini_error(p, q, m) - e_err) < 1e-12, m

@test_case(points=None, hidden=True)
def test_match_the_library_and_theorem1(expected_l_hat, expected_gini_error, bias_30, cat, p30, q30):
    import numpy as np
    rng = np.random.default_rng(12)
    for _ in range(30):
        n_values = int(rng.integers(1, 200))
        p, q, m = (rng.dirichlet(np.ones(n_values)), rng.uniform(0, 1, n_values), int(rng.integers(1, 500)))
        assert abs(expected_l_hat(p, q, m) - cat.expected_gini_estimate(p, q, m)) < 1e-12
        assert abs(expected_gini_error(p, q, m) - cat.expected_gini_error(p, q, m)) < 1e-12
        assert -1e-15 <= expected_l_hat(p, q, m) - expected_gini_error(p, q, m) <= 1 / (2 * m) + 1e-15
    assert abs(bias_30 - cat.gini_estimate_bias(p30, q30, 12)) < 1e-12

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['expected_l_hat', 'expected_gini_error', 'bias_30'], ['tgreedy_lib'])
    assert not used, 'question 1 asks for your own formulas, without the library; your answer uses ' + ', '.join(used)

