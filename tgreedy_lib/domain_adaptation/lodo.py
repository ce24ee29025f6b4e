"""Leave one domain out: every step of a path refitted without each training domain, scored on it.

The first of the stopping rules that Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample
Statistical Approach" (AISTATS 2012), name in section 5: "keep yet another domain held out for
crossvalidation and cycle through". :func:`held_out_scores` gives the rule of :mod:`.stopping` its
curves: for each domain k, the weights after 0..K steps of the selector run on the other n - 1
domains, scored on domain k (its squared loss from the moments, or any score of its samples).

For stagewise T-greedy and greedy the folds are not refitted one by one: every fold's T-statistics
follow from sums over all n domains minus the left-out domain's term (:class:`_PooledMoments`), so
n folds cost time linear in n, with the choices of a refit to rounding. Other selectors, and a
``path_function``, are refitted fold by fold. A feature present in one domain only has no second
moment once that domain is left out: in that fold it is not a candidate.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .baselines import pad_rows
from .selection import SelectionPath
from .selectors import available_selectors, get_selector
from .statistics import DomainStatistics

__all__ = ["LODO_QUIET_SECONDS", "LODO_MEMORY", "held_out_scores", "steps_curve"]

#: ``stop_lodo(progress=None)`` stays quiet for this many seconds, then reports every as many.
LODO_QUIET_SECONDS = 10.0
#: Bytes of pooled sums (:class:`_PooledMoments`) kept before the pair sums are dropped and recomputed.
LODO_MEMORY = 256 * 2**20


def steps_curve(path: SelectionPath, n_steps: int) -> np.ndarray:
    """The weights after 0..n_steps steps of ``path``, shape (n_steps + 1, p); a path that stopped early
    keeps its last weights."""
    return pad_rows(np.vstack([np.zeros((1, path.n_features)), path.coef]), n_steps + 1)


def held_out_scores(path: SelectionPath, stats: DomainStatistics, score, path_function: Callable | None,
                    progress) -> np.ndarray:
    """Each domain's score (rows, in the statistics' order) after 0..K steps of ``path`` refitted without
    it (columns), higher is better: the negative squared loss, or ``score(label, W)``. The arguments are
    :func:`~.stopping.stop_lodo`'s, checked there."""
    K, labels = path.n_steps, stats.domain_labels.tolist()
    options = dict(path.options)
    pooled = None
    if (path_function is None and path.method in ("tgreedy", "greedy")
            and options.get("refit", "stagewise") == "stagewise"):
        pooled = _PooledMoments(stats)
    elif path_function is None:
        if path.method not in available_selectors():
            raise ValueError(f"no known path function for method {path.method!r}; pass path_function=")
        selector = get_selector(path.method)
        options.pop("n_steps", None)
        if path.method == "greedy":
            options.pop("sign", None)  # greedy's path records the sign it ignores
        path_function = lambda s, n_steps: selector.run(s, n_steps, **options)  # noqa: E731
    report = _progress(progress, len(labels))
    per_domain = []
    for index, label in enumerate(labels):
        if pooled is not None:
            W = _fold_path_curve(pooled, index, K, options, path.method)
            if pooled.nbytes() > LODO_MEMORY:
                pooled._C.clear(), pooled._D.clear()
        else:
            W = steps_curve(path_function(stats.subset([lab for lab in labels if lab != label]), K), K)
        report(index + 1)
        if score == "squared_loss":
            per_domain.append(-_domain_loss(stats, index, W))
        else:
            values = np.asarray(score(label, W), dtype=np.float64)
            if values.shape != (K + 1,):
                raise ValueError(f"score must return {K + 1} values (steps 0..{K}), got shape {values.shape}")
            per_domain.append(values)
    return np.asarray(per_domain)


def _domain_loss(stats: DomainStatistics, index: int, W: np.ndarray) -> np.ndarray:
    """Squared loss of each row of W on domain ``index`` (from its moments)."""
    support = np.flatnonzero(np.any(W != 0, axis=0))
    quad = np.zeros(W.shape[0])
    if support.size:
        G = np.stack([stats.gram_row(int(i))[index, support] for i in support])  # (s, s)
        Ws = W[:, support]
        quad = np.einsum("ms,st,mt->m", Ws, G, Ws)
    return stats.yy[index] - 2.0 * W @ stats.xy[index] + quad


