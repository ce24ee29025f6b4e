"""Does T-greedy help on my data? One call, :func:`diagnose`, answers with uncertainty.

T-greedy (Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach",
AISTATS 2012, section 3.3) ranks a feature by how *consistently* it
covaries with the residual across the training domains, greedy by how much it lowers the pooled training
loss. The paper's discussion (section 5) says when that matters: when "the variability between domains
is much greater than the variability within any given domain". :func:`diagnose` measures exactly that on
a user's ``(X, y, domains)`` and then lets the methods compete where it counts, on domains they never saw:

1. *Spread*: for every feature, the variance across domains of its per-domain effect
   ``E[X_i y | d]`` (the paper's :math:`\\hat\\sigma_i^2`) against the sampling variance of that effect
   within a domain (:math:`\\operatorname{Var}(X_i y \\mid d) / n_d`, averaged over domains). A ratio
   near 1 says the domains differ no more than their sampling error; much larger, that they really
   differ. Summarised over the features with the largest effects (root mean square over domains) as
   the sum of their between-domain variances over the sum of their sampling variances, with a 95 %
   interval from the chi-square distribution of a variance over domains (not a bootstrap over domains,
   whose repeated domains shrink the between-domain variance).
2. *Overfitting*: under leave-one-domain-out, each method's fit on the source (training) domains and
   on the held-out domain, as k grows.
3. *Held-out scores*: T-greedy, greedy, orthogonal matching pursuit and the lasso, each on the same
   features, scored (R^2 on the held-out domain) at matched k and at the k that an inner
   leave-one-domain-out over the training domains alone chose (the same procedure for every method).
4. *Recommendation*: "helps", "does not help" or "unclear", from the paired per-domain differences
   between T-greedy and greedy at the chosen k (a Student-t interval over held-out domains) and the
   spread of step 1.

Every fold standardises the features and centres ``y`` with its own training domains' pooled mean and
standard deviation (so an intercept is fitted on the training domains only, as a ``StandardScaler`` in a
Pipeline would), from per-domain moments computed once: the whole diagnosis costs a few path fits on
``p x p`` moments per fold, not passes over the data. :meth:`Diagnosis.plot` draws the four steps in one
figure (matplotlib is imported only then).
"""
from __future__ import annotations

import dataclasses
import textwrap
import warnings
from functools import partial
from numbers import Integral

import numpy as np

from .validation import as_data_matrix, as_real_array, factorize, is_sparse
from .domain_adaptation.baselines import lasso_knots, omp_path, pad_rows
from .domain_adaptation.selection import greedy_path, tgreedy_path
from .domain_adaptation.statistics import DomainStatistics

__all__ = ["diagnose", "Diagnosis", "METHODS", "METHOD_LABELS", "DEFAULT_K_GRID"]

#: The methods compared, in the order of the result's arrays.
METHODS = ("tgreedy", "greedy", "omp", "lasso")
#: How each method is named in text and figures.
METHOD_LABELS = {"tgreedy": "T-greedy", "greedy": "greedy", "omp": "OMP", "lasso": "lasso"}
#: Numbers of features compared by default (those up to the number of features, and that number if below 30).
DEFAULT_K_GRID = (1, 2, 3, 5, 8, 12, 20, 30)
#: Features whose effect spread is summarised: those with the largest root-mean-square effect over domains
#: (an effect large in some domains counts, whether or not it averages out).
N_SPREAD_FEATURES = 10
#: Below this upper bound of the spread interval, the per-domain effects "spread little beyond their
#: sampling error": there is little for the T-statistic to separate.
LITTLE_SPREAD = 2.0
#: The smallest mean gain in held-out R^2 over greedy that counts as help (a gain below it, however sure,
#: changes no prediction that matters).
MIN_GAIN = 0.01
#: The most memory the per-domain p x p moments may take (raw, standardised and a temporary: 3 x 8 K p^2 bytes).
MAX_MOMENT_BYTES = 2 * 2**30
#: Fewest domains: one is held out, and one more inside to choose k, leaving two to compute a spread.
MIN_DOMAINS = 4
#: Below this many domains the printout says that few domains widen the intervals.
FEW_DOMAINS = 20
#: The smallest text of the figure, in points.
TEXT_PT = 9.0


