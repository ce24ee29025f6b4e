"""diagnose(): the verdict turns with the spread of the effects, the fold arithmetic equals a fit on samples,
k is chosen on training domains only, and bad input is refused with a message that names the fix."""
import dataclasses

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import r2_score

from tgreedy_lib import Diagnosis, diagnose
from tgreedy_lib.domain_adaptation.selection import greedy_path, tgreedy_path
from tgreedy_lib.domain_adaptation.statistics import DomainStatistics
from tgreedy_lib.domain_adaptation.theorems.simulate import make_problem

matplotlib.use("Agg")


def _simulated(spread: bool, seed=3, n_domains=7, per_domain=430):
    """Symmetric simulated domains (the library's simulator): 5 robust features, 20 whose effect averages 0
    but swings between domains (``spread``) or is the same small effect everywhere, and 35 null ones."""
    if spread:
        problem = make_problem(n_robust=5, n_spurious=20, n_null=35, robust_effect=0.4, robust_spread=0.03,
                               spurious_effect=0.0, spurious_spread=0.6, null_spread=0.0)
    else:
        problem = make_problem(n_robust=5, n_spurious=20, n_null=35, robust_effect=0.4, robust_spread=0.0,
                               spurious_effect=0.1, spurious_spread=0.0, null_spread=0.0)
    domains = problem.draw_samples(np.random.default_rng(seed), n_domains, per_domain)
    X = np.vstack([d[0] for d in domains])
    y = np.concatenate([d[1] for d in domains])
    return X, y, np.repeat(np.arange(n_domains), per_domain)


@pytest.fixture(scope="module")
def spread_result():
    return diagnose(*_simulated(True), n_bootstrap=200)


@pytest.fixture(scope="module")
def flat_result():
    return diagnose(*_simulated(False), n_bootstrap=200)


def test_tgreedy_helps_where_effects_swing_between_domains(spread_result):
    r = spread_result
    assert r.verdict == "helps", r.recommendation
    assert r.recommendation.startswith("T-greedy helps here")
    c = r.comparison()
    assert c["mean"] - c["half_width"] > 0 and c["wins"] > c["losses"]
    assert r.spread_interval[0] > 2.0           # the domains differ far beyond sampling error
    assert r.chosen_held_out[0].mean() > r.chosen_held_out[1].mean()
    # greedy overfits its source domains more than T-greedy does (section 5)
    gap = (r.source - r.held_out).mean(axis=(1, 2))
    assert gap[r.methods.index("greedy")] > gap[r.methods.index("tgreedy")]


def test_tgreedy_does_not_help_without_spread(spread_result, flat_result):
    r = flat_result
    assert r.verdict == "does not help", r.recommendation
    assert r.recommendation.startswith("T-greedy does not help here")
    assert r.spread_interval[1] < 2.0 and r.spread_interval[0] < 1.0 < r.spread_interval[1] + 0.5
    assert r.verdict != spread_result.verdict


def test_held_out_scores_equal_a_fit_on_standardised_samples(spread_result):
    """The moment arithmetic of a fold (centre and scale with the training domains' pooled rows) against
    the obvious computation: scale the samples, fit the path, predict the held-out rows, R^2."""
    X, y, g = _simulated(True)
    r = spread_result
    for d in (0, 4):
        train = g != d
        mean, sd, centre = X[train].mean(axis=0), X[train].std(axis=0), y[train].mean()
        Z = (X - mean) / sd
        stats = DomainStatistics.from_samples(Z[train], y[train] - centre, g[train])
        for name, path_function in (("tgreedy", tgreedy_path), ("greedy", greedy_path)):
            path = path_function(stats, int(r.k_grid[-1]))
            for j, k in enumerate(r.k_grid):
                predicted = centre + Z[~train] @ path.coef[k - 1]
                assert r.held_out[r.methods.index(name), d, j] == pytest.approx(r2_score(y[~train], predicted),
                                                                                 abs=1e-8)


def test_omp_scores_equal_scikit_learn_on_samples(spread_result):
    """Equal domain sizes: the pooled moments are the pooled samples', so OMP is scikit-learn's on the rows."""
    from sklearn.linear_model import OrthogonalMatchingPursuit

    X, y, g = _simulated(True)
    r, d = spread_result, 3
    train = g != d
    scaler_mean, sd, centre = X[train].mean(axis=0), X[train].std(axis=0), y[train].mean()
    Z = (X - scaler_mean) / sd
    for j, k in enumerate(r.k_grid[:5]):
        omp = OrthogonalMatchingPursuit(n_nonzero_coefs=int(k), fit_intercept=False).fit(Z[train], y[train] - centre)
        expected = r2_score(y[~train], centre + Z[~train] @ omp.coef_)
        assert r.held_out[r.methods.index("omp"), d, j] == pytest.approx(expected, abs=1e-8)


