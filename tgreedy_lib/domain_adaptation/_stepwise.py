"""The stepwise kernel of the greedy and T-greedy selectors: least squares refit on the chosen set.

The paper's remark (section 3.3) on refitting: after each step the weights are the least-squares
fit on the chosen features, with the pooled moments (the sample average, or the unlabeled ones for
``denominator="unlabeled"``). The Cholesky factor of the chosen set's pooled Gram grows by one row a
step (O(k^2)), and the residual covariances need one product with the chosen Gram rows.

Memory: with lazily computed statistics the chosen Gram rows kept are bounded (four times the
statistics' row budget, ``max_row_memory``): past that, the residual covariances of the later
chosen features come from the samples, ``X_k^T (X_k w) / m_k`` (one pass over the data a step),
and their Cholesky column from the small block ``E[X_i X_S^T | d_k]``, so no (steps x domains x p)
array is held. The driver is :func:`tgreedy_lib.domain_adaptation.selection.selection_path`.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from .statistics import DomainStatistics

#: Chosen Gram rows kept by the stepwise kernel on lazy statistics, in units of their row budget.
ROW_BUDGETS_KEPT = 4


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
        budget = stats._row_budget()
        kept = n_steps if budget is None else int(ROW_BUDGETS_KEPT * budget // (8 * n * p))
        # xx[:, i, :] of the first chosen features, appended per step (np.empty: pages are touched as filled)
        self.chosen_rows = np.empty((max(min(kept, n_steps), 0), n, p))
        self.chol = np.zeros((n_steps, n_steps))  # lower Cholesky factor of the chosen set's pooled Gram
        self.support: list[int] = []

    def add(self, step: int, i: int, mu: np.ndarray, score: np.ndarray) -> None:
        """Step ``step``: add feature ``i`` to the chosen set and refit least squares on it."""
        n, p = self.residual.shape
        chol, chosen_rows = self.chol, self.chosen_rows
        kept = chosen_rows.shape[0]
        self.support.append(i)
        idx = np.asarray(self.support)
        if step < kept:
            chosen_rows[step] = self.stats.gram_row(i, priority=score, remaining=min(kept, self.n_steps) - step)
        # Grow the Cholesky factor of the pooled Gram of the chosen set by one row: O(k^2) a step.
        if self.gram_pooled is not None:
            column = self.gram_pooled[i, idx]
        elif step < kept:
            column = chosen_rows[step][:, idx].mean(axis=0)
        else:
            column = self.stats._gram_entries([i], idx)[:, 0, :].mean(axis=0)
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
        # r_k = E[X Y|d_k] - E[X X^T|d_k] w, with w supported on the chosen set: one gemv with the
        # kept rows, and X_k^T (X_k w) / m_k for the chosen features past them
        stored = min(step + 1, kept)
        self.residual = self.xy - (new[:stored] @ chosen_rows[:stored].reshape(stored, n * p)).reshape(n, p)
        if step + 1 > kept:
            rest = np.zeros(p)
            rest[idx[kept:]] = new[kept:]
            self.residual -= self.stats._times(rest)
        # w^T E[XX^T|d_k] w = w.(E[XY|d_k] - r_k), so the loss needs no p x p product
        self.loss = float(np.mean(self.stats.yy - self.coef @ self.xy.T - (self.residual @ self.coef)))
