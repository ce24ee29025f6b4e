from otter.test_files import test_case

OK_FORMAT = False

name = "q3_missing_labels"
points = 2

@test_case(points=0, hidden=False)
def test_message_and_count(message, n_kept):
    assert isinstance(message, str) and len(message) > 20, 'the text of the ValueError'
    import numpy as np
    assert isinstance(n_kept, (int, np.integer)) and 0 < n_kept <= 600, 'a number of samples (of 600)'

@test_case(points=None, hidden=True)
def test_message_names_the_problem(message, DomainStatistics, frame, phenotype, labels_with_gaps):
    import pytest
    with pytest.raises(ValueError) as info:
        DomainStatistics.from_samples(frame, phenotype, labels_with_gaps)
    assert message == str(info.value)

@test_case(points=None, hidden=True)
def test_n_kept(n_kept, labels_with_gaps):
    assert n_kept == sum((label is not None for label in labels_with_gaps)), 'the samples with a label'

@test_case(points=None, hidden=True)
def test_fixed(fixed_first, frame, phenotype, labels_with_gaps, DomainStatistics, tgreedy_path):
    import numpy as np
    keep = np.array([label is not None for label in labels_with_gaps])
    stats = DomainStatistics.from_samples(frame[keep], phenotype[keep], labels_with_gaps[keep])
    assert fixed_first == frame.columns[tgreedy_path(stats, n_steps=1).features[0]], 'the name of the gene'

