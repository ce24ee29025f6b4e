"""The fast incremental selectors against slow references recomputed from the raw samples."""
import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from tgreedy_lib import DomainStatistics, Greedy, TGreedy, greedy_path, t_statistic, tgreedy_path


def make_domains(rng, n_domains=5, n_samples=60, p=12, spurious=3):
    """Domains where feature 0 is robust and features 1..spurious swing between domains."""
    X, y, d = [], [], []
    for k in range(n_domains):
        Xk = rng.standard_normal((n_samples + k, p)) + 0.3 * rng.standard_normal(p)
        beta = np.zeros(p)
        beta[0] = 1.0
        beta[1 : 1 + spurious] = 2.0 * rng.standard_normal(spurious)
        yk = Xk @ beta + 0.5 * rng.standard_normal(Xk.shape[0])
        X.append(Xk), y.append(yk), d.append(np.full(Xk.shape[0], k))
    return np.vstack(X), np.concatenate(y), np.concatenate(d)


def reference_path(X, y, domains, method, n_steps, sign="abs", refit="stagewise", unlabeled_X=None):
    """Obviously-correct path: every quantity recomputed from the raw samples at every step."""
    labels = np.unique(domains)
    groups = [(X[domains == lab], y[domains == lab]) for lab in labels]
    n, p = len(groups), X.shape[1]
    if unlabeled_X is None:
        second = np.mean([np.mean(Xk**2, axis=0) for Xk, _ in groups], axis=0)
    else:
        second = np.mean(unlabeled_X**2, axis=0)
    w = np.zeros(p)
    chosen, out = [], []
    for _ in range(n_steps):
        # r_k,i = E[X_i (Y - w.X) | d_k] from the samples of domain k
        r = np.array([[np.mean(Xk[:, i] * (yk - Xk @ w)) for i in range(p)] for Xk, yk in groups])
        mu = r.mean(axis=0)
        sigma = np.sqrt(((r - mu) ** 2).sum(axis=0) / (n - 1))
        t = mu / (sigma / np.sqrt(n))
        if method == "tgreedy":
            score = np.abs(t) if sign == "abs" else t
        else:
            score = mu**2 / second
        score = np.where(np.isin(np.arange(p), chosen), -np.inf, score)
        i = int(np.argmax(score))
        chosen.append(i)
        if refit == "stagewise":
            w[i] += mu[i] / second[i]
        else:
            # least squares on the chosen set with the domain-averaged moments
            Xs = [(Xk[:, chosen], yk) for Xk, yk in groups]
            if unlabeled_X is None:
                G = np.mean([A.T @ A / len(A) for A, _ in Xs], axis=0)
            else:
                U = unlabeled_X[:, chosen]
                G = U.T @ U / len(U)
            b = np.mean([A.T @ b / len(A) for A, b in Xs], axis=0)
            w = np.zeros(p)
            w[chosen] = np.linalg.solve(G, b)
        loss = np.mean([np.mean((yk - Xk @ w) ** 2) for Xk, yk in groups])
        out.append((i, w.copy(), t[i], loss))
    return out


