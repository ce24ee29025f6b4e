"""The selector registry: a new selector is one register_selector call (and, optionally, one
register_selector_style call for how the figures draw it).

A toy selector registered here runs through an experiment of section 4, the simulations of
section 3.3 and the figures without any other change to the library. The registry holds only what
the algorithm needs; colours and line styles are tests/test_plotting_style.py's.
"""
import matplotlib

matplotlib.use("Agg")

import dataclasses  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tgreedy_lib import available_selectors, get_selector, register_selector  # noqa: E402
from tgreedy_lib.domain_adaptation.selection import SelectionPath, greedy_path, tgreedy_path  # noqa: E402
from tgreedy_lib.domain_adaptation.selectors import Selector, unregister_selector  # noqa: E402
from tgreedy_lib.domain_adaptation.statistics import t_statistic  # noqa: E402
from tgreedy_lib.domain_adaptation.theory.simulate import make_problem  # noqa: E402
from tgreedy_lib.domain_adaptation.theory.simulated_selection import compare_selectors, sweep_selectors  # noqa: E402
from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other  # noqa: E402
from tgreedy_lib.plotting import paper_figures, register_selector_style, unregister_selector_style  # noqa: E402
from tgreedy_lib.plotting import theory_figures as theory  # noqa: E402


def first_features_path(stats, n_steps, **options):
    """Toy selector: features 0, 1, 2, ... in order, each with the weight of its own regression."""
    features = np.arange(n_steps)
    coef = np.zeros((n_steps, stats.n_features))
    second = stats.second_moment("sample")
    for step in range(n_steps):
        coef[step:, step] = stats.xy[:, step].mean() / second[step]
    t = t_statistic(stats.xy)[features]
    zeros = np.zeros(n_steps)
    return SelectionPath("first-features", features, coef, t, zeros, zeros, zeros, zeros, float(stats.yy.mean()),
                         "n_steps", dict(options, n_steps=n_steps))


@pytest.fixture
def toy_selector():
    selector = register_selector("first-features", label="first features", path=first_features_path)
    register_selector_style("first-features", color="tab:green", linestyle=":")
    try:
        yield selector
    finally:
        unregister_selector_style("first-features")
        unregister_selector("first-features")


