from otter.test_files import test_case

OK_FORMAT = False

name = "q1_pair_features"
points = 2

@test_case(points=0, hidden=False)
def test_shape(pair_features, phi):
    import numpy as np
    assert callable(pair_features), 'pair_features must be a function'
    assert np.shape(pair_features(phi[:5], phi[5:10])) == (5, phi.shape[1]), 'one row per pair, one column per feature'

@test_case(points=None, hidden=True)
def test_products(pair_features, phi):
    import numpy as np
    A, B = (phi[:50], phi[50:100])
    assert np.allclose(pair_features(A, B), A * B)
    assert np.allclose(pair_features(A, B), pair_features(B, A)), 'the similarity is symmetric'
    assert np.all(pair_features(A, A) >= 0), 'an image paired with itself: squares'

