"""Exact AUROC against a brute-force pair count, and path evaluation against step-by-step scoring."""
import itertools

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tgreedy_lib import DomainStatistics, path_auroc, path_scores, path_squared_loss, roc_auc, tgreedy_path


def brute_force_auc(y, s):
    pos = [a for a, t in zip(s, y) if t == 1]
    neg = [a for a, t in zip(s, y) if t != 1]
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


@pytest.mark.parametrize("seed", range(5))
def test_auroc_equals_pair_count_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 80)
    y[:2] = [0, 1]
    s = rng.integers(0, 5, 80).astype(float)  # heavy ties
    assert roc_auc(y, s) == brute_force_auc(y, s)  # exact, not approximate
    assert roc_auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-15)


def test_auroc_columns_and_label_conventions():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 50)
    y[:2] = [0, 1]
    S = rng.standard_normal((50, 4))
    cols = roc_auc(y, S)
    assert cols.shape == (4,)
    for j in range(4):
        assert cols[j] == pytest.approx(brute_force_auc(y, S[:, j]), abs=1e-14)
    assert roc_auc(2 * y - 1, S[:, 0]) == cols[0]
    assert roc_auc(y.astype(bool), S[:, 0]) == cols[0]
    assert roc_auc(y, np.zeros(50)) == 0.5


def test_auroc_bad_input():
    with pytest.raises(ValueError, match="one class"):
        roc_auc(np.ones(5), np.arange(5.0))
    with pytest.raises(ValueError, match="NaN"):
        roc_auc([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="rows"):
        roc_auc([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"\{0, 1\}"):
        roc_auc([0, 2, 2], [0.1, 0.2, 0.3])


def test_path_evaluation_equals_step_by_step_scoring():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 20))
    d = np.repeat(np.arange(3), 100)
    y = np.sign(X[:, 0] + X[:, 3] * (d - 1) + 0.3 * rng.standard_normal(300))
    path = tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=7)
    Xt = rng.standard_normal((120, 20))
    yt = np.sign(Xt[:, 0] + 0.5 * rng.standard_normal(120))
    S = path_scores(path, Xt)
    for s in range(path.n_steps):
        np.testing.assert_allclose(S[:, s], Xt @ path.coef[s], atol=1e-12)
    auc = path_auroc(path, Xt, yt)
    np.testing.assert_allclose(auc, [brute_force_auc(yt, Xt @ w) for w in path.coef], atol=1e-14)
    np.testing.assert_allclose(path_squared_loss(path, Xt, yt), [np.mean((yt - Xt @ w) ** 2) for w in path.coef])
    with pytest.raises(ValueError, match="one class"):
        path_auroc(path, Xt, np.ones(120))
    with pytest.raises(ValueError, match="features"):
        path_auroc(path, Xt[:, :5], yt)


def rank_sum_auc(y, S):
    """The textbook formula: average ranks of all scores (scipy.stats.rankdata), positives' rank sum."""
    from scipy.stats import rankdata

    positive = np.asarray(y) == 1
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    ranks = rankdata(S, axis=0, method="average")
    return (ranks[positive].sum(axis=0) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


@pytest.mark.parametrize("seed", range(4))
def test_auroc_equals_rank_sum_formula_bit_for_bit(seed):
    # The sort-and-search count must give the very same floats as the rank-sum formula it replaced
    # (so the experiments' curves are unchanged), with ties, signed zeros and many columns.
    rng = np.random.default_rng(seed)
    n = 2000
    y = rng.integers(0, 2, n)
    S = rng.standard_normal((n, 37))
    S[:, :5] = np.round(S[:, :5], 1)  # many ties
    S[:, 5] = 0.0
    S[::3, 5] = -0.0  # -0.0 == 0.0: a tie
    S[:, 6] = np.where(y == 1, 1.0, 0.0)  # perfect separation
    np.testing.assert_array_equal(roc_auc(y, S), rank_sum_auc(y, S))  # with ties
    np.testing.assert_array_equal(roc_auc(y, S[:, 10:]), rank_sum_auc(y, S[:, 10:]))  # without
    assert roc_auc(y, S[:, 0]) == rank_sum_auc(y, S[:, :1])[0]
    assert roc_auc(y, S[:, 6]) == 1.0 and roc_auc(1 - y, S[:, 6]) == 0.0


def test_similarity_pair_auroc_equals_roc_auc_column_by_column():
    """The similarity experiment scores pairs with labels +1/-1: every column, ties included, is the pair count."""
    rng = np.random.default_rng(3)
    y = np.where(rng.random(301) < 0.4, 1.0, -1.0)
    scores = np.column_stack([rng.standard_normal(301), rng.integers(0, 4, 301).astype(float), np.zeros(301)])
    expected = [np.mean([(a > b) + 0.5 * (a == b) for a in s[y > 0] for b in s[y < 0]]) for s in scores.T]
    np.testing.assert_array_equal(roc_auc(y, scores), roc_auc(y > 0, scores))
    np.testing.assert_allclose(roc_auc(y, scores), expected, rtol=0, atol=1e-12)
