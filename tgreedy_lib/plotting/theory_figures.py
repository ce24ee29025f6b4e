"""Figures of the theory notebooks (03-05) of the DA paper: Theorem 2, Theorem 1 and Corollary 3, and section 3.3
on simulated domains. Each function draws on a Matplotlib ``Axes`` what the theorems' modules computed, and returns it.
"""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from ..domain_adaptation.theorems.simulate import describe_distribution
from .curves import coinciding_groups
from .style import FIGURE_WIDTH, SMALLEST_TEXT_PT, legend_label, selector_style  # one colour, line style, label
from ..domain_adaptation.theorems.simulated_selection import SELECTORS

__all__ = ["plot_self_normalized_tails", "plot_theorem2_excess", "plot_threshold_map", "plot_coverage_vs_features",
           "plot_widths", "plot_corollary_failure", "plot_subset_regret", "plot_selector_paths", "plot_sweep"]


def _legend_below(ax, wrap: int = 30) -> None:
    """The legend below the axes' tick labels and x label, labels wrapped at ``wrap``, two columns if wide."""
    import textwrap

    from matplotlib.transforms import ScaledTranslation
    handles, labels = ax.get_legend_handles_labels()
    width = ax.get_position().width * ax.figure.get_figwidth()
    ticks, label = plt.rcParams["xtick.labelsize"], plt.rcParams["axes.labelsize"]
    size = lambda v: v if isinstance(v, (int, float)) else 1.2 * plt.rcParams["font.size"]  # noqa: E731
    below = 2.0 * size(ticks) + 1.4 * size(label) + 4          # points: tick labels (a log axis' 10^k), x label
    anchor = ax.transAxes + ScaledTranslation(0, -below / 72, ax.figure.dpi_scale_trans)
    ax.legend(handles, [textwrap.fill(text, wrap, break_long_words=False) for text in labels], fontsize=SMALLEST_TEXT_PT,
              loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=anchor, ncol=2 if width >= 5 else 1,
              frameon=False, borderaxespad=0)


def _axes(ax):
    return plt.subplots(figsize=(5.5, 3.8))[1] if ax is None else ax


def plot_self_normalized_tails(curves: dict, ax=None):
    """Theorem 2: ``Pr[(sum Z)^2 / sum Z^2 > t]`` per law, the printed ``exp(-t/2)`` and the proved ``2 exp(-t/2)``."""
    ax = _axes(ax)
    t = curves["t"]
    laws = {name: curves[name] for name in curves if name not in ("n", "t", "printed", "proof")}
    for group in coinciding_groups(laws, atol=1e-9):  # identical curves (n = 1: R = 1 surely) drawn once
        label = " = ".join(describe_distribution(name) for name in group) + (" (identical)" if len(group) > 1 else "")
        ax.step(t, laws[group[0]], where="post", label=label, lw=1.4 if len(group) == 1 else 2.4)
    ax.plot(t, curves["printed"], "k--", lw=2, label=r"$e^{-t/2}$ (as printed)")
    ax.plot(t, np.minimum(curves["proof"], 1), "k:", lw=2, label=r"$2e^{-t/2}$ (proof)")
    ax.set(xlabel="t", ylabel="Pr[ratio > t]", title=f"Self-normalized sum, n = {curves['n']}", ylim=(-0.02, 1.05))
    _legend_below(ax)
    return ax


def plot_threshold_map(ax, x, y, values, threshold: float, above: str, below: str, label: str,
                       vmin: float | None = None, vmax: float | None = None):
    """Heat map of ``values`` (rows along ``y``), red above ``threshold`` and blue at or below, a black contour at it,
    the title saying what ``above`` and ``below`` mean, and a colour bar ``label`` from ``vmin`` to ``vmax``."""
    from matplotlib.colors import ListedColormap, TwoSlopeNorm
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    low = float(np.min(finite)) if vmin is None else vmin
    high = float(np.max(finite)) if vmax is None else vmax
    span = max(abs(threshold - low), abs(high - threshold), 1e-12)
    low, high = min(low, threshold - 1e-3 * span), max(high, threshold + 1e-3 * span)
    colors = np.vstack([plt.get_cmap("Blues")(np.linspace(0.95, BELOW_LIGHTEST, 128)),
                        plt.get_cmap("Reds")(np.linspace(ABOVE_LIGHTEST, 0.95, 128))])
    mesh = ax.pcolormesh(x, y, values, cmap=ListedColormap(colors), shading="auto",
                         norm=TwoSlopeNorm(vmin=low, vcenter=threshold, vmax=high))
    if np.any(finite > threshold) and np.any(finite <= threshold):
        ax.contour(x, y, values, levels=[threshold], colors="k", linewidths=0.8)
    ax.figure.colorbar(mesh, ax=ax, label=label)
    ax.set_title(f"red: {above}; blue: {below}")
    return mesh


