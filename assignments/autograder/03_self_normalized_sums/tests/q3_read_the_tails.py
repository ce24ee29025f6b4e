from otter.test_files import test_case

OK_FORMAT = False

name = "q3_read_the_tails"
points = 2

@test_case(points=None, hidden=False)
def test_answers_are_strings(violating_law, reason):
    assert isinstance(violating_law, str) and violating_law.strip().lower() in {'gaussian', 'rademacher', 'pareto'}, "violating_law: one of 'gaussian', 'rademacher', 'pareto'"
    assert isinstance(reason, str) and reason.strip().upper() in {'A', 'B', 'C'}, "reason: 'A', 'B' or 'C'"

@test_case(points=None, hidden=True)
def test_names_the_law_above_the_bound(violating_law, curves, t_plot, sn):
    import numpy as np
    j = int(np.argmin(np.abs(t_plot - 0.5)))
    above = [law for law, c in curves.items() if c[j] > sn.printed_bound(t_plot[j])]
    assert above == ['pareto'] and violating_law.strip().lower() == 'pareto'

@test_case(points=None, hidden=True)
def test_reason_is_a_dominant_term(reason):
    assert reason.strip().upper() == 'B'

