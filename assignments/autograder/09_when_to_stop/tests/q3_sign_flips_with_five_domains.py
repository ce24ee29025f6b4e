from otter.test_files import test_case

OK_FORMAT = False

name = "q3_sign_flips_with_five_domains"
points = 3

@test_case(points=0, hidden=False)
def test_types(draws, n_distinct, smallest_p_value):
    import numpy as np
    assert np.ndim(draws) == 1 and len(draws) > 1, 'draws: one max |T| per sign pattern'
    assert isinstance(n_distinct, (int, np.integer)), 'n_distinct: an int'
    assert isinstance(smallest_p_value, (float, np.floating)) and 0 < smallest_p_value < 1, 'a probability'

@test_case(points=None, hidden=True)
def test_values(draws, n_distinct, smallest_p_value, stopping, stats):
    import numpy as np
    np.testing.assert_allclose(np.sort(draws), np.sort(stopping.sign_flip_max_t(stats.subset([0, 1, 2, 3, 4]).xy)))
    assert n_distinct == 16, '2^5 sign vectors, 16 up to a global flip'
    assert abs(smallest_p_value - 1 / 16) < 1e-12