@dataclasses.dataclass(frozen=True, eq=False)
class Diagnosis:
    """What :func:`diagnose` found: the spread of the effects, the held-out scores and a recommendation.

    Arrays over methods follow :data:`METHODS`; arrays over domains follow ``domain_labels``; scores
    are R^2 on one domain (1 - mean squared error / variance of y in that domain), with an intercept
    and a scaling fitted on the training domains only (so a held-out domain whose mean differs scores
    below 0 for every method alike).

    Shapes: M methods, K domains, k_grid of n_k values, p features.
    """

    methods: tuple
    domain_labels: tuple
    feature_names: tuple
    counts: np.ndarray            # (K,) samples per domain
    k_grid: np.ndarray            # (n_k,) the numbers of features compared
    held_out: np.ndarray          # (M, K, n_k) R^2 on the held-out domain, fitted on all the others
    source: np.ndarray            # (M, K, n_k) mean R^2 of the same fit on its training domains
    chosen_k: np.ndarray          # (M, K) the k chosen by an inner leave-one-domain-out on the training domains
    chosen_held_out: np.ndarray   # (M, K) R^2 on the held-out domain at that k
    between_variance: np.ndarray  # (p,) variance across domains of E[X_i y | d] (standardised X, centred y)
    within_variance: np.ndarray   # (p,) mean sampling variance of that effect within a domain
    spread_ratio: np.ndarray      # (p,) their ratio
    spread_features: np.ndarray   # the features summarised (largest root-mean-square effect over domains)
    spread_summary: float         # their summed between-domain variance over their summed sampling variance
    spread_interval: tuple        # 95 % interval of spread_summary (its weighted chi-square shape across domains)
    verdict: str                  # "helps", "does not help" or "unclear"
    recommendation: str           # the verdict in a sentence, with the numbers behind it
    tgreedy_features: tuple       # the features T-greedy picks on all domains, in order (largest k)
    greedy_features: tuple        # the same for greedy

    @property
    def n_domains(self) -> int:
        return len(self.domain_labels)

    def _row(self, method: str) -> int:
        if method not in self.methods:
            raise ValueError(f"unknown method {method!r}; choose one of {self.methods}")
        return self.methods.index(method)

    def mean_held_out(self, method: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean held-out R^2 over domains at each k of the grid, and its standard error."""
        scores = self.held_out[self._row(method)]
        return scores.mean(axis=0), scores.std(axis=0, ddof=1) / np.sqrt(self.n_domains)

    def difference(self, method: str = "tgreedy", other: str = "greedy") -> np.ndarray:
        """Per held-out domain, ``method``'s R^2 minus ``other``'s, each at the k it chose."""
        return self.chosen_held_out[self._row(method)] - self.chosen_held_out[self._row(other)]

    def comparison(self, method: str = "tgreedy", other: str = "greedy") -> dict:
        """Paired comparison at the chosen k: mean and median difference, 95 % Student-t half-width, wins,
        losses, ties, and the sign test's exact two-sided binomial p-value (``sign_p``; ties dropped)."""
        from scipy.stats import binomtest, t

        diff = self.difference(method, other)
        se = diff.std(ddof=1) / np.sqrt(diff.size)
        tol = 1e-9
        wins, losses = int(np.sum(diff > tol)), int(np.sum(diff < -tol))
        sign_p = float(binomtest(wins, wins + losses, 0.5).pvalue) if wins + losses else 1.0
        return {"mean": float(diff.mean()), "median": float(np.median(diff)),
                "half_width": float(t.ppf(0.975, diff.size - 1) * se),
                "wins": wins, "losses": losses, "ties": int(np.sum(np.abs(diff) <= tol)), "sign_p": sign_p}

    def summary(self, width: int = 100) -> str:
        """The recommendation, then held-out R^2 (mean +- standard error over domains) per k and method, greedy's
        overfitting of the source domains per k, and the spread; prose wrapped at ``width`` characters."""
        cell = 14
        wrap = partial(textwrap.wrap, width=width, break_on_hyphens=False)
        c = self.comparison()
        lines = wrap(self.recommendation) + wrap(
            f"Per held-out domain, T-greedy minus greedy at the chosen k: median {c['median']:+.3f} R²; better on "
            f"{c['wins']}, worse on {c['losses']} (sign test, exact two-sided binomial p = {c['sign_p']:.3g})."
            + (f" Few domains ({self.n_domains}) widen both 95% intervals; more domains narrow them."
               if self.n_domains < FEW_DOMAINS else "")) + [""] + wrap(
            f"Held-out R², mean ± s.e. over the {self.n_domains} held-out domains ({len(self.feature_names)} "
            "features); last column: greedy's mean R² on its source domains minus on the held-out one.")
        lines.append(f"{'k':>8}" + "".join(f"{METHOD_LABELS[m]:>{cell}}" for m in self.methods)
                     + f"{'greedy overfit':>{cell + 2}}")
        means = {m: self.mean_held_out(m) for m in self.methods}
        gap = (self.source[self._row("greedy")] - self.held_out[self._row("greedy")]).mean(axis=0)
        for j, k in enumerate(self.k_grid):
            lines.append(f"{k:>8}" + "".join(f"{means[m][0][j]:>{cell - 7}.3f} ±{means[m][1][j]:.3f}"
                                              for m in self.methods) + f"{gap[j]:>+{cell + 2}.3f}")
        chosen = self.chosen_held_out
        se = chosen.std(axis=1, ddof=1) / np.sqrt(self.n_domains)
        lines.append(f"{'chosen':>8}" + "".join(f"{c:>{cell - 7}.3f} ±{s:.3f}" for c, s in zip(chosen.mean(axis=1), se)))
        lo, hi = self.spread_interval
        lines += [""] + wrap(
            f"Effect spread between domains / sampling error within: {self.spread_summary:.2f} (95% interval "
            f"{lo:.2f}-{hi:.2f}; over the {self.spread_features.size} features with the largest effects).")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"Diagnosis(verdict={self.verdict!r}, n_domains={self.n_domains}, "
                f"n_features={len(self.feature_names)}, k_grid={self.k_grid.tolist()})")

    def plot(self, axes=None):
        """The figure, four panels read at 720 pixels with no text under :data:`TEXT_PT` points: held-out
        R^2 against k per method (band: one standard error); greedy's and T-greedy's source-domain R^2
        against their held-out R^2 (the overfitting of section 5); T-greedy minus greedy on every held-out
        domain at the k each chose; every feature's effect spread against its sampling error. ``axes``:
        4 matplotlib Axes (default: a new 7.2 x 6 inch figure). Returns the figure."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter

        from .plotting.style import RULE_LABELS, selector_style

        def look(method: str) -> tuple:
            if method == "lasso":
                return ("0.3", ":")
            style = selector_style(method)
            return style.color, style.linestyle

        size = TEXT_PT
        names = {**METHOD_LABELS, "tgreedy": RULE_LABELS["tgreedy"]}   # the legend names the rule
        if axes is None:
            fig, grid = plt.subplots(2, 2, figsize=(7.2, 6.0), dpi=100)
            axes = grid.ravel()
        fig = axes[0].figure
        k = self.k_grid
        positions = np.arange(k.size)

        ax = axes[0]
        for method in self.methods:
            mean, se = self.mean_held_out(method)
            color, line = look(method)
            ax.plot(positions, mean, line, color=color, marker="o", ms=3, label=names[method])
            ax.fill_between(positions, mean - se, mean + se, color=color, alpha=0.15, lw=0)
        ax.set_title("held-out domains (LODO)", fontsize=size + 1)
        ax.set_ylabel("R$^2$, mean $\\pm$ s.e.", fontsize=size)
        handles, texts = ax.get_legend_handles_labels()

        ax = axes[1]
        for method in ("greedy", "tgreedy"):
            row = self.methods.index(method)
            color, _ = look(method)
            ax.plot(positions, self.source[row].mean(axis=0), "--", color=color, marker="o", ms=3,
                    label=f"{names[method]}, source")
            ax.plot(positions, self.held_out[row].mean(axis=0), "-", color=color, marker="o", ms=3,
                    label=f"{names[method]}, held out")
        # colours as in the legend above the figure; line styles named in the title, so no legend covers a curve
        ax.set_title("source fit (dashed) against\nheld-out fit (solid)", fontsize=size + 1)
        for ax in axes[:2]:
            ax.set_xticks(positions, [str(v) for v in k])
            ax.set_xlabel("k, features selected", fontsize=size)
            ax.tick_params(labelsize=size)

        ax = axes[2]
        diff = self.difference("tgreedy", "greedy")
        colors = np.where(diff > 0, selector_style("tgreedy").color, selector_style("greedy").color)
        ax.barh(np.arange(diff.size), diff, color=colors)
        ax.axvline(0, color="0.2", lw=0.8)
        labels = [str(label) for label in self.domain_labels]
        ax.set_yticks(np.arange(diff.size), labels if diff.size <= 16 else [""] * diff.size)
        ax.invert_yaxis()
        c = self.comparison()
        ax.set_title(f"T-greedy $-$ greedy at chosen k\n{c['wins']} better, {c['losses']} worse of {diff.size}",
                     fontsize=size + 1)
        ax.set_xlabel("held-out R$^2$ difference", fontsize=size)
        ax.set_ylabel("held-out domain", fontsize=size)
        ax.tick_params(labelsize=size)
        ax.xaxis.set_major_locator(MaxNLocator(4))          # differences such as -0.015 need room at 9 pt

        ax = axes[3]
        order = np.argsort(-self.spread_ratio)
        ratio = np.maximum(self.spread_ratio[order], 1e-3)
        summarised = np.isin(order, self.spread_features)
        ax.scatter(np.flatnonzero(~summarised), ratio[~summarised], s=10, color="0.6", label="other features")
        ax.scatter(np.flatnonzero(summarised), ratio[summarised], s=16, color="black",
                   label=f"{self.spread_features.size} largest effects")
        lo, hi = self.spread_interval
        ax.axhspan(lo, hi, color="tab:green", alpha=0.2, lw=0, label="summary, 95% interval")
        ax.axhline(self.spread_summary, color="tab:green", lw=1.2)
        ax.axhline(1.0, color="0.2", lw=0.8, ls="--")
        ax.set_yscale("log")
        # major ticks at 1-2-5 values written as plain numbers (1-5-10, then 1-10-100 on a wider range)
        low, high = max(min(ratio.min(), lo), 1e-3), max(max(ratio.max(), hi), 1.0)
        decades = np.arange(np.floor(np.log10(low)) - 1, np.ceil(np.log10(high)) + 1)
        values = (np.array([1.0, 2.0, 5.0])[None, :] * 10.0 ** decades[:, None]).ravel()
        inside = values[(values >= low / 1.5) & (values <= high * 1.5)]
        for keep in ((1.0, 5.0), (1.0,)):
            if inside.size <= 7:
                break
            leading = np.round(inside / 10.0 ** np.floor(np.log10(inside) + 1e-9))
            inside = inside[np.isin(leading, keep)]
        ax.set_ylim(min(low, inside.min()) / 1.3, max(high, inside.max()) * 1.3)
        ax.yaxis.set_major_locator(FixedLocator(inside))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title("effect spread between domains\n/ sampling error within (1 = none)", fontsize=size + 1)
        ax.set_xlabel("features, by spread", fontsize=size)
        ax.tick_params(labelsize=size)
        # below the panel, where it covers no point
        ax.legend(fontsize=size, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2,
                  columnspacing=1.0, handletextpad=0.4)
        fig.legend(handles, texts, fontsize=size, frameon=False, loc="upper center", ncol=len(texts))
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        return fig


def _pick_column(frame, name, role: str):
    if name not in frame.columns:
        columns = ", ".join(repr(c) for c in frame.columns[:8]) + (", ..." if len(frame.columns) > 8 else "")
        raise ValueError(f"{role} column {name!r} is not a column of the DataFrame (its columns: "
                         f"{columns}); pass the exact column name, or the {role} values as an array")
    return frame[name].to_numpy()


def _as_inputs(X, y, domains):
    """``(X as float matrix, y, domain labels, domain index, feature names, samples per domain)``, every
    problem named."""
    names = None
    if hasattr(X, "columns") and not is_sparse(X):
        taken = [value for value in (domains, y) if isinstance(value, str)]
        if isinstance(domains, str):
            domains = _pick_column(X, domains, "domain")
        if isinstance(y, str):
            y = _pick_column(X, y, "target")
        X = X.drop(columns=taken) if taken else X
        names = [str(c) for c in X.columns]
    else:
        for value, role in ((domains, "domains"), (y, "y")):
            if isinstance(value, str):
                raise ValueError(f"{role}={value!r} names a column, but X is not a pandas DataFrame; pass the "
                                 f"{role} values as an array, or X as a DataFrame holding that column")
    if y is None or domains is None:
        missing = "y" if y is None else "domains"
        raise ValueError(f"diagnose needs {missing}: diagnose(X, y, domains) with arrays, or "
                         "diagnose(frame, y='target column', domains='domain column') with a DataFrame")
    if is_sparse(X):
        raise ValueError("diagnose takes dense X (its per-domain Gram matrices are p x p); pass X.toarray(), "
                         "or select from sparse data with TGreedy directly")
    matrix = as_data_matrix(X, "X")
    target = as_real_array(y, "y")
    if target.ndim != 1:
        raise ValueError(f"y must be one value per row (one dimension), got shape {target.shape}")
    labels, index = factorize(domains, "domains")
    if not (matrix.shape[0] == target.shape[0] == index.shape[0]):
        raise ValueError(f"X, y and domains disagree in length: X has {matrix.shape[0]} rows, y has "
                         f"{target.shape[0]}, domains has {index.shape[0]}; give one target and one domain "
                         "label per row of X")
    names = names or [f"x{j}" for j in range(matrix.shape[1])]
    for arr, role in ((matrix, "X"), (target, "y")):
        bad = ~np.isfinite(arr)
        if bad.any():
            first = np.argwhere(bad)[0]
            where = f" in column {names[int(first[1])]!r}" if arr.ndim == 2 else ""
            kind = "NaN" if np.isnan(arr[tuple(first)]) else "an infinite value"
            raise ValueError(f"{role} contains {kind}{where} (first at row {int(first[0])}); impute it or drop "
                             "those rows first")
    counts = np.bincount(index, minlength=labels.size)
    if np.ptp(target) == 0:
        raise ValueError(f"y is {float(target[0])} in every sample: nothing to predict; pass the target column "
                         "you meant (a continuous outcome that varies)")
    if labels.size < MIN_DOMAINS:
        raise ValueError(f"diagnose needs at least {MIN_DOMAINS} domains (it holds one out, then one more "
                         f"inside to choose k, and needs two left to measure a spread); got {labels.size}: "
                         f"{labels.tolist()}. With fewer domains there is no honest answer to the question")
    single = np.flatnonzero(counts < 2)
    if single.size:
        raise ValueError(f"domain {labels[single[0]]} has {counts[single[0]]} sample; the sampling variance "
                         "within a domain needs at least 2: merge it with a neighbouring domain or drop it")
    for k in range(labels.size):
        if np.ptp(target[index == k]) == 0:
            raise ValueError(f"y is constant within domain {labels[k]}, so R² there is undefined; drop that "
                             "domain or check the target")
    constant = np.flatnonzero(np.ptp(matrix, axis=0) == 0)
    if constant.size:
        raise ValueError(f"feature(s) {[names[j] for j in constant[:5]]} are constant over all rows; drop them "
                         "(a constant column is the intercept, which every fold fits itself)")
    return matrix, target, labels, index, names, counts


def _check_grid(k, p: int) -> np.ndarray:
    if k is None:
        grid = [g for g in DEFAULT_K_GRID if g <= p] + ([p] if p < DEFAULT_K_GRID[-1] else [])
    else:
        values = [k] if isinstance(k, Integral) else list(k)
        if not values or not all(isinstance(v, Integral) and not isinstance(v, bool) and v >= 1 for v in values):
            raise ValueError(f"k must be a positive integer or a list of them (numbers of features), got {k!r}")
        if max(values) > p:
            warnings.warn(f"k up to {max(values)} asked for, but there are {p} features; k above {p} is "
                          f"compared at k = {p} (all features)", UserWarning, stacklevel=3)
        grid = [min(int(v), p) for v in values]
    return np.unique(np.asarray(grid, dtype=int))


@dataclasses.dataclass(frozen=True)
class _Moments:
    """Raw per-domain moments of the (globally standardised) data: everything the folds need."""

    counts: np.ndarray   # (K,)
    x: np.ndarray        # (K, p)       E[X | d]
    y: np.ndarray        # (K,)         E[y | d]
    xx: np.ndarray       # (K, p, p)    E[X X' | d]
    xy: np.ndarray       # (K, p)       E[X y | d]
    yy: np.ndarray       # (K,)         E[y^2 | d]

    @classmethod
    def of(cls, X, y, index, n_domains):
        rows = [np.flatnonzero(index == k) for k in range(n_domains)]
        counts = np.array([r.size for r in rows])
        x = np.stack([X[r].mean(axis=0) for r in rows])
        xx = np.stack([X[r].T @ X[r] / r.size for r in rows])   # K p^2 n_k flops in all: n p^2
        xy = np.stack([X[r].T @ y[r] / r.size for r in rows])
        return cls(counts, x, np.array([y[r].mean() for r in rows]), xx, xy,
                   np.array([y[r] @ y[r] / r.size for r in rows]))


@dataclasses.dataclass(frozen=True)
class _Fold:
    """The moments of some domains, standardised and centred with one set of training domains' pooled moments."""

    domains: np.ndarray  # the domains held here, sorted: the training domains and those to score
    train: np.ndarray    # positions of the training domains in ``domains``
    keep: np.ndarray     # features that vary on the training domains
    zz: np.ndarray       # (len(domains), q, q)
    zu: np.ndarray       # (len(domains), q)
    uu: np.ndarray       # (len(domains),)
    var_y: np.ndarray    # (len(domains),) variance of y within each domain

    @classmethod
    def of(cls, m: _Moments, train: np.ndarray, scored: np.ndarray) -> "_Fold":
        w = m.counts[train] / m.counts[train].sum()
        mean = w @ m.x[train]
        second = np.einsum("k,kii->i", w, m.xx[train])
        var = second - mean**2
        keep = np.flatnonzero(var > 1e-12 * max(float(second.max()), 1e-300))
        mean, sd = mean[keep], np.sqrt(var[keep])
        c = float(w @ m.y[train])
        domains = np.union1d(train, scored)
        x = m.x[np.ix_(domains, keep)]
        zz = m.xx[domains] if keep.size == m.x.shape[1] else m.xx[np.ix_(domains, keep, keep)]
        # (xx - mean x' - x mean' + mean mean') / (sd sd'), one pass at a time over the (K, q, q) block
        zz = zz - mean[None, :, None] * x[:, None, :]
        zz -= x[:, :, None] * mean[None, None, :]
        zz += np.outer(mean, mean)[None]
        zz /= np.outer(sd, sd)[None]
        y, yy = m.y[domains], m.yy[domains]
        zu = (m.xy[np.ix_(domains, keep)] - c * x - mean[None, :] * y[:, None] + mean[None, :] * c) / sd[None, :]
        return cls(domains, np.searchsorted(domains, train), keep, zz, zu, yy - 2.0 * c * y + c * c, yy - y**2)

    def statistics(self) -> DomainStatistics:
        t = self.train
        return DomainStatistics.from_moments(self.zz[t], self.zu[t], self.uu[t], labels=self.domains[t])

    def r2(self, W: np.ndarray, which: np.ndarray) -> np.ndarray:
        """R^2 of every row of ``W`` (n_points, q) on the domains ``which``: shape (len(which), n_points)."""
        rows = np.searchsorted(self.domains, which)
        quad = np.einsum("rqs,sq->rs", self.zz[rows] @ W.T, W)      # w' E[ZZ'|d] w, a batched product
        mse = self.uu[rows, None] - 2.0 * self.zu[rows] @ W.T + quad
        return 1.0 - mse / self.var_y[rows, None]


