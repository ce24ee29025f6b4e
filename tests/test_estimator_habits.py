"""scikit-learn's habits of TGreedy and Greedy: an intercept, n_features_to_select like
SequentialFeatureSelector, domains routed as the splitter's groups, and refusals that name the fix."""
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import LeaveOneGroupOut, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline

from tgreedy_lib import DomainStatistics, Greedy, TGreedy, tgreedy_path


def _panel(seed=0, n_domains=6, per_domain=150, p=12, offset=40.0):
    """Domains whose features have means far from 0 (a little different in each domain) and a target far from 0."""
    rng = np.random.default_rng(seed)
    d = np.repeat(np.arange(n_domains), per_domain)
    mean = rng.normal(3.0, 1.0, size=p) + 0.1 * rng.standard_normal((n_domains, p))  # far from 0
    X = rng.standard_normal((d.size, p)) + mean[d]
    w = np.zeros(p)
    w[[0, 3, 7]] = [1.0, -0.8, 0.5]
    y = offset + X @ w + 0.3 * rng.standard_normal(d.size)
    return X, y, d


def _held_out_r2(selector, X, y, d, held_out=0):
    train, test = d != held_out, d == held_out
    pipe = Pipeline([("select", selector), ("reg", LinearRegression())])
    pipe.fit(X[train], y[train], select__domains=d[train])
    return pipe.score(X[test], y[test]), pipe["select"].selected_features_


# ----------------------------------------------------------------------------- the intercept
@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_uncentred_target_selects_as_the_centred_one_in_a_pipeline(Selector):
    X, y, d = _panel()
    r2_raw, chosen_raw = _held_out_r2(Selector(3), X, y, d)
    r2_centred, chosen_centred = _held_out_r2(Selector(3), X, y - y.mean(), d)
    np.testing.assert_array_equal(chosen_raw, chosen_centred)
    assert r2_raw == pytest.approx(r2_centred, abs=1e-9)
    assert r2_raw > 0.8
    # without the intercept the offset of y picks features for their means: worse held out
    r2_without, chosen_without = _held_out_r2(Selector(3, fit_intercept=False), X, y, d)
    assert sorted(chosen_raw.tolist()) == [0, 3, 7]
    assert sorted(chosen_without.tolist()) != [0, 3, 7] and r2_without < r2_raw - 0.1


@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_predict_and_score_include_the_intercept(Selector):
    X, y, d = _panel(1)
    selector = Selector(3).fit(X, y, domains=d)
    np.testing.assert_allclose(selector.predict(X), X @ selector.coef_ + selector.intercept_)
    assert selector.score(X, y) > 0.8  # in-sample R^2 of the selected linear model
    # the intercept is mean(y) - coef . mean(X), with the mean of the per-domain means
    means_x = np.array([X[d == k].mean(axis=0) for k in range(6)]).mean(axis=0)
    means_y = np.array([y[d == k].mean() for k in range(6)]).mean()
    assert selector.intercept_ == pytest.approx(means_y - means_x @ selector.coef_, rel=1e-12)
    # the path is that of the centred rows: the same as tgreedy_path/greedy_path on their moments
    centred = DomainStatistics.from_samples(X - means_x, y - means_y, d)
    assert selector.path_.features.tolist() == (
        tgreedy_path(centred, 3) if Selector is TGreedy else Selector(3, fit_intercept=False).fit_statistics(centred).path_
    ).features.tolist()
    without = Selector(3, fit_intercept=False).fit(X, y, domains=d)
    assert without.intercept_ == 0.0 and without.score(X, y) < selector.score(X, y)


def test_cross_val_score_r2_of_the_selector_itself_is_sane():
    X, y, d = _panel(2)
    scores = cross_val_score(TGreedy(3), X, y, groups=d, cv=LeaveOneGroupOut(), scoring="r2",
                             params={"domains": d})
    assert scores.shape == (6,) and np.all(scores > 0.7)


