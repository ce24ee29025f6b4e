"""Figures of the collection, one style throughout.

:mod:`.paper_figures` draws Figures 1-4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) from the
results of :mod:`tgreedy_lib.experiments`; :mod:`.theory_figures` the figures of the theory notebooks
(Theorems 1-2, Corollary 3, simulated domains). Plotting functions draw; they compute nothing
beyond what they are given. :mod:`.style` says how each selector is drawn: its colour and line style
(:func:`register_selector_style` for a new one, :func:`selector_style` to look one up).
"""
from .style import SelectorStyle, register_selector_style, selector_style, unregister_selector_style

__all__ = ["SelectorStyle", "register_selector_style", "selector_style", "unregister_selector_style"]
