"""Every ``Examples`` section of the library runs as a doctest, as scikit-learn's and scipy.stats' do.

One test per module of ``tgreedy_lib`` and of the course's tools (``tgreedy_course``) (found by walking the package, so a new module is covered
without being listed). ``make test`` names ``tests`` and ``notebooks`` explicitly, so doctests are
run from here rather than by ``--doctest-modules`` over the package. Examples that need data or
the network are marked ``# doctest: +SKIP`` in the docstring itself. Each module runs with the
data folder unset, the cache in a temporary folder and matplotlib's Agg backend, so an example
can neither read the user's data nor write into the user's cache.
"""
import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import tgreedy_course
import tgreedy_lib

MODULES = ["tgreedy_lib", "tgreedy_course"] + sorted(
    info.name for package in (tgreedy_lib, tgreedy_course)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not info.name.endswith("__main__")
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, monkeypatch, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.delenv("TGREEDY_DATA_DIR", raising=False)
    monkeypatch.setenv("TGREEDY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with np.printoptions():  # an example that changes numpy's print options changes them for itself
        for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples of {name} failed (output above)"


def test_the_examples_are_found():
    """The finder sees the library's examples (a test that runs nothing would pass vacuously)."""
    from tgreedy_lib.domain_adaptation import estimators as selection

    tests = doctest.DocTestFinder(exclude_empty=True).find(selection, selection.__name__)
    assert any(t.name.endswith(".TGreedy") and t.examples for t in tests)


#: What a researcher calls first: each documents itself as scikit-learn does, with an Examples section that
#: runs above.
ENTRY_POINTS = {
    "tgreedy_lib": ["TGreedy", "Greedy", "DomainStatistics", "tgreedy_path", "greedy_path", "diagnose"],
    "tgreedy_lib.categorical": ["gini_error_estimate"],
}


@pytest.mark.parametrize("module_name", sorted(ENTRY_POINTS))
def test_entry_points_have_examples(module_name):
    module = importlib.import_module(module_name)
    missing = [name for name in ENTRY_POINTS[module_name]
               if ">>> " not in (getattr(module, name).__doc__ or "").partition("Examples\n")[2]]
    assert not missing, f"no Examples with a >>> line: {missing}"