def test_unequal_domains_centre_by_the_mean_of_domain_means():
    X, y, d = _panel(3)
    keep = (d != 0) | (np.arange(d.size) % 5 == 0)  # domain 0 keeps a fifth of its rows
    X, y, d = X[keep], y[keep], d[keep]
    selector = TGreedy(3).fit(X, y, domains=d)
    means_y = np.mean([y[d == k].mean() for k in range(6)])
    means_x = np.mean([X[d == k].mean(axis=0) for k in range(6)], axis=0)
    assert selector.intercept_ == pytest.approx(means_y - means_x @ selector.coef_, rel=1e-12)
    assert abs(means_y - y.mean()) > 1e-6  # the pooled mean would differ


def test_a_constant_column_is_not_needed():
    X, y, d = _panel(4)
    with pytest.raises(ValueError, match="constant"):
        TGreedy(3).fit(np.column_stack([X, np.ones(len(X))]), y, domains=d)
    assert TGreedy(3).fit(X, y, domains=d).score(X, y) > 0.8


# ----------------------------------------------------------------------------- n_features_to_select
def test_fraction_and_auto_and_int():
    X, y, d = _panel(5)
    assert TGreedy(0.25).fit(X, y, domains=d).n_features_to_select_ == 3  # int(0.25 * 12)
    assert TGreedy(0.01).fit(X, y, domains=d).n_features_to_select_ == 1  # at least one
    auto = TGreedy("auto").fit(X, y, domains=d)
    assert sorted(auto.selected_features_.tolist()) == [0, 3, 7]
    assert auto.stopping_evidence_["rule"] == "chance"
    # "auto" keeps what the rule keeps on the path of every feature
    full = TGreedy(12, stopping="chance").fit(X, y, domains=d)
    assert auto.n_features_to_select_ == full.n_features_to_select_
    np.testing.assert_array_equal(auto.coef_, full.coef_)
    assert TGreedy("auto", stopping="bonferroni").fit(X, y, domains=d).stopping_evidence_["rule"] == "bonferroni"
    lodo = Greedy("auto", stopping="lodo").fit(X, y, domains=d)
    assert lodo.path_.n_steps == 12


def test_auto_grows_its_path_until_the_rule_stops_inside_it():
    rng = np.random.default_rng(6)
    d = np.repeat(np.arange(8), 60)
    X = rng.standard_normal((d.size, 40))
    y = X[:, :20] @ np.linspace(1.0, 2.0, 20) + 0.01 * rng.standard_normal(d.size)  # 20 real effects
    auto = TGreedy("auto", stopping="bonferroni").fit(X, y, domains=d)
    full = TGreedy(40, stopping="bonferroni").fit(X, y, domains=d)
    assert auto.n_features_to_select_ == full.n_features_to_select_ >= 16  # past the first 16 steps
    assert auto.path_.n_steps < 40 or full.n_features_to_select_ == 40


@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_more_features_than_exist_warns_and_keeps_all(Selector):
    X, y, d = _panel(7)
    with pytest.warns(UserWarning, match="n_features_to_select=30 exceeds the 12 features: all 12 are kept") as caught:
        selector = Selector(30).fit(X, y, domains=d)
    assert caught[0].filename == __file__
    assert selector.n_features_to_select_ == 12 and selector.get_support().all()


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -2, "all", None])
def test_bad_n_features_to_select_is_refused_by_the_constraints(value):
    X, y, d = _panel(8)
    with pytest.raises(ValueError, match="The 'n_features_to_select' parameter of TGreedy must be"):
        TGreedy(value).fit(X, y, domains=d)


def test_fit_intercept_is_validated():
    X, y, d = _panel(8)
    with pytest.raises(ValueError, match="The 'fit_intercept' parameter of Greedy must be"):
        Greedy(3, fit_intercept="yes").fit(X, y, domains=d)


# ----------------------------------------------------------------------------- leave one domain out
def test_leave_one_domain_out_with_the_labels_given_once():
    X, y, d = _panel(9)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(TGreedy(3).set_fit_request(domains="groups"), LinearRegression())
        scores = cross_val_score(pipe, X, y, cv=LeaveOneGroupOut(), params={"groups": d})
    assert scores.shape == (6,) and np.all(scores > 0.8)
    # the same folds with the labels passed twice, the old way
    twice = cross_val_score(Pipeline([("select", TGreedy(3)), ("reg", LinearRegression())]), X, y, groups=d,
                            cv=LeaveOneGroupOut(), params={"select__domains": d})
    np.testing.assert_allclose(scores, twice, rtol=1e-12)


