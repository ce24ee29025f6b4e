"""Figures 1-4 of Foster, Kakade & Salakhutdinov (AISTATS 2012), drawn from experiment results.

Every function takes the JSON-ready result of :mod:`tgreedy_lib.experiments` (a dict, as written to
``<experiment>.json``) and returns a Matplotlib figure; nothing is computed here but means and
spreads of the stored curves. Conventions follow the paper: greedy in red, T-greedy in blue (the
colours and labels of :mod:`tgreedy_lib.domain_adaptation.selectors`),
dashed = held-out data of the source domains, solid = the target (new) domain, a horizontal line at
chance (AUROC 0.5), x = number of features added.

Where the paper shows an average over splits (Figure 1's last panel, Figure 4), the shaded band is
plus/minus one standard deviation across the splits, so the variability between domains stays
visible (section 5).
"""
from __future__ import annotations

import pathlib

import matplotlib.pyplot as plt
import numpy as np

from ..datasets import CIFAR10_CLASSES  # one list of class names
from ..domain_adaptation.selectors import get_selector  # one colour and label per selector
from ..experiments.runs import curve

__all__ = [
    "split_title",
    "plot_split",
    "plot_average",
    "plot_t_statistics",
    "figure1",
    "figure2",
    "figure3",
    "figure4",
    "save_figure",
]

#: The splits the paper's Figures 1 and 2 show, left to right (held-out digit).
PAPER_TWO_VS_OTHER_PANELS = (9, 3, 6, 1)
#: Figure 3's splits: the paper names only the first ('9' held out); the others are our choice.
SIMILARITY_PANELS = (9, 3, 6, 1)
TASK_TITLES = {
    "mnist-2-vs-other": "Recognizing digit '2'",
    "mnist-similarity": "MNIST similarity",
    "cifar-similarity": "CIFAR similarity",
}


def _methods(result: dict, methods) -> tuple[str, ...]:
    """The selectors to draw: ``methods``, or every selector whose curves ``result`` holds."""
    return tuple(result["curves"]) if methods is None else tuple(methods)


def _split_index(result: dict, target: int) -> int:
    targets = [s["target"] for s in result["splits"]]
    if target not in targets:
        raise ValueError(f"{result['experiment']}: no split holds out {target}; held out: {targets}")
    return targets.index(target)


def _class_name(result: dict, label: int) -> str:
    if result.get("data", {}).get("dataset") == "cifar10":
        return CIFAR10_CLASSES[label]
    return f"'{label}'"


def split_title(result: dict, target: int) -> str:
    """Panel title of one split: '2 vs 9' for section 4.1, "'9' held out" for similarity.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import split_title
    >>> split_title(result, 9)
    '2 vs 9'
    """
    if result["experiment"] == "mnist-2-vs-other":
        return f"{result.get('positive', 2)} vs {target}"
    return f"{_class_name(result, target)} held out"


def _chance(ax) -> None:
    ax.axhline(0.5, color="0.45", lw=0.9, zorder=0)


def _steps(result: dict) -> np.ndarray:
    return np.arange(1, int(result["n_features"]) + 1)


def plot_split(ax, result: dict, target: int, methods=None, legend: bool = False):
    """AUROC against features added for one split: source (dashed) and target (solid) per method.

    ``methods``: selector names (default: every selector in ``result``).

    See Also
    --------
    figure1, figure2, figure3, figure4 : The paper's figures.
    plot_average, plot_t_statistics : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import plot_split
    >>> fig, ax = plt.subplots()
    >>> plot_split(ax, result, 9, legend=True).get_title()
    '2 vs 9'
    >>> plt.close(fig)
    """
    methods = _methods(result, methods)
    k = _split_index(result, target)
    x = _steps(result)
    for method in methods:
        selector = get_selector(method)
        ax.plot(x, curve(result, method, "source_auroc")[k], ls="--", color=selector.color, lw=1.4,
                label=f"{selector.label}, source (held out)")
        ax.plot(x, curve(result, method, "target_auroc")[k], ls="-", color=selector.color, lw=1.6,
                label=f"{selector.label}, target")
    _chance(ax)
    ax.set_title(split_title(result, target))
    ax.set_xlabel("features added")
    if legend:
        ax.legend(fontsize=7, loc="lower right")
    return ax