def _progress(progress, total: int):
    """Reports ``"leave-one-domain-out: fold i of n"`` as :func:`~.stopping.stop_lodo`'s ``progress`` says."""
    import sys
    import time

    if progress is None or progress is True:
        write = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    else:
        write = progress or None
    quiet = LODO_QUIET_SECONDS if progress is None else 0.0
    every = LODO_QUIET_SECONDS if progress is None else 1.0
    start = time.perf_counter()
    last = [start - every]

    def report(done: int) -> None:
        now = time.perf_counter()
        if write is None or now - start < quiet:
            return
        if done == total or now - last[0] >= every:
            write(f"leave-one-domain-out: fold {done} of {total} ({now - start:.1f} s)")
            last[0] = now
    return report


def _half_log2(mean_square: np.ndarray) -> np.ndarray:
    """``round(log2(sqrt(mean_square)))`` (0 where it is 0): the power of two nearest a root mean square."""
    with np.errstate(divide="ignore"):
        out = np.round(0.5 * np.log2(mean_square))
    return np.where(np.isfinite(out), out, 0).astype(np.int64)


class _PooledMoments:
    """Sums over all n domains from which every leave-one-out fold's T-statistics follow (add and subtract).

    With ``c_k(w) = r_k(w) - rbar(w)`` the residual covariances centred on their mean over all n domains
    (``r_k(w) = E[XY|d_k] - E[XX^T|d_k] w``), the sum of squares over all domains is a quadratic in w,

        SS(w) = A - 2 sum_j w_j C_j + sum_jl w_j w_l D_jl,
        A = sum_k xc_k^2,  C_j = sum_k xc_k Gc_kj,  D_jl = sum_k Gc_kj Gc_kl

    (``xc``, ``Gc``: the moments centred over the domains), and leaving domain k out takes away
    ``n / (n - 1) c_k(w)^2``. ``C_j`` and ``D_jl`` are formed once for the features some fold chooses,
    one pass over the n domains each: n folds of K steps then cost O(n K p + K^2 p) a fold, not n^2.
    """

    def __init__(self, stats: DomainStatistics):
        self.stats = stats
        self.n = stats.n_domains
        # The sums square products of moments (E[X_j X_i]^2 ~ x^4): they are formed on X_i / 2**a_i and y / 2**b,
        # each about 1, exactly (powers of two); T-statistics and the picks do not change, the weights scale back.
        diagonal = stats.diagonal
        self.a = _half_log2(diagonal.mean(axis=0))
        self.b = int(_half_log2(np.array([np.mean(stats.yy)]))[0])
        self.xy = np.ldexp(stats.xy, -(self.a + self.b)[None, :])
        self.xy_mean = self.xy.mean(axis=0)
        self.xc = self.xy - self.xy_mean
        self.A = np.einsum("kp,kp->p", self.xc, self.xc)
        self.diagonal = np.ldexp(diagonal, -2 * self.a[None, :])
        self.diagonal_sum = self.diagonal.sum(axis=0)
        self.present = np.count_nonzero(diagonal > 0, axis=0)  # domains where feature i is not all zero
        self.unlabeled_diagonal = (None if stats.unlabeled_xx is None
                                   else np.ldexp(np.diagonal(stats.unlabeled_xx), -2 * self.a))
        self._row_mean, self._C, self._D = {}, {}, {}

    def row(self, j: int) -> np.ndarray:
        """``E[X_j X^T | d_k]`` of every domain, in the scaled units."""
        return np.ldexp(self.stats.gram_row(int(j)), -(self.a[j] + self.a)[None, :])

    def row_mean(self, j: int) -> np.ndarray:
        if j not in self._row_mean:
            self._row_mean[j] = self.row(j).mean(axis=0)
        return self._row_mean[j]

    def C(self, j: int) -> np.ndarray:
        if j not in self._C:
            self._C[j] = np.einsum("kp,kp->p", self.xc, self.row(j) - self.row_mean(j))
        return self._C[j]

    def D(self, j: int, l: int) -> np.ndarray:
        key = (min(j, l), max(j, l))
        if key not in self._D:
            j, l = key
            self._D[key] = np.einsum("kp,kp->p", self.row(j) - self.row_mean(j), self.row(l) - self.row_mean(l))
        return self._D[key]

    def nbytes(self) -> int:
        return 8 * self.stats.n_features * (len(self._row_mean) + len(self._C) + len(self._D))


