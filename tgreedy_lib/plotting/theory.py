"""Figures of the theory notebooks (03-05): each function computes nothing heavy itself
beyond calling the library, draws on a Matplotlib ``Axes`` and returns it.

Foster, Kakade & Salakhutdinov (AISTATS 2012): Theorem 2 (self-normalized sums),
Theorem 1 and Corollary 3 (T-statistic bounds), section 3.3 (T-greedy).
"""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from ..domain_adaptation.theory import self_normalized as sn
from ..domain_adaptation.theory import t_bounds as tb
from ..domain_adaptation.theory.simulate import describe_distribution
from ..domain_adaptation.theory.simulated_selection import SELECTORS

from ..domain_adaptation.selectors import get_selector  # one colour and label per selector

__all__ = [
    "plot_self_normalized_tails",
    "plot_theorem2_excess",
    "plot_coverage_vs_features",
    "plot_widths",
    "plot_corollary_failure",
    "plot_subset_regret",
    "plot_selector_paths",
    "plot_sweep",
]


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 3.8))
    return ax


def plot_self_normalized_tails(n: int, t=None, distributions=("rademacher", "gaussian", "cauchy", "pareto"),
                               rng=None, n_trials: int = 20000, ax=None):
    """``Pr[(sum Z)^2 / sum Z^2 > t]`` against ``t`` for several laws, with the printed
    ``exp(-t/2)`` and the proved ``2 exp(-t/2)`` (Theorem 2). Exact curves for
    Rademacher and Gaussian, Monte Carlo for the others (``rng`` needed)."""
    ax = _axes(ax)
    t = np.linspace(0.02, max(6.0, min(float(n), 12.0)), 400) if t is None else np.asarray(t, float)
    curves = sn.tail_curves(n, t, distributions, rng=rng, n_trials=n_trials)
    for name in distributions:
        ax.step(t, curves[name], where="post", label=describe_distribution(name), lw=1.4)
    ax.plot(t, curves["printed"], "k--", lw=2, label="exp(-t/2) (as printed)")
    ax.plot(t, np.minimum(curves["proof"], 1), "k:", lw=2, label="2 exp(-t/2) (proof)")
    ax.set(xlabel="t", ylabel="Pr[ratio > t]", title=f"Self-normalized sum, n = {n}", ylim=(-0.02, 1.05))
    ax.legend(fontsize=8)
    return ax


def plot_theorem2_excess(n_values=range(1, 51), t=None, ax=None):
    """Heat map of ``worst_case_tail_lower_bound(n, t) - exp(-t/2)``: red cells are
    (n, t) pairs where a symmetric law provably violates Theorem 2 as printed."""
    ax = _axes(ax)
    t = np.geomspace(0.05, 50, 300) if t is None else np.asarray(t, float)
    n_values = np.asarray(list(n_values))
    excess = np.array([sn.worst_case_tail_lower_bound(int(n), t) - sn.printed_bound(t) for n in n_values])
    limit = float(np.max(np.abs(excess)))
    mesh = ax.pcolormesh(t, n_values, excess, cmap="RdBu_r", vmin=-limit, vmax=limit, shading="nearest")
    ax.set_xscale("log")
    ax.set(xlabel="t", ylabel="n", title="worst-case tail minus exp(-t/2)  (red: printed bound fails)")
    plt.colorbar(mesh, ax=ax)
    return ax