# ----------------------------------------------------------------------------- sign, labels, weights
def test_sign_positive_warns_when_the_path_runs_out_of_positive_t():
    X, y, d = _panel(10)  # feature 3 acts negatively: sign="positive" takes it last
    with pytest.warns(UserWarning, match=r"sign='positive' ran out of positive T at step 7 of 12") as caught:
        selector = TGreedy(12, sign="positive").fit(X, y, domains=d)
    assert caught[0].filename == __file__  # reported where fit was called
    assert selector.path_.features[-1] == 3 and selector.path_.t_statistic[-1] < -10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TGreedy(5, sign="positive").fit(X, y, domains=d)  # T > 0 at every kept step
        TGreedy(12).fit(X, y, domains=d)


def test_string_class_labels_are_refused_with_the_encoding():
    X, y, d = _panel(11)
    labels = np.where(y > np.median(y), "case", "control")
    for target in (labels, labels.astype(object), list(labels)):
        with pytest.raises(ValueError, match=r"y holds class labels such as 'c\w+'.*\(labels == "):
            TGreedy(3).fit(X, target, domains=d)
    binary = (labels == "case").astype(float)
    assert TGreedy(3).fit(X, binary, domains=d).n_features_to_select_ == 3
    assert TGreedy(3).fit(X, labels == "case", domains=d).n_features_to_select_ == 3  # booleans are numbers


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_integer_sample_weights_act_as_repeated_rows(fit_intercept):
    X, y, d = _panel(12)
    weight = np.random.default_rng(0).integers(0, 4, size=len(y))
    weight[d == 2] = 0
    weight[np.flatnonzero(d == 2)[:3]] = 1  # domain 2 keeps three rows
    weighted = TGreedy(4, fit_intercept=fit_intercept).fit(X, y, domains=d, sample_weight=weight)
    rows = np.repeat(np.arange(len(y)), weight)
    repeated = TGreedy(4, fit_intercept=fit_intercept).fit(X[rows], y[rows], domains=d[rows])
    np.testing.assert_array_equal(weighted.selected_features_, repeated.selected_features_)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10, atol=1e-12)
    assert weighted.intercept_ == pytest.approx(repeated.intercept_, rel=1e-10, abs=1e-12)
    unweighted = TGreedy(4, fit_intercept=fit_intercept).fit(X, y, domains=d)
    assert not np.allclose(weighted.coef_, unweighted.coef_)
    np.testing.assert_array_equal(TGreedy(4).fit(X, y, domains=d, sample_weight=np.ones(len(y))).coef_,
                                  TGreedy(4).fit(X, y, domains=d).coef_)


def test_sample_weights_that_empty_a_domain_are_refused():
    X, y, d = _panel(12)
    weight = np.where(d == 3, 0.0, 1.0)
    with pytest.raises(ValueError, match="the sample weights of domain 3 are all zero: drop its rows"):
        TGreedy(3).fit(X, y, domains=d, sample_weight=weight)
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        TGreedy(3).fit(X, y, domains=d, sample_weight=-np.ones(len(y)))


@pytest.mark.parametrize("domains", [
    np.array([3, 1, 3, 2, 1, 1, 2]), np.array([True, False, True, True, False, False, True]),
    np.array([7, 7, 7, 5, 5, 5, 5], dtype=np.uint8), np.array(["b", "a", "b", "c", "a", "a", "c"]),
    [3, 1, 3, 2, 1, 1, 2], np.array([2.5, 1.0, 2.5, 1.0, 1.0, 2.5, 2.5]),
])
def test_rows_are_grouped_as_factorize_groups_them(domains):
    from tgreedy_lib.validation import factorize
    from tgreedy_lib.domain_adaptation.estimators import _group_rows

    labels, index, order = _group_rows(domains)
    expected_labels, expected_index = factorize(domains, "domains")
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(index, expected_index)
    np.testing.assert_array_equal(order, np.argsort(expected_index, kind="stable"))
