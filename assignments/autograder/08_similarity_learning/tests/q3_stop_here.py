from otter.test_files import test_case

OK_FORMAT = False

name = "q3_stop_here"
points = 2

@test_case(points=0, hidden=False)
def test_types(first_step_below, stopped_auroc, any_above_bonferroni):
    import numpy as np
    assert isinstance(any_above_bonferroni, (bool, np.bool_)), 'True or False'
    assert isinstance(first_step_below, (int, np.integer)) and 1 <= first_step_below <= 21, 'an int from 1 to 21'
    assert isinstance(stopped_auroc, (float, np.floating)) and 0 <= stopped_auroc <= 1, 'an AUROC'

@test_case(points=None, hidden=True)
def test_read_off(first_step_below, any_above_bonferroni, path3, width):
    import numpy as np
    below = np.flatnonzero(np.abs(path3.t_statistic) < 3.0)
    assert first_step_below == (below[0] + 1 if below.size else 21)
    assert any_above_bonferroni == bool(np.any(np.abs(path3.t_statistic) >= width))

@test_case(points=None, hidden=True)
def test_stopped_auroc(stopped_auroc, first_step_below, path3, stats3, target3, path_auroc):
    import numpy as np
    ref = path_auroc(path3, *target3)
    expected = float(ref[first_step_below - 2]) if first_step_below > 1 else 0.5
    assert abs(stopped_auroc - expected) < 1e-09

