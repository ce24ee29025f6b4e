from otter.test_files import test_case

OK_FORMAT = False

name = "q3_components_for_90"
points = 2

@test_case(points=0, hidden=False)
def test_types(k90, weights_2000):
    import numpy as np
    assert isinstance(k90, (int, np.integer)) and 1 <= k90 <= 784, 'an int from 1 to 784'
    assert isinstance(weights_2000, (int, np.integer)), 'an int'

@test_case(points=None, hidden=True)
def test_read_off(k90, explained):
    import numpy as np
    exact = int(np.argmax(explained >= 0.9)) + 1
    assert abs(k90 - exact) <= max(2, 0.1 * exact)

@test_case(points=None, hidden=True)
def test_weights(weights_2000, k90):
    assert weights_2000 == 2000 * k90