def test_chosen_k_equals_a_brute_force_inner_leave_one_domain_out():
    """The k chosen for held-out domain 0: refit greedy on the samples of every inner split, score, average, argmax."""
    X, y, g = _simulated(True, n_domains=5, per_domain=150)
    grid = [1, 2, 4, 8]
    result = diagnose(X, y, g, k=grid, n_bootstrap=20)
    outer = g != 0
    inner_scores = []
    for e in range(1, 5):
        fit_rows = outer & (g != e)
        mean, sd, centre = X[fit_rows].mean(axis=0), X[fit_rows].std(axis=0), y[fit_rows].mean()
        Z = (X - mean) / sd
        path = greedy_path(DomainStatistics.from_samples(Z[fit_rows], y[fit_rows] - centre, g[fit_rows]), max(grid))
        inner_scores.append([r2_score(y[g == e], centre + Z[g == e] @ path.coef[k - 1]) for k in grid])
    assert result.chosen_k[result.methods.index("greedy"), 0] == grid[int(np.argmax(np.mean(inner_scores, axis=0)))]


def test_spread_ratio_against_direct_computation(spread_result):
    X, y, g = _simulated(True)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    u = (y - y.mean()) / y.std()
    effects = np.stack([(Z[g == d] * u[g == d, None]).mean(axis=0) for d in range(7)])
    sampling = np.stack([(Z[g == d] * u[g == d, None]).var(axis=0, ddof=1) / np.sum(g == d) for d in range(7)])
    np.testing.assert_allclose(spread_result.between_variance, effects.var(axis=0, ddof=1), rtol=1e-9)
    np.testing.assert_allclose(spread_result.spread_ratio, effects.var(axis=0, ddof=1) / sampling.mean(axis=0),
                               rtol=1e-9)
    lo, hi = spread_result.spread_interval
    assert lo <= spread_result.spread_summary <= hi


def test_k_is_chosen_on_training_domains_only():
    """Changing the targets of one domain cannot change the k chosen when that domain is held out."""
    X, y, g = _simulated(True, n_domains=5, per_domain=200)
    before = diagnose(X, y, g, k=[1, 3, 5, 10], n_bootstrap=20)
    y2 = y.copy()
    y2[g == 2] = 3.0 * y2[g == 2][::-1]
    after = diagnose(X, y2, g, k=[1, 3, 5, 10], n_bootstrap=20)
    np.testing.assert_array_equal(before.chosen_k[:, 2], after.chosen_k[:, 2])
    assert not np.allclose(before.held_out[:, 2], after.held_out[:, 2])


def test_dataframe_with_named_columns_equals_arrays():
    X, y, g = _simulated(True, n_domains=5, per_domain=120)
    frame = pd.DataFrame(X[:, :12], columns=[f"f{j}" for j in range(12)])
    frame["outcome"] = y
    frame["site"] = np.array(["a", "b", "c", "d", "e"])[g]
    from_frame = diagnose(frame, y="outcome", domains="site", k=[1, 2, 4], n_bootstrap=20)
    from_arrays = diagnose(X[:, :12], y, g, k=[1, 2, 4], n_bootstrap=20)
    assert from_frame.feature_names == tuple(f"f{j}" for j in range(12))
    assert from_frame.domain_labels == ("a", "b", "c", "d", "e")
    np.testing.assert_allclose(from_frame.held_out, from_arrays.held_out)
    assert set(from_frame.tgreedy_features) <= set(from_frame.feature_names)


def test_result_is_named_frozen_and_readable(spread_result):
    assert isinstance(spread_result, Diagnosis)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spread_result.verdict = "helps"
    text = str(spread_result)
    assert " ".join(text.split()).startswith(spread_result.recommendation)   # the sentence, wrapped
    for label in ("T-greedy", "greedy", "OMP", "lasso", "chosen", "greedy overfit", "sampling error"):
        assert label in text
    assert spread_result.held_out.shape == (4, 7, spread_result.k_grid.size)
    assert max(len(line) for line in text.splitlines()) <= 100       # fits a notebook's output column


def test_figure_is_legible_at_720_pixels(spread_result):
    from tgreedy_course.legibility import text_report

    fig = spread_result.plot()
    assert len(fig.axes) == 4
    assert fig.get_size_inches()[0] * fig.dpi <= 720
    report = text_report(fig)
    assert report["smallest_text_pt"] >= 9.0
    assert report["overlapping_texts"] == []
    matplotlib.pyplot.close(fig)


