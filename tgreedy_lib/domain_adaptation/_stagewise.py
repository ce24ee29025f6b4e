"""The stagewise kernel of the greedy and T-greedy selectors (section 3.3, the paper's algorithm).

Each step moves only the chosen weight, by the shared update ``w_i <- w_i + mu_i / E[X_i^2]``, and
updates the per-domain residual covariances ``r_k = E[X (Y - w.X) | d_k]`` with one Gram row.
The driver is :func:`tgreedy_lib.domain_adaptation.selection.selection_path`.
"""
from __future__ import annotations

import numpy as np

from .statistics import DomainStatistics


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

    def add(self, step: int, i: int, mu: np.ndarray, score: np.ndarray) -> None:
        """Step ``step``: move weight ``i`` by ``mu_i / E[X_i^2]``."""
        delta = mu[i] / self.update_second_moment[i]
        self.coef[i] += delta
        # xx_k is symmetric: row i is column i. The score tells lazily computed statistics which
        # rows to compute with it (the likely next picks).
        self.residual -= delta * self.stats.gram_row(i, priority=score, remaining=self.n_steps - step)
        self.loss += -2.0 * delta * mu[i] + delta * delta * self.sample_second_moment[i]
