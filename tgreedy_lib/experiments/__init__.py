"""The experiments of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
Approach" (AISTATS 2012), sections 1 and 4: ``intro-logistic`` (section 1), ``mnist-2-vs-other`` (4.1,
Figures 1, 2, 4), ``mnist-similarity`` and ``cifar-similarity`` (4.2, Figures 3, 4).

:mod:`.design` the paper's design, :mod:`.readings` the readings of section 3.3, :mod:`.catalog` the
experiments by name, :mod:`.inputs`, :mod:`.domains`, :mod:`.runs` features, domains and runners,
:mod:`.compare` stopping rules and baselines against the oracle. Data: official under ``TGREEDY_DATA_DIR``,
bundled otherwise; every result records which.
"""
from __future__ import annotations

from . import domains, readings, runs
from .catalog import DATASET_OF, EXPERIMENTS, PAPER, QUICK, read_results, run_experiment
from .design import PAPER_DESIGN, Design
from .inputs import ExperimentFeatures, load_experiment_features
from .runs import run_intro_logistic, run_similarity, run_two_vs_other

__all__ = ["DATASET_OF", "Design", "PAPER_DESIGN", "EXPERIMENTS", "PAPER", "QUICK", "ExperimentFeatures", "domains",
           "load_experiment_features", "readings", "read_results", "run_experiment", "run_intro_logistic",
           "run_similarity", "run_two_vs_other", "runs"]
