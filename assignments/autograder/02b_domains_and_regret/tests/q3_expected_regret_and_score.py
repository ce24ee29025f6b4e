from otter.test_files import test_case

OK_FORMAT = False

name = "q3_expected_regret_and_score"
points = 3

@test_case(points=0, hidden=False)
def test_types(expected_regret, expected_greedy_score, break_even_n):
    import numpy as np
    assert float(expected_regret(0.3, 1.0, 4)) >= 0, 'expected_regret: a regret is not negative'
    assert float(expected_greedy_score(0.3, 1.0, 4)) >= 0, 'expected_greedy_score: a square is not negative'
    assert isinstance(break_even_n, (int, np.integer)) and break_even_n >= 1, 'break_even_n: a number of domains'

@test_case(points=None, hidden=True)
def test_equal_exact_enumeration(expected_regret, expected_greedy_score):
    import itertools
    import numpy as np
    for n in (1, 2, 5, 9):
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
        for mu, s in ((0.3, 0.1), (0.3, 1.5), (0.0, 0.7), (-1.2, 2.0)):
            mu_hat = (mu + s * signs).mean(axis=1)
            assert abs(expected_regret(mu, s, n) - np.mean((mu_hat - mu) ** 2)) < 1e-12, (n, mu, s)
            assert abs(expected_greedy_score(mu, s, n) - np.mean(mu_hat ** 2)) < 1e-12, (n, mu, s)

@test_case(points=None, hidden=True)
def test_break_even(break_even_n, problem):
    import numpy as np
    j = np.flatnonzero(problem.kind == 'spurious')[0]
    mu, s = (problem.effect[j], problem.spread[j])
    assert s ** 2 / break_even_n < mu ** 2 <= s ** 2 / (break_even_n - 1)

@test_case(points=0, hidden=True)
def test_rule_derived_without_the_library(env):
    from tgreedy_course.grading_sandbox import library_uses
    used = library_uses(env, ['expected_regret', 'expected_greedy_score', 'break_even_n'], ['tgreedy_lib'], allowed=['tgreedy_lib.domain_adaptation.theorems.simulate.DomainProblem'])
    assert not used, 'question 3 asks for your own formulas, without the library; your answer uses ' + ', '.join(used)

