"""Shared by the tests: running a worked example (kept out of the library's docstrings) as a doctest."""
import doctest

import numpy as np
import pytest


@pytest.fixture
def run_example(monkeypatch, tmp_path):
    """``run_example(text, name, globs=None)``: run ``text`` as a doctest in an empty folder, with no data folder,
    a private cache and matplotlib's Agg backend; fail if any example fails."""
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.delenv("TGREEDY_DATA_DIR", raising=False)
    monkeypatch.setenv("TGREEDY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)

    def run(text: str, name: str, globs: dict | None = None) -> None:
        test = doctest.DocTestParser().get_doctest(text, globs or {}, name, None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        with np.printoptions():  # an example that changes numpy's print options changes them for itself
            runner.run(test)
        assert runner.summarize(verbose=False).failed == 0, f"the worked example of {name} failed (output above)"

    return run


@pytest.fixture(scope="session")
def toy_section4():
    """``toy_section4(n_steps)``: section-4 results on toy features (Gaussian clusters for ten classes), every
    split and the paper's two readings, for '2 vs other' (``"two"``) and similarity (``"similarity"``)."""
    import functools

    from tgreedy_lib.experiments import ExperimentFeatures, run_similarity, run_two_vs_other
    from tgreedy_lib.experiments.readings import PAPER_READINGS

    @functools.cache
    def results(n_steps: int) -> dict:
        rng = np.random.default_rng(0)
        labels = np.repeat(np.arange(10), 40)
        X = rng.standard_normal((10, 30))[labels] + 2 * rng.standard_normal((400, 30))
        features = ExperimentFeatures(X, labels, X, labels, {})
        return {"two": run_two_vs_other(features, n_steps=n_steps, methods=PAPER_READINGS),
                "similarity": run_similarity(features, n_steps=n_steps, methods=PAPER_READINGS)}

    return results
