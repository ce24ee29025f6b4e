from otter.test_files import test_case

OK_FORMAT = False

name = "q3_read_the_sweep"
points = 2

@test_case(points=None, hidden=False)
def test_types(greedy_beats_null_at, spread_equals_effect_at):
    import numpy as np
    assert isinstance(greedy_beats_null_at, (int, np.integer)) and greedy_beats_null_at in (4, 8, 32, 64), 'one of the n in the plot'
    assert isinstance(spread_equals_effect_at, (int, float, np.number)) and spread_equals_effect_at > 0, 'a positive number'

@test_case(points=None, hidden=True)
def test_read_off(greedy_beats_null_at, rows, null_regret):
    below = [r['n_domains'] for r in rows if r['greedy_regret'] < null_regret]
    assert greedy_beats_null_at == below[0]

@test_case(points=None, hidden=True)
def test_spread(spread_equals_effect_at):
    assert abs(spread_equals_effect_at - 25) < 0.01

