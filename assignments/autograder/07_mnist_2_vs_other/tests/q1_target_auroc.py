from otter.test_files import test_case

OK_FORMAT = False

name = "q1_target_auroc"
points = 2

@test_case(points=0, hidden=False)
def test_shapes(target_auroc):
    import numpy as np
    assert isinstance(target_auroc, dict) and set(target_auroc) == {'greedy', 'T-greedy'}, "keys 'greedy' and 'T-greedy'"
    assert all((np.shape(v) == (20,) for v in target_auroc.values())), '20 AUROC values per selector'
    assert all((np.all((0 <= np.asarray(v)) & (np.asarray(v) <= 1)) for v in target_auroc.values())), 'AUROC lies in [0, 1]'

@test_case(points=None, hidden=True)
def test_values(target_auroc, stats8, target8, greedy_path, tgreedy_path, path_auroc):
    import numpy as np
    for name, select in (('greedy', greedy_path), ('T-greedy', tgreedy_path)):
        assert np.allclose(target_auroc[name], path_auroc(select(stats8, n_steps=20), *target8), atol=1e-09), name

@test_case(points=None, hidden=True)
def test_paths(paths8):
    assert paths8['greedy'].method == 'greedy' and paths8['T-greedy'].method == 'tgreedy'
    assert paths8['greedy'].n_steps == paths8['T-greedy'].n_steps == 20

