"""Stopping rules (section 5 of the paper): each against a slow, obviously correct reference."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from tgreedy_lib.domain_adaptation.selection import greedy_path, tgreedy_path
from tgreedy_lib.domain_adaptation.statistics import DomainStatistics, t_statistic
from tgreedy_lib.domain_adaptation import lodo, stopping


def _moment_stats(seed=0, n=6, p=12, strong=3):
    rng = np.random.default_rng(seed)
    xy = 0.3 * rng.standard_normal((n, p))
    xy[:, :strong] += np.linspace(1.5, 0.8, strong)
    A = rng.standard_normal((n, p, p)) * 0.05
    xx = np.eye(p)[None] + np.einsum("kij,kil->kjl", A, A)
    return DomainStatistics.from_moments(xx, xy, np.full(n, 6.0), counts=np.full(n, 100))


def _sample_stats(seed=0, n=5, m=40, p=6):
    rng = np.random.default_rng(seed)
    data = []
    for _ in range(n):
        X = rng.standard_normal((m, p))
        beta = np.array([1.0, 0.5, 0, 0, 0, 0]) + 0.3 * rng.standard_normal(p)
        data.append((X, X @ beta + rng.standard_normal(m)))
    return data, DomainStatistics.from_domains(data, lazy=False)


# ------------------------------------------------------------------ Bonferroni / Theorem 1

@pytest.mark.parametrize("n,p,alpha", [(2, 1, 0.05), (8, 2000, 0.05), (9, 50, 0.1), (30, 7, 0.01)])
def test_bonferroni_threshold_is_the_scipy_t_quantile(n, p, alpha):
    expected = scipy_stats.t.ppf(1 - alpha / (2 * p), df=n - 1)
    assert stopping.bonferroni_threshold(n, p, alpha) == pytest.approx(expected, rel=1e-12)
    # a null |T| exceeds it with probability alpha / p (two-sided)
    assert 2 * scipy_stats.t.sf(expected, n - 1) == pytest.approx(alpha / p, rel=1e-9)


def test_theorem1_threshold_is_the_printed_width_and_stricter_for_large_n():
    assert stopping.theorem1_threshold(50, 0.05) == pytest.approx(math.sqrt(4 * math.log(2 * 50 / 0.05)))
    assert stopping.theorem1_threshold(50, 0.05) > stopping.bonferroni_threshold(30, 50, 0.05)


def test_bonferroni_rule_keeps_the_leading_steps_above_the_threshold():
    stats = _moment_stats()
    path = tgreedy_path(stats, 8)
    threshold = scipy_stats.t.ppf(1 - 0.05 / (2 * stats.n_features), stats.n_domains - 1)
    expected = 0
    for t in path.t_statistic:  # a plain loop: stop at the first |T| not above the threshold
        if abs(t) > threshold:
            expected += 1
        else:
            break
    result = stopping.choose_k(path, stats, rule="bonferroni")
    assert result.k == expected and 1 <= expected < 8
    assert result.evidence["threshold"] == pytest.approx(threshold)
    assert stopping.choose_k(path, stats, rule="theorem1").k <= result.k


def test_bonferroni_rejects_bad_alpha():
    with pytest.raises(ValueError, match="alpha"):
        stopping.bonferroni_threshold(5, 10, 1.5)
    with pytest.raises(ValueError, match="n_domains"):
        stopping.bonferroni_threshold(1, 10)


# ------------------------------------------------------------------ sign-flip null

def _slow_sign_flip_max_t(r, exclude):
    n, p = r.shape
    keep = [i for i in range(p) if i not in set(exclude)]
    out = []
    for tail in itertools.product((1.0, -1.0), repeat=n - 1):
        eps = np.array((1.0,) + tail)
        best = 0.0
        for i in keep:
            values = eps * r[:, i]
            t = scipy_stats.ttest_1samp(values, 0.0).statistic
            best = max(best, abs(t))
        out.append(best)
    return np.array(out)


def test_sign_flip_null_matches_a_slow_loop_over_all_sign_vectors():
    rng = np.random.default_rng(3)
    r = rng.standard_normal((6, 9)) + 0.2
    fast = stopping.sign_flip_max_t(r, exclude=[2, 5], n_flips=10_000)
    slow = _slow_sign_flip_max_t(r, [2, 5])
    np.testing.assert_allclose(np.sort(fast), np.sort(slow), rtol=1e-10)
    assert fast.size == 2 ** 5


def test_sign_flip_null_random_flips_when_there_are_too_many_patterns():
    rng = np.random.default_rng(4)
    r = rng.standard_normal((20, 5))
    draws = stopping.sign_flip_max_t(r, n_flips=300, seed=1)
    assert draws.shape == (300,)
    assert np.all(draws >= 0)
    np.testing.assert_array_equal(draws, stopping.sign_flip_max_t(r, n_flips=300, seed=1))


def test_sign_flip_null_quantile_is_calibrated_for_symmetric_null_features():
    # Under a true null (symmetric, mean 0) the observed max |T| exceeds the 95 % sign-flip
    # quantile in about 5 % of repeats (exactly <= 5 % plus ties: the flip test is exact).
    rng = np.random.default_rng(5)
    exceed = 0
    repeats = 200
    for _ in range(repeats):
        r = rng.standard_t(3, size=(8, 30))
        observed = np.max(np.abs(t_statistic(r)))
        q = np.quantile(stopping.sign_flip_max_t(r), 0.95)
        exceed += observed > q
    assert exceed / repeats <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / repeats)


def test_chance_rule_uses_the_residuals_before_each_step():
    stats = _moment_stats(seed=1)
    path = tgreedy_path(stats, 6)
    result = stopping.stop_chance(path, stats, full=True)
    # reference: recompute each step's residuals from scratch and the null by the slow loop
    k = None
    for step in range(path.n_steps):
        coef = np.zeros(stats.n_features) if step == 0 else path.coef[step - 1]
        r = stats.residual_covariances(coef)
        q = np.quantile(_slow_sign_flip_max_t(r, path.features[:step].tolist()), 0.95)
        assert result.evidence["null_quantile"][step] == pytest.approx(q, rel=1e-9)
        if k is None and not abs(path.t_statistic[step]) > q:
            k = step
    assert result.k == (path.n_steps if k is None else k)


def test_gaussian_null_is_near_the_sidak_quantile():
    n, p = 8, 40
    draws = stopping.gaussian_max_t(n, p, n_draws=20_000, seed=0)
    sidak = scipy_stats.t.isf((1 - 0.95 ** (1 / p)) / 2, n - 1)
    assert np.quantile(draws, 0.95) == pytest.approx(sidak, rel=0.05)


# ------------------------------------------------------------------ leave one domain out

def test_lodo_squared_loss_matches_a_hand_loop_on_samples():
    data, stats = _sample_stats()
    K = 4
    path = tgreedy_path(stats, K)
    result = stopping.choose_k(path, stats, rule="lodo", min_k=0)
    held = []
    for k in range(len(data)):
        others = DomainStatistics.from_domains([d for j, d in enumerate(data) if j != k], lazy=False)
        sub = tgreedy_path(others, K)
        X, y = data[k]
        row = [np.mean(y**2)] + [np.mean((y - X @ sub.coef[s]) ** 2) for s in range(K)]
        held.append(row)
    mean = np.mean(held, axis=0)
    np.testing.assert_allclose(result.evidence["mean_held_out"], -mean, rtol=1e-9)
    assert result.k == int(np.argmin(mean))


def test_lodo_auroc_score_callable_matches_a_hand_loop():
    data, stats = _sample_stats(seed=2)
    K = 3
    path = greedy_path(stats, K)

    def auroc(label, W):
        X, y = data[int(label)]
        scores = X @ W.T
        out = []
        for s in range(W.shape[0]):
            pos, neg = scores[y > 0, s], scores[y <= 0, s]
            out.append(np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])))
        return np.array(out)

    result = stopping.stop_lodo(path, stats, score=auroc)
    held = []
    for k in range(len(data)):
        others = DomainStatistics.from_domains([d for j, d in enumerate(data) if j != k], lazy=False)
        sub = greedy_path(others, K)
        W = np.vstack([np.zeros(stats.n_features), sub.coef])
        held.append(auroc(k, W))
    mean = np.mean(held, axis=0)
    np.testing.assert_allclose(result.evidence["mean_held_out"], mean)
    assert result.k == 1 + int(np.argmax(mean[1:]))


def test_lodo_needs_three_domains():
    rng = np.random.default_rng(0)
    stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(3), (2, 3, 3)), rng.standard_normal((2, 3)))
    path = tgreedy_path(stats, 2)
    with pytest.raises(ValueError, match="at least 3 domains"):
        stopping.choose_k(path, stats, rule="lodo")


def test_the_domain_loss_from_moments_equals_the_sample_loss():
    data, stats = _sample_stats(seed=4)
    w = np.linspace(-0.5, 0.5, stats.n_features)
    expected = [np.mean((y - X @ w) ** 2) for X, y in data]
    got = [lodo._domain_loss(stats, k, w[None, :])[0] for k in range(stats.n_domains)]
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_choose_k_rejects_unknown_rules_and_mismatched_statistics():
    stats = _moment_stats()
    path = tgreedy_path(stats, 3)
    with pytest.raises(ValueError, match="rule must be one of"):
        stopping.choose_k(path, stats, rule="aic")
    with pytest.raises(ValueError, match="features"):
        stopping.choose_k(path, _sample_stats()[1], rule="chance")


def test_stopping_result_coef():
    stats = _moment_stats()
    path = tgreedy_path(stats, 3)
    assert np.all(stopping.StoppingResult("x", 0, {}).coef(path) == 0)
    np.testing.assert_array_equal(stopping.StoppingResult("x", 2, {}).coef(path), path.coef[1])


# ------------------------------------------------------------------ the selectors' stopping= option

@pytest.mark.parametrize("Selector,path_function", [("TGreedy", tgreedy_path), ("Greedy", greedy_path)])
@pytest.mark.parametrize("stopping_option,rule,options", [
    ("lodo", "lodo", {}),
    ("bonferroni", "bonferroni", {}),
    ("theorem1", "theorem1", {}),
    ({"rule": "chance", "alpha": 0.2, "n_flips": 64, "seed": 3}, "chance", {"alpha": 0.2, "n_flips": 64, "seed": 3}),
    ({"rule": "bonferroni", "alpha": 0.5}, "bonferroni", {"alpha": 0.5}),
])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_selector_keeps_the_k_that_choose_k_picks_on_the_same_path(Selector, path_function, stopping_option, rule,
                                                                    options, seed):
    import tgreedy_lib

    stats = _moment_stats(seed, n=6, p=12, strong=3)
    selector = getattr(tgreedy_lib, Selector)(n_features_to_select=8, stopping=stopping_option).fit_statistics(stats)
    path = path_function(stats, 8)
    np.testing.assert_array_equal(selector.path_.features, path.features)
    expected = stopping.choose_k(path, stats, rule=rule, **options)
    assert selector.n_features_to_select_ == expected.k
    np.testing.assert_array_equal(selector.selected_features_, path.features[:expected.k])
    np.testing.assert_array_equal(selector.coef_, expected.coef(path))
    assert selector.stopping_evidence_ == {"rule": expected.rule, **expected.evidence}
    assert selector.get_support().sum() == expected.k


def test_selector_stopping_from_samples_matches_choose_k_and_default_keeps_every_step():
    from tgreedy_lib import TGreedy

    data, stats = _sample_stats(seed=4, n=5)
    X = np.vstack([X for X, _ in data]); y = np.concatenate([y for _, y in data])
    d = np.repeat(np.arange(5), [len(y) for _, y in data])
    fitted = TGreedy(n_features_to_select=5, fit_intercept=False, stopping="lodo").fit(X, y, domains=d)
    expected = stopping.choose_k(tgreedy_path(stats, 5), stats, rule="lodo")
    assert fitted.n_features_to_select_ == expected.k
    np.testing.assert_allclose(fitted.stopping_evidence_["mean_held_out"], expected.evidence["mean_held_out"])
    plain = TGreedy(n_features_to_select=5).fit(X, y, domains=d)
    assert plain.n_features_to_select_ == 5 and plain.stopping_evidence_ is None
    np.testing.assert_array_equal(plain.coef_, plain.path_.coef[-1])


def test_selector_stopping_rule_that_keeps_nothing_gives_zero_weights():
    from tgreedy_lib import TGreedy

    rng = np.random.default_rng(0)
    xy = rng.standard_normal((6, 10))  # no feature helps consistently: every |T| is small
    stats = DomainStatistics.from_moments(np.broadcast_to(np.eye(10), (6, 10, 10)), xy, np.full(6, 4.0))
    selector = TGreedy(n_features_to_select=4, stopping="theorem1").fit_statistics(stats)
    assert selector.n_features_to_select_ == 0
    assert selector.selected_features_.size == 0 and not selector.coef_.any()


@pytest.mark.parametrize("bad,message", [
    ({"alpha": 0.1}, "names no rule"),
    ({"rule": "aic"}, "unknown stopping rule 'aic'"),
    ({"rule": "bonferroni", "n_flips": 10}, r"takes the options \('alpha',\), not \['n_flips'\]"),
    ({"rule": "chance", "alpha": 1.5}, "alpha must lie in"),
    ({"rule": "lodo", "min_k": 99}, "min_k must lie in"),
])
def test_selector_bad_stopping_values_are_clear_value_errors(bad, message):
    from tgreedy_lib import TGreedy

    with pytest.raises(ValueError, match=message):
        TGreedy(n_features_to_select=3, stopping=bad).fit_statistics(_moment_stats())


def test_selector_lodo_needs_three_domains():
    from tgreedy_lib import Greedy

    stats = _moment_stats(n=2)
    with pytest.raises(ValueError, match="at least 3 domains"):
        Greedy(n_features_to_select=2, stopping="lodo").fit_statistics(stats)


def test_selector_stopping_rules_are_the_stopping_modules_rules():
    from tgreedy_lib import TGreedy

    assert set(stopping.RULE_OPTIONS) == set(stopping.RULES)
    with pytest.raises(ValueError, match="unknown stopping rule"):
        TGreedy(2, stopping="aic").fit_statistics(_moment_stats())


# ------------------------------------------------------------------ leave one domain out: pooled sums, edge features

def _refit_reference(path, stats, **options):
    """stop_lodo's refit-per-fold branch (a path_function forces it): the slow, obviously correct reference."""
    method = tgreedy_path if path.method == "tgreedy" else greedy_path
    kept = {key: value for key, value in path.options.items() if key != "n_steps"}
    if path.method == "greedy":
        kept.pop("sign", None)
    return stopping.stop_lodo(path, stats, path_function=lambda st, k: method(st, k, **kept), **options)


