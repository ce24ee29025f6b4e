"""The paper's four experiments by name: their paper-scale and quick settings, one runner each.

:func:`run_experiment` runs one of them on its data set's features and returns the JSON-ready
result that :func:`read_results` reads back; the command line (``python -m tgreedy_course reproduce``)
and the claims are built on it, in :mod:`tgreedy_course`.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import json
import pathlib
import time

from .. import files
from . import runs
from .design import EARLIER_DESIGN, PAPER_DESIGN, Design
from .inputs import ExperimentFeatures, load_experiment_features

DESIGNS = {"paper": PAPER_DESIGN, "earlier": EARLIER_DESIGN}

EXPERIMENTS = ("intro-logistic", "mnist-2-vs-other", "mnist-similarity", "cifar-similarity")
DATASET_OF = {"intro-logistic": "mnist", "mnist-2-vs-other": "mnist", "mnist-similarity": "mnist",
              "cifar-similarity": "cifar10"}
#: Paper scale: every split; 50 features for '2 vs other', about 100 for MNIST similarity (Fig. 3's
#: top row), 300 for CIFAR-10 ("the x-axis ... now goes to 300 features").
PAPER = {
    "intro-logistic": {},
    "mnist-2-vs-other": {"n_steps": 50},
    "mnist-similarity": {"n_steps": 100},
    "cifar-similarity": {"n_steps": 300},
}
#: ``--quick``: fewer steps and splits, for CI.
QUICK = {
    "intro-logistic": {"c_grid": None},
    "mnist-2-vs-other": {"n_steps": 15, "targets": (9, 3, 6, 1)},
    "mnist-similarity": {"n_steps": 30, "targets": (9, 3, 6)},
    "cifar-similarity": {"n_steps": 60, "targets": (9, 3, 6)},
}
RUNNERS = {
    "intro-logistic": runs.run_intro_logistic,
    "mnist-2-vs-other": runs.run_two_vs_other,
    "mnist-similarity": runs.run_similarity,
    "cifar-similarity": runs.run_similarity,
}


def run_experiment(name: str, features: ExperimentFeatures | None = None, *, quick: bool = False,
                   feature_map: str = "dbn", progress=None, design: Design = PAPER_DESIGN, **overrides) -> dict:
    """Run one experiment by name and return its JSON-ready result.

    Parameters
    ----------
    name : {"intro-logistic", "mnist-2-vs-other", "mnist-similarity", "cifar-similarity"}
    features : ExperimentFeatures, optional
        Precomputed features of the right data set (default: loaded with ``feature_map``).
    quick : bool
        Use the ``QUICK`` settings (fewer steps and splits) instead of ``PAPER``.
    feature_map : {"dbn", "random", "pixels"}
        Used only when ``features`` is not given.
    progress : callable, optional
        Called with one line of text per split.
    design : Design
        The experimental design (default: the paper's); its ``train_per_class`` applies only when
        ``features`` are loaded here.
    **overrides
        Keyword arguments for the runner (e.g. ``n_steps=20``, ``targets=(9,)``).

    See Also
    --------
    tgreedy_lib.experiments.runs.run_two_vs_other, tgreedy_lib.experiments.runs.run_similarity : The experiments.
    write_outputs : Figures and the claims table from the results.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

    Examples
    --------
    With the paper's data and features (built and cached on first use, which takes a while):

    >>> from tgreedy_lib.experiments import run_experiment
    >>> result = run_experiment("mnist-2-vs-other", quick=True)  # doctest: +SKIP
    >>> sorted(result["curves"])  # doctest: +SKIP
    ['greedy', 'tgreedy']
    """
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; choose from {EXPERIMENTS}")
    settings = dict((QUICK if quick else PAPER)[name])
    settings.update(overrides)
    start = time.perf_counter()
    if features is None:
        features = load_experiment_features(DATASET_OF[name], feature_map, train_per_class=design.train_per_class,
                                            design_seed=design.seed)
    elif features.info.get("dataset", DATASET_OF[name]) != DATASET_OF[name]:
        raise ValueError(f"{name} needs {DATASET_OF[name]} features, got {features.info.get('dataset')}")
    loaded = time.perf_counter() - start
    if name != "intro-logistic":
        settings["progress"] = progress
        settings.setdefault("design", design)
        settings.setdefault("clip_steps", True)  # raw pixels may have fewer usable features than the paper's steps
    if name in ("mnist-similarity", "cifar-similarity"):
        settings["experiment"] = name
    result = RUNNERS[name](features, **settings)
    result["quick"] = bool(quick)
    result.setdefault("design", design.as_json())
    if features is not None and loaded > 0.01:
        result.setdefault("timings", {})["features"] = round(loaded, 3)
    return result


def write_json(path: pathlib.Path, payload) -> None:
    """Write ``payload`` as indented JSON (numpy scalars converted; see :mod:`tgreedy_lib.files`)."""
    files.write_json(path, payload, indent=1)


def read_result(path) -> dict:
    """One ``<experiment>.json``; a ValueError naming the file when it is damaged (truncated, not an object)."""
    path = pathlib.Path(path)
    try:
        result = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is damaged ({error}); rerun its experiment to replace it, or remove it") from None
    if not isinstance(result, dict) or "experiment" not in result:
        raise ValueError(f"{path} is damaged (not an experiment's result); rerun its experiment to replace it, "
                         "or remove it")
    return result


def read_results(out_dir, skip_damaged: bool = False) -> dict:
    """Every ``<experiment>.json`` present in ``out_dir``, by experiment name.

    A damaged file raises a ValueError naming it, or is left out with ``skip_damaged``.
    """
    out_dir = pathlib.Path(out_dir)
    found = {}
    for name in EXPERIMENTS:
        path = out_dir / f"{name}.json"
        if path.is_file():
            try:
                found[name] = read_result(path)
            except ValueError:
                if not skip_damaged:
                    raise
    return found