def plot_average(ax, result: dict, methods=None, band: bool = True, title: str | None = None,
                 legend: bool = False):
    """AUROC averaged over all splits, with a band of one standard deviation across splits.

    See Also
    --------
    figure1, figure2, figure3, figure4 : The paper's figures.
    plot_split, plot_t_statistics : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import plot_average
    >>> fig, ax = plt.subplots()
    >>> plot_average(ax, result, legend=True).get_title()
    'average of 4 splits'
    >>> plt.close(fig)
    """
    methods = _methods(result, methods)
    x = _steps(result)
    for method in methods:
        color, label = get_selector(method).color, get_selector(method).label
        for metric, style in (("source_auroc", "--"), ("target_auroc", "-")):
            curves = curve(result, method, metric)
            mean = curves.mean(axis=0)
            which = "source (held out)" if metric == "source_auroc" else "target"
            ax.plot(x, mean, ls=style, color=color, lw=1.6, label=f"{label}, {which}")
            if band and curves.shape[0] > 1:
                spread = curves.std(axis=0, ddof=1)
                ax.fill_between(x, mean - spread, mean + spread, color=color,
                                alpha=0.10 if metric == "source_auroc" else 0.18, lw=0)
    reference = result.get("all_features_reference")
    if reference and len(methods) > 1:
        ax.axhline(float(np.mean(reference["target_auroc"])), color="0.25", ls=":", lw=1.2,
                   label="all features (ridge), target")
    _chance(ax)
    ax.set_title(title or f"average of {len(result['splits'])} splits")
    ax.set_xlabel("features added")
    if legend:
        ax.legend(fontsize=7, loc="lower right")
    return ax


def plot_t_statistics(ax, result: dict, target: int, methods=None):
    """|T| of the feature added at each step (the paper's rightmost panels), for one split.

    See Also
    --------
    figure1, figure2, figure3, figure4 : The paper's figures.
    plot_split, plot_average : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import plot_t_statistics
    >>> fig, ax = plt.subplots()
    >>> plot_t_statistics(ax, result, 9).get_title().splitlines()
    ['|T| of added feature', '2 vs 9']
    >>> plt.close(fig)
    """
    methods = _methods(result, methods)
    k = _split_index(result, target)
    x = _steps(result)
    for method in methods:
        ax.plot(x, np.abs(curve(result, method, "t_statistic")[k]), color=get_selector(method).color, lw=1.4,
                marker=".", ms=3, label=get_selector(method).label)
    ax.set_title(f"|T| of added feature\n{split_title(result, target)}", fontsize=10)
    ax.set_xlabel("features added")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    return ax


def _row(result: dict, panels, t_panel, methods, axes, show_t: bool):
    for ax, target in zip(axes, panels):
        plot_split(ax, result, target, methods)
    if show_t:
        plot_t_statistics(axes[len(panels)], result, t_panel, methods)
    else:
        plot_average(axes[len(panels)], result, methods, legend=False)
    axes[0].set_ylabel("AUROC")


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
    """Figure 1: greedy only, '2 vs 9', '2 vs 3', '2 vs 6', '2 vs 1' and the average over all splits.

    See Also
    --------
    figure2, figure3, figure4 : The paper's figures.
    plot_split, plot_average, plot_t_statistics : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import figure1
    >>> fig = figure1(result)
    >>> len(fig.axes)  # four splits and their average
    5
    >>> plt.close(fig)
    """
    panels = _panels(result, panels)
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(3.0 * (len(panels) + 1), 3.0), sharey=True,
                             constrained_layout=True)
    _row(result, panels, None, ("greedy",), axes, show_t=False)
    axes[-1].legend(fontsize=7, loc="lower right")
    fig.suptitle("Figure 1: greedy, AUROC on held-out source data (dashed) and on the target domain (solid)",
                 fontsize=10)
    return fig


def figure2(result: dict, panels=PAPER_TWO_VS_OTHER_PANELS, methods=None):
    """Figure 2: greedy (red) and T-greedy (blue) on the same splits, plus |T| of each added feature.

    See Also
    --------
    figure1, figure3, figure4 : The paper's figures.
    plot_split, plot_average, plot_t_statistics : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import figure2
    >>> fig = figure2(result)
    >>> len(fig.axes)  # four splits and |T| of the added features
    5
    >>> plt.close(fig)
    """
    panels = _panels(result, panels)
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(3.0 * (len(panels) + 1), 3.0), constrained_layout=True)
    _row(result, panels, panels[0], _methods(result, methods), axes, show_t=True)
    for ax in axes[1:len(panels)]:
        ax.sharey(axes[0])
    axes[0].legend(fontsize=6.5, loc="lower right")
    fig.suptitle("Figure 2: predicting '2' -- greedy (red) and T-greedy (blue); dashed: source, solid: target",
                 fontsize=10)
    return fig


