"""The stepwise kernel of the greedy and T-greedy selectors: least squares refit on the chosen set.

The paper's remark (section 3.3) on refitting: after each step the weights are the least-squares
fit on the chosen features, with the pooled moments (the sample average, or the unlabeled ones for
``denominator="unlabeled"``). The Cholesky factor of the chosen set's pooled Gram grows by one row a
step (O(k^2)), and the residual covariances need one product with the chosen Gram rows.
The driver is :func:`tgreedy_lib.domain_adaptation.selection.selection_path`.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from .statistics import DomainStatistics


class StepwiseKernel:
    """State of a stepwise path: ``coef``, ``residual`` (n_domains, p) and the pooled training ``loss``."""

    def __init__(self, stats: DomainStatistics, update_second_moment: np.ndarray, n_steps: int, denominator: str):
        n, p = stats.n_domains, stats.n_features
        self.stats = stats
        self.n_steps = n_steps
        self.xy = stats.xy
        self.residual = np.array(self.xy, dtype=np.float64, order="C")  # r_k,i for w = 0
        self.coef = np.zeros(p)
        self.loss = float(stats.yy.mean())
        self.gram_pooled = stats.unlabeled_xx if denominator == "unlabeled" else None
        self.xy_pooled = self.xy.mean(axis=0)
        self.chosen_rows = np.empty((n_steps, n, p))  # xx[:, i, :] of each chosen feature, appended per step
        self.chol = np.zeros((n_steps, n_steps))  # lower Cholesky factor of the chosen set's pooled Gram
        self.support: list[int] = []

    def add(self, step: int, i: int, mu: np.ndarray, score: np.ndarray) -> None:
        """Step ``step``: add feature ``i`` to the chosen set and refit least squares on it."""
        n, p = self.residual.shape
        chol, chosen_rows = self.chol, self.chosen_rows
        self.support.append(i)
        chosen_rows[step] = self.stats.gram_row(i, priority=score, remaining=self.n_steps - step)
        idx = np.asarray(self.support)
        # Grow the Cholesky factor of the pooled Gram of the chosen set by one row: O(k^2) a step.
        if self.gram_pooled is None:
            column = chosen_rows[step][:, idx].mean(axis=0)
        else:
            column = self.gram_pooled[i, idx]
        off = linalg.solve_triangular(chol[:step, :step], column[:step], lower=True, check_finite=False)
        pivot = column[step] - off @ off
        if not pivot > 1e-12 * column[step]:
            raise ValueError(
                f"step {step + 1}: feature {i} is linearly dependent on the chosen features "
                f"{idx[:-1].tolist()}; the stepwise least-squares refit is singular"
            )
        chol[step, :step] = off
        chol[step, step] = np.sqrt(pivot)
        new = linalg.cho_solve((chol[: step + 1, : step + 1], True), self.xy_pooled[idx], check_finite=False)
        self.coef[:] = 0.0
        self.coef[idx] = new
        # r_k = E[X Y|d_k] - E[X X^T|d_k] w, with w supported on the chosen set (one gemv)
        self.residual = self.xy - (new @ chosen_rows[: step + 1].reshape(step + 1, n * p)).reshape(n, p)
        # w^T E[XX^T|d_k] w = w.(E[XY|d_k] - r_k), so the loss needs no p x p product
        self.loss = float(np.mean(self.stats.yy - self.coef @ self.xy.T - (self.residual @ self.coef)))