@pytest.mark.parametrize("method,options", [
    (tgreedy_path, {}),
    (tgreedy_path, {"sign": "positive"}),
    (tgreedy_path, {"allow_reselect": True}),
    (tgreedy_path, {"threshold": 2.0}),
    (tgreedy_path, {"denominator": "unlabeled"}),
    (greedy_path, {}),
    (greedy_path, {"allow_reselect": True}),
])
@pytest.mark.parametrize("lazy", [True, False])
def test_lodo_from_pooled_sums_equals_refitting_every_fold(method, options, lazy):
    rng = np.random.default_rng(11)
    data = []
    for _ in range(9):
        X = rng.standard_normal((30, 7)) * rng.uniform(0.5, 2.0, 7)
        beta = np.array([1.0, -0.6, 0.3, 0, 0, 0, 0]) + 0.4 * rng.standard_normal(7)
        data.append((X, X @ beta + rng.standard_normal(30)))
    stats = DomainStatistics.from_domains(data, lazy=lazy, unlabeled_X=rng.standard_normal((200, 7)))
    path = method(stats, 6, **options)
    fast = stopping.stop_lodo(path, stats, min_k=0)
    slow = _refit_reference(path, stats, min_k=0)
    np.testing.assert_allclose(fast.evidence["held_out"], slow.evidence["held_out"], rtol=1e-9, atol=1e-12)
    assert fast.k == slow.k


