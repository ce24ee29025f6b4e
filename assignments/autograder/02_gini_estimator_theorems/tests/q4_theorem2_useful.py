from otter.test_files import test_case

OK_FORMAT = False

name = "q4_theorem2_useful"
points = 2

@test_case(points=0, hidden=False)
def test_types(first_useful_m, bound_is_false):
    import numpy as np
    assert isinstance(first_useful_m, (int, float, np.number)) and first_useful_m > 10, 'a sample size above 10'
    assert isinstance(bound_is_false, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_within_a_factor_of_two(first_useful_m, cat):
    import numpy as np
    m = np.geomspace(10, 1000000000.0, 4000)
    exact = m[np.argmax(cat.theorem2_bound(m, 0.001) < 1)]
    assert exact / 2 <= first_useful_m <= exact * 2

@test_case(points=None, hidden=True)
def test_vacuous_not_false(bound_is_false):
    assert not bound_is_false, 'a bound above 1 is true but says nothing'

