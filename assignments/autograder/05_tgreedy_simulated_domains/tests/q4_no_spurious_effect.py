from otter.test_files import test_case

OK_FORMAT = False

name = "q4_no_spurious_effect"
points = 2

@test_case(points=None, hidden=False)
def test_types(greedy_spurious_share, greedy_still_picks_them):
    import numpy as np
    assert isinstance(greedy_spurious_share, (float, np.floating)) and 0 <= greedy_spurious_share <= 1, 'a share between 0 and 1'
    assert isinstance(greedy_still_picks_them, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_share(greedy_spurious_share, greedy_still_picks_them, make_problem, compare_selectors):
    import numpy as np
    zero = make_problem(n_robust=5, n_spurious=5, n_null=40, spurious_effect=0.0)
    ref = float(compare_selectors(zero, np.random.default_rng(0), n_domains=8, n_steps=5, n_repeats=50)['greedy']['spurious'].mean())
    assert abs(greedy_spurious_share - ref) < 1e-09
    assert greedy_still_picks_them == (ref > 0.25)

