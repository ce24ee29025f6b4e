from otter.test_files import test_case

OK_FORMAT = False

name = "q3_missing_mass"
points = 3

@test_case(points=0, hidden=False)
def test_types(expected_singleton_share, expected_missing_mass, ssn_expected_l_hat, ssn_expected_error):
    import numpy as np
    p = np.array([0.5, 0.3, 0.2])
    assert 0 <= expected_singleton_share(p, 4) <= 1 and 0 <= expected_missing_mass(p, 4) <= 1, 'shares of probability'
    assert all((isinstance(v, (float, np.floating)) and 0 <= v <= 0.5 for v in (ssn_expected_l_hat, ssn_expected_error))), 'two floats between 0 and 1/2'

@test_case(points=None, hidden=True)
def test_equal_exact_enumeration(expected_singleton_share, expected_missing_mass):
    import itertools
    import numpy as np
    for p in (np.array([0.5, 0.3, 0.2]), np.array([0.7, 0.1, 0.1, 0.1]), np.array([1.0])):
        for m in range(1, 6):
            singles = missing = 0.0
            for sample in itertools.product(range(p.size), repeat=m):
                prob = np.prod(p[list(sample)])
                c = np.bincount(sample, minlength=p.size)
                singles += prob * np.sum(c == 1) / m
                missing += prob * np.sum(p[c == 0])
            assert abs(expected_singleton_share(p, m) - singles) < 1e-12, (p, m)
            assert abs(expected_missing_mass(p, m) - missing) < 1e-12, (p, m)

@test_case(points=None, hidden=True)
def test_ssn_values_are_the_exact_expectations(ssn_expected_l_hat, ssn_expected_error, cat, p_ssn):
    import numpy as np
    m = 20000
    assert abs(ssn_expected_l_hat - 0.5 * np.sum(p_ssn * (1 - p_ssn) ** (m - 1))) < 1e-09
    assert abs(ssn_expected_error - 0.5 * float(cat.expected_missing_mass(p_ssn, m, 0))) < 1e-09
    assert 0 <= ssn_expected_l_hat - ssn_expected_error <= 1 / (2 * m)
    p, q = (np.full(40, 1 / 40), (np.arange(40) % 2).astype(float))
    assert abs(cat.expected_gini_estimate(p, q, 25) - 0.5 * np.sum(p * (1 - p) ** 24)) < 1e-12
    assert abs(cat.expected_gini_error(p, q, 25) - 0.5 * np.sum(p * (1 - p) ** 25)) < 1e-12

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['expected_singleton_share', 'expected_missing_mass', 'ssn_expected_l_hat', 'ssn_expected_error'], ['tgreedy_lib'])
    assert not used, 'question 3 asks for your own formulas, without the library; your answer uses ' + ', '.join(used)

