"""Bad input a new user might give: each gets a clear error or the right answer."""
from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from tgreedy_lib import datasets


# ----------------------------------------------------------------------------- datasets


def test_missing_data_dir_says_how_to_get_the_data(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m tgreedy_course download mnist") as info:
        datasets.resolve_data_dir(tmp_path / "nowhere")
    assert "TGREEDY_DATA_DIR" in str(info.value)


def test_failed_download_removes_an_earlier_corrupt_file(tmp_path):
    target = tmp_path / "cache" / "file.gz"
    target.parent.mkdir()
    target.write_bytes(b"half a file")  # an earlier, interrupted or altered download
    missing_source = (tmp_path / "no-such-source.gz").as_uri()
    with pytest.raises(OSError, match="could not download"):
        datasets.download_verified(missing_source, target, hashlib.md5(b"the real bytes").hexdigest())
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no partial temporary file either


def test_good_earlier_file_is_kept_without_downloading(tmp_path):
    target = tmp_path / "file.gz"
    target.write_bytes(b"the real bytes")
    got = datasets.download_verified((tmp_path / "unreachable").as_uri(), target, hashlib.md5(b"the real bytes").hexdigest())
    assert got.read_bytes() == b"the real bytes"


def test_idx_header_whose_dimensions_overflow_names_the_file(tmp_path):
    path = tmp_path / "huge-idx3-ubyte"
    # four dimensions of 2^16: their product 2^64 wraps to 0 in int64 arithmetic
    path.write_bytes(b"\x00\x00\x08\x04" + struct.pack(">4I", 65536, 65536, 65536, 65536))
    with pytest.raises(ValueError, match="huge-idx3-ubyte.*truncated"):
        datasets.read_idx(path)


# ----------------------------------------------------------------------------- T-greedy inputs

from tgreedy_lib import categorical as cat  # noqa: E402
from tgreedy_lib.domain_adaptation.selection import tgreedy_path  # noqa: E402
from tgreedy_lib.domain_adaptation.statistics import DomainStatistics, GramTooLargeError  # noqa: E402


def small_problem(seed=0, n_domains=4, per_domain=60, p=12):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_domains * per_domain, p)) + 0.1
    d = np.repeat(np.arange(n_domains), per_domain)
    y = X[:, 1] - 0.5 * X[:, 4] + 0.3 * rng.standard_normal(X.shape[0])
    return X, y, d


@pytest.mark.parametrize("x_scale, y_scale", [(1.0, 1e200), (1e150, 1e150), (1.0, 1e160)])
def test_targets_so_large_that_moments_overflow_are_refused(x_scale, y_scale):
    X, y, d = small_problem()
    with pytest.raises(ValueError, match="rescale"):
        tgreedy_path(DomainStatistics.from_samples(X * x_scale, y * y_scale, d), n_steps=3)


def test_large_but_representable_scales_give_the_same_features():
    X, y, d = small_problem()
    reference = tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=4)
    scaled = tgreedy_path(DomainStatistics.from_samples(X * 1e70, y * 1e70, d), n_steps=4)
    np.testing.assert_array_equal(scaled.features, reference.features)
    np.testing.assert_allclose(scaled.t_statistic, reference.t_statistic, rtol=1e-9)


def test_tiny_features_are_not_called_constant():
    X, y, d = small_problem()
    X[:, 3] *= 1e-100  # squares 1e-200: representable, a fine feature
    path = tgreedy_path(DomainStatistics.from_samples(X, y, d), n_steps=3)
    assert path.n_steps == 3
    X[:, 3] *= 1e-100  # now 1e-200: squares underflow; the message must say so, not "constant"
    with pytest.raises(ValueError, match=r"feature 3 is not constant but tiny.*Rescale X") as info:
        DomainStatistics.from_samples(X, y, d)
    assert "is constant" not in str(info.value)
    X[:, 3] = 1e-200  # truly constant, however small
    with pytest.raises(ValueError, match="feature 3 is constant"):
        DomainStatistics.from_samples(X, y, d)
    X[:, 3] = 0.0
    with pytest.raises(ValueError, match="feature 3 is constant"):
        DomainStatistics.from_samples(X, y, d)


