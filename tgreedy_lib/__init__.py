"""tgreedy_lib: the library behind the tgreedy notebook collection.

Two floors. The papers' library: one package a paper, then one a concern. Above it, and never
imported by it, :mod:`.collection`: this collection's claims, seeds, reference results, prose,
course tools and command line (the contracts in ``pyproject.toml`` hold the direction).

=================================  ==================================================================
:mod:`.domain_adaptation`          Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small
                                   Sample Statistical Approach* (AISTATS 2012): statistics (section
                                   2), selection (3.3), evaluation, ``theorems/`` (Theorems 1-2,
                                   Corollary 3, simulations)
:mod:`.categorical`                Sabato & Shalev-Shwartz, *Ranking Categorical Features Using
                                   Generalization Properties* (JMLR 2008)
:mod:`.datasets`                   MNIST and CIFAR-10 files, downloads, the bundled MNIST digits
:mod:`.features`                   the deep belief network and its cached features (section 4)
:mod:`.experiments`                section 4's experiments: runners, domains, design, readings
:mod:`.plotting`                   the figures, one style
:mod:`.verify`                     numerical checks of both papers' theorems
:mod:`.diagnosis`                  "does T-greedy help on my data?": :func:`diagnose` and its figure
:mod:`.collection`                 the top floor: claims, seeds, reference results, prose, course
                                   tools, command line
=================================  ==================================================================

The names below (the domain-adaptation paper's main entry points) load their module on first use,
so that ``import tgreedy_lib.domain_adaptation.theorems.simulate`` does not pay for scikit-learn.
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
    "t_statistics": "domain_adaptation.selection",
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


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tgreedy_lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
