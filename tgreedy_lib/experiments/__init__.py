"""Reproduction of the experiments of Foster, Kakade & Salakhutdinov (AISTATS 2012), sections 1 and 4.

``python -m tgreedy_course reproduce [EXPERIMENT ...] [--quick] [--out DIR]`` runs, for real, on the
deep-belief-network features of the images:

``intro-logistic``
    Section 1: logistic regression for '2' vs the other even digits, tested against even digits
    and against odd digits (the paper: about 0.5% and 35% error).
``mnist-2-vs-other``
    Section 4.1 (Figures 1, 2 and the left of Figure 4): greedy and T-greedy on source domains
    '2 vs k', each digit held out in turn as the target domain.
``mnist-similarity``, ``cifar-similarity``
    Section 4.2 (Figure 3, Figure 4 middle and right): a similarity function
    y = sgn(sum_i w_i phi_i(x1) phi_i(x2)) learnt from pairs, each class held out in turn.

and writes ``DIR/<experiment>.json``, the figures (PNG and PDF), ``DIR/claims.json`` and
``DIR/claims.md`` (every claim of sections 1, 4 and 5 with our measured value and a verdict). The
runners live here; the claims, the seeds, the reference results and the command line are the
collection's, in :mod:`tgreedy_course`, which builds on this package and never the reverse.
The data are the official ones when ``TGREEDY_DATA_DIR`` points at them (paper scale), the bundled
ones otherwise; every JSON says which (``data``) and records its ``design``.

Modules:

* :mod:`.design` -- the paper's design (1,000 training images a class, balanced test domains,
  random similarity negatives) as one recorded value, :data:`~.design.PAPER_DESIGN`;
* :mod:`.readings` -- the readings of section 3.3 run side by side (signed T, the paper's, and
  |T|; stagewise and stepwise greedy), registered as selectors, and the comparisons of the claims;
* :mod:`.catalog` -- the four experiments by name (:func:`~.catalog.run_experiment`), their settings;
* :mod:`.inputs`, :mod:`.domains`, :mod:`.runs` -- features, domains, runners;
* :mod:`.compare` -- stopping rules and baselines against the oracle.
"""
from __future__ import annotations

from . import domains, readings, runs
from .catalog import DATASET_OF, EXPERIMENTS, PAPER, QUICK, read_results, run_experiment
from .design import PAPER_DESIGN, Design
from .inputs import ExperimentFeatures, load_experiment_features
from .runs import run_intro_logistic, run_similarity, run_two_vs_other

__all__ = [
    "DATASET_OF",
    "Design",
    "PAPER_DESIGN",
    "EXPERIMENTS",
    "PAPER",
    "QUICK",
    "ExperimentFeatures",
    "domains",
    "load_experiment_features",
    "readings",
    "read_results",
    "run_experiment",
    "run_intro_logistic",
    "run_similarity",
    "run_two_vs_other",
    "runs",
]