def _fold_scores(m: _Moments, train: np.ndarray, scored: np.ndarray, kmax: int) -> np.ndarray:
    """Fit every method on the domains ``train`` (k = 1..kmax features); R^2 on the domains ``scored``:
    (n_methods, len(scored), kmax)."""
    fold = _Fold.of(m, train, scored)
    stats = fold.statistics()
    steps = min(kmax, stats.n_features)
    with warnings.catch_warnings():  # collinear features: LARS drops them and says so; the path stays valid
        warnings.simplefilter("ignore")
        _, lasso = lasso_knots(stats, 2 * steps + 10)
    size = (lasso != 0).sum(axis=1)  # lasso at k: the last knot with at most k features
    W = [tgreedy_path(stats, steps).coef, greedy_path(stats, steps).coef, omp_path(stats, steps, choose=False).coef,
         np.stack([lasso[np.flatnonzero(size <= k)[-1]] for k in range(1, steps + 1)])]
    return np.stack([fold.r2(pad_rows(w, kmax), scored) for w in W])


def _effect_spread(X, y, index, n_domains, n_bootstrap: int, rng) -> tuple:
    """Per feature: between-domain variance of E[X_i y | d], within-domain sampling variance, their ratio; the
    features summarised, the summary and its 95 % interval (X standardised and y centred on all rows)."""
    theta = np.empty((n_domains, X.shape[1]))
    sampling = np.empty_like(theta)
    for k in range(n_domains):
        rows = index == k
        products = X[rows] * y[rows, None]
        theta[k] = products.mean(axis=0)
        sampling[k] = products.var(axis=0, ddof=1) / rows.sum()
    tiny = np.finfo(float).tiny
    between, within = theta.var(axis=0, ddof=1), sampling.mean(axis=0)
    ratio = between / np.maximum(within, tiny)
    top = np.argsort(-np.mean(theta**2, axis=0), kind="stable")[:N_SPREAD_FEATURES]
    value = float(between[top].sum() / max(within[top].sum(), tiny))
    # Domains' effect vectors drawn with covariance Sigma: (n-1) x the summed variances is sum_j lambda_j
    # chi^2_{n-1} (lambda_j: Sigma's eigenvalues), a scale times a shape; the shape (from the sample
    # covariance, conservative with few domains) is drawn n_bootstrap times, and the estimate divided by its
    # 97.5 % and 2.5 % quantiles (a pivot).
    m = n_domains - 1
    lam = np.clip(np.linalg.eigvalsh(np.atleast_2d(np.cov(theta[:, top], rowvar=False))), 0, None)
    if lam.sum() <= 0:
        return between, within, ratio, top, value, (value, value)
    weights = lam / lam.sum()
    shape = rng.chisquare(m, size=(n_bootstrap, weights.size)) @ weights / m
    low, high = np.percentile(shape, [2.5, 97.5])
    return between, within, ratio, top, value, (float(value / high), float(value / low))


