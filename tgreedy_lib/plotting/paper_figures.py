"""Figures 1-4 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
Approach" (AISTATS 2012), drawn from the JSON-ready results of :mod:`tgreedy_lib.experiments`.

Nothing is computed here but means and spreads of the stored curves. Each selector has its colour
(titles name it), dashed = held-out source data, solid = target domain, x = features added; grey dotted
marks chance, black dotted least squares on all features. The paper's row of panels is stacked three to
a row, the legend in the free slot; bands over splits are plus/minus one s.d. (section 5).
"""
from __future__ import annotations

import pathlib

import matplotlib.pyplot as plt
import numpy as np

from ..datasets import CIFAR10_CLASSES  # one list of class names
from ..experiments.runs import curve
from .style import FIGURE_WIDTH, SMALLEST_TEXT_PT, legend_label, selector_key, selector_style  # one colour per selector

__all__ = ["split_title", "plot_split", "plot_average", "plot_t_statistics", "figure1", "figure2", "figure3",
           "figure4", "plot_all_splits", "plot_band_summary", "legend_key", "save_figure"]

#: The splits the paper's Figures 1 and 2 show, left to right (held-out digit).
PAPER_TWO_VS_OTHER_PANELS = (9, 3, 6, 1)
#: Figure 3's splits: the paper names only the first ('9' held out); the others are our choice.
SIMILARITY_PANELS = (9, 3, 6, 1)
TASK_TITLES = {
    "mnist-2-vs-other": "Recognizing digit '2'",
    "mnist-similarity": "MNIST similarity",
    "cifar-similarity": "CIFAR-10 similarity",
}
#: The section-4 tasks of the bands over seeds, in their order, with the paper's section.
BAND_TASK_TITLES = {"mnist-2-vs-other": "MNIST, '2 vs other' (4.1)", "mnist-similarity": "MNIST similarity (4.2)",
                    "cifar-similarity": "CIFAR-10 similarity (4.2)"}
COLUMNS = 3
ROW_HEIGHT = 2.5  # inches
TITLE_PT = 10
#: Colour of the line that marks least squares on all features at once (a yardstick, not in the paper).
ALL_FEATURES_COLOR = "black"


def _methods(result: dict, methods) -> tuple[str, ...]:
    return tuple(result["curves"]) if methods is None else tuple(methods)


def _split_index(result: dict, target: int) -> int:
    targets = [s["target"] for s in result["splits"]]
    if target not in targets:
        raise ValueError(f"{result['experiment']}: no split holds out {target}; held out: {targets}")
    return targets.index(target)


def split_title(result: dict, target: int) -> str:
    """Panel title of one split: '2 vs 9' (section 4.1), "'9' held out" (similarity)."""
    if result["experiment"] == "mnist-2-vs-other":
        return f"{result.get('positive', 2)} vs {target}"
    name = CIFAR10_CLASSES[target] if result.get("data", {}).get("dataset") == "cifar10" else f"'{target}'"
    return f"{name} held out"


CHANCE_STYLE = {"color": "0.65", "ls": ":", "lw": 1.1}


def _chance(ax) -> None:
    ax.axhline(0.5, zorder=0, **CHANCE_STYLE)


def _style(method: str, methods) -> tuple[str, object]:
    return legend_label(method), selector_style(method, among=list(methods)).color


def legend_key(methods, all_features: bool = False):
    """Legend handles and labels: a swatch per selector of ``methods``, the line styles, chance (and all features)."""
    from matplotlib.lines import Line2D

    methods = list(methods)
    handles, labels = [], []
    for method in methods:
        label, color = _style(method, methods)
        handles.append(Line2D([], [], color=color, lw=2))
        labels.append(label)
    handles += [Line2D([], [], color="black", ls="--", lw=1.4), Line2D([], [], color="black", ls="-", lw=1.6),
                Line2D([], [], **CHANCE_STYLE)]
    labels += ["source domains (held out)", "target domain", "chance (AUROC 0.5)"]
    if all_features:
        handles.append(Line2D([], [], color=ALL_FEATURES_COLOR, ls=":", lw=1.2))
        labels.append("all features (ridge), target")
    return handles, labels


def _steps(result: dict) -> np.ndarray:
    return np.arange(1, int(result["n_features"]) + 1)