ABOVE_LIGHTEST, BELOW_LIGHTEST = 0.5, 0.5   # the lightest shades of "Reds" and "Blues" (0 = white) of the heat maps


def plot_theorem2_excess(table: dict, ax=None):
    """Theorem 2: worst-case tail minus ``exp(-t/2)`` (``theorem2_excess``), red where the printed bound fails."""
    ax = _axes(ax)
    plot_threshold_map(ax, table["t"], table["n"], table["excess"], 0.0, "the printed bound fails", "it holds",
                       r"worst-case tail minus $e^{-t/2}$")
    ax.set(xscale="log", xlabel="t", ylabel="n", title=r"worst-case tail minus $e^{-t/2}$" + "\n" + ax.get_title())
    return ax


def plot_coverage_vs_features(curves: dict, ax=None):
    """Theorem 1: the probability that the width covers all ``|F|`` features, exact and Monte Carlo."""
    ax = _axes(ax)
    f, n, delta = curves["n_features"], curves["n"], curves["delta"]
    for law, coverage in curves["exact"].items():
        ax.plot(f, coverage, label=describe_distribution(law) + " (exact)")
    for law, mc in curves["monte_carlo"].items():
        seen = mc["failures"] > 0
        line, = ax.plot(np.where(seen, f, np.nan), np.where(seen, mc["estimate"], np.nan), "--",
                        label=f"{describe_distribution(law)} (Monte Carlo, {mc['n_trials']:,} draws)")
        ax.plot(f, mc["lower"], ":", color=line.get_color(),
                label=f"{describe_distribution(law)}: {mc['level']:.0%} lower bound (no failure drawn: rule of three)")
        ax.fill_between(f, mc["lower"], 1, where=~seen, color=line.get_color(), alpha=0.12, lw=0,
                        label=f"{describe_distribution(law)}: coverage lies in this band ({mc['level']:.0%} confidence)")
    ax.axhline(1 - delta, color="k", lw=1, ls=":", label=fr"target $1-\delta$ = {1 - delta:g}")
    admitted = curves["max_features"]
    if admitted >= 1:
        ax.axvline(admitted, color="gray", lw=1,
                   label=fr"the size condition's bound $(\delta/2)e^{{n/8}}$ = {admitted:.3g}")
    ax.set(xscale="log", xlabel=r"$|F|$ (number of features)", ylabel="Pr[all features covered]",
           title=f"Theorem 1's width, n = {n} domains" + ("" if admitted >= 1 else " (admits no |F|)"),
           ylim=(-0.02, 1.02))
    _legend_below(ax)
    return ax


def plot_widths(table: dict, ax=None):
    """Theorem 1's width factors (``width_table``): the paper's, Bonferroni ``t_{n-1}``, normal, the proof's."""
    ax = _axes(ax)
    f = table["n_features"]
    ax.plot(f, table["paper"], "k-", lw=2.2, label=r"paper: $\sqrt{4\log(2|F|/\delta)}$")
    ax.plot(f, table["normal"], "k:", lw=2, label=r"normal quantile ($\approx\sqrt{2\log(2|F|/\delta)}$)")
    for i, n in enumerate(table["n"]):
        line, = ax.plot(f, table["bonferroni_t"][i], "-", lw=1.2, label=f"Bonferroni t, n = {n}")
        ax.plot(f, table["proof"][i], "--", lw=1.2, color=line.get_color(), label=f"proof (any |F|), n = {n}")
    ax.set(xscale="log", yscale="log", xlabel=r"$|F|$ (number of features)", ylabel=r"width / $(\hat\sigma/\sqrt{n})$",
           title=fr"Uniform confidence widths, $\delta$ = {table['delta']:g}")
    _legend_below(ax)   # below the axes: inside, it would hide the curves
    return ax


def plot_corollary_failure(curves: dict, ax=None):
    """Corollary 3: exact ``Pr[some subset's regret exceeds its bound]`` (q = 1), printed factor and proof's."""
    ax = _axes(ax)
    deltas = curves["delta"]
    for p in curves["printed"]:
        line, = ax.plot(deltas, curves["printed"][p], "o-", label=f"printed, p = {p}")
        ax.plot(deltas, curves["proof"][p], "s--", color=line.get_color(), label=f"proof's factor, p = {p}")
    ax.plot(deltas, deltas, "k:", lw=2, label=r"$\delta$ (target)")
    ax.set(xscale="log", yscale="log", xlabel=r"$\delta$", ylabel="Pr[bound fails]",
           title=f"Corollary 3, q = 1, {describe_distribution(curves['law'])} effects")
    ax.legend(fontsize=SMALLEST_TEXT_PT)
    return ax


