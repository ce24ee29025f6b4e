from otter.test_files import test_case

OK_FORMAT = False

name = "q3_read_figure1"
points = 2

@test_case(points=0, hidden=False)
def test_types(gap_greedy_10, larger_gap):
    import numpy as np
    assert isinstance(gap_greedy_10, (float, np.floating)) and -1 <= gap_greedy_10 <= 1, 'a difference of AUROCs'
    assert isinstance(larger_gap, str) and larger_gap in ('greedy', 'T-greedy'), "'greedy' or 'T-greedy'"

@test_case(points=None, hidden=True)
def test_read_off(gap_greedy_10, larger_gap, source_auroc, target_curve):
    gaps = {k: source_auroc[k][9] - target_curve[k][9] for k in source_auroc}
    assert abs(gap_greedy_10 - gaps['greedy']) <= 0.03
    assert larger_gap == max(gaps, key=gaps.get)

