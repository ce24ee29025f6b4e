from otter.test_files import test_case

OK_FORMAT = False

name = "q4_positive_sign"
points = 2

@test_case(points=0, hidden=False)
def test_is_a_15_step_path(positive_path):
    import numpy as np
    assert hasattr(positive_path, 'features') and positive_path.n_steps == 15, 'a 15-step path from tgreedy_path'

@test_case(points=0, hidden=False)
def test_answers_are_bools(robust_first, same_first_five):
    import numpy as np
    assert isinstance(same_first_five, (bool, np.bool_)) and isinstance(robust_first, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_path_uses_positive_sign(positive_path):
    import numpy as np
    assert positive_path.options['sign'] == 'positive' and np.all(positive_path.t_statistic > 0)

@test_case(points=None, hidden=True)
def test_set_comparisons(paths, positive_path, problem, robust_first, same_first_five, stats, tgreedy_path):
    import numpy as np
    assert list(positive_path.features) == list(tgreedy_path(stats, n_steps=15, sign='positive').features), 'the positive-sign path'
    assert same_first_five == (set(positive_path.features[:5]) == set(paths['T-greedy'].features[:5]))
    assert robust_first == (set(positive_path.features[:5]) == set(problem.robust))