@pytest.mark.parametrize("missing", [np.nan, None, "pd.NA"])
def test_missing_domain_labels_are_refused(missing):
    pd = pytest.importorskip("pandas")
    X, y, d = small_problem()
    labels = np.array([f"site{k}" for k in d], dtype=object)
    labels[5] = pd.NA if missing == "pd.NA" else missing
    with pytest.raises(ValueError, match="domains contains the missing value .* at index 5"):
        DomainStatistics.from_samples(X, y, labels)
    if missing is np.nan:
        with pytest.raises(ValueError, match="domains contains NaN"):
            DomainStatistics.from_samples(X, y, np.where(np.arange(d.size) == 5, np.nan, d.astype(float)))


def test_mixed_type_domain_labels_are_grouped_by_equality():
    X, y, d = small_problem()
    mixed = np.array([("a", 1)[k % 2] if k < 2 else (k, "b") for k in d], dtype=object)
    stats = DomainStatistics.from_samples(X, y, mixed)
    reference = DomainStatistics.from_samples(X, y, d)
    assert stats.n_domains == 4
    np.testing.assert_allclose(np.sort(stats.xy, axis=0), np.sort(reference.xy, axis=0), rtol=1e-13)


def test_dataframe_with_pd_na_names_the_column():
    pd = pytest.importorskip("pandas")
    X, y, d = small_problem()
    frame = pd.DataFrame(X, columns=[f"gene_{j}" for j in range(X.shape[1])]).astype("Float64")
    frame.iloc[7, 2] = pd.NA
    with pytest.raises(ValueError, match=r"not numbers.*column 'gene_2', row 7.*impute"):
        DomainStatistics.from_samples(frame, y, d)
    frame = frame.fillna(0.0)
    stats = DomainStatistics.from_samples(frame, y, d)
    np.testing.assert_allclose(stats.xy[:, 0], DomainStatistics.from_samples(frame.to_numpy(float), y, d).xy[:, 0])


def test_ties_at_infinite_t_are_broken_by_the_loss_decrease():
    # Three features have exactly the same residual covariance in every domain (sigma = 0, T = inf):
    # mu = 0.001, 0.9 and 0.3 in the order of their index. The largest consistent effect must come first.
    n, p = 4, 5
    xx = np.broadcast_to(np.eye(p), (n, p, p)).copy()
    xy = np.array([[0.001, 0.9, 0.3, 0.5, 0.0]] * n)
    xy[:, 3] += [0.3, -0.3, 0.2, -0.2]  # a finite T for feature 3
    xy[:, 4] = [0.1, 0.2, 0.3, 0.4]
    path = tgreedy_path(DomainStatistics.from_moments(xx, xy, np.ones(n)), n_steps=3)
    assert path.features.tolist() == [1, 2, 0]
    assert np.all(np.isinf(path.t_statistic))


def test_eager_gram_that_will_not_fit_is_refused_with_its_size(monkeypatch):
    from tgreedy_lib.domain_adaptation import _gram_rows as statistics

    X, y, d = small_problem()

    def unread():
        raise AssertionError("a small Gram needs no look at the memory available")

    monkeypatch.setattr(statistics, "_available_memory", unread)
    DomainStatistics.from_samples(X, y, d, lazy=False)  # 4.5 KiB: allocated without asking
    monkeypatch.setattr(statistics, "SMALL_GRAM_BYTES", 0)  # as if this Gram were large
    monkeypatch.setattr(statistics, "_available_memory", lambda: 1_000)
    with pytest.raises(GramTooLargeError, match=r"4 domains x 12 x 12 features needs 4.5 KiB"):
        DomainStatistics.from_samples(X, y, d, lazy=False)
    with pytest.raises(MemoryError, match="lazy=True"):
        DomainStatistics.from_samples(X, y, d).xx
    stats = DomainStatistics.from_samples(X, y, d)
    assert tgreedy_path(stats, n_steps=3).n_steps == 3  # the lazy path itself needs no whole Gram