def synthetic_features(per_class=30, p=12, seed=0) -> ExperimentFeatures:
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.5, (10, p))

    def draw(n):
        labels = np.repeat(np.arange(10), n)
        return 1 / (1 + np.exp(-(centers[labels] + rng.normal(0, 1, (len(labels), p))))), labels

    train, train_labels = draw(per_class)
    test, test_labels = draw(per_class // 2)
    info = {"dataset": "mnist", "feature_map": "synthetic", "official": False,
            "train_size": len(train), "test_size": len(test), "n_features": p}
    return ExperimentFeatures(train, train_labels, test, test_labels, info)


def test_the_papers_two_selectors_are_registered_first():
    assert available_selectors()[:2] == ("greedy", "tgreedy")
    greedy, tgreedy = get_selector("greedy"), get_selector("tgreedy")
    assert (greedy.label, greedy.path, dict(greedy.options)) == ("greedy", greedy_path, {})
    assert (tgreedy.label, tgreedy.path, dict(tgreedy.options)) == ("T-greedy", tgreedy_path, {})


def test_a_selector_holds_only_what_the_algorithm_needs():
    assert [field.name for field in dataclasses.fields(Selector)] == ["name", "label", "path", "options"]
    for presentation in ({"color": "tab:green"}, {"linestyle": ":"}):
        with pytest.raises(TypeError, match=next(iter(presentation))):
            register_selector("first-features", label="first features", path=first_features_path, **presentation)
    assert "first-features" not in available_selectors()


def test_registry_refuses_unknown_and_duplicate_names(toy_selector):
    with pytest.raises(ValueError, match="unknown selector 'random'.*register_selector"):
        get_selector("random")
    with pytest.raises(ValueError, match="already registered"):
        register_selector("first-features", label="again", path=first_features_path)
    with pytest.raises(ValueError, match="callable"):
        register_selector("broken", label="broken", path=None)
    assert "broken" not in available_selectors()


def test_a_registered_selector_runs_through_an_experiment_and_a_figure(toy_selector):
    assert toy_selector is get_selector("first-features") and "first-features" in available_selectors()
    result = run_two_vs_other(synthetic_features(), n_steps=4, targets=(9, 3),
                              methods=("greedy", "tgreedy", "first-features"))
    curves = result["curves"]["first-features"]
    assert len(curves["target_auroc"]) == 2 and all(len(c) == 4 for c in curves["target_auroc"])
    assert all(0.0 <= v <= 1.0 for c in curves["source_auroc"] for v in c)
    assert curves["features"] == [[0, 1, 2, 3], [0, 1, 2, 3]]  # the toy's picks, in order
    # the figures draw every selector in the result, in its registered colour and label
    fig = paper_figures.figure2(result, panels=(9, 3))
    lines = [line for line in fig.axes[0].get_lines() if line.get_label().startswith("first features")]
    assert len(lines) == 2 and all(line.get_color() == "tab:green" for line in lines)
    plt.close(fig)
    fig, ax = plt.subplots()
    paper_figures.plot_average(ax, result)
    assert any(line.get_label() == "first features, target" for line in ax.get_lines())
    plt.close(fig)


def test_a_registered_selector_runs_through_the_simulations_and_their_figures(toy_selector):
    problem = make_problem(n_robust=2, n_spurious=2, n_null=4)
    names = ("tgreedy", "first-features")
    result = compare_selectors(problem, np.random.default_rng(0), n_domains=4, n_steps=3, n_repeats=3, selectors=names)
    assert result["selectors"] == list(names)
    assert result["first-features"]["regret"].shape == (3, 4) and "greedy" not in result
    axes = theory.plot_selector_paths(result)
    drawn = [line for line in axes[0].get_lines() if line.get_label() == "first features"]
    assert len(drawn) == 1 and drawn[0].get_linestyle() == ":" and drawn[0].get_color() == "tab:green"
    plt.close(axes[0].figure)
    rows = sweep_selectors(problem, np.random.default_rng(1), n_domains_values=(4,), n_steps=2, n_repeats=2,
                           at_step=2, selectors=names)
    assert {"first-features_regret", "tgreedy_regret"} <= set(rows[0]) and "greedy_regret" not in rows[0]
    ax = theory.plot_sweep(rows, selectors=names)
    assert any(line.get_label().startswith("first features") for line in ax.get_lines())
    plt.close(ax.figure)


def test_unregistered_selector_is_gone():
    register_selector("first-features", label="first features", path=first_features_path)
    unregister_selector("first-features")
    assert "first-features" not in available_selectors()
    with pytest.raises(ValueError, match="unknown selector"):
        run_two_vs_other(synthetic_features(), n_steps=2, targets=(9,), methods=("first-features",))


@pytest.mark.parametrize("sizes", [(60, 60, 60, 60), (35, 80, 52, 61)])
def test_short_paths_form_only_the_chosen_gram_rows_and_give_the_whole_gram_path(sizes):
    # the estimators' route for k << p: one row per step (batched for equal-sized domains, a loop otherwise)
    from tgreedy_lib import DomainStatistics, TGreedy
    from tgreedy_lib.domain_adaptation._gram_rows import ChosenRows

    rng = np.random.default_rng(11)
    counts = np.array(sizes)
    n, p = counts.sum(), 90
    d = np.repeat(np.arange(counts.size), counts)
    X = rng.standard_normal((n, p)) + rng.normal(0, 1, p)
    y = X[:, :6] @ rng.normal(1, 0.3, 6) + rng.standard_normal(n)
    labels = np.arange(counts.size)
    for method in (tgreedy_path, greedy_path):
        rows = DomainStatistics.from_sorted_rows(X, y, counts, labels, None, "chosen")
        whole = DomainStatistics.from_sorted_rows(X, y, counts, labels, None, False)
        assert isinstance(rows._rows, ChosenRows) and whole._xx is not None
        a, b = method(rows, 12), method(whole, 12)
        np.testing.assert_array_equal(a.features, b.features)
        np.testing.assert_allclose(a.coef, b.coef, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(a.t_statistic, b.t_statistic, rtol=1e-10)
        assert rows._rows.n_known == 12  # the chosen rows, nothing speculative
        np.testing.assert_allclose(rows.xx, whole.xx, rtol=1e-12, atol=1e-14)  # and the whole Gram on demand
    fitted = TGreedy(12, fit_intercept=False).fit(X, y, domains=d)
    np.testing.assert_array_equal(fitted.path_.features, tgreedy_path(whole, 12).features)
