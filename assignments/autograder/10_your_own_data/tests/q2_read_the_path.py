from otter.test_files import test_case

OK_FORMAT = False

name = "q2_read_the_path"
points = 2

@test_case(points=0, hidden=False)
def test_types(first_noise_step, smallest_robust_abs_t, c, kept_kinds):
    import numpy as np
    assert first_noise_step is None or (isinstance(first_noise_step, (int, np.integer)) and 1 <= first_noise_step <= 10), 'a step 1..10 or None'
    assert isinstance(smallest_robust_abs_t, (float, np.floating)) and smallest_robust_abs_t > 0, 'a positive |T|'
    assert isinstance(c, (float, np.floating)) and c > 3, 'the Bonferroni width over 400 features with 5 degrees of freedom is well above 3'
    assert isinstance(kept_kinds, list) and all((k in ('robust', 'study-specific', 'noise') for k in kept_kinds)), 'a list of kinds'

@test_case(points=None, hidden=True)
def test_read_off(first_noise_step, smallest_robust_abs_t, selector, truth):
    import numpy as np
    kinds = truth.iloc[selector.path_.features].to_numpy()
    noise = np.flatnonzero(kinds == 'noise')
    assert first_noise_step == (int(noise[0]) + 1 if noise.size else None), 'steps count from 1'
    assert abs(smallest_robust_abs_t - np.abs(selector.path_.t_statistic[kinds == 'robust']).min()) < 1e-09

@test_case(points=None, hidden=True)
def test_threshold(c, kept_kinds, tb, tgreedy_path, DomainStatistics, frame, phenotype, study, truth):
    assert abs(c - float(tb.bonferroni_t_factor(6, 400, 0.05))) < 1e-09
    stopped = tgreedy_path(DomainStatistics.from_samples(frame, phenotype, study), n_steps=10, threshold=c)
    assert kept_kinds == list(truth.iloc[stopped.features])
    assert 'noise' not in kept_kinds, 'the threshold keeps the noise genes out here'

