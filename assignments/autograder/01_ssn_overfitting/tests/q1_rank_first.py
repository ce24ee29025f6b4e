from otter.test_files import test_case

OK_FORMAT = False

name = "q1_rank_first"
points = 2

@test_case(points=0, hidden=False)
def test_one_name_per_filter(first_by, cat, population):
    assert isinstance(first_by, dict) and set(first_by) == set(cat.FILTERS), 'a dict with one key per filter in cat.FILTERS'
    assert all((v in population.names for v in first_by.values())), 'values are feature names'

@test_case(points=None, hidden=True)
def test_matches_the_rankings(first_by, cat, population, scores):
    for name in cat.FILTERS:
        assert first_by[name] == population.names[cat.feature_ranking(scores[name], name)[0]], name

@test_case(points=None, hidden=True)
def test_training_errors_rank_the_ssn_first(first_by):
    assert first_by['gini'] == first_by['misclassification'] == 'ssn'
    assert first_by['gini_estimate'] != 'ssn'

