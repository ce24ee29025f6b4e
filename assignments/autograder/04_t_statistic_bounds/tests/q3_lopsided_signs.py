from otter.test_files import test_case

OK_FORMAT = False

name = "q3_lopsided_signs"
points = 3

@test_case(points=0, hidden=False)
def test_types(all_signs_agree, one_sign_off_abs_t, rademacher_first_below):
    import numpy as np
    assert 0 < all_signs_agree(5) < 1, 'all_signs_agree: a probability'
    assert isinstance(one_sign_off_abs_t(6), float) and one_sign_off_abs_t(6) > 0, 'one_sign_off_abs_t: a positive float'
    assert isinstance(rademacher_first_below, (int, np.integer)) and rademacher_first_below >= 1, 'a number of features'

@test_case(points=None, hidden=True)
def test_derivations(all_signs_agree, one_sign_off_abs_t):
    import itertools
    import numpy as np
    for n in range(2, 13):
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
        assert abs(all_signs_agree(n) - np.mean(np.all(signs == signs[:, :1], axis=1))) < 1e-12, n
    for n in range(3, 40):
        z = np.r_[np.full(n - 1, 0.7), -0.7]
        assert abs(one_sign_off_abs_t(n) - abs(z.mean() / (z.std(ddof=1) / np.sqrt(n)))) < 1e-09, n

@test_case(points=None, hidden=True)
def test_read_off(rademacher_first_below, coverage_curves, n_features):
    import numpy as np
    exact = int(n_features[np.argmax(coverage_curves['rademacher'] < 0.95)])
    assert abs(rademacher_first_below - exact) <= max(1, 0.25 * exact)

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['all_signs_agree', 'one_sign_off_abs_t'], ['tgreedy_lib'])
    assert not used, 'question 3 asks for your own formulas, without the library; your functions use ' + ', '.join(used)

