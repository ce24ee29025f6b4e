from otter.test_files import test_case

OK_FORMAT = False

name = "q4_sparse_input"
points = 2

@test_case(points=0, hidden=False)
def test_types(same_features, largest_coef_difference, dense_gram_gib):
    import numpy as np
    assert isinstance(same_features, (bool, np.bool_)), 'True or False'
    assert isinstance(largest_coef_difference, (float, np.floating)) and largest_coef_difference >= 0, 'a difference >= 0'
    assert isinstance(dense_gram_gib, (int, float, np.number)) and dense_gram_gib > 0, 'a positive number of GiB'

@test_case(points=None, hidden=True)
def test_sparse_equals_dense(same_features, largest_coef_difference, sparse_path, dense_path, counts, target, source, DomainStatistics, tgreedy_path):
    import numpy as np
    ref = tgreedy_path(DomainStatistics.from_samples(counts, target, source), n_steps=5)
    assert sparse_path.n_steps == dense_path.n_steps == 5 and list(sparse_path.features) == list(ref.features), 'the two 5-step paths'
    assert same_features == bool(np.array_equal(sparse_path.features, dense_path.features)), 'what the paths show'
    assert abs(largest_coef_difference - float(np.abs(sparse_path.coef - dense_path.coef).max())) < 1e-12
    assert same_features, 'sparse input gives the dense path'
    assert largest_coef_difference < 1e-10, 'equal to rounding'

@test_case(points=None, hidden=True)
def test_gram_size(dense_gram_gib, counts, n_sources):
    assert abs(dense_gram_gib - n_sources * counts.shape[1] ** 2 * 8 / 2 ** 30) < 1e-09, 'sources x words x words x 8 bytes, in 2**30'