def test_lodo_refits_no_fold_one_by_one(monkeypatch):
    """The stagewise paths' folds come from sums over all domains: no per-fold statistics, no n^2 cost."""
    data, stats = _sample_stats(n=7)
    path = tgreedy_path(stats, 4)
    expected = _refit_reference(path, stats)

    def refuse(*args, **kwargs):
        raise AssertionError("a fold was refitted from its own statistics")

    monkeypatch.setattr(DomainStatistics, "subset", refuse)
    assert stopping.stop_lodo(path, stats).evidence["mean_held_out"] == pytest.approx(
        expected.evidence["mean_held_out"], rel=1e-10)


@pytest.mark.parametrize("method", [tgreedy_path, greedy_path])
def test_lodo_keeps_a_feature_present_in_one_domain_out_of_that_fold(method):
    """A one-hot domain dummy has E[X_i^2] = 0 without its domain: not a candidate there, not an error."""
    rng = np.random.default_rng(3)
    data = []
    for k in range(6):
        X = rng.standard_normal((25, 5))
        dummy = np.full((25, 1), 1.0 if k == 2 else 0.0)   # nonzero in domain 2 only
        X = np.hstack([X, dummy])
        data.append((X, X[:, 0] + 0.5 * X[:, 5] + 0.3 * rng.standard_normal(25)))
    stats = DomainStatistics.from_domains(data)
    path = method(stats, 6)
    result = stopping.choose_k(path, stats, rule="lodo", min_k=0)
    held = []
    for k in range(6):
        others = [d for j, d in enumerate(data) if j != k]
        columns = [i for i in range(6) if any(np.any(X[:, i] != 0) for X, _ in others)]
        sub = method(DomainStatistics.from_domains([(X[:, columns], y) for X, y in others]), len(columns))
        X, y = data[k]
        coef = np.zeros((sub.n_steps, 6))
        coef[:, columns] = sub.coef
        W = np.vstack([np.zeros(6), coef, np.repeat(coef[-1:], 6 - sub.n_steps, axis=0)])
        held.append([np.mean((y - X @ w) ** 2) for w in W])
    np.testing.assert_allclose(result.evidence["mean_held_out"], -np.mean(held, axis=0), rtol=1e-9)


