from otter.test_files import test_case

OK_FORMAT = False

name = "q2_stopping_option"
points = 2

@test_case(points=0, hidden=False)
def test_types(k_lodo, lodo_gap):
    import numpy as np
    assert isinstance(k_lodo, (int, np.integer)) and 1 <= k_lodo <= 15, 'LODO keeps 1..15 steps'
    assert isinstance(lodo_gap, (float, np.floating)) and lodo_gap >= 0, 'the oracle is the best: the gap is 0 or more'

@test_case(points=None, hidden=True)
def test_lodo(k_lodo, lodo_gap, stopping, path, stats, target, oracle_k):
    k = stopping.choose_k(path, stats, rule='lodo').k
    assert k_lodo == k
    assert abs(lodo_gap - (target[oracle_k] - target[k])) < 1e-12