def _small(n_domains=5, per_domain=20, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_domains * per_domain, p))
    return X, X[:, 0] + rng.standard_normal(len(X)), np.repeat(np.arange(n_domains), per_domain)


@pytest.mark.parametrize("change, message", [
    (lambda X, y, g: (X, y, np.minimum(g, 2)), "at least 4 domains"),
    (lambda X, y, g: (X[1:], y[1:], np.r_[9, g[2:]]), "has 1 sample"),
    (lambda X, y, g: (np.where(np.arange(X.size).reshape(X.shape) == 9, np.nan, X), y, g), "NaN in column 'x1'"),
    (lambda X, y, g: (X, np.r_[y[:5], np.nan, y[6:]], g), "y contains NaN"),
    (lambda X, y, g: (X, y[:-3], g), "disagree in length"),
    (lambda X, y, g: (X, y, "site"), "not a pandas DataFrame"),
    (lambda X, y, g: (np.c_[X, np.ones(len(X))], y, g), "constant"),
])
def test_bad_input_is_refused_with_the_fix(change, message):
    with pytest.raises(ValueError, match=message):
        diagnose(*change(*_small()), n_bootstrap=20)


def test_a_text_column_is_named():
    X, y, g = _small()
    frame = pd.DataFrame(X, columns=list("abcd")).assign(colour="red", target=y, domain=g)
    with pytest.raises(ValueError, match="column 'colour' is not numeric.*one-hot"):
        diagnose(frame, y="target", domains="domain")


def test_unknown_domain_column_is_named():
    X, y, g = _small()
    frame = pd.DataFrame(X, columns=list("abcd")).assign(target=y, domain=g)
    with pytest.raises(ValueError, match="domain column 'study' is not a column.*'a', 'b'"):
        diagnose(frame, y="target", domains="study")
    with pytest.raises(ValueError, match="target column 'outcome'"):
        diagnose(frame, y="outcome", domains="domain")


def test_too_many_features_for_dense_moments_are_refused_up_front():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((16, 4000))              # 8 domains x 4,000^2 moments: about 3 GiB with temporaries
    with pytest.raises(ValueError, match="moment matrices .* GiB budget.*fewer features"):
        diagnose(X, rng.standard_normal(16), np.repeat(np.arange(8), 2))


def test_k_beyond_the_features_warns_and_keeps_them_all():
    with pytest.warns(UserWarning, match="there are 4 features"):
        result = diagnose(*_small(), k=[1, 10], n_bootstrap=20)
    assert result.k_grid.tolist() == [1, 4]


def _coverage_of_the_spread_interval(replications=150, n_domains=7, per_domain=200, p=5, tau=0.15, seed=11):
    """Share of simulated data sets whose 95 % spread interval holds the true ratio. Every domain d draws its
    coefficients b_d ~ N(0, tau^2 I) and y = X b_d + e (X, e standard normal), so E[X_i y | d] = b_di and
    Var(X_i y | d) = |b_d|^2 + 1 + b_di^2: the true ratio is (tau^2 + s) / s with s = ((p + 1) tau^2 + 1) / n_d.
    p <= 10: every feature is summarised, none is picked by looking at the data."""
    from tgreedy_lib.diagnosis import _effect_spread

    rng = np.random.default_rng(seed)
    s = ((p + 1) * tau**2 + 1) / per_domain
    truth = (tau**2 + s) / s
    index = np.repeat(np.arange(n_domains), per_domain)
    hits, estimates = 0, []
    for _ in range(replications):
        X = rng.standard_normal((n_domains * per_domain, p))
        b = tau * rng.standard_normal((n_domains, p))
        y = np.einsum("ij,ij->i", X, b[index]) + rng.standard_normal(len(X))
        *_, value, (lo, hi) = _effect_spread(X, y, index, n_domains, 400, rng)
        hits += lo <= truth <= hi
        estimates.append(value)
    return hits / replications, truth, float(np.mean(estimates))


def test_spread_interval_covers_the_true_ratio():
    """A bootstrap over domains misses high (a repeated domain adds no between-domain variance); the interval
    must hold the true ratio about 95 % of the time (150 replications: 0.95 +- 0.035 standard error)."""
    coverage, truth, mean_estimate = _coverage_of_the_spread_interval()
    assert mean_estimate == pytest.approx(truth, rel=0.15)      # the estimate itself is unbiased
    assert 0.88 <= coverage <= 1.0, coverage