def test_lodo_reports_progress_to_a_callable_and_stays_quiet_when_told(capsys):
    data, stats = _sample_stats(n=6)
    path = tgreedy_path(stats, 3)
    lines = []
    stopping.stop_lodo(path, stats, progress=lines.append)
    assert lines and lines[-1].startswith("leave-one-domain-out: fold 6 of 6")
    stopping.stop_lodo(path, stats, progress=False)
    assert capsys.readouterr().err == ""
    stopping.stop_lodo(path, stats, progress=True)
    assert "fold 6 of 6" in capsys.readouterr().err


def test_selector_with_lodo_fits_data_with_a_one_hot_site_dummy():
    from tgreedy_lib.domain_adaptation.estimators import TGreedy

    rng = np.random.default_rng(5)
    d = np.repeat(np.arange(6), 30)
    X = np.column_stack([rng.standard_normal((180, 4)), (d == 3).astype(float)])   # a dummy of site 3
    y = X[:, 0] - 0.4 * X[:, 1] + 0.5 * X[:, 4] + 0.3 * rng.standard_normal(180)
    fitted = TGreedy(n_features_to_select=4, stopping="lodo", fit_intercept=False).fit(X, y, domains=d)
    stats = DomainStatistics.from_samples(X, y, d)
    expected = stopping.choose_k(tgreedy_path(stats, 4), stats, rule="lodo")
    assert fitted.stopping_evidence_["mean_held_out"] == pytest.approx(expected.evidence["mean_held_out"])
    assert fitted.n_features_to_select_ == expected.k
