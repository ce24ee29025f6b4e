from otter.test_files import test_case

OK_FORMAT = False

name = "q1_theorem1_bias"
points = 2

@test_case(points=None, hidden=False)
def test_returns_a_float(bias, p50, q50):
    assert callable(bias), 'bias must be a function'
    assert isinstance(bias(p50, q50, 20), float), 'a float'

@test_case(points=None, hidden=True)
def test_matches_the_exact_bias(bias, cat, p50, q50):
    import numpy as np
    rng = np.random.default_rng(11)
    cases = [(p50, q50), (np.array([1.0]), np.array([0.6]))]
    for n_values in (3, 30, 300):
        p = rng.dirichlet(np.ones(n_values))
        cases.append((p, rng.uniform(0, 1, n_values)))
    for p, q in cases:
        for m in (1, 2, 7, 50, 1000):
            assert abs(bias(p, q, m) - cat.gini_estimate_bias(p, q, m)) < 1e-12, (len(p), m)

@test_case(points=None, hidden=True)
def test_theorem1_holds(bias):
    import numpy as np
    rng = np.random.default_rng(12)
    for _ in range(50):
        n_values = int(rng.integers(1, 200))
        p, q = (rng.dirichlet(np.ones(n_values)), rng.uniform(0, 1, n_values))
        m = int(rng.integers(1, 500))
        assert -1e-15 <= bias(p, q, m) <= 1 / (2 * m) + 1e-15

