"""tgreedy_lib: the library behind the tgreedy notebook collection.

Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical
Approach* (AISTATS 2012): per-domain statistics (section 2), the greedy and
T-greedy selectors (section 3.3), exact AUROC and path evaluation.
"""
from .evaluation import path_auroc, path_scores, path_squared_loss, roc_auc
from .selection import Greedy, SelectionPath, TGreedy, greedy_path, t_statistics, tgreedy_path
from .stats import DomainStatistics

__version__ = "0.1.0"

__all__ = [
    "DomainStatistics",
    "SelectionPath",
    "TGreedy",
    "Greedy",
    "tgreedy_path",
    "greedy_path",
    "t_statistics",
    "roc_auc",
    "path_scores",
    "path_auroc",
    "path_squared_loss",
]