def plot_coverage_vs_features(n: int, delta: float, n_features, ax=None, rng=None,
                              monte_carlo_laws=("cauchy",), n_trials: int = 20000):
    """Probability that Theorem 1's width covers *every* one of ``|F|`` independent features,
    against ``|F|`` at fixed ``n`` (exact for Gaussian and Rademacher effects, Monte Carlo
    per-feature tails for the others), with the target ``1 - delta`` and the largest
    ``|F|`` the theorem admits, ``(delta/2) e^(n/8)``."""
    ax = _axes(ax)
    f = np.asarray(n_features, dtype=float)
    c = tb.paper_factor(f, delta)
    for law in ("gaussian", "rademacher"):
        p = tb.failure_probability_exact(law, n, c)
        ax.plot(f, tb.coverage_independent(p, f), label=describe_distribution(law))
    for law in monte_carlo_laws:
        if rng is None:
            raise ValueError("rng is needed for the Monte Carlo curves")
        p, _ = tb.failure_probability_monte_carlo(rng, law, n, c, n_trials)
        ax.plot(f, tb.coverage_independent(p, f), "--", label=describe_distribution(law) + " (MC)")
    ax.axhline(1 - delta, color="k", lw=1, ls=":", label=f"1 - delta = {1 - delta:g}")
    admitted = float(tb.max_features(n, delta))
    if admitted >= 1:
        ax.axvline(admitted, color="gray", lw=1, label=f"largest admitted |F| = {admitted:.3g}")
    ax.set_xscale("log")
    ax.set(xlabel="|F| (number of features)", ylabel="Pr[all features covered]",
           title=f"Theorem 1's width, n = {n} domains" + ("" if admitted >= 1 else " (admits no |F|)"),
           ylim=(-0.02, 1.02))
    ax.legend(fontsize=8)
    return ax


