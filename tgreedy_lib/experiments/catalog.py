"""The four experiments of sections 1 and 4 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A
Small Sample Statistical Approach" (AISTATS 2012) by name: paper-scale and quick settings, one runner each.
"""
from __future__ import annotations

import json
import pathlib
import time

from ..files import write_json as _write_json
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

    ``features`` default to ``feature_map``'s; ``quick`` takes :data:`QUICK` instead of :data:`PAPER`;
    ``progress`` gets a line per split; ``overrides`` go to the runner (e.g. ``n_steps=20``).
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
    if loaded > 0.01:
        result.setdefault("timings", {})["features"] = round(loaded, 3)
    return result


def write_json(path: pathlib.Path, payload) -> None:
    """Write ``payload`` as indented JSON, numpy scalars converted."""
    _write_json(path, payload, indent=1)


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
    """Every ``<experiment>.json`` in ``out_dir`` by name; a damaged one raises, or is left out (``skip_damaged``)."""
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
