"""Baselines on domain moments, each against scikit-learn on samples or a slow reference."""
import numpy as np
import pytest
from scipy import optimize
from scipy import stats as scipy_stats
from sklearn.linear_model import Lasso, LassoCV, OrthogonalMatchingPursuit
from sklearn.model_selection import LeaveOneGroupOut

from tgreedy_lib.domain_adaptation import baselines
from tgreedy_lib.domain_adaptation.statistics import t_statistic
from tgreedy_lib.domain_adaptation.statistics import DomainStatistics


def _data(seed=0, n=5, m=60, p=8):
    rng = np.random.default_rng(seed)
    data = []
    for _ in range(n):
        X = rng.standard_normal((m, p))
        beta = np.zeros(p)
        beta[:3] = [1.0, -0.6, 0.4]
        beta += 0.4 * rng.standard_normal(p) * (np.arange(p) >= 3)
        data.append((X, X @ beta + 0.5 * rng.standard_normal(m)))
    return data, DomainStatistics.from_domains(data, lazy=False)


def _pooled(data):
    X = np.vstack([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    groups = np.repeat(np.arange(len(data)), [len(d[1]) for d in data])
    return X, y, groups


def test_omp_on_moments_equals_sklearn_omp_on_pooled_samples():
    data, stats = _data()
    X, y, _ = _pooled(data)
    path = baselines.omp_path(stats, 4, choose=False)
    for k in range(1, 5):
        ref = OrthogonalMatchingPursuit(n_nonzero_coefs=k, fit_intercept=False).fit(X, y).coef_
        np.testing.assert_allclose(path.coef[k - 1], ref, atol=1e-10)


def test_lasso_on_moments_equals_sklearn_lasso_on_pooled_samples():
    data, stats = _data(seed=1)
    X, y, _ = _pooled(data)
    path = baselines.lasso_path(stats, 6, n_alphas=8, choose=False)
    for alpha, coef in zip(path.parameter, path.coef):
        ref = Lasso(alpha=alpha, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(X, y).coef_
        np.testing.assert_allclose(coef, ref, atol=1e-7)


def test_lasso_lodo_choice_equals_lasso_cv_with_leave_one_group_out():
    data, stats = _data(seed=2)
    X, y, groups = _pooled(data)
    path = baselines.lasso_path(stats, 8, n_alphas=12)
    folds = list(LeaveOneGroupOut().split(X, y, groups))
    cv = LassoCV(alphas=path.parameter, cv=folds, fit_intercept=False, tol=1e-12, max_iter=100_000)
    cv.fit(X, y)
    assert path.parameter[path.chosen] == pytest.approx(cv.alpha_)
    # the held-out losses agree with LassoCV's per-fold MSE, averaged over the folds
    order = np.argsort(-cv.alphas_)
    np.testing.assert_allclose(path.info["lodo_loss"], cv.mse_path_.mean(axis=1)[order], rtol=1e-6)


def test_vrex_objective_and_minimizer_match_a_slow_reference():
    data, stats = _data(seed=3, n=4, m=30, p=3)
    beta, ridge = 0.7, 0.01

    def slow(w):
        losses = np.array([np.mean((y - X @ w) ** 2) for X, y in data])
        return losses.mean() + beta * np.var(losses) + ridge * w @ w

    w0 = np.array([0.3, -0.2, 0.1])
    value, grad = baselines.vrex_objective(w0, stats, beta, ridge)
    assert value == pytest.approx(slow(w0), rel=1e-10)
    np.testing.assert_allclose(grad, optimize.approx_fprime(w0, slow, 1e-7), rtol=1e-4, atol=1e-6)
    fast = baselines.vrex_fit(stats, beta, ridge=ridge)
    ref = optimize.minimize(slow, np.zeros(3), method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20_000}).x
    np.testing.assert_allclose(fast, ref, atol=1e-5)


def test_vrex_with_zero_penalty_is_pooled_ridge():
    data, stats = _data(seed=4)
    X, y, _ = _pooled(data)
    ridge = 0.05
    w = baselines.vrex_fit(stats, 0.0, ridge=ridge)
    np.testing.assert_allclose(w, np.linalg.solve(X.T @ X / len(y) + ridge * np.eye(X.shape[1]), X.T @ y / len(y)))


def test_icp_pvalues_match_a_slow_per_feature_loop():
    data, stats = _data(seed=5)
    pvalue, pooled, z = baselines.icp_pvalues(stats)
    for i in range(stats.n_features):
        slopes, variances = [], []
        for X, y in data:
            x = X[:, i]
            b = np.sum(x * y) / np.sum(x * x)  # least squares through the origin
            resid_var = np.mean(y**2) - b**2 * np.mean(x**2)
            slopes.append(b)
            variances.append(resid_var / np.sum(x * x))
        w = 1 / np.array(variances)
        mean = np.sum(w * slopes) / np.sum(w)
        q = np.sum(w * (np.array(slopes) - mean) ** 2)
        assert pvalue[i] == pytest.approx(scipy_stats.chi2.sf(q, len(data) - 1), rel=1e-9)
        assert pooled[i] == pytest.approx(mean, rel=1e-10)


def test_icp_detects_heterogeneous_features():
    data, stats = _data(seed=6, m=2000)
    pvalue, _, _ = baselines.icp_pvalues(stats)
    # features 3.. swing between domains (spread 0.4, 2000 samples): the test tells them apart
    assert np.all(pvalue[3:] < 0.01)


def test_icp_needs_counts():
    stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(2), (3, 2, 2)), np.ones((3, 2)) + np.eye(3, 2))
    with pytest.raises(ValueError, match="counts"):
        baselines.icp_pvalues(stats)