def diagnose(X, y=None, domains=None, *, k=None, n_bootstrap: int = 1000, seed=0) -> Diagnosis:
    """Does T-greedy help on these data? Spread of the effects, held-out scores of four methods, a verdict.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or pandas DataFrame
        The rows of all domains, pooled. A DataFrame's other columns are the features (numeric; encode
        categories first, e.g. with ``pandas.get_dummies``), and its column names name them.
    y : array-like of shape (n_samples,) or str
        The continuous target; with a DataFrame, the name of its column.
    domains : array-like of shape (n_samples,) or str
        The domain of every row (any hashable labels, at least 4 domains, at least 2 rows each); with a
        DataFrame, the name of its column.
    k : int or list of int, default=None
        The numbers of features compared, and among which the inner leave-one-domain-out chooses
        (default: :data:`DEFAULT_K_GRID` up to the number of features). k above the number of features
        warns and compares all of them.
    n_bootstrap : int, default=1000
        Draws of the weighted chi-square shape that gives the interval of the spread (domains are not
        resampled).
    seed : int or numpy.random.Generator, default=0
        For those draws (the rest is deterministic).

    Returns
    -------
    Diagnosis
        ``print(result)`` gives the recommendation and the tables, ``result.plot()`` the figure.

    Raises
    ------
    ValueError
        Fewer than 4 domains, a domain with a single row, NaN or infinity, lengths that disagree, an
        unknown column name, non-numeric or constant features, or so many features that the per-domain
        p x p moments would pass :data:`MAX_MOMENT_BYTES`; each message names the fix.

    Notes
    -----
    The spread of a feature (step 1 of the module's list) is the paper's :math:`\\hat\\sigma_i^2`
    (section 3.1) over its value when every domain had the same effect (section 5). Methods are scored
    by leave-one-domain-out; the chosen k comes from a second leave-one-domain-out over the training
    domains only, the same for every method. The verdict: "helps" when the 95 % Student-t interval of
    T-greedy's paired gain over greedy at the chosen k lies above 0 and the mean gain is at least
    :data:`MIN_GAIN`; "does not help" when the mean gain is below :data:`MIN_GAIN`, or the spread's upper
    bound stays below :data:`LITTLE_SPREAD` (the domains differ little beyond sampling error); "unclear"
    otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import diagnose
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((600, 8)); domains = np.repeat(np.arange(6), 100)
    >>> y = X[:, 0] + 0.5 * X[:, 1] + rng.standard_normal(600)    # the same effects in every domain
    >>> result = diagnose(X, y, domains, k=[1, 2, 4], n_bootstrap=200)
    >>> result.verdict, result.k_grid.tolist()
    ('does not help', [1, 2, 4])
    >>> print(result.recommendation[:56])
    T-greedy does not help here: at the k chosen by leave-on
    """
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, Integral) or n_bootstrap < 10:
        raise ValueError(f"n_bootstrap must be an integer of at least 10, got {n_bootstrap!r}")
    matrix, target, labels, index, names, counts = _as_inputs(X, y, domains)
    if np.unique(target).size == 2:
        warnings.warn("y has only 2 distinct values, but diagnose scores a continuous target by R²: for a "
                      "binary outcome read the verdict with care, or pass a continuous target (e.g. a score "
                      "or a probability) if there is one", UserWarning, stacklevel=2)
    grid = _check_grid(k, matrix.shape[1])
    n_domains, p, kmax = labels.size, matrix.shape[1], int(grid[-1])
    needed = 3 * 8 * n_domains * p * p
    if needed > MAX_MOMENT_BYTES:
        raise ValueError(f"diagnose keeps {n_domains} dense {p:,} x {p:,} moment matrices ({needed / 2**30:.1f} GiB, "
                         f"more than its {MAX_MOMENT_BYTES / 2**30:.0f} GiB budget); give it fewer features (a few "
                         "thousand at most, e.g. a first screen chosen on other data), or select on the full set with "
                         "TGreedy(stopping='lodo'), which never forms the whole Gram")
    rng = np.random.default_rng(seed)

    # Standardise on all rows once (numerical conditioning only: every fold re-centres exactly).
    Z = (matrix - matrix.mean(axis=0)) / matrix.std(axis=0)
    u = (target - target.mean()) / target.std()
    moments = _Moments.of(Z, u, index, n_domains)
    between, within, ratio, top, spread, interval = _effect_spread(Z, u, index, n_domains, n_bootstrap, rng)

    everyone = np.arange(n_domains)
    held_out = np.empty((len(METHODS), n_domains, grid.size))
    source = np.empty_like(held_out)
    chosen_k = np.empty((len(METHODS), n_domains), dtype=int)
    chosen_held_out = np.empty((len(METHODS), n_domains))
    for d in range(n_domains):
        train = everyone[everyone != d]
        r2 = _fold_scores(moments, train, everyone, kmax)           # (n_methods, K, kmax)
        held_out[:, d] = r2[:, d, grid - 1]
        source[:, d] = r2[:, train][:, :, grid - 1].mean(axis=1)
        inner = np.empty((len(METHODS), train.size, grid.size))
        for j, e in enumerate(train):                               # choose k on the training domains only
            r2_inner = _fold_scores(moments, train[train != e], np.array([e]), kmax)
            inner[:, j] = r2_inner[:, 0, grid - 1]
        best = np.argmax(inner.mean(axis=1), axis=1)                # first (smallest) k of the best mean
        chosen_k[:, d] = grid[best]
        chosen_held_out[:, d] = held_out[np.arange(len(METHODS)), d, best]

    full = _Fold.of(moments, everyone, everyone)
    stats = full.statistics()
    steps = min(kmax, stats.n_features)
    kept = [names[j] for j in full.keep]
    result = dict(
        methods=METHODS, domain_labels=tuple(labels.tolist()), feature_names=tuple(names), counts=counts,
        k_grid=grid, held_out=held_out, source=source, chosen_k=chosen_k, chosen_held_out=chosen_held_out,
        between_variance=between, within_variance=within, spread_ratio=ratio, spread_features=top,
        spread_summary=spread, spread_interval=interval,
        tgreedy_features=tuple(kept[j] for j in tgreedy_path(stats, steps).features),
        greedy_features=tuple(kept[j] for j in greedy_path(stats, steps).features),
    )
    draft = Diagnosis(**result, verdict="", recommendation="")
    verdict, sentence = _recommend(draft)
    return Diagnosis(**result, verdict=verdict, recommendation=sentence)