# ----------------------------------------------------------------------------- categorical values


def test_sets_are_one_value_per_content_not_distinct():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, 120)
    y = (rng.random(120) < np.array([0.1, 0.5, 0.9])[keys]).astype(int)
    as_sets = [[{0, 1}, {1, 2}, {2, 0}][k] if i % 2 else [{1, 0}, {2, 1}, {0, 2}][k] for i, k in enumerate(keys)]
    as_codes = keys
    expected = cat.gini_error_estimate_leave_one_out(as_codes, y)
    assert cat.gini_error_estimate_leave_one_out(as_sets, y) == pytest.approx(expected, rel=1e-12)
    scores = cat.filter_scores(np.array(as_sets, dtype=object)[:, None], y)
    reference = cat.filter_scores(as_codes[:, None], y)
    for name in scores:
        np.testing.assert_allclose(scores[name], reference[name], rtol=1e-12)


def test_none_mixed_with_strings_is_a_value_of_its_own():
    x = np.array(["a", None, "b", None, "a", 3, 3, "b"], dtype=object)
    y = np.array([1, 0, 0, 0, 1, 1, 0, 1])
    codes = np.array([0, 1, 2, 1, 0, 3, 3, 2])
    assert cat.gini_error_estimate_pairs(x, y) == pytest.approx(cat.gini_error_estimate_pairs(codes, y))
    counts, positives = cat.count_tables(x[:, None], y)
    assert sorted(counts[0].tolist()) == [2, 2, 2, 2]


@pytest.mark.parametrize("bad, kind", [({"a": 1}, "dict"), ([1, 2], "list"), (np.arange(2), "ndarray")])
def test_unhashable_categorical_values_are_refused_clearly(bad, kind):
    x = np.empty(4, dtype=object)
    x[:] = ["a", "b", "a", "b"]
    x[2] = bad
    y = np.array([1, 0, 1, 0])
    with pytest.raises(ValueError, match=f"unhashable value of type {kind} at index 2.*tuples"):
        cat.gini_error_estimate_leave_one_out(x, y)
    with pytest.raises(ValueError, match=f"column 0 of X holds an unhashable value of type {kind}"):
        cat.filter_scores(x[:, None], y)


def test_nan_in_categorical_object_column_is_refused():
    x = np.array(["a", float("nan"), "b", "a"], dtype=object)
    with pytest.raises(ValueError, match="missing value nan at index 1"):
        cat.count_tables(x[:, None], np.array([1, 0, 1, 0]))


@pytest.mark.parametrize("first,second,how", [(1, "1", "print alike"), ("a", b"a", "print alike"),
                                              (1, True, "are equal"), (1, 1.0, "are equal")])
def test_domain_labels_of_different_types_that_look_alike_are_refused(first, second, how):
    X, y, d = small_problem()
    labels = [first if k == 0 else second if k == 1 else f"site{k}" for k in d]
    with pytest.raises(ValueError, match=f"domains holds .* which {how}.*one type"):
        DomainStatistics.from_samples(X, y, labels)
    pairs = [(X[d == k], y[d == k]) for k in range(4)]
    with pytest.raises(ValueError, match=f"labels holds .* which {how}"):
        DomainStatistics.from_domains(pairs, labels=[first, second, "c", "d"])


def test_repeated_domain_labels_are_refused():
    X, y, d = small_problem()
    pairs = [(X[d == k], y[d == k]) for k in range(4)]
    with pytest.raises(ValueError, match="labels names two domains 'a'"):
        DomainStatistics.from_domains(pairs, labels=["a", "b", "a", "c"])
    xx = np.broadcast_to(np.eye(2), (3, 2, 2))
    with pytest.raises(ValueError, match="labels names two domains 2"):
        DomainStatistics.from_moments(xx, np.ones((3, 2)), labels=[2, 2, 3])


