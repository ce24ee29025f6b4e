from otter.test_files import test_case

OK_FORMAT = False

name = "q4_read_the_flip"
points = 2

@test_case(points=0, hidden=False)
def test_types(estimate_drops_code_at, gini_ever_drops, value_counts):
    import numpy as np
    assert isinstance(estimate_drops_code_at, (int, np.integer)) and estimate_drops_code_at in value_counts, 'one of value_counts'
    assert isinstance(gini_ever_drops, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_read_off(estimate_drops_code_at, gini_ever_drops, value_counts, prefers_code):
    below = [v for v, f in zip(value_counts, prefers_code['gini_estimate']) if f < 0.5]
    assert estimate_drops_code_at == below[0]
    assert gini_ever_drops == any((f < 0.5 for f in prefers_code['gini']))