def figure3(results, panels=SIMILARITY_PANELS, methods=None):
    """Figure 3: similarity learning, one row per data set (MNIST, CIFAR-10): four splits and |T|.

    See Also
    --------
    figure1, figure2, figure4 : The paper's figures.
    plot_split, plot_average, plot_t_statistics : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    >>> from tgreedy_lib.experiments import run_experiment
    >>> from tgreedy_lib.plotting.paper_figures import figure3
    >>> fig = figure3([run_experiment("mnist-similarity"), run_experiment("cifar-similarity")])  # doctest: +SKIP
    """
    results = [r for r in (results if isinstance(results, (list, tuple)) else [results]) if r is not None]
    if not results:
        raise ValueError("figure3 needs at least one similarity result")
    chosen = [_panels(r, panels) for r in results]
    width = max(len(c) for c in chosen) + 1
    fig, axes = plt.subplots(len(results), width, figsize=(3.0 * width, 3.0 * len(results)),
                             squeeze=False, constrained_layout=True)
    for row, (result, cols) in enumerate(zip(results, chosen)):
        _row(result, cols, cols[0], _methods(result, methods), axes[row], show_t=True)
        axes[row][0].set_ylabel(f"{TASK_TITLES.get(result['experiment'], result['experiment'])}\nAUROC")
        for ax in axes[row][len(cols) + 1:]:
            ax.set_visible(False)
    axes[0][0].legend(fontsize=6.5, loc="lower right")
    fig.suptitle("Figure 3: learning a similarity function -- greedy (red), T-greedy (blue); dashed: source, "
                 "solid: target", fontsize=10)
    return fig


def figure4(results, methods=None):
    """Figure 4: AUROC averaged over all splits for each task, bands = one standard deviation across splits.

    See Also
    --------
    figure1, figure2, figure3 : The paper's figures.
    plot_split, plot_average, plot_t_statistics : Their panels.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, section 4, Figures 1-4.

    Examples
    --------
    Toy results (Gaussian clusters for the ten digits, three steps; the paper's come from
    :func:`tgreedy_lib.experiments.run_experiment`):

    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.experiments import ExperimentFeatures, run_two_vs_other
    >>> rng = np.random.default_rng(0); labels = np.repeat(np.arange(10), 40)
    >>> X = rng.standard_normal((10, 20))[labels] + rng.standard_normal((400, 20))
    >>> result = run_two_vs_other(ExperimentFeatures(X, labels, X, labels, {}), n_steps=3, targets=[9, 3, 6, 1])
    >>> from tgreedy_lib.plotting.paper_figures import figure4
    >>> fig = figure4([result])
    >>> fig.axes[0].get_title()
    "Recognizing digit '2' (4 splits)"
    >>> plt.close(fig)
    """
    results = [r for r in (results if isinstance(results, (list, tuple)) else [results]) if r is not None]
    if not results:
        raise ValueError("figure4 needs at least one result")
    fig, axes = plt.subplots(1, len(results), figsize=(4.0 * len(results), 3.3), squeeze=False,
                             constrained_layout=True)
    for ax, result in zip(axes[0], results):
        title = TASK_TITLES.get(result["experiment"], result["experiment"])
        plot_average(ax, result, methods, title=f"{title} ({len(result['splits'])} splits)")
    axes[0][0].set_ylabel("AUROC")
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.suptitle("Figure 4: averaged over all source/target splits (band: +/- 1 s.d. across splits)", fontsize=10)
    return fig


def save_figure(fig, out_dir, name: str) -> list[pathlib.Path]:
    """Write ``fig`` as ``<out_dir>/<name>.png`` and ``.pdf``; return the two paths.

    See Also
    --------
    figure1, figure2, figure3, figure4 : The paper's figures.
    plot_split, plot_average, plot_t_statistics : Their panels.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_lib.plotting.paper_figures import save_figure
    >>> fig, ax = plt.subplots()
    >>> [path.name for path in save_figure(fig, "figures", "empty")]  # doctest: +SKIP
    ['empty.png', 'empty.pdf']
    """
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{name}.png", out_dir / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=130)
    fig.savefig(paths[1])
    return paths
