"""Figures, one style throughout: :mod:`.paper_figures` Figures 1-4 of Foster, Kakade & Salakhutdinov
(AISTATS 2012), :mod:`.theory_figures` those of the theory notebooks, :mod:`.style` how each selector is
drawn. Plotting functions draw; they compute nothing beyond what they are given.
"""
from .style import SelectorStyle, register_selector_style, selector_style, unregister_selector_style

__all__ = ["SelectorStyle", "register_selector_style", "selector_style", "unregister_selector_style"]
