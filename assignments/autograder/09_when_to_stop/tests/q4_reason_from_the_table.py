from otter.test_files import test_case

OK_FORMAT = False

name = "q4_reason_from_the_table"
points = 3

@test_case(points=0, hidden=False)
def test_types(bonferroni_widths, theorem1_width, crossover_n, table_agrees):
    import numpy as np
    assert isinstance(bonferroni_widths, dict) and sorted(bonferroni_widths) == [4, 8, 16], 'keys 4, 8 and 16'
    assert isinstance(theorem1_width, (float, np.floating)) and theorem1_width > 2, 'a width well above 2'
    assert isinstance(crossover_n, (int, np.integer)) and crossover_n >= 2, 'a number of domains'
    assert isinstance(table_agrees, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_widths(bonferroni_widths, theorem1_width, crossover_n, stopping):
    for n_train in (4, 8, 16):
        assert abs(bonferroni_widths[n_train] - stopping.bonferroni_threshold(n_train, 50, 0.05)) < 1e-09, n_train
    assert abs(theorem1_width - stopping.theorem1_threshold(50, 0.05)) < 1e-09
    below = [n for n in range(2, 100) if stopping.bonferroni_threshold(n, 50, 0.05) < stopping.theorem1_threshold(50, 0.05)]
    assert crossover_n == below[0]

@test_case(points=None, hidden=True)
def test_table(table_agrees, crossover_n, reference, stopping):
    below = [n for n in range(2, 100) if stopping.bonferroni_threshold(n, 50, 0.05) < stopping.theorem1_threshold(50, 0.05)]
    assert crossover_n == below[0], '(c) follows from the crossover of (b)'
    expected = True
    for n_train in (4, 8, 16):
        r = reference['experiments'][f'simulated-n{n_train}']['summary']['rules']
        b, t1 = (r['bonferroni']['mean_k'], r['theorem1']['mean_k'])
        expected &= b <= t1 if n_train < crossover_n else b >= t1
    assert table_agrees == expected

@test_case(points=0, hidden=True)
def test_rule_by_hand(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['bonferroni_widths', 'theorem1_width', 'crossover_n', 'table_agrees'], ['tgreedy_lib.domain_adaptation.stopping', 'tgreedy_lib.domain_adaptation.theorems.t_bounds'])
    assert not used, 'question 4 asks for the thresholds by hand; your answer uses ' + ', '.join(used)

