"""Figures of the collection, one style throughout.

:mod:`.paper_figures` draws Figures 1-4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) from the
results of :mod:`tgreedy_lib.experiments`; :mod:`.theory` the figures of the theory notebooks
(Theorems 1-2, Corollary 3, simulated domains). Plotting functions draw; they compute nothing
beyond what they are given.
"""
