from otter.test_files import test_case

OK_FORMAT = False

name = "q4_read_the_paper_scale_table"
points = 2

@test_case(points=None, hidden=False)
def test_types(best_rule, best_share, goal_met, best_baseline_mnist):
    import numpy as np
    assert isinstance(best_rule, str) and isinstance(best_baseline_mnist, str), 'names (str)'
    assert isinstance(best_share, (float, np.floating)) and 0 <= best_share <= 1, 'a share between 0 and 1'
    assert isinstance(goal_met, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_read_off(best_rule, best_share, goal_met, best_baseline_mnist, reference):
    pooled = reference['pooled']
    assert best_rule == pooled['best_rule']
    assert abs(best_share - pooled['rules'][best_rule]['share_within']) < 1e-12
    assert goal_met == pooled['goal_met']
    b = reference['experiments']['mnist-2-vs-other']['summary']['baselines']
    assert best_baseline_mnist == max(b, key=lambda name: b[name]['mean_auroc'])

