"""tgreedy_lib: the library behind the tgreedy notebook collection.

Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical
Approach* (AISTATS 2012): per-domain statistics (section 2), the greedy and
T-greedy selectors (section 3.3), exact AUROC and path evaluation.
"""
__version__ = "0.1.0"
