from otter.test_files import test_case

OK_FORMAT = False

name = "q2_bounded_differences"
points = 3

@test_case(points=0, hidden=False)
def test_types(largest_change, largest_change_gini, below_remark):
    import numpy as np
    assert isinstance(largest_change, (float, np.floating)) and 0 < largest_change <= 12 / 5, 'a float in (0, 12/m]'
    assert isinstance(largest_change_gini, (float, np.floating)) and 0 < largest_change_gini <= 1, 'a float in (0, 1]'
    assert isinstance(below_remark, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_brute_force_values(largest_change, largest_change_gini, cat, pairs, estimate, gini):
    import itertools
    assert abs(largest_change - cat.estimator_bounded_difference(5, 3)) < 1e-09
    best = 0.0
    for sample in itertools.combinations_with_replacement(pairs, 5):
        g = gini(sample)
        for i in range(5):
            for new in pairs:
                best = max(best, abs(gini(sample[:i] + (new,) + sample[i + 1:]) - g))
    assert abs(largest_change_gini - best) < 1e-09

@test_case(points=None, hidden=True)
def test_compared_with_the_remark(below_remark, largest_change, cat):
    assert abs(largest_change - cat.estimator_bounded_difference(5, 3)) < 1e-09, 'the comparison needs the right change'
    assert below_remark == (largest_change <= 4 / 5) and below_remark

@test_case(points=0, hidden=True)
def test_rule_brute_force(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['largest_change', 'largest_change_gini', 'below_remark'], ['tgreedy_lib.categorical.theorem_bounds'])
    assert not used, "question 2 asks for a brute force, not the library's bounds; your answer uses " + ', '.join(used)

