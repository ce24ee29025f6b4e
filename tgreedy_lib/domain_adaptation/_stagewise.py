"""The stagewise kernel of the greedy and T-greedy selectors (section 3.3, the paper's algorithm).

Each step moves only the chosen weight, by the shared update ``w_i <- w_i + mu_i / E[X_i^2]``, and
updates the per-domain residual covariances ``r_k = E[X (Y - w.X) | d_k]`` with one Gram row.
The driver is :func:`tgreedy_lib.domain_adaptation.selection.selection_path`.

Lazily computed Gram rows come a block at a time (one matrix product per domain for several
rows). Which rows go into the block is a prediction of the next picks: the kernel runs the path
ahead on a few hundred candidate features (the highest scores now), with their small Gram
``E[X_C X_C^T | d_k]`` (:meth:`PathPredictor.predict`). The prediction only chooses rows to form; the
path itself always uses the exact rows, so results do not depend on it.
"""
from __future__ import annotations

import math

import numpy as np

from .statistics import DomainStatistics


class PathPredictor:
    """The next picks of a stagewise path, simulated on candidate features (used to choose Gram-row blocks).

    ``score_of(residual, second_moment) -> (score, mu)`` is the driver's scoring rule applied to
    the columns of a residual block; ``chosen`` is the driver's mask of chosen features (read,
    never written); ``allow_reselect`` as in the driver.
    """

    def __init__(self, score_of, second_moment: np.ndarray, chosen: np.ndarray, allow_reselect: bool, best):
        self.score_of = score_of
        self.second_moment = second_moment
        self.chosen = chosen
        self.allow_reselect = allow_reselect
        self.best = best

    @staticmethod
    def n_candidates(p: int, block: int) -> int:
        """Candidates simulated: sqrt(p x block / 8), at least 4 blocks' worth (all p when fewer).

        Their Gram (2 m c^2 flops) then costs at most an eighth of the block of rows it chooses
        (2 m p block flops). At p = 10^4 a 300-step path predicted from 240 candidates stayed
        exact for 10-47 steps at a time (1,000 candidates: mostly 64, the longest tried).
        """
        return int(min(p, max(4 * block, math.sqrt(p * block / 8))))

    def predict(self, stats: DomainStatistics, residual: np.ndarray, i: int, score: np.ndarray, n_steps: int) -> np.ndarray:
        """The features the next ``n_steps`` steps are expected to choose, starting with ``i`` (this step's pick).

        Exact as long as every pick lies among the candidates: the rows of the candidates outside
        of them are not known, so a feature outside can overtake unseen.
        """
        p = score.size
        c = self.n_candidates(p, n_steps)
        candidates = np.argpartition(-score, c - 1)[:c] if c < p else np.arange(p)
        if not np.any(candidates == i):
            candidates[-1] = i
        gram = stats._gram_entries(candidates, candidates)  # (n, c, c)
        r = residual[:, candidates]  # a copy (fancy indexing)
        second_moment = self.second_moment[candidates]
        excluded = self.chosen[candidates].copy()
        j = int(np.flatnonzero(candidates == i)[0])
        picks = [i]
        for s in range(n_steps):
            delta = r[:, j].mean() / second_moment[j]
            r -= delta * gram[:, j, :]
            if not self.allow_reselect:
                excluded[j] = True
            if s == n_steps - 1 or excluded.all():
                break
            local, mu = self.score_of(r, second_moment)
            local[excluded] = -np.inf
            j = self.best(local, mu, second_moment)
            picks.append(int(candidates[j]))
        return np.asarray(picks, dtype=np.intp)  # in order; distinct unless allow_reselect


class StagewiseKernel:
    """State of a stagewise path: ``coef``, ``residual`` (n_domains, p) and the pooled training ``loss``."""

    def __init__(self, stats: DomainStatistics, update_second_moment: np.ndarray, n_steps: int, denominator: str):
        self.stats = stats
        self.n_steps = n_steps
        self.update_second_moment = update_second_moment
        self.sample_second_moment = stats.second_moment("sample")
        self.residual = np.array(stats.xy, dtype=np.float64, order="C")  # r_k,i for w = 0
        self.coef = np.zeros(stats.n_features)
        self.loss = float(stats.yy.mean())
        self.predictor: PathPredictor | None = None  # set by the driver

    def _predicted(self, step: int, i: int, score: np.ndarray):
        """The rows to form with row ``i`` if it is missing: the predicted next picks (None: by score alone)."""
        if self.predictor is None or self.stats._row_known(i):
            return None
        ahead = min(self.stats._lazy_block_size() or 0, self.n_steps - step)
        if ahead <= 1:  # the last step, or sparse rows (cheap: one at a time): row i alone
            return np.array([i])
        return self.predictor.predict(self.stats, self.residual, i, score, ahead)

    def add(self, step: int, i: int, mu: np.ndarray, score: np.ndarray):
        """Step ``step``: move weight ``i`` by ``mu_i / E[X_i^2]``.

        Returns the features whose residual covariances changed: those where row ``i`` is nonzero
        for a sparse row (so the driver recomputes only their T-statistics), None (all) otherwise.
        """
        delta = mu[i] / self.update_second_moment[i]
        self.coef[i] += delta
        # xx_k is symmetric: row i is column i. The prediction and the score tell lazily computed
        # statistics which rows to compute with it (the likely next picks).
        row = self.stats._gram_row(i, priority=score, remaining=self.n_steps - step,
                                   predicted=self._predicted(step, i, score), dense=False)
        self.loss += -2.0 * delta * mu[i] + delta * delta * self.sample_second_moment[i]
        if isinstance(row, np.ndarray):
            self.residual -= delta * row
            return None
        # a CSR row (n_domains, p) of sparse samples: update its nonzeros only (r - delta * 0 = r exactly)
        domains = np.repeat(np.arange(row.shape[0]), np.diff(row.indptr))
        self.residual[domains, row.indices] -= delta * row.data
        return np.unique(row.indices)
