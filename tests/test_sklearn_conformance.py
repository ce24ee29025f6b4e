"""scikit-learn's own estimator checks over TGreedy and Greedy, and what they cannot check.

The selectors need the domain label of every row (``fit(X, y, domains=d)``): the T-statistic is the
spread of the residual covariances across domains, and there is no honest default, so
``fit(X, y)`` raises (tested below). scikit-learn's checks call ``fit(X, y)`` with generic data and
know nothing of domains. So:

* the production classes go through ``parametrize_with_checks`` with the checks that fit declared
  as expected failures, the way scikit-learn declares what an estimator cannot do by design
  (``expected_failed_checks``): each for the one reason, the missing ``domains``
  (``xfail_strict``: a check that starts passing fails the test, so the list stays exact), and
  ``test_production_selectors_fail_only_for_want_of_domains`` reads every failure's message;
* all checks also run on test-only subclasses that, only when ``domains`` is None, label the rows by
  their index (row j in domain j mod 2: two domains, deterministic, the minimum a T-statistic
  needs). Everything else, parameter validation, ``validate_data``, feature names, sparse
  input (with ``fit_intercept=False``; refused naming the fix with the default intercept), sample
  weights, pickling, cloning, is the production code, and every check passes but the two that
  compare weights with repeated rows: repeating a row moves the rows after it to other index
  domains (the real equivalence is tested in test_estimator_habits.py). (scikit-learn skips
  ``check_array_api_input`` itself unless ``SCIPY_ARRAY_API=1``.)
"""
import numpy as np
import pytest
from scipy import sparse
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks
from sklearn.utils.validation import _num_samples

from tgreedy_lib import DomainStatistics, Greedy, TGreedy


def _index_domains(X):
    """Domain j mod 2 for row j: the harness's stand-in for real domain labels."""
    return np.arange(_num_samples(X)) % 2


class _IndexDomainsTGreedy(TGreedy):
    """TGreedy whose ``fit`` labels the rows by index when no domains are given (tests only)."""

    def fit(self, X, y, domains=None, unlabeled_X=None, sample_weight=None):
        return super().fit(X, y, domains=_index_domains(X) if domains is None else domains, unlabeled_X=unlabeled_X,
                           sample_weight=sample_weight)


class _IndexDomainsGreedy(Greedy):
    """Greedy whose ``fit`` labels the rows by index when no domains are given (tests only)."""

    def fit(self, X, y, domains=None, unlabeled_X=None, sample_weight=None):
        return super().fit(X, y, domains=_index_domains(X) if domains is None else domains, unlabeled_X=unlabeled_X,
                           sample_weight=sample_weight)


def _index_domain_failures(estimator):
    """The checks the index-domain harness fails by construction (the module docstring)."""
    reason = "repeating rows moves the later rows to other index domains (the harness's labels, not the selector's)"
    failures = {"check_sample_weight_equivalence_on_dense_data": reason}
    if not estimator.fit_intercept:
        failures["check_sample_weight_equivalence_on_sparse_data"] = reason
    return failures


# n_features_to_select=1: the checks' smallest data sets have a single feature.
# The stopping rules ride along: "bonferroni" and "chance" keep a prefix of that one step (maybe none).
@parametrize_with_checks(
    [_IndexDomainsTGreedy(n_features_to_select=1), _IndexDomainsGreedy(n_features_to_select=1),
     _IndexDomainsTGreedy(n_features_to_select=1, fit_intercept=False),
     _IndexDomainsGreedy(n_features_to_select=1, fit_intercept=False),
     _IndexDomainsTGreedy(n_features_to_select=1, stopping="bonferroni"),
     _IndexDomainsGreedy(n_features_to_select=1, stopping={"rule": "chance", "n_flips": 64})],
    expected_failed_checks=_index_domain_failures,
    xfail_strict=True,
)
@pytest.mark.filterwarnings("ignore:No features were selected")  # a rule may keep none of the checks' noise
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


