from otter.test_files import test_case

OK_FORMAT = False

name = "q1_domains_for_2000_features"
points = 2

@test_case(points=None, hidden=False)
def test_types(n_min, coverage):
    import numpy as np
    assert isinstance(n_min, (int, np.integer)) and n_min > 8, 'n_min: an integer number of domains'
    assert isinstance(coverage, dict) and set(coverage) == {'gaussian', 'rademacher'}, "coverage: a dict with keys 'gaussian' and 'rademacher'"

@test_case(points=None, hidden=True)
def test_n_min_is_the_smallest_admissible(n_min, tb):
    assert tb.max_features(n_min, 0.05) >= 2000 > tb.max_features(n_min - 1, 0.05)

@test_case(points=None, hidden=True)
def test_coverage_values(coverage, n_min, tb):
    c = tb.paper_factor(2000, 0.05)
    for law in ('gaussian', 'rademacher'):
        exact = float(tb.coverage_independent(tb.failure_probability_exact(law, n_min, c), 2000))
        assert abs(coverage[law] - exact) < 1e-06, law
        assert 0.95 <= coverage[law] <= 1.0, 'Theorem 1 holds within its condition: coverage at least 1 - delta'