def plot_split(ax, result: dict, target: int, methods=None, legend: bool = False):
    """AUROC against features added for one split: source (dashed) and target (solid) per selector."""
    methods = _methods(result, methods)
    k = _split_index(result, target)
    x = _steps(result)
    for method in methods:
        label, color = _style(method, methods)
        ax.plot(x, curve(result, method, "source_auroc")[k], ls="--", color=color, lw=1.4,
                label=f"{label}, source (held out)")
        ax.plot(x, curve(result, method, "target_auroc")[k], ls="-", color=color, lw=1.6,
                label=f"{label}, target")
    _chance(ax)
    ax.set_title(split_title(result, target), fontsize=TITLE_PT)
    ax.set_xlabel("features added")
    if legend:
        ax.legend(fontsize=SMALLEST_TEXT_PT, loc="lower right")
    return ax


def plot_average(ax, result: dict, methods=None, title: str | None = None, legend: bool = False):
    """AUROC averaged over all splits, with a band of one standard deviation across splits."""
    methods = _methods(result, methods)
    x = _steps(result)
    for method in methods:
        label, color = _style(method, methods)
        for metric, style in (("source_auroc", "--"), ("target_auroc", "-")):
            curves = curve(result, method, metric)
            mean = curves.mean(axis=0)
            which = "source (held out)" if metric == "source_auroc" else "target"
            ax.plot(x, mean, ls=style, color=color, lw=1.6, label=f"{label}, {which}")
            if curves.shape[0] > 1:
                spread = curves.std(axis=0, ddof=1)
                ax.fill_between(x, mean - spread, mean + spread, color=color,
                                alpha=0.10 if metric == "source_auroc" else 0.18, lw=0)
    reference = result.get("all_features_reference")
    if reference and len(methods) > 1:
        ax.axhline(float(np.mean(reference["target_auroc"])), color=ALL_FEATURES_COLOR, ls=":", lw=1.2,
                   label="all features (ridge), target")
    _chance(ax)
    ax.set_title(title or f"average of {len(result['splits'])} splits", fontsize=TITLE_PT)
    ax.set_xlabel("features added")
    if legend:
        ax.legend(fontsize=SMALLEST_TEXT_PT, loc="lower right")
    return ax


def plot_t_statistics(ax, result: dict, target: int, methods=None, legend: bool = True):
    """|T| of the feature added at each step (the paper's rightmost panels), for one split."""
    methods = _methods(result, methods)
    k = _split_index(result, target)
    x = _steps(result)
    for method in methods:
        label, color = _style(method, methods)
        ax.plot(x, np.abs(curve(result, method, "t_statistic")[k]), color=color, lw=1.4,
                marker=".", ms=3, label=label)
    ax.set_title(f"|T| of added feature, {split_title(result, target)}", fontsize=TITLE_PT)
    ax.set_xlabel("features added")
    ax.set_yscale("log")
    if legend:
        ax.legend(fontsize=SMALLEST_TEXT_PT)
    return ax