def plot_subset_regret(simulation: dict, ax=None, title: str = "Corollary 3: regret against bound"):
    """Corollary 3: each simulated training set's worst subset, regret against ``sum sigma_hat^2 / n``, and bounds."""
    ax = _axes(ax)
    worst = np.argmax(simulation["regret"] / np.maximum(simulation["variance_over_n"], 1e-300), axis=1)
    rows = np.arange(worst.size)
    x = simulation["variance_over_n"][rows, worst][:4000]
    y = simulation["regret"][rows, worst][:4000]
    keep = (x > 0) & (y > 0)
    ax.scatter(x[keep], y[keep], s=5, alpha=0.35, color="tab:gray")
    grid = np.geomspace(x[keep].min(), x[keep].max(), 50)
    printed, proof = simulation["factor_printed"], simulation["factor_proof"]
    ax.plot(grid, printed * grid, color="tab:red", lw=2,
            label=f"printed factor {printed:.2f} ({np.mean(simulation['worst_ratio_printed'] > 1):.1%} above)")
    ax.plot(grid, proof * grid, "k--", lw=2,
            label=f"proof's factor {proof:.2f} ({np.mean(simulation['worst_ratio_proof'] > 1):.1%} above)")
    ax.set(xscale="log", yscale="log", xlabel=r"$\sum_{i \in S} [\hat\sigma_S]_i^2 / n$ (worst subset)",
           ylabel=r"regret $L(\hat\mu_S) - L(\mu_S)$", title=title)
    ax.legend(fontsize=SMALLEST_TEXT_PT)
    return ax


def plot_selector_paths(result: dict, axes=None):
    """Section 3.3 on simulated domains: mean regret on a new domain (± 2 s.e.) as features are added, and the share
    of spurious picks at each step, per selector (``compare_selectors`` output)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(FIGURE_WIDTH, 3.8), layout="constrained")
    steps = result["steps"]
    for name in result.get("selectors", SELECTORS):
        label, style = legend_label(name), selector_style(name)
        regret = result[name]["regret"]
        mean = regret.mean(axis=0)
        se = regret.std(axis=0, ddof=1) / math.sqrt(regret.shape[0]) if regret.shape[0] > 1 else 0 * mean
        axes[0].plot(steps, mean, color=style.color, ls=style.linestyle, label=label)
        axes[0].fill_between(steps, mean - 2 * se, mean + 2 * se, color=style.color, alpha=0.2)
        axes[1].plot(steps[1:], result[name]["spurious"].mean(axis=0), "o", ls=style.linestyle,
                     color=style.color, label=label)
    axes[0].axhline(result["null_regret"], color="k", ls=":", lw=1, label="null predictor (w = 0)")
    axes[0].fill_between([], [], [], color="0.5", alpha=0.3, lw=0, label="band: mean ± 2 standard errors")
    samples = "population moments" if result["n_samples"] is None else f"{result['n_samples']} samples/domain"
    axes[0].set(xlabel="features added", ylabel="regret on a new domain",
                title=f"n = {result['n_domains']} domains,\n{samples}")
    axes[1].set(xlabel="step", ylabel="share of picks that are spurious", ylim=(-0.03, 1.03),
                title=f"{result['n_repeats']} simulated training sets")
    _legend_below(axes[0])
    return axes


def plot_sweep(rows: list[dict], ax=None, metric: str = "regret", selectors=SELECTORS):
    """``metric`` ("regret", "regret_median", "spurious") against the number of training domains, per selector."""
    ax = _axes(ax)
    settings = sorted({r["n_samples"] for r in rows}, key=lambda s: (s is None, s or 0))
    for j, samples in enumerate(settings):
        sub = [r for r in rows if r["n_samples"] == samples]
        n = [r["n_domains"] for r in sub]
        label = "population" if samples is None else f"{samples}/domain"
        for name in selectors:
            values = [r[f"{name}_{metric}"] for r in sub]
            errors = [r.get(f"{name}_regret_se", 0.0) for r in sub] if metric == "regret" else None
            ax.plot(n, values, ["-", "--", ":", "-."][j % 4], marker="o", ms=4, color=selector_style(name).color,
                    label=f"{legend_label(name)}, {label}")
            if errors is not None:
                ax.errorbar(n, values, yerr=errors, fmt="none", ecolor=selector_style(name).color, capsize=2, lw=1)
    if metric.startswith("regret"):
        ax.axhline(rows[0]["null_regret"], color="k", lw=1, ls=":", label="null predictor")
        ax.set_yscale("log")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="training domains n", ylabel={"regret": "mean regret (bars: 1 s.e.)",
                                                "regret_median": "median regret"}.get(metric, "spurious share"))
    _legend_below(ax, wrap=36)
    return ax
