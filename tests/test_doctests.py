"""Every ``Examples`` section of the library runs as a doctest, as scikit-learn's and scipy.stats' do.

One test per module of ``tgreedy_lib`` (found by walking the package, so a new module is covered
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

import tgreedy_lib

MODULES = ["tgreedy_lib"] + sorted(
    info.name for info in pkgutil.walk_packages(tgreedy_lib.__path__, "tgreedy_lib.")
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


#: The library's entry points (what a user calls): each documents itself as scikit-learn and
#: scipy.stats do, with an Examples section that runs above, See Also and the papers it reads.
ENTRY_POINTS = {
    "tgreedy_lib": ["TGreedy", "Greedy", "DomainStatistics", "tgreedy_path", "greedy_path", "SelectionPath",
                    "t_statistics", "roc_auc", "path_scores", "path_auroc", "path_squared_loss"],
    "tgreedy_lib.domain_adaptation.statistics": ["t_statistic"],
    "tgreedy_lib.domain_adaptation.selectors": ["register_selector", "Selector"],
    "tgreedy_lib.plotting.style": ["SelectorStyle", "register_selector_style", "unregister_selector_style",
                                   "selector_style"],
    "tgreedy_lib.domain_adaptation.theory.self_normalized": [
        "printed_bound", "proof_bound", "self_normalized_ratio", "exact_tail_given_magnitudes", "rademacher_tail",
        "gaussian_tail", "monte_carlo_tail", "tail_curves", "worst_case_tail_lower_bound"],
    "tgreedy_lib.domain_adaptation.theory.t_bounds": [
        "paper_factor", "proof_factor", "bonferroni_t_factor", "normal_factor", "max_features", "min_domains",
        "failure_probability_exact", "coverage_monte_carlo", "width_table", "corollary_printed_factor",
        "corollary_proof_factor", "corollary_min_domains", "subset_regret_simulation"],
    "tgreedy_lib.domain_adaptation.theory.simulate": ["make_problem", "DomainProblem", "domain_effects"],
    "tgreedy_lib.domain_adaptation.theory.simulated_selection": ["compare_selectors", "sweep_selectors"],
    "tgreedy_lib.categorical": ["count_table", "filter_scores", "gini_index", "misclassification_error",
                                "information_gain", "gain_ratio", "gini_error_estimate", "generalization_error"],
    "tgreedy_lib.categorical.theory": ["expected_gini_estimate", "expected_gini_error", "expected_bayes_error",
                                       "theorem2_bound", "theorem4_bound", "lemma11_bound"],
    "tgreedy_lib.datasets": ["load_mnist_paper", "load_bundled_mnist", "load_mnist", "load_cifar10_paper",
                             "load_cifar10"],
    "tgreedy_lib.experiments": ["run_experiment", "run_two_vs_other", "run_similarity", "run_intro_logistic"],
    "tgreedy_lib.features": ["load_features"],
    "tgreedy_lib.verify": ["run_checks", "available_checks", "register_check", "CheckResult"],
    "tgreedy_lib.domain_adaptation.stopping": [
        "StoppingResult", "choose_k", "bonferroni_threshold", "theorem1_threshold", "sign_flip_max_t",
        "gaussian_max_t", "stop_bonferroni", "stop_chance", "stop_lodo", "moment_squared_loss", "residual_path",
        "lodo_paths"],
    "tgreedy_lib.domain_adaptation.baselines": [
        "BaselinePath", "pooled_moments", "domain_losses", "lodo_choice", "omp_path", "lasso_path",
        "vrex_objective", "vrex_fit", "vrex_path", "icp_pvalues", "icp_path", "t_filter_path", "run_baseline",
        "as_selection_path", "omp_selection_path", "icp_selection_path", "t_filter_selection_path"],
    "tgreedy_lib.collection.prose": ["fmt", "say", "markdown_table", "show_table", "show_markdown", "numbers_in"],
    "tgreedy_lib.collection.summary": ["load_verify_records", "find_claims", "theorem_rows", "claim_rows",
                                   "verdict_method_markdown", "verify_table"],
}


@pytest.mark.parametrize("module_name", sorted(ENTRY_POINTS))
def test_entry_points_have_examples_see_also_and_references(module_name):
    module = importlib.import_module(module_name)
    missing = []
    for name in ENTRY_POINTS[module_name]:
        doc = getattr(module, name).__doc__ or ""
        for section in ("See Also", "References", "Examples"):
            if f"{section}\n" not in doc:
                missing.append(f"{name}: no {section}")
        if ">>> " not in doc.split("Examples")[-1]:
            missing.append(f"{name}: Examples without a >>> line")
    assert not missing, missing