def _stacked(n_panels: int, n_blocks: int = 1):
    """``n_blocks`` blocks of ``n_panels`` panels, three to a row; per block, its axes and a free slot or None."""
    rows = -(-(n_panels + 1) // COLUMNS)
    fig, grid = plt.subplots(rows * n_blocks, COLUMNS, figsize=(FIGURE_WIDTH, ROW_HEIGHT * rows * n_blocks + 0.5),
                             squeeze=False, constrained_layout=True)
    blocks = []
    for b in range(n_blocks):
        cells = list(grid[b * rows:(b + 1) * rows].ravel())
        for ax in cells[n_panels + 1:]:
            ax.set_visible(False)
        slot = cells[n_panels] if n_panels < len(cells) else None
        blocks.append((cells[:n_panels], slot))
    return fig, blocks


def _legend_in(slot, methods, fallback, title: str | None = None) -> None:
    if slot is None:
        fallback.legend(*legend_key(methods), fontsize=SMALLEST_TEXT_PT, loc="lower right")
        return
    slot.axis("off")
    slot.legend(*legend_key(methods), loc="center", fontsize=SMALLEST_TEXT_PT, frameon=False, title=title,
                title_fontsize=SMALLEST_TEXT_PT + 1)


def _panels_row(result: dict, panels, axes, methods, last: str) -> None:
    """The split panels, then ``last``: "average" (Figure 1) or "t" (|T| of the first split)."""
    for ax, target in zip(axes, panels):
        plot_split(ax, result, target, methods)
    if last == "t":
        plot_t_statistics(axes[len(panels)], result, panels[0], methods, legend=False)
    else:
        plot_average(axes[len(panels)], result, methods, legend=False)
    for i, ax in enumerate(axes):
        if i % COLUMNS == 0:
            ax.set_ylabel("AUROC" if last != "t" or i < len(panels) else "|T|")
    for ax in axes[1:len(panels) + (last != "t")]:
        ax.sharey(axes[0])
    axes[0].autoscale(axis="y")


def _panels(result: dict, wanted) -> list[int]:
    available = [s["target"] for s in result["splits"]]
    chosen = [t for t in wanted if t in available]
    for t in available:  # fill with other splits when some are missing (e.g. --quick)
        if len(chosen) >= min(4, len(available)):
            break
        if t not in chosen:
            chosen.append(t)
    return chosen


def figure1(result: dict, panels=PAPER_TWO_VS_OTHER_PANELS):
    """Figure 1: greedy only, '2 vs 9', '2 vs 3', '2 vs 6', '2 vs 1' and the average over all splits."""
    panels = _panels(result, panels)
    fig, [(axes, slot)] = _stacked(len(panels) + 1)
    _panels_row(result, panels, axes, ("greedy",), last="average")
    _legend_in(slot, ("greedy",), axes[-1])
    fig.suptitle("greedy alone, AUROC as features are added\n"
                 "dashed: held-out data of the source domains; solid: the target domain", fontsize=TITLE_PT)
    return fig


def figure2(result: dict, panels=PAPER_TWO_VS_OTHER_PANELS, methods=None):
    """Figure 2: greedy and T-greedy on the same splits, plus |T| of each added feature."""
    panels = _panels(result, panels)
    methods = _methods(result, methods)
    fig, [(axes, slot)] = _stacked(len(panels) + 1)
    _panels_row(result, panels, axes, methods, last="t")
    _legend_in(slot, methods, axes[0])
    fig.suptitle(f"predicting '{result.get('positive', 2)}', AUROC as features are added\n"
                 f"{selector_key(methods)}; dashed: held-out source data, solid: target domain", fontsize=TITLE_PT)
    return fig


def _results(results, refusal: str) -> list:
    results = [r for r in (results if isinstance(results, (list, tuple)) else [results]) if r is not None]
    if not results:
        raise ValueError(refusal)
    return results


def figure3(results, panels=SIMILARITY_PANELS, methods=None):
    """Figure 3: similarity learning, one block per data set (MNIST, CIFAR-10): four splits and |T|."""
    results = _results(results, "figure3 needs at least one similarity result")
    chosen = [_panels(r, panels) for r in results]
    fig, blocks = _stacked(max(len(c) for c in chosen) + 1, n_blocks=len(results))
    all_methods = []
    for (axes, slot), result, cols in zip(blocks, results, chosen):
        methods = _methods(result, methods)
        all_methods += [m for m in methods if m not in all_methods]
        _panels_row(result, cols, axes, methods, last="t")
        for ax in axes[len(cols) + 1:]:
            ax.set_visible(False)
        name = TASK_TITLES.get(result["experiment"], result["experiment"])
        axes[0].set_ylabel(f"{name}\nAUROC")
        if len(cols) >= COLUMNS:
            axes[COLUMNS].set_ylabel(f"{name}\nAUROC")
        _legend_in(slot, methods, axes[0], title=name)
    fig.suptitle("similarity learning, AUROC as features are added\n"
                 f"{selector_key(all_methods)}; dashed: source pairs, solid: target pairs", fontsize=TITLE_PT)
    return fig


def figure4(results, methods=None):
    """Figure 4: AUROC averaged over all splits for each task, bands = one standard deviation across splits."""
    results = _results(results, "figure4 needs at least one result")
    width = min(FIGURE_WIDTH, 3.6 * len(results) + 1.2)
    fig, axes = plt.subplots(1, len(results), figsize=(width, 4.4), squeeze=False, layout="constrained")
    drawn = []
    for ax, result in zip(axes[0], results):
        title = TASK_TITLES.get(result["experiment"], result["experiment"])
        plot_average(ax, result, methods, title=f"{title} ({len(result['splits'])} splits)")
        drawn += [m for m in _methods(result, methods) if m not in drawn]
    axes[0][0].set_ylabel("AUROC")
    dotted = len(drawn) > 1 and any(r.get("all_features_reference") for r in results)
    handles, labels = legend_key(drawn, all_features=dotted)
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=SMALLEST_TEXT_PT, frameon=False)
    fig.suptitle("averaged over all source/target splits\nband: +/- 1 s.d. across splits", fontsize=TITLE_PT)
    return fig