# ------------------------------------------------------------------ every scale: right, or refused in one line

_SCALES = [1e-200, 1e-161, 1e-145, 1e-120, 1e-60, 1e-25, 1e-5, 1e5, 1e25, 1e60, 1e120, 1e150, 1e200]


def _everything(X, y, d):
    """Every quantity a user reads: the T-greedy path, greedy, leave-one-domain-out, every baseline."""
    from tgreedy_lib.domain_adaptation import baselines
    from tgreedy_lib.domain_adaptation.selection import greedy_path
    from tgreedy_lib.domain_adaptation.stopping import stop_lodo

    stats = DomainStatistics.from_samples(X, y, d)
    path = tgreedy_path(stats, 4)
    out = {"path": path, "greedy": greedy_path(stats, 4).features, "lodo": stop_lodo(path, stats).k}
    for name in baselines.BASELINES:
        out[name] = baselines.run_baseline(name, stats, 3)
    return out


@pytest.mark.parametrize("which", ["X", "y"])
@pytest.mark.parametrize("scale", _SCALES)
def test_every_quantity_at_every_scale_is_right_or_refused_in_one_line(which, scale):
    X, y, d = small_problem(n_domains=5, p=8)
    reference = _everything(X, y, d)
    x_scale, y_scale = (scale, 1.0) if which == "X" else (1.0, scale)
    try:
        got = _everything(X * x_scale, y * y_scale, d)
    except ValueError as error:
        message = str(error)
        assert "\n" not in message
        assert "0 in every sample" not in message and "beta must" not in message
        assert any(word in message for word in ("rescale", "Rescale", "standardise")), message
        assert any(word in message for word in ("overflow", "underflow")), message
        return
    path, ref = got["path"], reference["path"]
    np.testing.assert_array_equal(path.features, ref.features)
    assert np.all(np.isfinite(path.t_statistic))
    np.testing.assert_allclose(path.t_statistic, ref.t_statistic, rtol=1e-7)
    np.testing.assert_allclose(path.training_loss, ref.training_loss * y_scale**2, rtol=1e-7)
    np.testing.assert_allclose(path.coef, ref.coef * (y_scale / x_scale), rtol=1e-7, atol=0)
    np.testing.assert_array_equal(got["greedy"], reference["greedy"])
    assert got["lodo"] == reference["lodo"]
    for name in ("omp", "lasso", "vrex", "icp", "t_filter"):
        b, r = got[name], reference[name]
        np.testing.assert_array_equal(b.n_selected, r.n_selected, err_msg=name)
        assert b.chosen == r.chosen, name
        # V-REx is L-BFGS stopped after 30 iterations: right to its solver's tolerance, not to rounding
        expected = r.coef * (y_scale / x_scale)
        rtol, atol = (1e-3, 1e-3 * np.abs(expected).max()) if name == "vrex" else (1e-6, 0)
        np.testing.assert_allclose(b.coef, expected, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("tiny", [1e-200, 1e-161])
def test_a_tiny_two_valued_target_is_called_tiny_not_zero(tiny):
    X, y, d = small_problem()
    with pytest.raises(ValueError, match=r"y is tiny .*underflows.*standardise y"):
        DomainStatistics.from_samples(X, np.where(y > 0, tiny, -tiny), d)


@pytest.mark.parametrize("xy_scale,xx_scale", [(1e-200, 1.0), (1e-150, 1.0), (1e200, 1.0), (1.0, 1e-260)])
def test_given_moments_whose_squares_leave_float64_are_refused(xy_scale, xx_scale):
    rng = np.random.default_rng(0)
    xx = np.broadcast_to(np.eye(4), (5, 4, 4)) * xx_scale
    xy = (rng.standard_normal((5, 4)) + [1.0, 0, 0, 0]) * xy_scale
    with pytest.raises(ValueError, match=r"(underflows|overflows|underflow|overflow) float64.*rescale"):
        tgreedy_path(DomainStatistics.from_moments(xx, xy), 2)
