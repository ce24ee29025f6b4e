from otter.test_files import test_case

OK_FORMAT = False

name = "q3_lemma11_plot"
points = 2

@test_case(points=0, hidden=False)
def test_types(worst_q, lemma11_fails):
    import numpy as np
    assert isinstance(worst_q, (float, np.floating)) and 0.5 <= worst_q <= 1, 'a q between 0.5 and 1'
    assert isinstance(lemma11_fails, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_worst_q_within_002(worst_q, ratio, q_grid):
    import numpy as np
    assert abs(worst_q - q_grid[np.argmax(ratio)]) <= 0.02

@test_case(points=None, hidden=True)
def test_fails(lemma11_fails, ratio, worst_q, q_grid):
    import numpy as np
    assert abs(worst_q - q_grid[np.argmax(ratio)]) <= 0.02, '(b) follows from the ratio read in (a)'
    assert lemma11_fails == bool(ratio.max() > 1)