@pytest.mark.parametrize(
    "method, sign", [("tgreedy", "abs"), ("tgreedy", "positive"), ("greedy", "abs")]
)
@pytest.mark.parametrize("refit", ["stagewise", "stepwise"])
def test_incremental_path_equals_slow_reference(method, refit, sign):
    rng = np.random.default_rng(7)
    X, y, d = make_domains(rng)
    stats = DomainStatistics.from_samples(X, y, d)
    run = tgreedy_path if method == "tgreedy" else greedy_path
    kwargs = {"sign": sign} if method == "tgreedy" else {}
    path = run(stats, n_steps=8, refit=refit, **kwargs)
    ref = reference_path(X, y, d, method, 8, sign=sign, refit=refit)
    assert path.features.tolist() == [r[0] for r in ref]
    np.testing.assert_allclose(path.coef, np.array([r[1] for r in ref]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(path.t_statistic, [r[2] for r in ref], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(path.training_loss, [r[3] for r in ref], rtol=0, atol=1e-10)


@pytest.mark.parametrize("refit", ["stagewise", "stepwise"])
def test_unlabeled_denominator_equals_reference(refit):
    rng = np.random.default_rng(3)
    X, y, d = make_domains(rng)
    U = rng.standard_normal((500, X.shape[1])) * 1.1
    stats = DomainStatistics.from_samples(X, y, d, unlabeled_X=U)
    path = tgreedy_path(stats, n_steps=6, denominator="unlabeled", refit=refit)
    ref = reference_path(X, y, d, "tgreedy", 6, refit=refit, unlabeled_X=U)
    assert path.features.tolist() == [r[0] for r in ref]
    np.testing.assert_allclose(path.coef, np.array([r[1] for r in ref]), atol=1e-10)
    np.testing.assert_allclose(path.training_loss, [r[3] for r in ref], atol=1e-10)


def test_t_statistic_agrees_with_scipy_one_sample_t_test():
    rng = np.random.default_rng(0)
    r = rng.standard_t(3, size=(9, 50)) + 0.4
    t, mu, sigma = t_statistic(r, moments=True)
    expected = scipy_stats.ttest_1samp(r, 0.0, axis=0).statistic
    np.testing.assert_allclose(t, expected, rtol=1e-12)
    np.testing.assert_allclose(sigma, r.std(axis=0, ddof=1), rtol=1e-12)


def test_first_step_t_statistic_is_the_t_test_of_the_per_domain_covariances():
    rng = np.random.default_rng(1)
    X, y, d = make_domains(rng)
    stats = DomainStatistics.from_samples(X, y, d)
    path = tgreedy_path(stats, n_steps=1)
    i = path.features[0]
    per_domain = [np.mean(X[d == k][:, i] * y[d == k]) for k in np.unique(d)]
    assert path.t_statistic[0] == pytest.approx(scipy_stats.ttest_1samp(per_domain, 0.0).statistic, rel=1e-12)


def test_t_statistic_when_sigma_is_zero():
    r = np.array([[1.0, 0.0, -2.0, 1.0], [1.0, 0.0, -2.0, 3.0]])
    t, mu, sigma = t_statistic(r, moments=True)
    assert t[0] == np.inf and t[1] == 0.0 and t[2] == -np.inf and np.isfinite(t[3])


def test_robust_feature_preferred_by_tgreedy_spurious_by_greedy():
    rng = np.random.default_rng(11)
    X, y, d = make_domains(rng, n_domains=6, n_samples=400, spurious=3)
    stats = DomainStatistics.from_samples(X, y, d)
    assert tgreedy_path(stats, n_steps=1).features[0] == 0
    assert greedy_path(stats, n_steps=1).features[0] in (1, 2, 3)


@pytest.mark.parametrize("wide", [False, True])  # wide: lazily computed Gram rows, rows shuffled across domains
def test_results_do_not_depend_on_feature_or_domain_order(wide):
    rng = np.random.default_rng(5)
    X, y, d = wide_domains(5) if wide else make_domains(rng)
    stats = DomainStatistics.from_samples(X, y, d)
    perm = rng.permutation(X.shape[1])
    rows = rng.permutation(X.shape[0])
    relabel = {k: v for k, v in zip(np.unique(d), rng.permutation(np.unique(d)))}
    d2 = np.array([relabel[v] for v in d])
    stats2 = DomainStatistics.from_samples(X[rows][:, perm], y[rows], d2[rows])
    for run in (tgreedy_path, greedy_path):
        a, b = run(stats, n_steps=8), run(stats2, n_steps=8)
        assert perm[b.features].tolist() == a.features.tolist()
        np.testing.assert_allclose(b.coef[:, np.argsort(perm)], a.coef, atol=1e-12)
        np.testing.assert_allclose(b.t_statistic, a.t_statistic, rtol=1e-9)
    if wide:
        assert stats._rows._full is None and stats2._rows._full is None  # both stayed lazy


def test_from_domains_equals_from_samples():
    rng = np.random.default_rng(2)
    X, y, d = make_domains(rng)
    a = DomainStatistics.from_samples(X, y, d)
    b = DomainStatistics.from_domains([(X[d == k], y[d == k]) for k in np.unique(d)])
    np.testing.assert_allclose(a.xx, b.xx)
    np.testing.assert_allclose(a.xy, b.xy)
    np.testing.assert_allclose(a.yy, b.yy)
    assert a.counts.tolist() == [np.sum(d == k) for k in np.unique(d)]


def test_from_moments_matches_samples_and_losses():
    rng = np.random.default_rng(4)
    X, y, d = make_domains(rng)
    a = DomainStatistics.from_samples(X, y, d)
    b = DomainStatistics.from_moments(np.array(a.xx), np.array(a.xy), np.array(a.yy))
    pa, pb = tgreedy_path(a, n_steps=5), tgreedy_path(b, n_steps=5)
    np.testing.assert_allclose(pa.coef, pb.coef, atol=1e-13)
    w = pa.coef[-1]
    assert a.training_loss(w) == pytest.approx(pa.training_loss[-1], abs=1e-12)


def test_threshold_stops_the_path():
    rng = np.random.default_rng(6)
    X, y, d = make_domains(rng, n_samples=300)
    stats = DomainStatistics.from_samples(X, y, d)
    full = tgreedy_path(stats, n_steps=12)
    cut = 3.0
    stopped = tgreedy_path(stats, n_steps=12, threshold=cut)
    assert stopped.stop_reason == "threshold"
    assert np.all(np.abs(stopped.t_statistic) >= cut)
    assert stopped.n_steps < full.n_steps
    np.testing.assert_array_equal(stopped.features, full.features[: stopped.n_steps])


def test_allow_reselect_repeats_features_and_keeps_lowering_loss():
    rng = np.random.default_rng(8)
    X, y, d = make_domains(rng, p=4)
    stats = DomainStatistics.from_samples(X, y, d)
    path = greedy_path(stats, n_steps=12, allow_reselect=True)
    assert len(set(path.features.tolist())) < 12
    assert np.all(np.diff(np.concatenate([[path.initial_loss], path.training_loss])) <= 1e-12)


def test_sklearn_selector_and_pipeline():
    rng = np.random.default_rng(9)
    X, y, d = make_domains(rng, n_samples=200)
    labels = (y > np.median(y)).astype(int)
    sel = TGreedy(n_features_to_select=3).fit(X, y, domains=d)
    assert sel.get_support().sum() == 3
    assert sel.transform(X).shape == (X.shape[0], 3)
    np.testing.assert_allclose(sel.decision_function(X), X @ sel.coef_ + sel.intercept_)
    pipe = Pipeline([("select", Greedy(n_features_to_select=4)), ("clf", LogisticRegression())])
    pipe.fit(X, labels, select__domains=d)
    assert pipe.predict(X).shape == labels.shape
    assert pipe.named_steps["select"].get_support().sum() == 4


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda X, y, d: (np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), y, d), "NaN"),
        (lambda X, y, d: (X, np.where(np.arange(y.size) == 3, np.inf, y), d), "infinite"),
        (lambda X, y, d: (np.column_stack([X, np.full(len(X), 2.5)]), y, d), "feature 12 is constant"),
        (lambda X, y, d: (X, y, np.zeros_like(d)), "at least two domains"),
        (lambda X, y, d: (X, y[:-1], d), "disagree in length"),
        (lambda X, y, d: (X, y, d[:-2]), "disagree in length"),
        (lambda X, y, d: (X[:, 0], y, d), "dimension"),
    ],
)
def test_bad_input_raises_value_error_naming_the_problem(mutate, message):
    rng = np.random.default_rng(10)
    X, y, d = make_domains(rng)
    with pytest.raises(ValueError, match=message):
        DomainStatistics.from_samples(*mutate(X, y, d))


