from otter.test_files import test_case

OK_FORMAT = False

name = "q1_first_picks"
points = 2

@test_case(points=0, hidden=False)
def test_indices_are_features(greedy_first, tgreedy_first):
    import numpy as np
    assert all((isinstance(i, (int, np.integer)) and 0 <= i < 50 for i in (greedy_first, tgreedy_first))), 'feature indices 0..49 (int)'

@test_case(points=None, hidden=True)
def test_match_the_library(greedy_first, tgreedy_first, stats, greedy_path, tgreedy_path):
    assert greedy_first == greedy_path(stats, n_steps=1).features[0]
    assert tgreedy_first == tgreedy_path(stats, n_steps=1).features[0]

@test_case(points=None, hidden=True)
def test_kinds(first_kinds, greedy_first, tgreedy_first, problem):
    assert tuple(first_kinds) == (problem.kind[greedy_first], problem.kind[tgreedy_first])
    assert first_kinds[1] == 'robust', "T-greedy's first pick is robust"

@test_case(points=0, hidden=True)
def test_rule_by_hand(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['greedy_first', 'tgreedy_first', 'first_kinds'], ['tgreedy_lib.domain_adaptation.selection', 'tgreedy_lib.domain_adaptation.selectors', 'tgreedy_lib.domain_adaptation.theorems.simulated_selection'])
    assert not used, 'question 1 asks for the first step by hand; your answer uses ' + ', '.join(used)

