from otter.test_files import test_case

OK_FORMAT = False

name = "q2_corollary_fails"
points = 2

@test_case(points=0, hidden=False)
def test_is_a_grid_value(largest_failing_delta, deltas):
    import numpy as np
    assert isinstance(largest_failing_delta, (float, np.floating)), 'a float'
    assert np.any(np.isclose(deltas, largest_failing_delta, rtol=1e-09)), 'one of the values in deltas'

@test_case(points=None, hidden=True)
def test_it_fails_there(largest_failing_delta, corollary_failure, deltas):
    assert corollary_failure(largest_failing_delta) > largest_failing_delta
    assert all((corollary_failure(d) <= d for d in deltas if d > largest_failing_delta * (1 + 1e-09))), 'the largest such delta'

@test_case(points=None, hidden=True)
def test_no_larger_delta_fails(largest_failing_delta, corollary_failure, deltas):
    assert all((corollary_failure(d) <= d for d in deltas if d > largest_failing_delta * (1 + 1e-09)))

