from otter.test_files import test_case

OK_FORMAT = False

name = "q4_stepwise_refit"
points = 2

@test_case(points=0, hidden=False)
def test_types(stepwise_auroc10, stepwise_changes_winner):
    import numpy as np
    assert isinstance(stepwise_auroc10, dict) and set(stepwise_auroc10) == {'greedy', 'T-greedy'}, "keys 'greedy' and 'T-greedy'"
    assert all((0 <= v <= 1 for v in stepwise_auroc10.values())), 'AUROC values'
    assert isinstance(stepwise_changes_winner, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_values(stepwise_auroc10, stepwise_changes_winner, stats8, target8, greedy_path, tgreedy_path, path_auroc, target_curve):
    ref = {name: float(path_auroc(select(stats8, n_steps=10, refit='stepwise'), *target8)[9]) for name, select in (('greedy', greedy_path), ('T-greedy', tgreedy_path))}
    for name in ref:
        assert abs(stepwise_auroc10[name] - ref[name]) < 1e-09, name
    stagewise = {name: float(curve[9]) for name, curve in target_curve.items()}
    assert stepwise_changes_winner == (max(ref, key=ref.get) != max(stagewise, key=stagewise.get))