def plot_all_splits(result: dict, methods=None):
    """Every split of ``result`` in a grid on shared axes, all features' fit dotted."""
    methods = _methods(result, methods)
    splits = result["splits"]
    rows = -(-len(splits) // COLUMNS)
    fig, grid = plt.subplots(rows, COLUMNS, figsize=(FIGURE_WIDTH, ROW_HEIGHT * rows + 0.9), sharex=True,
                             sharey=True, squeeze=False, layout="constrained")
    cells = list(grid.ravel())
    for k, (ax, split) in enumerate(zip(cells, splits)):
        plot_split(ax, result, split["target"], methods)
        if result.get("all_features_reference"):
            ax.axhline(result["all_features_reference"]["target_auroc"][k], color=ALL_FEATURES_COLOR, ls=":", lw=1,
                       label="all features (ridge), target")
        if k % COLUMNS == 0:
            ax.set_ylabel("AUROC")
        if k < len(splits) - COLUMNS:
            ax.set_xlabel("")
    for ax in cells[len(splits):]:
        ax.set_visible(False)
    handles, labels = legend_key(methods, all_features=bool(result.get("all_features_reference")))
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=SMALLEST_TEXT_PT, frameon=False)
    fig.suptitle(f"all {len(splits)} held-out splits: {selector_key(methods)}; dashed: source, solid: target",
                 fontsize=TITLE_PT)
    return fig


def plot_band_summary(summary: dict, comparison: str = "paper", axes=None, tasks=None, among=None):
    """Figure 4 over seeds: per task, a comparison's two readings, the mean over seeds with its 95 % band.

    ``axes``: one per task (default: a new figure); ``tasks``: default every section-4 task in
    ``summary``; ``among``: every selector the whole figure draws (default: the comparison's two).
    """
    from ..experiments.readings import COMPARISON_LABELS, comparison_pair

    tasks = [t for t in (tasks or BAND_TASK_TITLES) if t in summary["tasks"]]
    if not tasks:
        raise ValueError("no section-4 results to draw")
    own_figure = axes is None
    if own_figure:
        fig, axes = plt.subplots(1, len(tasks), figsize=(min(FIGURE_WIDTH, 3.6 * len(tasks) + 1.2), 4.2),
                                 squeeze=False, layout="constrained")
        axes = axes[0]
    else:
        fig = np.ravel(axes)[0].figure
    n_seeds = summary["seeds"]
    pair = list(comparison_pair(comparison))
    for ax, task in zip(np.ravel(axes), tasks):
        for name in pair:
            label, color = _style(name, pair if among is None else list(among))
            entry = summary["tasks"][task].get(name)
            if entry is None:
                continue
            for metric, style, alpha in (("source_auroc", "--", 0.12), ("target_auroc", "-", 0.22)):
                band = entry[metric]
                x = np.arange(1, len(band["mean"]) + 1)
                which = "source" if metric == "source_auroc" else "target"
                ax.plot(x, band["mean"], ls=style, color=color, lw=1.6, label=f"{label}, {which}")
                ax.fill_between(x, np.clip(band["lo"], 0, 1), np.clip(band["hi"], 0, 1), color=color,
                                alpha=alpha, lw=0)
        _chance(ax)
        ax.set_ylim(0.35, 1.0)
        ax.set_title(BAND_TASK_TITLES.get(task, task), fontsize=TITLE_PT)
        ax.set_xlabel("features added")
    first = np.ravel(axes)[0]
    first.set_ylabel("AUROC, mean of splits")
    note = f"bands: 95% t interval of the mean over {n_seeds} seed{'s' * (n_seeds > 1)}"
    if own_figure:
        handles, labels = first.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=SMALLEST_TEXT_PT, frameon=False,
                   title=note, title_fontsize=SMALLEST_TEXT_PT)
        fig.suptitle(COMPARISON_LABELS.get(comparison, comparison), fontsize=TITLE_PT)
    else:
        first.legend(fontsize=SMALLEST_TEXT_PT, loc="lower right", title=note, title_fontsize=SMALLEST_TEXT_PT)
    return fig


def save_figure(fig, out_dir, name: str) -> list[pathlib.Path]:
    """Write ``fig`` as ``<out_dir>/<name>.png`` and ``.pdf``; return the two paths."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{name}.png", out_dir / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=130)
    fig.savefig(paths[1])
    return paths
