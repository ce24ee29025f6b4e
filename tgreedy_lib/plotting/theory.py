"""Figures of the theory notebooks (03-05): each function draws what the theory modules computed
(:mod:`~tgreedy_lib.domain_adaptation.theory`) on a Matplotlib ``Axes`` and returns it; none
computes or simulates anything itself.

Foster, Kakade & Salakhutdinov (AISTATS 2012): Theorem 2 (self-normalized sums),
Theorem 1 and Corollary 3 (T-statistic bounds), section 3.3 (T-greedy).
"""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from ..domain_adaptation.selectors import get_selector  # one colour and label per selector
from ..domain_adaptation.theory.simulate import describe_distribution
from ..domain_adaptation.theory.simulated_selection import SELECTORS

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


def plot_self_normalized_tails(curves: dict, ax=None):
    """``Pr[(sum Z)^2 / sum Z^2 > t]`` against ``t`` for several laws, with the printed
    ``exp(-t/2)`` and the proved ``2 exp(-t/2)`` (Theorem 2); ``curves`` is
    :func:`~tgreedy_lib.domain_adaptation.theory.self_normalized.tail_curves`'s output."""
    ax = _axes(ax)
    t = curves["t"]
    for name in (k for k in curves if k not in ("n", "t", "printed", "proof")):
        ax.step(t, curves[name], where="post", label=describe_distribution(name), lw=1.4)
    ax.plot(t, curves["printed"], "k--", lw=2, label="exp(-t/2) (as printed)")
    ax.plot(t, np.minimum(curves["proof"], 1), "k:", lw=2, label="2 exp(-t/2) (proof)")
    ax.set(xlabel="t", ylabel="Pr[ratio > t]", title=f"Self-normalized sum, n = {curves['n']}", ylim=(-0.02, 1.05))
    ax.legend(fontsize=8)
    return ax


def plot_theorem2_excess(table: dict, ax=None):
    """Heat map of ``worst_case_tail_lower_bound(n, t) - exp(-t/2)``: red cells are (n, t) pairs
    where a symmetric law provably violates Theorem 2 as printed; ``table`` is
    :func:`~tgreedy_lib.domain_adaptation.theory.self_normalized.theorem2_excess`'s output."""
    ax = _axes(ax)
    excess = table["excess"]
    limit = float(np.max(np.abs(excess)))
    mesh = ax.pcolormesh(table["t"], table["n"], excess, cmap="RdBu_r", vmin=-limit, vmax=limit, shading="nearest")
    ax.set_xscale("log")
    ax.set(xlabel="t", ylabel="n", title="worst-case tail minus exp(-t/2)  (red: printed bound fails)")
    plt.colorbar(mesh, ax=ax)
    return ax


def plot_coverage_vs_features(curves: dict, ax=None):
    """Probability that Theorem 1's width covers *every* one of ``|F|`` independent features,
    against ``|F|`` at fixed ``n``, with the target ``1 - delta`` and the largest ``|F|`` the
    theorem admits; ``curves`` is :func:`~tgreedy_lib.domain_adaptation.theory.t_bounds.coverage_curves`'s output."""
    ax = _axes(ax)
    f, n, delta = curves["n_features"], curves["n"], curves["delta"]
    for law, coverage in curves["exact"].items():
        ax.plot(f, coverage, label=describe_distribution(law))
    for law, coverage in curves["monte_carlo"].items():
        ax.plot(f, coverage, "--", label=describe_distribution(law) + " (MC)")
    ax.axhline(1 - delta, color="k", lw=1, ls=":", label=f"1 - delta = {1 - delta:g}")
    admitted = curves["max_features"]
    if admitted >= 1:
        ax.axvline(admitted, color="gray", lw=1, label=f"largest admitted |F| = {admitted:.3g}")
    ax.set_xscale("log")
    ax.set(xlabel="|F| (number of features)", ylabel="Pr[all features covered]",
           title=f"Theorem 1's width, n = {n} domains" + ("" if admitted >= 1 else " (admits no |F|)"),
           ylim=(-0.02, 1.02))
    ax.legend(fontsize=8)
    return ax


def plot_widths(table: dict, ax=None):
    """Width factors (units of ``sigma_hat/sqrt(n)``): the paper's ``sqrt(4 log(2|F|/delta))``,
    the exact Bonferroni ``t_{n-1}`` quantile for Gaussian effects, the normal quantile
    ("4 would become 2") and the width the proof supports without the size condition; ``table``
    is :func:`~tgreedy_lib.domain_adaptation.theory.t_bounds.width_table`'s output."""
    ax = _axes(ax)
    f = table["n_features"]
    ax.plot(f, table["paper"], "k-", lw=2.2, label="paper: sqrt(4 log(2|F|/delta))")
    ax.plot(f, table["normal"], "k:", lw=2, label="normal quantile (~ sqrt(2 log))")
    for i, n in enumerate(table["n"]):
        line, = ax.plot(f, table["bonferroni_t"][i], "-", lw=1.2, label=f"Bonferroni t, n = {n}")
        ax.plot(f, table["proof"][i], "--", lw=1.2, color=line.get_color(), label=f"proof (any |F|), n = {n}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel="|F|", ylabel="width / (sigma_hat / sqrt(n))",
           title=f"Uniform confidence widths, delta = {table['delta']:g}")
    ax.legend(fontsize=7)
    return ax


def plot_corollary_failure(curves: dict, ax=None):
    """Exact ``Pr[some subset's regret exceeds its bound]`` for ``q = 1``, printed factor against
    the proof's, with the target ``delta`` (Corollary 3); ``curves`` is
    :func:`~tgreedy_lib.domain_adaptation.theory.t_bounds.corollary_failure_curves`'s output."""
    ax = _axes(ax)
    deltas = curves["delta"]
    for p in curves["printed"]:
        line, = ax.plot(deltas, curves["printed"][p], "o-", label=f"printed, p = {p}")
        ax.plot(deltas, curves["proof"][p], "s--", color=line.get_color(), label=f"proof's factor, p = {p}")
    ax.plot(deltas, deltas, "k:", lw=2, label="delta (target)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel="delta", ylabel="Pr[bound fails]",
           title=f"Corollary 3, q = 1, {describe_distribution(curves['law'])} effects")
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
