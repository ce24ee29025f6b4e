"""tgreedy_lib: the methods of two papers and what reproduces their experiments.

:mod:`.domain_adaptation` is Foster, Kakade & Salakhutdinov's domain adaptation by T-greedy feature selection;
:mod:`.categorical` Sabato & Shalev-Shwartz's ranking of categorical features; :mod:`.datasets`,
:mod:`.features` and :mod:`.experiments` reproduce section 4; :mod:`.plotting` draws the figures;
:mod:`.diagnosis` asks "does T-greedy help on my data?". The names below load their module on first use,
so that ``import tgreedy_lib`` costs nothing and a method loads only what it needs.
"""
import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "DomainStatistics": "domain_adaptation.statistics",
    "t_statistic": "domain_adaptation.statistics",
    "SelectionPath": "domain_adaptation.selection",
    "TGreedy": "domain_adaptation.estimators",
    "Greedy": "domain_adaptation.estimators",
    "tgreedy_path": "domain_adaptation.selection",
    "greedy_path": "domain_adaptation.selection",
    "register_selector": "domain_adaptation.selectors",
    "get_selector": "domain_adaptation.selectors",
    "available_selectors": "domain_adaptation.selectors",
    "roc_auc": "domain_adaptation.evaluation",
    "path_scores": "domain_adaptation.evaluation",
    "path_auroc": "domain_adaptation.evaluation",
    "path_squared_loss": "domain_adaptation.evaluation",
    "diagnose": "diagnosis",
    "Diagnosis": "diagnosis",
}

__all__ = list(_EXPORTS)


def lazy_attributes(package: str, exports: dict, namespace: dict):
    """``__getattr__`` and ``__dir__`` (PEP 562) for a package whose names (``exports``: name -> module) load their
    module on first use and are then kept in ``namespace``."""
    def __getattr__(name):
        if name in exports:
            value = getattr(importlib.import_module(f".{exports[name]}", package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__


__getattr__, __dir__ = lazy_attributes(__name__, _EXPORTS, globals())
