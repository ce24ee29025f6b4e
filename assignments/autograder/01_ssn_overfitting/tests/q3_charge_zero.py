from otter.test_files import test_case

OK_FORMAT = False

name = "q3_charge_zero"
points = 2

@test_case(points=None, hidden=False)
def test_types(first_with_zero_charge, ssn_missing_mass, population):
    assert first_with_zero_charge in population.names, 'a feature name'
    assert isinstance(ssn_missing_mass, float) and 0 <= ssn_missing_mass <= 1, 'a probability'

@test_case(points=None, hidden=True)
def test_the_identifier_wins(first_with_zero_charge):
    assert first_with_zero_charge == 'ssn'

@test_case(points=None, hidden=True)
def test_missing_mass(ssn_missing_mass, cat, X, y, population):
    counts, _ = cat.count_table(X[:, 0], y, population.n_values[0])
    exact = float(cat.missing_mass(counts, population.distribution(0)[0], 0))
    assert abs(ssn_missing_mass - exact) < 1e-09 and ssn_missing_mass > 0.99