def test_empty_domain_and_mismatched_domains():
    rng = np.random.default_rng(12)
    with pytest.raises(ValueError, match="empty"):
        DomainStatistics.from_domains([(rng.standard_normal((5, 3)), np.ones(5)), (np.zeros((0, 3)), np.zeros(0))])
    with pytest.raises(ValueError, match="features"):
        DomainStatistics.from_domains([(rng.standard_normal((5, 3)), np.ones(5)), (rng.standard_normal((5, 4)), np.ones(5))])
    with pytest.raises(ValueError, match="rows"):
        DomainStatistics.from_domains([(rng.standard_normal((5, 3)), np.ones(4)), (rng.standard_normal((5, 3)), np.ones(5))])


def test_bad_options_and_missing_domains():
    rng = np.random.default_rng(13)
    X, y, d = make_domains(rng)
    stats = DomainStatistics.from_samples(X, y, d)
    with pytest.raises(ValueError, match="sign"):
        tgreedy_path(stats, sign="largest")
    with pytest.raises(ValueError, match="unlabeled"):
        tgreedy_path(stats, denominator="unlabeled")
    with pytest.raises(ValueError, match="exceeds"):
        tgreedy_path(stats, n_steps=100)
    with pytest.raises(ValueError, match="domains"):
        TGreedy().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        TGreedy(2).fit(X, y, domains=d).decision_function(X[:, :3])


