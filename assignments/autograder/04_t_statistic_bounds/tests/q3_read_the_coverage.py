from otter.test_files import test_case

OK_FORMAT = False

name = "q3_read_the_coverage"
points = 2

@test_case(points=None, hidden=False)
def test_types(first_below, sigma_zero_probability):
    import numpy as np
    assert isinstance(first_below, str) and first_below.strip().lower() in {'gaussian', 'rademacher'}, "'gaussian' or 'rademacher'"
    assert isinstance(sigma_zero_probability, (float, np.floating)) and 0 < sigma_zero_probability < 1, 'a probability'

@test_case(points=None, hidden=True)
def test_first_below_matches_the_curves(first_below, coverage_curves, n_features):
    import numpy as np
    first = {law: n_features[np.argmax(cov < 0.95)] for law, cov in coverage_curves.items()}
    assert first_below.strip().lower() == min(first, key=first.get)

@test_case(points=None, hidden=True)
def test_sigma_zero_probability(sigma_zero_probability):
    assert abs(sigma_zero_probability - 2.0 ** (-7)) < 1e-12

