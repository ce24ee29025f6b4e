from otter.test_files import test_case

OK_FORMAT = False

name = "q2_read_the_plot"
points = 2

@test_case(points=0, hidden=False)
def test_step_is_an_integer(greedy_worse_after):
    import numpy as np
    assert isinstance(greedy_worse_after, (int, np.integer)) and 1 <= greedy_worse_after <= 15, 'an integer from 1 to 15'

@test_case(points=0, hidden=False)
def test_loss_answer_is_a_bool(loss_going_down):
    import numpy as np
    assert isinstance(loss_going_down, (bool, np.bool_)), 'True or False'

@test_case(points=None, hidden=True)
def test_first_step_above_zero_predictor(greedy_worse_after, paths, problem, regret, regret_zero):
    import numpy as np
    above = np.flatnonzero(problem.regret(paths['greedy'].coef) > regret_zero)
    assert greedy_worse_after == above[0] + 1

@test_case(points=None, hidden=True)
def test_loss_still_below_its_start(greedy_worse_after, loss_going_down, paths, problem, regret_zero):
    import numpy as np
    above = np.flatnonzero(problem.regret(paths['greedy'].coef) > regret_zero)
    assert greedy_worse_after == above[0] + 1, 'the loss is read at the step of (a)'
    assert loss_going_down == bool(paths['greedy'].training_loss[greedy_worse_after - 1] < paths['greedy'].initial_loss)

