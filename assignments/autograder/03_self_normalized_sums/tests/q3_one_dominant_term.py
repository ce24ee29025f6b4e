from otter.test_files import test_case

OK_FORMAT = False

name = "q3_one_dominant_term"
points = 2

@test_case(points=0, hidden=False)
def test_types(smallest_ratio, reason):
    assert callable(smallest_ratio) and isinstance(smallest_ratio(3, 0.1), float), 'smallest_ratio returns a float'
    assert isinstance(reason, str) and reason.strip().upper() in {'A', 'B', 'C'}, "reason: 'A', 'B' or 'C'"

@test_case(points=None, hidden=True)
def test_smallest_ratio_equals_enumeration(smallest_ratio, sn):
    import numpy as np
    rng = np.random.default_rng(33)
    for n in range(2, 12):
        for eps in rng.uniform(0.001, 0.999 / (n - 1), 4):
            exact = float(sn.sign_pattern_distribution(np.r_[1.0, np.full(n - 1, eps)])[0][0])
            assert abs(smallest_ratio(n, float(eps)) - exact) < 1e-09, (n, eps)

@test_case(points=None, hidden=True)
def test_reason(reason, smallest_ratio, sn):
    import numpy as np
    for n, eps in ((3, 0.2), (6, 0.05), (11, 0.01)):
        exact = float(sn.sign_pattern_distribution(np.r_[1.0, np.full(n - 1, eps)])[0][0])
        assert abs(smallest_ratio(n, eps) - exact) < 1e-09, 'the explanation your formula supports: (a) first'
    assert reason.strip().upper() == 'B'

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['smallest_ratio'], ['tgreedy_lib'])
    assert not used, 'question 3 asks for your own formula, without the library; smallest_ratio uses ' + ', '.join(used)

