from otter.test_files import test_case

OK_FORMAT = False

name = "q1_hidden_probabilities"
points = 2

@test_case(points=0, hidden=False)
def test_shape_and_range(H):
    import numpy as np
    assert np.shape(H) == (2000, 50), 'one row per image, one column per hidden unit'
    assert np.all((np.asarray(H) > 0) & (np.asarray(H) < 1)), 'probabilities strictly between 0 and 1'

@test_case(points=None, hidden=True)
def test_values(hidden_probabilities, H, V, W, c):
    import numpy as np
    from scipy.special import expit
    assert np.allclose(H, expit(V @ W + c), atol=1e-12)
    rng = np.random.default_rng(5)
    V2, W2, c2 = (rng.uniform(0, 1, (7, 3)), rng.normal(0, 1, (3, 4)), rng.normal(0, 1, 4))
    assert np.allclose(hidden_probabilities(V2, W2, c2), expit(V2 @ W2 + c2), atol=1e-12)

@test_case(points=None, hidden=True)
def test_bias_moves_probabilities_up(hidden_probabilities, V, W, c):
    import numpy as np
    assert np.all(hidden_probabilities(V[:20], W, c + 1.0) > hidden_probabilities(V[:20], W, c))
    assert np.allclose(hidden_probabilities(np.zeros((1, 784)), W, c)[0], 1 / (1 + np.exp(-c)))