def plot_widths(n_values, n_features, delta: float, ax=None):
    """Width factors (units of ``sigma_hat/sqrt(n)``): the paper's ``sqrt(4 log(2|F|/delta))``,
    the exact Bonferroni ``t_{n-1}`` quantile for Gaussian effects, the normal quantile
    ("4 would become 2") and the width the proof supports without the size condition."""
    ax = _axes(ax)
    table = tb.width_table(n_values, n_features, delta)
    f = table["n_features"]
    ax.plot(f, table["paper"], "k-", lw=2.2, label="paper: sqrt(4 log(2|F|/delta))")
    ax.plot(f, table["normal"], "k:", lw=2, label="normal quantile (~ sqrt(2 log))")
    for i, n in enumerate(table["n"]):
        line, = ax.plot(f, table["bonferroni_t"][i], "-", lw=1.2, label=f"Bonferroni t, n = {n}")
        ax.plot(f, table["proof"][i], "--", lw=1.2, color=line.get_color(), label=f"proof (any |F|), n = {n}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel="|F|", ylabel="width / (sigma_hat / sqrt(n))", title=f"Uniform confidence widths, delta = {delta:g}")
    ax.legend(fontsize=7)
    return ax


def plot_corollary_failure(deltas, p_values=(1, 2, 3), law: str = "gaussian", ax=None):
    """Exact ``Pr[some subset's regret exceeds its bound]`` for ``q = 1`` and orthonormal
    independent features at the fewest admissible domains, printed factor against the
    proof's, with the target ``delta`` (Corollary 3)."""
    ax = _axes(ax)
    deltas = np.asarray(deltas, dtype=float)
    for p in p_values:
        printed, proof = [], []
        for d in deltas:
            n = tb.corollary_min_domains(p, 1, d)
            for store, factor in ((printed, tb.corollary_printed_factor), (proof, tb.corollary_proof_factor)):
                pf = tb.failure_probability_exact(law, n, math.sqrt(factor(p, 1, d)))
                store.append(1 - tb.coverage_independent(pf, p))
        line, = ax.plot(deltas, printed, "o-", label=f"printed, p = {p}")
        ax.plot(deltas, proof, "s--", color=line.get_color(), label=f"proof's factor, p = {p}")
    ax.plot(deltas, deltas, "k:", lw=2, label="delta (target)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel="delta", ylabel="Pr[bound fails]", title=f"Corollary 3, q = 1, {describe_distribution(law)} effects")
    ax.legend(fontsize=7)
    return ax


def plot_subset_regret(simulation: dict, ax=None, max_points: int = 4000):
    """Regret of each simulated training set's worst subset against its
    ``sum sigma_hat^2 / n``, with the lines ``regret = factor * sum sigma_hat^2 / n`` of the
    printed and the proved factor: points above a line violate that bound (Corollary 3)."""
    ax = _axes(ax)
    worst = np.argmax(simulation["regret"] / np.maximum(simulation["variance_over_n"], 1e-300), axis=1)
    rows = np.arange(worst.size)
    x = simulation["variance_over_n"][rows, worst][:max_points]
    y = simulation["regret"][rows, worst][:max_points]
    keep = (x > 0) & (y > 0)
    ax.scatter(x[keep], y[keep], s=5, alpha=0.35, color="tab:gray")
    grid = np.geomspace(x[keep].min(), x[keep].max(), 50)
    printed, proof = simulation["factor_printed"], simulation["factor_proof"]
    above_printed = float(np.mean(simulation["worst_ratio_printed"] > 1))
    above_proof = float(np.mean(simulation["worst_ratio_proof"] > 1))
    ax.plot(grid, printed * grid, color="tab:red", lw=2, label=f"printed factor {printed:.2f} ({above_printed:.1%} above)")
    ax.plot(grid, proof * grid, "k--", lw=2, label=f"proof's factor {proof:.2f} ({above_proof:.1%} above)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel="sum of sigma_hat^2 / n (worst subset)", ylabel="regret L(mu_hat_S) - L(mu_S)",
           title="Corollary 3: regret against bound")
    ax.legend(fontsize=8)
    return ax


def plot_selector_paths(result: dict, axes=None):
    """Two panels: mean regret on a new random domain as features are added, and the share
    of picks that are spurious at each step, for each selector (``compare_selectors`` output)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    steps = result["steps"]
    for name in result.get("selectors", SELECTORS):
        selector = get_selector(name)
        regret = result[name]["regret"]
        mean = regret.mean(axis=0)
        se = regret.std(axis=0, ddof=1) / math.sqrt(regret.shape[0]) if regret.shape[0] > 1 else 0 * mean
        axes[0].plot(steps, mean, color=selector.color, ls=selector.linestyle, label=selector.label)
        axes[0].fill_between(steps, mean - 2 * se, mean + 2 * se, color=selector.color, alpha=0.2)
        axes[1].plot(steps[1:], result[name]["spurious"].mean(axis=0), "o", ls=selector.linestyle,
                     color=selector.color, label=selector.label)
    axes[0].axhline(result["null_regret"], color="k", ls=":", lw=1, label="null predictor (w = 0)")
    samples = "population moments" if result["n_samples"] is None else f"{result['n_samples']} samples/domain"
    axes[0].set(xlabel="features added", ylabel="regret on a new domain",
                title=f"n = {result['n_domains']} domains, {samples}")
    axes[1].set(xlabel="step", ylabel="share of picks that are spurious", ylim=(-0.03, 1.03),
                title=f"{result['n_repeats']} simulated training sets")
    for ax in axes:
        ax.legend(fontsize=8)
    return axes


def plot_sweep(rows: list[dict], ax=None, metric: str = "regret", selectors=SELECTORS):
    """Mean regret (``metric="regret"``) or spurious share (``"spurious"``) after a fixed
    number of steps against the number of training domains, one line per selector and
    samples-per-domain setting (``sweep_selectors`` output, run with the same ``selectors``)."""
    ax = _axes(ax)
    settings = sorted({r["n_samples"] for r in rows}, key=lambda s: (s is None, s or 0))
    styles = ["-", "--", ":", "-."]
    for j, samples in enumerate(settings):
        sub = [r for r in rows if r["n_samples"] == samples]
        n = [r["n_domains"] for r in sub]
        label = "population" if samples is None else f"{samples}/domain"
        for name in selectors:
            ax.plot(n, [r[f"{name}_{metric}"] for r in sub], styles[j % 4], marker="o",
                    color=get_selector(name).color, label=f"{get_selector(name).label}, {label}")
    if metric == "regret":
        ax.axhline(rows[0]["null_regret"], color="k", lw=1, ls=":", label="null predictor")
        ax.set_yscale("log")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="training domains n", ylabel="mean regret" if metric == "regret" else "spurious share")
    ax.legend(fontsize=7)
    return ax
