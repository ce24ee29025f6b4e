from otter.test_files import test_case

OK_FORMAT = False

name = "q1_equal_magnitudes"
points = 2

@test_case(points=None, hidden=False)
def test_is_list_of_even_integers(violating_even_n):
    assert isinstance(violating_even_n, (list, tuple)) and len(violating_even_n) > 0, 'a non-empty list of integers'
    assert all((int(n) == n and n % 2 == 0 and (2 <= n <= 40) for n in violating_even_n)), 'even integers from 2 to 40'

@test_case(points=None, hidden=True)
def test_each_listed_n_violates(violating_even_n, sn):
    for n in violating_even_n:
        assert sn.worst_excess_discrete(*sn.rademacher_atoms(int(n)))[0] > 0, f'n = {n} does not violate e^(-t/2)'

@test_case(points=None, hidden=True)
def test_all_violating_n_found(violating_even_n, sn):
    expected = [n for n in range(2, 41, 2) if sn.worst_excess_discrete(*sn.rademacher_atoms(n))[0] > 0]
    assert sorted((int(n) for n in violating_even_n)) == expected