def test_stepwise_refit_rejects_linearly_dependent_features():
    rng = np.random.default_rng(14)
    X = rng.standard_normal((300, 5))
    X = np.column_stack([X, X[:, 0] + X[:, 1]])
    y = X[:, 5] + 0.1 * rng.standard_normal(300)
    stats = DomainStatistics.from_samples(X, y, np.arange(300) % 3)
    with pytest.raises(ValueError, match="linearly dependent"):
        tgreedy_path(stats, n_steps=6, refit="stepwise")
    assert tgreedy_path(stats, n_steps=6).n_steps == 6  # stagewise never inverts a Gram


def test_subset_equals_statistics_built_from_those_domains():
    rng = np.random.default_rng(15)
    X, y, d = make_domains(rng, n_domains=5)
    full = DomainStatistics.from_samples(X, y, d)
    keep = d != 2
    part = DomainStatistics.from_samples(X[keep], y[keep], d[keep])
    sub = full.subset([0, 1, 3, 4])
    np.testing.assert_array_equal(sub.domain_labels, [0, 1, 3, 4])
    np.testing.assert_allclose(tgreedy_path(sub, n_steps=5).coef, tgreedy_path(part, n_steps=5).coef, atol=1e-13)
    with pytest.raises(ValueError, match="unknown"):
        full.subset([0, 9])
    with pytest.raises(ValueError, match="at least two"):
        full.subset([1])