def test_a_globally_constant_target_is_named_first_with_its_value():
    X, _, g = _small()
    g = g + 2000                                  # numpy integer labels
    with pytest.raises(ValueError, match=r"^y is 3\.0 in every sample: nothing to predict") as error:
        diagnose(X, np.full(len(X), 3.0), g, n_bootstrap=20)
    assert "within domain" not in str(error.value) and "np.int64" not in str(error.value)


def test_domain_labels_in_messages_are_printed_plainly():
    X, y, g = _small()
    y = y.copy()
    y[g == 1] = 5.0
    with pytest.raises(ValueError, match=r"constant within domain 2001, so") as error:
        diagnose(X, y, g + 2000, n_bootstrap=20)
    assert "np.int64" not in str(error.value)


def test_a_binary_target_warns_in_one_line():
    X, y, g = _small()
    with pytest.warns(UserWarning, match="y has only 2 distinct values.*continuous target") as record:
        diagnose(X, (y > 0).astype(float), g, k=[1, 2], n_bootstrap=20)
    assert "\n" not in str(record[0].message)


def test_printout_gives_median_gain_sign_test_and_few_domains(spread_result):
    from scipy.stats import binomtest

    c = spread_result.comparison()
    diff = spread_result.difference()
    assert c["median"] == pytest.approx(np.median(diff))
    assert c["sign_p"] == pytest.approx(binomtest(c["wins"], c["wins"] + c["losses"]).pvalue)
    text = " ".join(str(spread_result).split())
    assert f"median {c['median']:+.3f}" in text and f"p = {c['sign_p']:.3g}" in text
    assert "Few domains (7) widen both 95% intervals" in text


def test_unclear_verdict_names_median_sign_test_and_the_number_of_domains(spread_result):
    from tgreedy_lib.diagnosis import _recommend

    diff = np.r_[0.05, 0.04, 0.03, 0.06, 0.02, 0.05, 0.04, 0.03, 0.05, -0.2]   # 9 of 10 better, one large loss
    fake = dataclasses.replace(spread_result, domain_labels=tuple(range(10)),
                               chosen_held_out=np.stack([diff, np.zeros(10), np.zeros(10), np.zeros(10)]))
    verdict, sentence = _recommend(fake)
    assert verdict == "unclear"
    assert "median gain +0.040" in sentence and "sign test p = 0.0215" in sentence
    assert "with 10 domains the interval is wide" in sentence


@pytest.mark.parametrize("which", ["spread", "flat"])
def test_spread_panel_has_its_legend_below_and_plain_major_ticks(which, spread_result, flat_result):
    result = spread_result if which == "spread" else flat_result
    fig = result.plot()
    fig.canvas.draw()
    ax = fig.axes[3]
    legend = ax.get_legend().get_window_extent()
    panel = ax.get_window_extent()
    assert legend.y1 <= panel.y0                 # below the panel: it covers no point
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    low, high = ax.get_ylim()
    assert len(labels) >= 3, labels
    for text in labels:
        value = float(text)                      # plain numbers, not 10^k
        assert text.lstrip("0.")[0] in "125"          # a 1-2-5 value
        assert low <= value <= high
    matplotlib.pyplot.close(fig)


def test_readme_section_states_the_verdict_rule_and_its_snippets_run_on_their_own():
    """The README's "Does T-greedy help on my data?" section: the rule behind the three verdicts, with the
    library's thresholds, and code blocks that run one after the other in an empty namespace (imports included,
    ``frame`` built, not assumed)."""
    import pathlib
    import re
    import warnings

    from tgreedy_lib.diagnosis import LITTLE_SPREAD, MIN_GAIN

    text = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    section = text.split("## Does T-greedy help on my data?")[1].split("\n## ")[0]
    prose = " ".join(re.sub(r"```python\n.*?```", "", section, flags=re.S).split())
    for words in (f'"helps" when', f"at least {MIN_GAIN}", '"does not help" when', f"below {LITTLE_SPREAD:g}",
                  '"unclear" otherwise'):
        assert words in prose, words
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for block in re.findall(r"```python\n(.*?)```", section, re.S):
                exec(compile(block.replace("diagnose(frame, ", "diagnose(frame, n_bootstrap=50, "), "<README>", "exec"),
                     namespace)
        finally:
            matplotlib.pyplot.close("all")
    assert namespace["result"].verdict in {"helps", "does not help", "unclear"}
    assert np.asarray(namespace["scores"]).shape == (namespace["frame"]["year"].nunique(),)
