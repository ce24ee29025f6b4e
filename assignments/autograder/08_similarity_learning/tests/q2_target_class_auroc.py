from otter.test_files import test_case

OK_FORMAT = False

name = "q2_target_class_auroc"
points = 2

@test_case(points=0, hidden=False)
def test_shapes(target_auroc3, best_auroc3):
    import numpy as np
    assert isinstance(target_auroc3, dict) and set(target_auroc3) == {'greedy', 'T-greedy'}, "keys 'greedy' and 'T-greedy'"
    assert all((np.shape(v) == (20,) for v in target_auroc3.values())), '20 AUROC values per selector'
    assert isinstance(best_auroc3, dict) and set(best_auroc3) == {'greedy', 'T-greedy'}, 'best_auroc3: same keys'

@test_case(points=None, hidden=True)
def test_values(target_auroc3, best_auroc3, stats3, target3, greedy_path, tgreedy_path, path_auroc):
    import numpy as np
    for name, select in (('greedy', greedy_path), ('T-greedy', tgreedy_path)):
        ref = path_auroc(select(stats3, n_steps=20), *target3)
        assert np.allclose(target_auroc3[name], ref, atol=1e-09), name
        assert abs(best_auroc3[name] - ref.max()) < 1e-09, name
        assert best_auroc3[name] > 0.6, 'similarity on a new class beats chance'

