from otter.test_files import test_case

OK_FORMAT = False

name = "q3_more_domains"
points = 2

@test_case(points=0, hidden=False)
def test_avg30_shape(avg30, mean_regret):
    import numpy as np
    assert isinstance(avg30, dict) and all((np.shape(avg30[k]) == (15,) for k in ('greedy', 'T-greedy'))), 'avg30 is what mean_regret returns'

@test_case(points=0, hidden=False)
def test_answer_names_a_selector(benefits_more):
    import numpy as np
    assert isinstance(benefits_more, str) and benefits_more.strip().lower() in {'greedy', 't-greedy'}, "answer 'greedy' or 'T-greedy'"

@test_case(points=None, hidden=True)
def test_avg30_values(avg30, mean_regret):
    import numpy as np
    ref = mean_regret(n_domains=30)
    assert all((np.allclose(avg30[k], ref[k]) for k in ref))

@test_case(points=None, hidden=True)
def test_answer_names_the_selector_that_gains_more(mean_regret, benefits_more, avg30):
    import numpy as np
    avg8, ref30 = (mean_regret(n_domains=8), mean_regret(n_domains=30))
    assert all((np.allclose(avg30[k], ref30[k]) for k in ref30)), 'the answer follows from avg30'
    drop = {k: avg8[k][4] - ref30[k][4] for k in avg8}
    assert benefits_more.strip().lower() == max(drop, key=drop.get).lower()