def _recommend(result: Diagnosis) -> tuple[str, str]:
    c = result.comparison("tgreedy", "greedy")
    n = result.n_domains
    lo, hi = result.spread_interval
    spread = (f"the per-domain effects spread {result.spread_summary:.1f}x their sampling error "
              f"(95% interval {lo:.1f}-{hi:.1f})")
    record = (f"{c['mean']:+.3f} R² against greedy (95% interval {c['mean'] - c['half_width']:+.3f} to "
              f"{c['mean'] + c['half_width']:+.3f}), better on {c['wins']} and worse on {c['losses']} of {n} "
              "held-out domains")
    means = result.chosen_held_out.mean(axis=1)
    best = result.methods[int(np.argmax(means))]
    best_text = (f" The best on held-out domains at the chosen k is {METHOD_LABELS[best]} "
                 f"(mean R² {means.max():.3f}).")
    if c["mean"] - c["half_width"] > 0 and c["mean"] >= MIN_GAIN:
        return "helps", (f"T-greedy helps here: at the k chosen by leave-one-domain-out it scores {record}; "
                         f"{spread}." + best_text)
    if c["mean"] < MIN_GAIN or hi < LITTLE_SPREAD:
        if c["mean"] - c["half_width"] > 0:
            why = (f"a gain below {MIN_GAIN} R² changes no prediction that matters, and {spread}")
        elif result.spread_summary < LITTLE_SPREAD:
            why = f"{spread}, little beyond it, so there is little for the T-statistic to separate"
        else:
            differ = "the domains differ" if lo > 1 else "the domains seem to differ (the interval reaches 1)"
            why = (f"{spread}: {differ}, but ranking by consistency does not turn that into better predictions "
                   "on new domains")
        return "does not help", (f"T-greedy does not help here: at the k chosen by leave-one-domain-out it "
                                 f"scores {record}; {why}." + best_text)
    return "unclear", (f"Cannot tell whether T-greedy helps here: at the chosen k it scores {record}, an "
                       f"interval that includes 0 (median gain {c['median']:+.3f}, sign test p = "
                       f"{c['sign_p']:.3g}; with {n} domains the interval is wide, and more domains would "
                       f"narrow it); {spread}." + best_text)
