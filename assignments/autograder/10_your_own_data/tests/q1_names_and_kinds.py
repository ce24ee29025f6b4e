from otter.test_files import test_case

OK_FORMAT = False

name = "q1_names_and_kinds"
points = 2

@test_case(points=0, hidden=False)
def test_shapes(chosen_names, counts_by_kind, genes):
    assert isinstance(chosen_names, list) and len(chosen_names) == 10, 'a list of 10 names'
    assert all((name in genes for name in chosen_names)), "names of columns of frame (e.g. 'gene_017'), not positions"
    assert set(counts_by_kind) == {'robust', 'study-specific', 'noise'}, 'the three kinds as keys'
    assert sum(counts_by_kind.values()) == 10, 'the counts add up to the 10 chosen genes'

@test_case(points=None, hidden=True)
def test_path_order(chosen_names, frame, phenotype, study, TGreedy):
    path = TGreedy(n_features_to_select=10).fit(frame, phenotype, domains=study).path_
    assert chosen_names == list(frame.columns[path.features]), 'in the order of the path'

@test_case(points=None, hidden=True)
def test_kinds(chosen_names, counts_by_kind, truth):
    import numpy as np
    for kind in ('robust', 'study-specific', 'noise'):
        assert counts_by_kind[kind] == int((truth[chosen_names] == kind).sum()), f'count the {kind} genes again'
    assert isinstance(counts_by_kind['noise'], (int, np.integer)), 'counts are ints'

