"""The figure of :func:`tgreedy_lib.diagnose`: does T-greedy help on these data?

Four panels, drawn to be read at :data:`~.style.FIGURE_WIDTH` or narrower (720 pixels) with no text under
9 points: held-out R^2 against k per method with a band of one standard error over held-out domains; greedy's
and T-greedy's source-domain R^2 against their held-out R^2 (the overfitting of section 5 of Foster, Kakade &
Salakhutdinov, AISTATS 2012); T-greedy minus greedy on every held-out domain at the k each chose; and the
spread of every feature's per-domain effect against its sampling error.
"""
from __future__ import annotations

import numpy as np

from .style import RULE_LABELS, selector_style

__all__ = ["plot_diagnosis", "DIAGNOSIS_TEXT_PT"]

#: The smallest text of the figure, in points.
DIAGNOSIS_TEXT_PT = 9.0

_LASSO = ("0.3", ":")


def _style(method: str) -> tuple:
    if method == "lasso":
        return _LASSO
    style = selector_style(method)
    return style.color, style.linestyle


def _readable_log_ticks(ax, low: float, high: float) -> None:
    """Major ticks at 1-2-5 values (..., 0.5, 1, 2, 5, 10, ...) written as plain numbers, no minor labels."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    low, high = max(low, 1e-3), max(high, 1.0)
    decades = np.arange(np.floor(np.log10(low)) - 1, np.ceil(np.log10(high)) + 1)
    values = (np.array([1.0, 2.0, 5.0])[None, :] * 10.0 ** decades[:, None]).ravel()
    inside = values[(values >= low / 1.5) & (values <= high * 1.5)]
    for keep in ((1.0, 5.0), (1.0,)):          # a wider range: 1-5-10, then 1-10-100 only
        if inside.size <= 7:
            break
        leading = np.round(inside / 10.0 ** np.floor(np.log10(inside) + 1e-9))
        inside = inside[np.isin(leading, keep)]
    ax.set_ylim(min(low, inside.min()) / 1.3, max(high, inside.max()) * 1.3)
    ax.yaxis.set_major_locator(FixedLocator(inside))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def plot_diagnosis(result, axes=None):
    """Draw a :class:`~tgreedy_lib.diagnosis.Diagnosis`; returns the figure.

    Parameters
    ----------
    result : Diagnosis
    axes : sequence of 4 matplotlib Axes, optional
        Where to draw (default: a new 7.2 x 6 inch figure, 720 pixels wide at 100 dpi).
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    size = DIAGNOSIS_TEXT_PT
    names = {**result.method_labels, "tgreedy": RULE_LABELS["tgreedy"]}   # the legend names the rule
    if axes is None:
        fig, grid = plt.subplots(2, 2, figsize=(7.2, 6.0), dpi=100)
        axes = grid.ravel()
    fig = axes[0].figure
    k = result.k_grid
    positions = np.arange(k.size)

    ax = axes[0]
    for method in result.methods:
        mean, se = result.mean_held_out(method)
        color, line = _style(method)
        ax.plot(positions, mean, line, color=color, marker="o", ms=3, label=names[method])
        ax.fill_between(positions, mean - se, mean + se, color=color, alpha=0.15, lw=0)
    ax.set_title("held-out domains (LODO)", fontsize=size + 1)
    ax.set_ylabel("R$^2$, mean $\\pm$ s.e.", fontsize=size)
    handles, texts = ax.get_legend_handles_labels()

    ax = axes[1]
    for method in ("greedy", "tgreedy"):
        row = result.methods.index(method)
        color, _ = _style(method)
        ax.plot(positions, result.source[row].mean(axis=0), "--", color=color, marker="o", ms=3,
                label=f"{names[method]}, source")
        ax.plot(positions, result.held_out[row].mean(axis=0), "-", color=color, marker="o", ms=3,
                label=f"{names[method]}, held out")
    ax.set_title("source fit against held-out fit", fontsize=size + 1)
    ax.legend(fontsize=size, framealpha=0.85, loc="best")
    for ax in axes[:2]:
        ax.set_xticks(positions, [str(v) for v in k])
        ax.set_xlabel("k, features selected", fontsize=size)
        ax.tick_params(labelsize=size)

    ax = axes[2]
    diff = result.difference("tgreedy", "greedy")
    colors = np.where(diff > 0, selector_style("tgreedy").color, selector_style("greedy").color)
    ax.barh(np.arange(diff.size), diff, color=colors)
    ax.axvline(0, color="0.2", lw=0.8)
    labels = [str(label) for label in result.domain_labels]
    ax.set_yticks(np.arange(diff.size), labels if diff.size <= 16 else [""] * diff.size)
    ax.invert_yaxis()
    c = result.comparison()
    ax.set_title(f"T-greedy $-$ greedy at chosen k\n{c['wins']} better, {c['losses']} worse of {diff.size}",
                 fontsize=size + 1)
    ax.set_xlabel("held-out R$^2$ difference", fontsize=size)
    ax.set_ylabel("held-out domain", fontsize=size)
    ax.tick_params(labelsize=size)
    ax.xaxis.set_major_locator(MaxNLocator(4))          # differences such as -0.015 need room at 9 pt

    ax = axes[3]
    order = np.argsort(-result.spread_ratio)
    ratio = np.maximum(result.spread_ratio[order], 1e-3)
    summarised = np.isin(order, result.spread_features)
    ax.scatter(np.flatnonzero(~summarised), ratio[~summarised], s=10, color="0.6", label="other features")
    ax.scatter(np.flatnonzero(summarised), ratio[summarised], s=16, color="black",
               label=f"{result.spread_features.size} largest effects")
    lo, hi = result.spread_interval
    ax.axhspan(lo, hi, color="tab:green", alpha=0.2, lw=0, label="summary, 95% interval")
    ax.axhline(result.spread_summary, color="tab:green", lw=1.2)
    ax.axhline(1.0, color="0.2", lw=0.8, ls="--")
    ax.set_yscale("log")
    _readable_log_ticks(ax, min(ratio.min(), lo), max(ratio.max(), hi))
    ax.set_title("effect spread between domains\n/ sampling error within (1 = none)", fontsize=size + 1)
    ax.set_xlabel("features, by spread", fontsize=size)
    ax.tick_params(labelsize=size)
    # below the panel, where it covers no point
    ax.legend(fontsize=size, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2,
              columnspacing=1.0, handletextpad=0.4)
    fig.legend(handles, texts, fontsize=size, frameon=False, loc="upper center", ncol=len(texts))
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
