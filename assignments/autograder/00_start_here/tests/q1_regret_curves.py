from otter.test_files import test_case

OK_FORMAT = False

name = "q1_regret_curves"
points = 2

@test_case(points=0, hidden=False)
def test_is_a_dict_of_two_curves(regret):
    import numpy as np
    assert isinstance(regret, dict) and set(regret) == {'greedy', 'T-greedy'}, "regret must be a dict with keys 'greedy' and 'T-greedy'"

@test_case(points=0, hidden=False)
def test_one_value_per_step(regret):
    import numpy as np
    assert all((np.shape(regret[k]) == (15,) for k in regret)), 'one regret value per step: 15 values per selector'

@test_case(points=None, hidden=True)
def test_values_match_the_exact_regret(paths, problem, regret):
    import numpy as np
    assert all((np.allclose(regret[k], problem.regret(paths[k].coef), atol=1e-08) for k in paths))

@test_case(points=None, hidden=True)
def test_tgreedy_beats_zero_greedy_does_not(regret, regret_zero):
    import numpy as np
    assert regret['T-greedy'][4] < regret_zero < max(regret['greedy'][:5])