# ----------------------------------------------------------------------------- lazy Gram rows
def wide_domains(seed, n_domains=4, n_samples=80, p=600):
    """More features than a path of 20 steps touches, so rows are computed lazily (p > 3 x block)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_domains * n_samples, p)) + 0.2
    d = np.repeat(np.arange(n_domains), n_samples)
    y = X[:, :5] @ rng.standard_normal(5) + (X[:, 5:9] * rng.standard_normal((n_domains, 4))[d]).sum(axis=1)
    return X, y + 0.3 * rng.standard_normal(y.size), d


@pytest.mark.parametrize(
    "method, options",
    [
        (tgreedy_path, {}),
        (tgreedy_path, {"sign": "positive"}),
        (tgreedy_path, {"allow_reselect": True}),
        (tgreedy_path, {"refit": "stepwise"}),
        (tgreedy_path, {"denominator": "unlabeled"}),
        (greedy_path, {}),
        (greedy_path, {"refit": "stepwise"}),
    ],
)
def test_lazy_gram_rows_give_the_eager_path(method, options):
    X, y, d = wide_domains(20)
    U = np.random.default_rng(21).standard_normal((500, X.shape[1])) + 0.2
    lazy = DomainStatistics.from_samples(X, y, d, unlabeled_X=U)
    eager = DomainStatistics.from_samples(X, y, d, unlabeled_X=U, lazy=False)
    a, b = method(lazy, n_steps=20, **options), method(eager, n_steps=20, **options)
    assert lazy._xx is None and lazy._rows._full is None, "the path should not have needed the whole Gram"
    assert 20 <= lazy._rows.n_known < X.shape[1] / 3
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.training_loss, b.training_loss, rtol=1e-10)
    np.testing.assert_allclose(a.t_statistic, b.t_statistic, rtol=1e-9)


def test_lazy_path_equals_the_from_scratch_reference():
    X, y, d = wide_domains(22, p=150)
    path = tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=6)
    ref = reference_path(X, y, d, "tgreedy", 6)
    np.testing.assert_array_equal(path.features, [r[0] for r in ref])
    np.testing.assert_allclose(path.coef, np.array([r[1] for r in ref]), atol=1e-10)


def test_lazy_rows_moments_and_subsets_equal_the_eager_ones():
    X, y, d = wide_domains(23, p=300)
    lazy = DomainStatistics.from_samples(X, y, d)
    eager = DomainStatistics.from_samples(X, y, d, lazy=False)
    for attr in ("xy", "yy", "counts"):
        np.testing.assert_allclose(getattr(lazy, attr), getattr(eager, attr), rtol=1e-13)
    np.testing.assert_allclose(lazy.second_moment(), eager.second_moment(), rtol=1e-13)
    np.testing.assert_allclose(lazy.gram_row(3, priority=np.arange(300.0)), eager.xx[:, 3, :], rtol=1e-12, atol=1e-13)
    # one block: the row asked for and the 63 of highest priority (features 237..299)
    assert lazy._rows.n_known == 64
    assert lazy._rows.is_known(237) and not lazy._rows.is_known(236)
    for i in (0, 17, 299):
        np.testing.assert_allclose(lazy.gram_row(i), eager.xx[:, i, :], rtol=1e-12, atol=1e-13)
    assert lazy._rows.n_known == 66  # 299 was known; 0 and 17 came one at a time (no priority)
    w = np.zeros(300)
    w[[3, 40, 41, 250]] = [0.5, -1.0, 2.0, 0.1]
    known = lazy._rows.n_known
    np.testing.assert_allclose(lazy.residual_covariances(w), eager.residual_covariances(w), rtol=1e-12, atol=1e-12)
    assert lazy.training_loss(w) == pytest.approx(eager.training_loss(w), rel=1e-12)
    assert lazy._rows.n_known == known  # E[XX^T|d_k] w is X_k^T (X_k w) / m_k: no Gram row needed
    for stats in (lazy, eager):
        with pytest.raises(ValueError, match="one weight per feature"):
            stats.training_loss(w[:-1])
    sub_lazy, sub_eager = lazy.subset([1, 3]), eager.subset([1, 3])
    np.testing.assert_allclose(sub_lazy.gram_row(5), sub_eager.xx[:, 5, :], rtol=1e-12, atol=1e-13)
    assert sub_lazy._rows is lazy._rows  # rows are computed once for all subsets
    np.testing.assert_allclose(lazy.xx, eager.xx, rtol=1e-12, atol=1e-13)  # the whole Gram on first access
    np.testing.assert_allclose(sub_lazy.xx, sub_eager.xx, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("p", [300, 600])  # 64 known rows reused (p = 300) or not worth reusing (p = 600)
def test_lazy_rows_complete_the_whole_gram_when_that_is_cheaper(p):
    X, y, d = wide_domains(24, p=p)
    stats = DomainStatistics.from_samples(X, y, d)
    eager = DomainStatistics.from_samples(X, y, d, lazy=False)
    path = tgreedy_path(stats, n_steps=p // 5)
    rows = stats._rows
    assert rows._full is not None and rows.source is None  # completed, samples released
    assert rows.n_blocks == 1 and rows.n_known == min(64, p // 5)  # one lazy block (the predicted picks), then the completion
    np.testing.assert_allclose(stats.xx, eager.xx, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(path.coef, tgreedy_path(eager, n_steps=p // 5).coef, rtol=1e-9, atol=1e-11)


def test_a_long_path_forms_the_whole_gram_at_once():
    X, y, d = wide_domains(26, p=300)
    stats = DomainStatistics.from_samples(X, y, d)
    tgreedy_path(stats, n_steps=200)  # 2 p x 200 rows > p^2: no lazy row is worth forming
    assert stats._rows.n_known == 0 and stats._rows._full is not None


def test_lazy_statistics_still_name_nan_and_overflow():
    X, y, d = wide_domains(25, p=150)
    X[7, 33] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN \(first at index \[7, 33\]\)"):
        DomainStatistics.from_samples(X, y, d)
    X[7, 33] = 1e200
    with pytest.raises(ValueError, match="feature 33 overflows"):
        DomainStatistics.from_samples(X, y, d)
    with pytest.raises(ValueError, match=r"X of domain 1 contains an infinite value"):
        DomainStatistics.from_domains([(X[:10, :3], y[:10]), (np.full((4, 3), np.inf), y[:4])])


# ----------------------------------------------------------------------------- the loop's unchecked T
@pytest.mark.parametrize("n, p", [(2, 5), (3, 66), (7, 274), (30, 17)])
def test_the_loops_t_moments_are_bit_for_bit_numpys_mean_and_std(n, p):
    import math

    from tgreedy_lib.domain_adaptation.statistics import t_moments

    rng = np.random.default_rng(n * p)
    r = rng.standard_normal((n, p)) * rng.uniform(1e-6, 1e3, size=p)
    r[:, 0] = 0.5  # sigma = 0, mu > 0: T = +inf
    r[:, 1] = 0.0  # sigma = 0, mu = 0: T = 0
    r[:, 2] = -1e-300
    mu, sigma = r.mean(axis=0), r.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sigma == 0, np.where(mu == 0, 0.0, np.copysign(np.inf, mu)), mu * math.sqrt(n) / sigma)
    for got, expected in zip(t_moments(r), (t, mu, sigma)):
        np.testing.assert_array_equal(got, expected)
        assert got.tobytes() == expected.tobytes()  # the same bits, signed zeros included
