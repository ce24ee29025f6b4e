from otter.test_files import test_case

OK_FORMAT = False

name = "q4_sparse_input"
points = 2

@test_case(points=None, hidden=False)
def test_types(same_features, largest_coef_difference, dense_gram_gib):
    import numpy as np
    assert isinstance(same_features, (bool, np.bool_)), 'True or False'
    assert isinstance(largest_coef_difference, (float, np.floating)) and largest_coef_difference >= 0, 'a difference >= 0'
    assert isinstance(dense_gram_gib, (int, float, np.number)) and dense_gram_gib > 0, 'a positive number of GiB'

@test_case(points=None, hidden=True)
def test_sparse_equals_dense(same_features, largest_coef_difference):
    assert same_features, 'sparse input gives the dense path'
    assert largest_coef_difference < 1e-10, 'equal to rounding'

@test_case(points=None, hidden=True)
def test_gram_size(dense_gram_gib, counts, n_sources):
    assert abs(dense_gram_gib - n_sources * counts.shape[1] ** 2 * 8 / 2 ** 30) < 1e-09, 'sources x words x words x 8 bytes, in 2**30'

