from otter.test_files import test_case

OK_FORMAT = False

name = "q4_centring"
points = 2

@test_case(points=0, hidden=False)
def test_types(auroc10_uncentred, auroc10_centred, centring_helps):
    import numpy as np
    assert all((isinstance(v, (float, np.floating)) and 0 <= v <= 1 for v in (auroc10_uncentred, auroc10_centred))), 'two AUROCs (floats)'
    assert isinstance(centring_helps, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_values(auroc10_uncentred, auroc10_centred, centring_helps, similarity_split, uncentred, stats3, target3, tgreedy_path, path_auroc):
    stats_u, target_u = similarity_split(3, phi=uncentred)
    ref_u = float(path_auroc(tgreedy_path(stats_u, n_steps=10), *target_u)[9])
    ref_c = float(path_auroc(tgreedy_path(stats3, n_steps=10), *target3)[9])
    assert abs(auroc10_uncentred - ref_u) < 1e-09 and abs(auroc10_centred - ref_c) < 1e-09
    assert centring_helps == (ref_c > ref_u)

