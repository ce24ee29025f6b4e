"""tgreedy_lib: the library behind the tgreedy notebook collection.

Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical
Approach* (AISTATS 2012): per-domain statistics (section 2), the greedy and
T-greedy selectors (section 3.3), exact AUROC and path evaluation. The other
modules (``simulate``, ``categorical``, ``datasets``, ``features``, ...) are
imported by name; the names below load their module on first use, so that
``import tgreedy_lib.simulate`` does not pay for scikit-learn.
"""
import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "DomainStatistics": "stats",
    "SelectionPath": "selection",
    "TGreedy": "selection",
    "Greedy": "selection",
    "tgreedy_path": "selection",
    "greedy_path": "selection",
    "t_statistics": "selection",
    "roc_auc": "evaluation",
    "path_scores": "evaluation",
    "path_auroc": "evaluation",
    "path_squared_loss": "evaluation",
}

__all__ = list(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tgreedy_lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
