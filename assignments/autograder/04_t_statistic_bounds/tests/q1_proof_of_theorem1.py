from otter.test_files import test_case

OK_FORMAT = False

name = "q1_proof_of_theorem1"
points = 3

@test_case(points=0, hidden=False)
def test_types(tilde_from_t, t_tail_bound, min_domains, n_min):
    import numpy as np
    assert np.shape(tilde_from_t(np.array([1.0, 2.0]), 5)) == (2,), 'tilde_from_t works on arrays'
    assert 0 < float(t_tail_bound(3.0, 10)) <= 2, 't_tail_bound: a bound on a probability, between 0 and 2'
    assert isinstance(n_min, (int, np.integer)) and n_min > 8, 'n_min: an integer number of domains'

@test_case(points=None, hidden=True)
def test_identity_on_samples(tilde_from_t):
    import numpy as np
    rng = np.random.default_rng(41)
    for n in (2, 3, 8, 30):
        z = rng.standard_cauchy((200, n))
        t = z.mean(axis=1) / (z.std(axis=1, ddof=1) / np.sqrt(n))
        direct = z.sum(axis=1) ** 2 / np.sum(z ** 2, axis=1)
        assert np.allclose(tilde_from_t(t, n), direct, rtol=1e-09), n

@test_case(points=None, hidden=True)
def test_tail_bound_is_the_proofs_and_holds(t_tail_bound, tb):
    import numpy as np
    for n in (4, 8, 12, 30):
        c = np.linspace(0.5, 8, 40)
        bound = np.array([float(t_tail_bound(x, n)) for x in c])
        assert np.allclose(bound, 2 * np.exp(-0.5 * n * c ** 2 / (n - 1 + c ** 2)), rtol=1e-09), n
        for law in ('gaussian', 'rademacher'):
            assert np.all(tb.failure_probability_exact(law, n, c) <= bound + 1e-12), (n, law)

@test_case(points=None, hidden=True)
def test_min_domains(min_domains, n_min, tb):
    for n_features in (1, 2, 10, 500, 2000, 10 ** 6):
        for delta in (0.001, 0.01, 0.05, 0.5):
            assert min_domains(n_features, delta) == tb.min_domains(n_features, delta), (n_features, delta)
    assert n_min == tb.min_domains(500, 0.01)

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['tilde_from_t', 't_tail_bound', 'min_domains', 'n_min'], ['tgreedy_lib'])
    assert not used, 'question 1 asks for your own formulas, without the library; your answer uses ' + ', '.join(used)