#: The checks that fit the production classes without ``domains``; every one fails for that reason alone.
_NEED_DOMAINS = (
    "check_all_zero_sample_weights_error", "check_complex_data", "check_dict_unchanged",
    "check_dont_overwrite_parameters", "check_dtype_object", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_empty_data_messages", "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_estimators_pickle", "check_f_contiguous_array_estimator",
    "check_fit2d_1feature", "check_fit2d_1sample", "check_fit2d_predict1d", "check_fit_check_is_fitted",
    "check_fit_idempotent", "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in", "check_n_features_in_after_fitting",
    "check_pipeline_consistency", "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_requires_y_none", "check_sample_weight_equivalence_on_dense_data", "check_sample_weights_list",
    "check_sample_weights_not_an_array", "check_sample_weights_not_overwritten", "check_sample_weights_pandas_series",
    "check_sample_weights_shape", "check_transformer_data_not_an_array", "check_transformer_general",
    "check_transformer_preserve_dtypes",
)


@parametrize_with_checks(
    [TGreedy(1), Greedy(1)],
    expected_failed_checks=lambda estimator: {
        name: "fit needs domains, the domain label of every row (the T-statistic is computed across domains), "
              "which the generic checks do not pass" for name in _NEED_DOMAINS},
    xfail_strict=True,
)
def test_production_selectors_with_domains_declared_as_expected_failures(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------- the production classes
def _chain(exc):
    """The messages of an exception and of everything it was raised from or during."""
    while exc is not None:
        yield str(exc)
        exc = exc.__cause__ or exc.__context__


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")  # array API: needs SCIPY_ARRAY_API
@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_production_selectors_fail_only_for_want_of_domains(Selector):
    results = check_estimator(Selector(1), on_fail=None)
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    failed = [r for r in results if r["status"] == "failed"]
    # the API checks that never call fit pass on the production class itself
    assert {"check_estimator_cloneable", "check_no_attributes_set_in_init", "check_parameters_default_constructible",
            "check_get_params_invariance", "check_set_params", "check_estimators_unfitted",
            "check_do_not_raise_errors_in_init_or_set_params"} <= passed
    assert failed, "without domains some checks must fail: fit has no default for them"
    for r in failed:
        assert any("needs domains" in m for m in _chain(r["exception"])), (r["check_name"], r["exception"])


def _data(seed=0, n=120, p=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    domains = np.arange(n) % 3
    y = X[:, 1] - 0.5 * X[:, 4] + 0.1 * rng.standard_normal(n)
    return X, y, domains


@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_fit_without_domains_is_a_clear_error(Selector):
    X, y, _ = _data()
    with pytest.raises(ValueError, match=r"needs domains.*domain label of every row"):
        Selector(2).fit(X, y)


@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_dataframe_column_names_come_back_without_warning(Selector, recwarn):
    pd = pytest.importorskip("pandas")
    X, y, d = _data()
    frame = pd.DataFrame(X, columns=[f"pixel_{j}" for j in range(X.shape[1])])
    sel = Selector(2).fit(frame, y, domains=d)
    np.testing.assert_array_equal(sel.feature_names_in_, frame.columns)
    assert sel.n_features_in_ == X.shape[1]
    names = sel.get_feature_names_out()
    assert names.tolist() == [f"pixel_{j}" for j in sorted(sel.selected_features_)]
    assert sel.transform(frame).shape == (len(frame), 2)
    assert not [w for w in recwarn if "feature names" in str(w.message)]
    # fitted on a frame, transformed with an array: scikit-learn's warning, as for its own estimators
    with pytest.warns(UserWarning, match="feature names"):
        sel.transform(X)


@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
def test_dataframe_fit_equals_array_fit(Selector):
    pd = pytest.importorskip("pandas")
    X, y, d = _data(1)
    from_frame = Selector(3).fit(pd.DataFrame(X, columns=list("abcdef")), y, domains=d)
    from_array = Selector(3).fit(X, y, domains=d)
    np.testing.assert_array_equal(from_frame.path_.features, from_array.path_.features)
    np.testing.assert_array_equal(from_frame.coef_, from_array.coef_)
    assert not hasattr(from_array, "feature_names_in_")


@pytest.mark.parametrize("Selector", [TGreedy, Greedy])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_gives_the_dense_result(Selector, fmt):
    X, y, d = _data()
    Xs = sparse.random(120, 6, density=0.5, format=fmt, random_state=0) + sparse.eye(120, 6, format=fmt)
    from_sparse = Selector(2, fit_intercept=False).fit(Xs, y, domains=d, unlabeled_X=sparse.csr_matrix(X))
    from_dense = Selector(2, fit_intercept=False).fit(Xs.toarray(), y, domains=d, unlabeled_X=X)
    np.testing.assert_array_equal(from_sparse.path_.features, from_dense.path_.features)
    np.testing.assert_allclose(from_sparse.coef_, from_dense.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(from_sparse.decision_function(Xs), from_dense.decision_function(Xs.toarray()),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_features_to_select": 0}, "n_features_to_select"),
        ({"n_features_to_select": 2.5}, "n_features_to_select"),
        ({"denominator": "pooled"}, "denominator"),
        ({"refit": "forward"}, "refit"),
        ({"threshold": np.nan}, "threshold"),
        ({"threshold": "high"}, "threshold"),
        ({"allow_reselect": "yes"}, "allow_reselect"),
        ({"sign": "largest"}, "sign"),
        ({"stopping": 3}, "stopping"),
    ],
)
def test_parameters_are_validated_by_scikit_learn(params, message):
    X, y, d = _data()
    with pytest.raises(ValueError, match=rf"The '{message}' parameter of TGreedy must be"):
        TGreedy(**params).fit(X, y, domains=d)


def test_a_stopping_rule_is_checked_against_the_stopping_module_before_the_path():
    X, y, d = _data()
    with pytest.raises(ValueError, match=r"unknown stopping rule 'aic'; choose one of \('lodo', 'bonferroni'"):
        TGreedy(stopping="aic").fit(X, y, domains=d)


def test_fit_statistics_validates_parameters_and_drops_old_feature_names():
    pd = pytest.importorskip("pandas")
    X, y, d = _data()
    stats = DomainStatistics.from_samples(X, y, d)
    with pytest.raises(ValueError, match="n_features_to_select"):
        TGreedy(0).fit_statistics(stats)
    sel = TGreedy(2).fit(pd.DataFrame(X, columns=list("abcdef")), y, domains=d)
    sel.fit_statistics(stats)
    assert not hasattr(sel, "feature_names_in_")
    assert sel.n_features_in_ == 6
    assert sel.intercept_ == 0.0  # the moments are used as given
    np.testing.assert_allclose(sel.coef_, TGreedy(2, fit_intercept=False).fit(X, y, domains=d).coef_, rtol=1e-12)


def test_domains_reach_fit_through_a_pipeline():
    X, y, d = _data()
    pipe = Pipeline([("select", TGreedy(2))]).fit(X, y, select__domains=d)
    assert pipe.transform(X).shape == (len(X), 2)


def test_domains_are_routed_as_metadata_in_leave_domains_out_cross_validation():
    import sklearn
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import GroupKFold, cross_val_score

    X, y, _ = _data(2, n=240)
    d = np.arange(240) % 6
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("select", TGreedy(2).set_fit_request(domains=True)), ("reg", LinearRegression())])
        pipe.fit(X, y, domains=d)
        assert sorted(pipe["select"].selected_features_.tolist()) == [1, 4]  # the two features y depends on
        # each fold's selector sees only its training rows and their domain labels (four domains of six)
        scores = cross_val_score(pipe, X, y, cv=GroupKFold(3), params={"domains": d, "groups": d})
    assert scores.shape == (3,) and np.all(scores > 0.9)
