from otter.test_files import test_case

OK_FORMAT = False

name = "q2_every_target"
points = 2

@test_case(points=0, hidden=False)
def test_types(mean_auroc_10, better_on_new_digits):
    assert isinstance(mean_auroc_10, dict) and set(mean_auroc_10) == {'greedy', 'T-greedy'}, "keys 'greedy' and 'T-greedy'"
    assert all((0.5 <= v <= 1 for v in mean_auroc_10.values())), 'mean AUROCs (above chance)'
    assert better_on_new_digits in ('greedy', 'T-greedy'), "'greedy' or 'T-greedy'"

@test_case(points=None, hidden=True)
def test_values(mean_auroc_10, better_on_new_digits, targets, two_vs_other, greedy_path, tgreedy_path, path_auroc):
    import numpy as np
    ref = {'greedy': [], 'T-greedy': []}
    for target in targets:
        stats, (X_t, y_t), _ = two_vs_other(target)
        for name, select in (('greedy', greedy_path), ('T-greedy', tgreedy_path)):
            ref[name].append(path_auroc(select(stats, n_steps=10), X_t, y_t)[9])
    for name in ref:
        assert abs(mean_auroc_10[name] - np.mean(ref[name])) < 1e-06, name
    assert better_on_new_digits == max(ref, key=lambda k: np.mean(ref[k]))

