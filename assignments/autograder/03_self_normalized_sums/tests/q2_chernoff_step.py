from otter.test_files import test_case

OK_FORMAT = False

name = "q2_chernoff_step"
points = 3

@test_case(points=0, hidden=False)
def test_functions_return_floats(best_lambda, chernoff_bound):
    import numpy as np
    z = np.array([1.0, 0.5, 2.0, 1.5])
    assert isinstance(best_lambda(z, 2.0), float) and best_lambda(z, 2.0) > 0, 'best_lambda: a positive float'
    value = chernoff_bound(z, 2.0)
    assert isinstance(value, float) and 0 < value <= 1, 'chernoff_bound: a float in (0, 1]'

@test_case(points=None, hidden=True)
def test_best_lambda_minimises_the_gaussian_bound(best_lambda):
    import numpy as np
    rng = np.random.default_rng(31)
    for _ in range(20):
        z, t = (rng.exponential(size=int(rng.integers(1, 12))), float(rng.uniform(0.1, 20)))
        s2, a = (float(np.sum(z ** 2)), float(np.sqrt(t * np.sum(z ** 2))))
        lam = best_lambda(z, t)
        assert abs(lam - a / s2) < 1e-09 * (1 + a / s2)
        assert abs(np.exp(-lam * a + lam ** 2 * s2 / 2) - np.exp(-t / 2)) < 1e-12

@test_case(points=None, hidden=True)
def test_chernoff_bound_between_the_exact_tail_and_exp(chernoff_bound, sn):
    import numpy as np
    from scipy import optimize
    rng = np.random.default_rng(32)
    for _ in range(25):
        z = rng.exponential(size=int(rng.integers(2, 11)))
        t = float(rng.uniform(0.05, 0.9) * np.sum(z) ** 2 / np.sum(z ** 2))
        bound = chernoff_bound(z, t)
        exact = float(sn.one_sided_tail_given_magnitudes(z, t))
        assert exact <= bound + 1e-09, 'a bound: never below the exact one-sided tail (all 2^n signs)'
        assert bound <= np.exp(-t / 2) + 1e-09, 'at most the Gaussian-relaxed bound exp(-t/2)'
        a = np.sqrt(t * np.sum(z ** 2))
        f = lambda lam: -lam * a + np.sum(np.logaddexp(lam * z, -lam * z) - np.log(2))
        best = optimize.minimize_scalar(f, bounds=(0, 50 * a / np.sum(z ** 2) + 50), method='bounded', options={'xatol': 1e-12}).fun
        assert abs(np.log(bound) - best) < 1e-05, 'the minimum over lambda'

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['best_lambda', 'chernoff_bound'], ['tgreedy_lib'])
    assert not used, 'question 2 asks you to redo the step yourself, without the library; your functions use ' + ', '.join(used)