def _fold_path_curve(pooled: _PooledMoments, k: int, n_steps: int, options: dict, method: str) -> np.ndarray:
    """The weights after 0..n_steps steps of the stagewise path on every domain but ``k`` from the pooled
    sums: the choices of :func:`~.selection.trace_path` on ``stats.subset(others)``, to rounding."""
    stats, n = pooled.stats, pooled.n
    m = n - 1
    p = stats.n_features
    sign, denominator = options.get("sign", "abs"), options.get("denominator", "sample")
    threshold, allow_reselect = options.get("threshold"), options.get("allow_reselect", False)
    available = (pooled.present - (pooled.diagonal[k] > 0)) > 0
    if denominator == "unlabeled":
        second = pooled.unlabeled_diagonal.copy()
        available &= second > 0
    else:
        second = (pooled.diagonal_sum - pooled.diagonal[k]) / m
    safe_second = np.where(available, second, 1.0)
    coef = np.zeros(p)
    W = np.zeros((n_steps + 1, p))
    support: list[int] = []
    rbar = pooled.xy_mean.copy()          # mean over all n domains of r(w)
    r_k = pooled.xy[k].copy()             # r_k(w)
    ss = pooled.A.copy()                  # SS(w) over all n domains
    ss_scale = pooled.A.copy()            # the magnitudes summed into ss (for its rounding)
    chosen = np.zeros(p, dtype=bool)
    steps = 0
    tolerance = 8.0 * n * np.finfo(np.float64).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        for step in range(n_steps):
            mu = (n * rbar - r_k) / m
            c_k = r_k - rbar
            ss_fold = ss - (n / m) * c_k * c_k
            zero = ss_fold <= tolerance * (ss_scale + (n / m) * c_k * c_k)
            sigma = np.sqrt(np.where(zero, 0.0, ss_fold) / (m - 1))
            t = np.where(zero, np.where(mu == 0, 0.0, np.copysign(np.inf, mu)), mu * math.sqrt(m) / sigma)
            if method == "tgreedy":
                score = np.abs(t) if sign == "abs" else t.copy()
            else:
                score = mu ** 2 / safe_second
            score[~available] = -np.inf
            if not allow_reselect:
                score[chosen] = -np.inf
                if (chosen | ~available).all():
                    break
            if not np.all(np.isfinite(sigma[available])):
                raise ValueError("the residual covariances overflow float64 without domain "
                                 f"{stats.domain_labels[k]!r}; rescale X and y (e.g. to unit standard deviation)")
            i = int(np.argmax(score))
            if np.isinf(score[i]):
                tied = np.flatnonzero(score == score[i])
                if tied.size > 1:
                    i = int(tied[np.argmax(mu[tied] ** 2 / safe_second[tied])])
            if not np.isfinite(score[i]) and score[i] < 0:
                break
            if threshold is not None and not score[i] >= threshold:
                break
            delta = mu[i] / second[i]
            # SS(w + delta e_i) = SS(w) - 2 delta (C_i - sum_l w_l D_il) + delta^2 D_ii
            cross = pooled.C(i) - sum((coef[l] * pooled.D(i, l) for l in support), np.zeros(p))
            change = -2.0 * delta * cross + delta * delta * pooled.D(i, i)
            ss = ss + change
            ss_scale = ss_scale + np.abs(2.0 * delta * cross) + delta * delta * np.abs(pooled.D(i, i))
            rbar = rbar - delta * pooled.row_mean(i)
            r_k = r_k - delta * np.ldexp(stats.gram_row(i)[k], -(pooled.a[i] + pooled.a))
            coef[i] += delta
            if i not in support:
                support.append(i)
            chosen[i] = True
            steps += 1
            W[steps] = coef
    if steps < n_steps:
        W[steps + 1:] = W[steps]
    return np.ldexp(W, (pooled.b - pooled.a)[None, :])
