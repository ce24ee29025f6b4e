from otter.test_files import test_case

OK_FORMAT = False

name = "q1_bonferroni_by_hand"
points = 2

@test_case(points=0, hidden=False)
def test_types(threshold, k_bonferroni):
    import numpy as np
    assert isinstance(threshold, (float, np.floating)) and threshold > 2, 'a t quantile at 0.05 / (2 * 50) is well above 2'
    assert isinstance(k_bonferroni, (int, np.integer)) and 0 <= k_bonferroni <= 15, 'a number of steps, 0..15'

@test_case(points=None, hidden=True)
def test_threshold(threshold, stopping, stats):
    assert abs(threshold - stopping.bonferroni_threshold(stats.n_domains, stats.n_features, 0.05)) < 1e-09

@test_case(points=None, hidden=True)
def test_k(k_bonferroni, stopping, path, stats):
    assert k_bonferroni == stopping.choose_k(path, stats, rule='bonferroni', alpha=0.05).k

@test_case(points=0, hidden=True)
def test_rule_by_hand(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['threshold', 'k_bonferroni'], ['tgreedy_lib.domain_adaptation.stopping', 'tgreedy_lib.domain_adaptation.theorems.t_bounds'])
    assert not used, 'question 1 asks for the rule by hand; your answer uses ' + ', '.join(used)