def test_t_filter_matches_a_loop_over_k():
    data, stats = _data(seed=7)
    path = baselines.t_filter_path(stats, 5, choose=False)
    t = np.array([scipy_stats.ttest_1samp(stats.xy[:, i], 0.0).statistic for i in range(stats.n_features)])
    order = np.argsort(-np.abs(t), kind="stable")
    weight = stats.xy.mean(axis=0) / np.mean([np.mean(X**2, axis=0) for X, _ in data], axis=0)
    for k in range(1, 6):
        expected = np.zeros(stats.n_features)
        for i in order[:k]:
            expected[i] = weight[i]
        np.testing.assert_allclose(path.coef[k - 1], expected, rtol=1e-10)
    np.testing.assert_allclose(t, t_statistic(stats.xy))


def test_lodo_choice_matches_a_hand_loop():
    data, stats = _data(seed=8)
    path = baselines.omp_path(stats, 4)
    losses = []
    for k in range(len(data)):
        others = DomainStatistics.from_domains([d for j, d in enumerate(data) if j != k], lazy=False)
        W = baselines.omp_path(others, 4, choose=False).coef
        X, y = data[k]
        losses.append([np.mean((y - X @ w) ** 2) for w in W])
    mean = np.mean(losses, axis=0)
    np.testing.assert_allclose(path.info["lodo_loss"], mean, rtol=1e-9)
    assert path.chosen == int(np.argmin(mean))


def test_run_baseline_rejects_unknown_names():
    _, stats = _data()
    with pytest.raises(ValueError, match="unknown baseline"):
        baselines.run_baseline("ridge", stats)


def test_baselines_are_registered_selectors_and_take_the_stopping_rules():
    from tgreedy_lib.domain_adaptation import stopping
    from tgreedy_lib.domain_adaptation.selectors import get_selector

    data, stats = _data(seed=9)
    for name in ("omp", "t_filter", "icp"):
        path = get_selector(name).run(stats, 3)
        assert path.method == name and path.n_steps <= 3
        assert stopping.choose_k(path, stats, rule="lodo").k <= path.n_steps
    omp = get_selector("omp").run(stats, 4)
    np.testing.assert_allclose(omp.coef, baselines.omp_path(stats, 4, choose=False).coef)
    # the recorded T of each step is the T of the added feature on the residuals before it
    for s, i in enumerate(omp.features):
        before = np.zeros(stats.n_features) if s == 0 else omp.coef[s - 1]
        assert omp.t_statistic[s] == pytest.approx(t_statistic(stats.residual_covariances(before))[i])
    assert len(set(omp.features.tolist())) == 4
