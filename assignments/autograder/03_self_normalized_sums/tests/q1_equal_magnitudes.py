from otter.test_files import test_case

OK_FORMAT = False

name = "q1_equal_magnitudes"
points = 3

@test_case(points=0, hidden=False)
def test_a_probability(equal_magnitude_tail):
    assert callable(equal_magnitude_tail), 'equal_magnitude_tail must be a function'
    value = equal_magnitude_tail(4, 0.5)
    assert isinstance(value, float) and 0 <= value <= 1, 'a probability (float)'

@test_case(points=0, hidden=False)
def test_worst_excess_keys(worst_excess):
    assert isinstance(worst_excess, dict) and sorted(worst_excess) == list(range(1, 13)), 'one entry for each n = 1..12'

@test_case(points=None, hidden=True)
def test_tail_equals_enumeration(equal_magnitude_tail):
    import itertools
    import numpy as np
    for n in range(1, 11):
        ratios = np.array([sum(s) ** 2 / n for s in itertools.product((-1, 1), repeat=n)])
        atoms = np.unique(ratios)
        for t in np.r_[atoms * (1 - 1e-09), atoms * (1 + 1e-09), (atoms[1:] + atoms[:-1]) / 2, 0.05, n + 1.0]:
            if t > 0:
                exact = float(np.mean(ratios > t))
                assert abs(equal_magnitude_tail(n, float(t)) - exact) < 1e-12, (n, t)

@test_case(points=None, hidden=True)
def test_worst_excess(worst_excess, sn):
    for n in range(1, 13):
        assert abs(worst_excess[n] - sn.worst_excess_discrete(*sn.rademacher_atoms(n))[0]) < 1e-09, n

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['equal_magnitude_tail', 'worst_excess'], ['tgreedy_lib'])
    assert not used, 'question 1 asks for your own formula, without the library; your answer uses ' + ', '.join(used)

