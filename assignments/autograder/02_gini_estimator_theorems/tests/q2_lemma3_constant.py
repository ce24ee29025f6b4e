from otter.test_files import test_case

OK_FORMAT = False

name = "q2_lemma3_constant"
points = 3

@test_case(points=None, hidden=False)
def test_types(largest_change, below_remark):
    import numpy as np
    assert isinstance(largest_change, (float, np.floating)) and 0 < largest_change <= 12 / 6, 'a float in (0, 12/m]'
    assert isinstance(below_remark, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_brute_force_value(largest_change):
    assert abs(largest_change - 5 / 12) < 1e-09, 'the exact largest change for m = 6 on three values is 5/12'

@test_case(points=None, hidden=True)
def test_compared_with_the_remark(below_remark, largest_change):
    assert below_remark == (largest_change <= 4 / 6) and below_remark

