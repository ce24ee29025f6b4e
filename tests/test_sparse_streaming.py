"""Sparse input, streamed (chunked) statistics and the memory budget of the lazy Gram rows."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

from tgreedy_lib.domain_adaptation.evaluation import path_auroc, path_scores
from tgreedy_lib.domain_adaptation.estimators import Greedy, TGreedy
from tgreedy_lib.domain_adaptation.selection import greedy_path, tgreedy_path
from tgreedy_lib.domain_adaptation.statistics import DomainStatistics


def sparse_problem(seed=0, n_domains=4, per_domain=150, p=400, density=0.05):
    """Text-like data: sparse nonnegative counts, a few informative words whose effect varies by domain."""
    rng = np.random.default_rng(seed)
    m = n_domains * per_domain
    X = scipy.sparse.random(m, p, density=density, format="csr", random_state=seed,
                            data_rvs=lambda k: rng.integers(1, 4, k).astype(float))
    d = np.repeat(np.arange(n_domains), per_domain)
    dense = X.toarray()
    y = dense[:, :6] @ np.array([1.0, -1.0, 0.8, 0.5, -0.6, 0.4]) + dense[:, 6] * rng.standard_normal(n_domains)[d]
    y += 0.3 * rng.standard_normal(m)
    return X, y, d


PATHS = [
    (tgreedy_path, {}),
    (tgreedy_path, {"sign": "positive"}),
    (tgreedy_path, {"allow_reselect": True}),
    (tgreedy_path, {"refit": "stepwise"}),
    (greedy_path, {}),
    (greedy_path, {"refit": "stepwise"}),
]


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("method, options", PATHS)
def test_sparse_input_gives_the_dense_path(fmt, method, options):
    X, y, d = sparse_problem(1)
    X = X.asformat(fmt)
    sparse_stats = DomainStatistics.from_samples(X, y, d)
    dense_stats = DomainStatistics.from_samples(X.toarray(), y, d)
    a, b = method(sparse_stats, n_steps=15, **options), method(dense_stats, n_steps=15, **options)
    assert sparse_stats._rows.sparse and sparse_stats._xx is None
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.training_loss, b.training_loss, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.t_statistic, b.t_statistic, rtol=1e-10)
    for name in ("score", "mean_residual_covariance", "std_residual_covariance"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-10, atol=1e-12)


def test_sparse_moments_rows_and_evaluation_equal_the_dense_ones():
    X, y, d = sparse_problem(2)
    s, e = DomainStatistics.from_samples(X, y, d), DomainStatistics.from_samples(X.toarray(), y, d, lazy=False)
    for attr in ("xy", "yy", "counts"):
        np.testing.assert_allclose(getattr(s, attr), getattr(e, attr), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s.second_moment(), e.second_moment(), rtol=1e-12)
    for i in (0, 5, 399):
        np.testing.assert_allclose(s.gram_row(i, priority=np.arange(400.0)), e.xx[:, i, :], rtol=1e-12, atol=1e-12)
    w = np.zeros(400)
    w[[3, 40, 250]] = [0.5, -1.0, 0.1]
    np.testing.assert_allclose(s.residual_covariances(w), e.residual_covariances(w), rtol=1e-10, atol=1e-12)
    assert s.training_loss(w) == pytest.approx(e.training_loss(w), rel=1e-10)
    path = tgreedy_path(s, n_steps=10)
    labels = (y > np.median(y)).astype(int)
    np.testing.assert_allclose(path_scores(path, X), path_scores(path, X.toarray()), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(path_auroc(path, X.tocsc(), labels), path_auroc(path, X.toarray(), labels), rtol=1e-12)


def test_the_scikit_learn_selector_takes_sparse_input():
    X, y, d = sparse_problem(3)
    for Selector in (TGreedy, Greedy):
        sparse_fit = Selector(n_features_to_select=8, fit_intercept=False).fit(X, y, domains=d)
        dense_fit = Selector(n_features_to_select=8, fit_intercept=False).fit(X.toarray(), y, domains=d)
        np.testing.assert_array_equal(sparse_fit.selected_features_, dense_fit.selected_features_)
        np.testing.assert_allclose(sparse_fit.coef_, dense_fit.coef_, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sparse_fit.decision_function(X), dense_fit.decision_function(X.toarray()),
                                   rtol=1e-10, atol=1e-12)
        transformed = sparse_fit.transform(X)
        assert scipy.sparse.issparse(transformed) and transformed.shape == (X.shape[0], 8)
        with pytest.raises(ValueError, match="would densify this sparse X: pass fit_intercept=False"):
            Selector(n_features_to_select=8).fit(X, y, domains=d)  # centring would densify X


def test_sparse_from_domains_and_mixing_refused():
    X, y, d = sparse_problem(4)
    parts = [(X[d == k], y[d == k]) for k in range(4)]
    a = tgreedy_path(DomainStatistics.from_domains(parts), n_steps=5)
    b = tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=5)
    np.testing.assert_array_equal(a.features, b.features)
    parts[1] = (parts[1][0].toarray(), parts[1][1])
    with pytest.raises(ValueError, match="sparse and others dense"):
        DomainStatistics.from_domains(parts)


def test_sparse_nan_is_named():
    X, y, d = sparse_problem(5)
    X = X.tocsr(copy=True)
    X.data[3] = np.nan
    with pytest.raises(ValueError, match=r"X \(its stored entries\) contains NaN"):
        DomainStatistics.from_samples(X, y, d)


# ----------------------------------------------------------------------------- memory budget


def wide_problem(seed=6, n_domains=3, per_domain=40, p=900):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_domains * per_domain, p)) + 0.1
    d = np.repeat(np.arange(n_domains), per_domain)
    y = X[:, :6] @ rng.standard_normal(6) + 0.5 * rng.standard_normal(X.shape[0])
    return X, y, d


@pytest.mark.parametrize("method", [tgreedy_path, greedy_path])
def test_a_small_row_budget_bounds_the_cache_and_changes_no_result(method):
    X, y, d = wide_problem()
    row_bytes = 8 * 3 * 900
    budget = 10 * row_bytes
    small = DomainStatistics.from_samples(X, y, d, max_row_memory=budget)
    roomy = DomainStatistics.from_samples(X, y, d, lazy=False)
    a, b = method(small, n_steps=60), method(roomy, n_steps=60)
    rows = small._rows
    assert rows.block_size == 5  # budget / (2 x one row)
    assert rows.peak_cache_bytes <= budget + rows.block_size * row_bytes
    assert rows.cache_bytes <= budget and rows.n_evicted > 0 and rows._full is None
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method", [tgreedy_path, greedy_path])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_stepwise_refit_keeps_a_bounded_number_of_rows(method, sparse):
    X, y, d = wide_problem()
    if sparse:
        X = scipy.sparse.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    row_bytes = 8 * 3 * 900
    small = DomainStatistics.from_samples(X, y, d, max_row_memory=5 * row_bytes)
    roomy = DomainStatistics.from_samples(X.toarray() if sparse else X, y, d, lazy=False)
    a, b = method(small, n_steps=40, refit="stepwise"), method(roomy, n_steps=40, refit="stepwise")
    # 4 x the row budget: 20 rows kept; the other 20 steps read the samples, not Gram rows
    assert small._rows.asked.sum() == 20 and small._rows._full is None
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.training_loss, b.training_loss, rtol=1e-10)


def test_rows_asked_for_are_evicted_before_the_speculative_ones():
    X, y, d = wide_problem()
    row_bytes = 8 * 3 * 900
    stats = DomainStatistics.from_samples(X, y, d, max_row_memory=8 * row_bytes)
    priority = np.arange(900.0)
    stats.gram_row(0, priority=priority)  # block of 4: 0 and 897..899
    stats.gram_row(1, priority=priority)  # block: 1 and 894..896
    stats.gram_row(2, priority=priority)  # block: 2 and 891..893: 12 rows > 8, four evicted
    rows = stats._rows
    # the rows asked for go first (a stagewise path reads each once), oldest first, then the
    # speculative rows of lowest priority; the block just formed is kept
    assert not rows.is_known(0) and not rows.is_known(1) and rows.is_known(2)
    assert not any(rows.is_known(i) for i in (894, 895)) and all(rows.is_known(i) for i in (891, 896, 897, 899))
    assert rows.cache_bytes <= 8 * row_bytes


def test_predicted_rows_form_the_block_in_their_order_within_its_size():
    X, y, d = wide_problem()
    row_bytes = 8 * 3 * 900
    stats = DomainStatistics.from_samples(X, y, d, max_row_memory=8 * row_bytes)  # blocks of 4
    stats.gram_row(10, priority=np.arange(900.0), predicted=[10, 5, 7, 3, 2, 1])
    assert sorted(stats._rows.cache) == [3, 5, 7, 10]  # the first three predicted, not the top priorities
    np.testing.assert_allclose(stats.gram_row(7), DomainStatistics.from_samples(X, y, d, lazy=False).xx[:, 7],
                               rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- streaming


def chunks_of(X, y, d, size):
    order = np.random.default_rng(0).permutation(X.shape[0])  # domains interleaved across chunks
    return [(X[order[i:i + size]], y[order[i:i + size]], d[order[i:i + size]]) for i in range(0, X.shape[0], size)]


@pytest.mark.parametrize("method, options", PATHS)
def test_streamed_statistics_give_the_in_memory_path(method, options):
    X, y, d = wide_problem(7, p=300)
    chunks = chunks_of(X, y, d, 37)
    streamed = DomainStatistics.from_chunks(chunks)
    in_memory = DomainStatistics.from_samples(X, y, d)
    for attr in ("xy", "yy", "counts"):
        np.testing.assert_allclose(getattr(streamed, attr), getattr(in_memory, attr), rtol=1e-12, atol=1e-13)
    a, b = method(streamed, n_steps=12, **options), method(in_memory, n_steps=12, **options)
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.training_loss, b.training_loss, rtol=1e-10)


def test_chunks_that_meet_the_domains_out_of_sorted_order_give_the_in_memory_path():
    # the first pass numbers the domains as it meets them, then renumbers them in sorted order; the later passes
    # (one per block of Gram rows) must be recognised as the same chunks under the new numbers
    X, y, d = wide_problem(5, p=60)
    order = np.argsort(-d, kind="stable")  # the last domain first, chunks of 7 rows mixing two domains
    chunks = [(X[order[i:i + 7]], y[order[i:i + 7]], d[order[i:i + 7]]) for i in range(0, X.shape[0], 7)]
    streamed = tgreedy_path(DomainStatistics.from_chunks(lambda: iter(chunks), max_row_memory=0), n_steps=8)
    np.testing.assert_array_equal(streamed.features, tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=8).features)


def test_streaming_accepts_a_callable_and_sparse_chunks_with_a_scalar_domain():
    X, y, d = sparse_problem(8)
    Xc = X.tocsr()

    def read_chunks():  # one domain per chunk, two chunks per domain, labels as strings
        for k in range(4):
            rows = np.flatnonzero(d == k)
            for half in np.array_split(rows, 2):
                yield Xc[half], y[half], f"site-{k}"

    streamed = DomainStatistics.from_chunks(read_chunks)
    assert streamed.domain_labels.tolist() == ["site-0", "site-1", "site-2", "site-3"]
    a = tgreedy_path(streamed, n_steps=8)
    b = tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=8)
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)
    eager = DomainStatistics.from_chunks(read_chunks, lazy=False)
    np.testing.assert_allclose(eager.xx, DomainStatistics.from_samples(X.toarray(), y, d, lazy=False).xx,
                               rtol=1e-12, atol=1e-13)


def test_a_one_shot_generator_is_refused_when_a_second_pass_is_needed():
    X, y, d = wide_problem(9, p=200)
    generator = (chunk for chunk in chunks_of(X, y, d, 50))
    stats = DomainStatistics.from_chunks(generator)  # the first pass works
    with pytest.raises(ValueError, match="one-shot iterator.*callable that returns a fresh iterator"):
        tgreedy_path(stats, n_steps=3)
    eager = DomainStatistics.from_chunks(chunk for chunk in chunks_of(X, y, d, 50))
    with pytest.raises(ValueError, match="one-shot"):
        eager.gram_row(0)
    summed = DomainStatistics.from_chunks((c for c in chunks_of(X, y, d, 50)), lazy=False)
    np.testing.assert_allclose(summed.xx, DomainStatistics.from_samples(X, y, d, lazy=False).xx, rtol=1e-12, atol=1e-13)


def test_bad_chunks_are_named():
    X, y, d = wide_problem(10, p=50)
    with pytest.raises(ValueError, match=r"chunk 1 has 49 features"):
        DomainStatistics.from_chunks([(X[:10], y[:10], d[:10]), (X[10:20, 1:], y[10:20], d[10:20])])
    with pytest.raises(ValueError, match="must be an \\(X, y, domains\\) triple"):
        DomainStatistics.from_chunks([(X, y)])
    with pytest.raises(ValueError, match="domains of chunk 0 contains NaN"):
        DomainStatistics.from_chunks([(X, y, np.where(d == 2, np.nan, d))])
    with pytest.raises(ValueError, match="at least two domains"):
        DomainStatistics.from_chunks([(X, y, np.zeros(len(y)))])


def test_streamed_domain_labels_keep_their_type():
    X, y, d = wide_problem(11, p=40)
    tuples = [(int(k), "site") for k in d]
    chunk_labels = np.empty(len(tuples), dtype=object)
    for i, label in enumerate(tuples):
        chunk_labels[i] = label
    stats = DomainStatistics.from_chunks([(X, y, chunk_labels)])
    assert stats.domain_labels.tolist() == [(0, "site"), (1, "site"), (2, "site")]
    mixed = DomainStatistics.from_chunks([(X, y, np.where(d == 0, "a", d).astype(object))])
    assert mixed.n_domains == 3
    numbers = DomainStatistics.from_chunks([(X, y, d)])
    assert numbers.domain_labels.dtype.kind == "i"


def test_row_budget_must_be_a_whole_number_of_bytes():
    X, y, d = wide_problem(12, p=30)
    for bad in (-1, 2.5, "256MB"):
        with pytest.raises(ValueError, match="max_row_memory"):
            DomainStatistics.from_samples(X, y, d, max_row_memory=bad)
    tiny = DomainStatistics.from_samples(X, y, d, max_row_memory=0)  # keeps only the block in use
    np.testing.assert_array_equal(tgreedy_path(tiny, n_steps=5).features,
                                  tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=5).features)


# ----------------------------------------------------------------------------- predicted blocks


@pytest.mark.parametrize("method, name, options", [(tgreedy_path, "tgreedy", {}),
                                                   (tgreedy_path, "tgreedy", {"sign": "positive"}),
                                                   (greedy_path, "greedy", {})])
def test_the_predicted_picks_are_the_path_when_every_feature_is_a_candidate(method, name, options):
    from tgreedy_lib.domain_adaptation._gram_rows import RowFeed
    from tgreedy_lib.domain_adaptation.selection import _best_feature, _score
    from tgreedy_lib.domain_adaptation.statistics import t_moments

    X, y, d = wide_problem(11, p=60)  # 60 features < 4 blocks: all are candidates, the simulation is exact
    stats = DomainStatistics.from_samples(X, y, d)
    path = method(DomainStatistics.from_samples(X, y, d, lazy=False), n_steps=25, **options)
    second_moment = stats.second_moment()

    def score_of(r, m):
        t, mu, _ = t_moments(r)
        return _score(name, options.get("sign", "abs"), t, mu, m), mu

    predictor = RowFeed(stats, score_of, _best_feature, second_moment, np.zeros(60, dtype=bool), False, 25)
    assert RowFeed.n_candidates(60, 25) == 60
    score = score_of(stats.xy, second_moment)[0]
    picks = predictor.predict(stats.xy, int(path.features[0]), score, 25)
    np.testing.assert_array_equal(picks, path.features)
    assert stats._rows.n_known == 0  # the candidates' small Gram forms no row



@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize("tiny", [1e-200, 1e-161])
def test_a_tiny_two_valued_target_read_in_chunks_is_called_tiny_not_zero(tiny, lazy):
    # y in {+tiny, -tiny}: its sum can be 0 and its squares underflow, so only its largest |y| tells it from y = 0
    rng = np.random.default_rng(3)
    d = np.repeat(np.arange(3), 40)
    X = rng.standard_normal((120, 5))
    y = np.where(np.arange(120) % 2 == 0, tiny, -tiny)
    with pytest.raises(ValueError, match=r"y is tiny .*underflows.*standardise y"):
        DomainStatistics.from_chunks(chunks_of(X, y, d, 25), lazy=lazy)
    with pytest.raises(ValueError, match=r"y is tiny .*underflows.*standardise y"):
        DomainStatistics.from_samples(X, y, d)  # the in-memory route says the same
