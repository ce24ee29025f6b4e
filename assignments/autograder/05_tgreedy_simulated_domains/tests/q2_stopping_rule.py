from otter.test_files import test_case

OK_FORMAT = False

name = "q2_stopping_rule"
points = 2

@test_case(points=0, hidden=False)
def test_numbers(c, thresholded_regret, best_fixed_regret):
    import numpy as np
    assert all((isinstance(v, (float, np.floating)) for v in (c, thresholded_regret, best_fixed_regret))), 'three floats'
    assert c > 2, 'a Bonferroni width over 50 features is well above 2'

@test_case(points=None, hidden=True)
def test_threshold(c, tb):
    assert abs(c - float(tb.bonferroni_t_factor(8, 50, 0.05))) < 1e-09

@test_case(points=None, hidden=True)
def test_regrets(thresholded_regret, best_fixed_regret, training_sets, problem, tgreedy_path, tb, null_regret):
    import numpy as np
    c = float(tb.bonferroni_t_factor(8, 50, 0.05))
    final, fixed = ([], [])
    for s in training_sets:
        path = tgreedy_path(s, n_steps=15, threshold=c)
        final.append(problem.regret(path.coef[-1]) if path.n_steps else null_regret)
        fixed.append(problem.regret(tgreedy_path(s, n_steps=15).coef))
    assert abs(thresholded_regret - np.mean(final)) < 0.01
    assert abs(best_fixed_regret - np.min(np.mean(fixed, axis=0))) < 0.01
    assert thresholded_regret < null_regret, 'the stopping rule beats predicting with w = 0'

