from otter.test_files import test_case

OK_FORMAT = False

name = "q2_smallest_constant"
points = 2

@test_case(points=None, hidden=False)
def test_are_numbers_above_one(C_hat, C_exact):
    import numpy as np
    assert isinstance(C_hat, (float, np.floating)) and isinstance(C_exact, (float, np.floating)), 'floats'
    assert C_hat > 1 and C_exact > 1, 'the printed bound fails, so C must exceed 1'

@test_case(points=None, hidden=True)
def test_estimate_within_001_of_exact(C_hat, C_exact):
    import numpy as np
    assert abs(C_exact - np.exp(0.5)) < 1e-09, 'C_exact should be e^(1/2)'
    assert abs(C_hat - np.exp(0.5)) < 0.01, 'C_hat should be within 0.01 of e^(1/2)'

@test_case(points=None, hidden=True)
def test_estimate_is_a_valid_constant_on_the_grid(C_hat, sn, t_grid):
    import numpy as np
    worst = max((np.max(sn.worst_case_tail_lower_bound(n, t_grid) / sn.printed_bound(t_grid)) for n in range(1, 51)))
    assert C_hat >= worst - 1e-09 and C_hat <= np.exp(0.5) + 1e-09

