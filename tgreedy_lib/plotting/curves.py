"""Drawing several curves on one axis so that a student can tell them apart."""
from __future__ import annotations

import numpy as np

__all__ = ["coinciding_groups", "plot_labelled_curves"]


def coinciding_groups(series: dict, atol: float = 1e-12) -> list[list[str]]:
    """Names of ``series`` grouped so that curves equal within ``atol`` everywhere share a group, in order."""
    groups: list[list[str]] = []
    for name, values in series.items():
        values = np.asarray(values, dtype=float)
        for group in groups:
            if np.allclose(np.asarray(series[group[0]], dtype=float), values, atol=atol, rtol=0):
                group.append(name)
                break
        else:
            groups.append([name])
    return groups


def plot_labelled_curves(ax, x, series: dict, colors: dict | None = None, fmt: str = "o-", near: float | None = None,
                         **kwargs):
    """Plot the curves of ``series`` (name -> y values against ``x``), those that coincide (or are within ``near``)
    once, with one label naming them all ("a = b (identical)", "a ≈ b (within 0.014)"), so none hides another."""
    colors = colors or {}
    for group in coinciding_groups(series, atol=near if near is not None else 1e-12):
        values = [np.asarray(series[name], dtype=float) for name in group]
        gap = max(float(np.max(np.abs(v - values[0]))) for v in values)
        label = (group[0] if len(group) == 1 else " = ".join(group) + " (identical)" if gap <= 1e-12
                 else " ≈ ".join(group) + f" (within {gap:.2g})")
        ax.plot(x, series[group[0]], fmt, color=colors.get(group[0]), label=label,
                lw=2.5 if len(group) > 1 else 1.5, **kwargs)
    return ax
