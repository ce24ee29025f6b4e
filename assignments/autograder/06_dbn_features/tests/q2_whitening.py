from otter.test_files import test_case

OK_FORMAT = False

name = "q2_whitening"
points = 3

@test_case(points=0, hidden=False)
def test_shape(Z):
    import numpy as np
    assert np.shape(Z) == (2000, 30), 'n rows, k columns'

@test_case(points=None, hidden=True)
def test_identity_covariance(Z):
    import numpy as np
    assert np.allclose(np.mean(Z, axis=0), 0, atol=1e-08), 'mean zero'
    assert np.allclose(np.cov(Z, rowvar=False), np.eye(30), atol=1e-06), 'identity covariance'

@test_case(points=None, hidden=True)
def test_spans_the_top_components(whiten, V):
    import numpy as np
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 6)) @ np.diag([5.0, 4.0, 3.0, 0.3, 0.2, 0.1])
    Z2 = whiten(X, 3)
    assert np.allclose(np.cov(Z2, rowvar=False), np.eye(3), atol=1e-06)
    centred = X - X.mean(axis=0)
    coef, *_ = np.linalg.lstsq(centred, Z2, rcond=None)
    assert np.all(np.abs(coef[3:]) < 0.2), 'the whitened coordinates use the largest-variance directions'

