"""``python -m tgreedy_lib reproduce``: run the paper's experiments, write JSON, figures and the claims table."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import numpy as np

from .. import _json
from . import claims as claims_module
from . import runs
from .inputs import FEATURE_MAPS, ExperimentFeatures, load_experiment_features

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
                   feature_map: str = "dbn", progress=None, **overrides) -> dict:
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
    **overrides
        Keyword arguments for the runner (e.g. ``n_steps=20``, ``targets=(9,)``).

    See Also
    --------
    tgreedy_lib.experiments.runs.run_two_vs_other, tgreedy_lib.experiments.runs.run_similarity : The experiments.
    write_outputs : Figures and the claims table from the results.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, sections 1 and 4.

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
        features = load_experiment_features(DATASET_OF[name], feature_map)
    elif features.info.get("dataset", DATASET_OF[name]) != DATASET_OF[name]:
        raise ValueError(f"{name} needs {DATASET_OF[name]} features, got {features.info.get('dataset')}")
    loaded = time.perf_counter() - start
    if name != "intro-logistic":
        settings["progress"] = progress
    if name in ("mnist-similarity", "cifar-similarity"):
        settings["experiment"] = name
    result = RUNNERS[name](features, **settings)
    result["quick"] = bool(quick)
    if features is not None and loaded > 0.01:
        result.setdefault("timings", {})["features"] = round(loaded, 3)
    return result


def write_json(path: pathlib.Path, payload) -> None:
    """Write ``payload`` as indented JSON (numpy scalars converted; see :mod:`tgreedy_lib._json`)."""
    _json.write_json(path, payload, indent=1)


def read_results(out_dir) -> dict:
    """Every ``<experiment>.json`` present in ``out_dir``, by experiment name."""
    out_dir = pathlib.Path(out_dir)
    found = {}
    for name in EXPERIMENTS:
        path = out_dir / f"{name}.json"
        if path.is_file():
            found[name] = json.loads(path.read_text())
    return found


def write_outputs(results: dict, out_dir, figures: bool = True) -> list[pathlib.Path]:
    """Figures 1-4 (PNG and PDF, unless ``figures`` is false), ``claims.json`` and ``claims.md``.

    See Also
    --------
    run_experiment : The results it writes.
    tgreedy_lib.plotting.paper_figures.figure1 : The figures.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012, sections 1 and 4.

    Examples
    --------
    >>> from tgreedy_lib.experiments import run_experiment, write_outputs
    >>> results = {"mnist-2-vs-other": run_experiment("mnist-2-vs-other", quick=True)}  # doctest: +SKIP
    >>> write_outputs(results, "results")  # doctest: +SKIP
    """
    out_dir = pathlib.Path(out_dir)
    written = write_figures(results, out_dir) if figures else []
    table = claims_module.all_claims(results)
    sources = {name: r.get("data", {}) for name, r in results.items()}
    write_json(out_dir / "claims.json", {"claims": table, "counts": claims_module.verdict_counts(table),
                                         "results_used": sources})
    (out_dir / "claims.md").write_text(
        "# The paper's claims against our measurements\n\n"
        "Generated by `python -m tgreedy_lib reproduce` from the JSON results in this folder.\n\n"
        + "".join(f"- `{name}`: {_describe_data(data)}\n" for name, data in sources.items()) + "\n"
        + claims_module.claims_markdown(table))
    return written + [out_dir / "claims.json", out_dir / "claims.md"]


def write_figures(results: dict, out_dir) -> list[pathlib.Path]:
    """Figures 1-4 as PNG and PDF for whichever results are present."""
    import matplotlib.pyplot as plt

    from ..plotting import paper_figures as figures

    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    two = results.get("mnist-2-vs-other")
    if two:
        for name, draw in (("figure1", figures.figure1), ("figure2", figures.figure2)):
            fig = draw(two)
            written += figures.save_figure(fig, out_dir, name)
            plt.close(fig)
    similarity = [results.get("mnist-similarity"), results.get("cifar-similarity")]
    if any(similarity):
        fig = figures.figure3([r for r in similarity if r])
        written += figures.save_figure(fig, out_dir, "figure3")
        plt.close(fig)
    tasks = [results.get(n) for n in ("mnist-2-vs-other", "mnist-similarity", "cifar-similarity")]
    if any(tasks):
        fig = figures.figure4([r for r in tasks if r])
        written += figures.save_figure(fig, out_dir, "figure4")
        plt.close(fig)
    return written


def _describe_data(data: dict) -> str:
    scale = "official test set (paper scale)" if data.get("official") else "bundled data only (reduced scale)"
    return (f"{data.get('dataset', '?')}, {data.get('feature_map', '?')} features ({data.get('n_features', '?')}), "
            f"{data.get('train_size', '?')} training / {data.get('test_size', '?')} test images, {scale}")


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_lib reproduce") -> int:
    """Command line entry point; returns the exit code.

    See Also
    --------
    run_experiment : The same from Python.

    Examples
    --------
    >>> from tgreedy_lib.experiments import main
    >>> main(["mnist-2-vs-other", "--quick", "--out", "results"])  # doctest: +SKIP
    """
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run the experiments of Foster, Kakade & Salakhutdinov (AISTATS 2012), sections 1 and 4, "
                    "on deep-belief-network features; write <experiment>.json, Figures 1-4 (PNG, PDF) and the "
                    "claims table. Paper scale when TGREEDY_DATA_DIR holds the official data, bundled data otherwise.")
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT",
                        help=f"any of {', '.join(EXPERIMENTS)} (default: all whose data are available)")
    parser.add_argument("--quick", action="store_true", help="fewer steps and splits (for CI)")
    parser.add_argument("--out", default="results", help="output folder (default: results)")
    parser.add_argument("--no-figures", action="store_true", help="write the JSON results and claims only")
    parser.add_argument("--features", choices=FEATURE_MAPS, default="dbn",
                        help="feature map: dbn (the paper's, default), or the fast stand-ins random / pixels")
    args = parser.parse_args(argv)
    if "matplotlib.pyplot" not in sys.modules:
        import matplotlib

        matplotlib.use("Agg")  # files only, no window
    unknown = [e for e in args.experiments if e not in EXPERIMENTS]
    if unknown:
        parser.error(f"unknown experiment(s) {unknown}; choose from {', '.join(EXPERIMENTS)}")
    requested = list(dict.fromkeys(args.experiments)) or list(EXPERIMENTS)
    explicit = bool(args.experiments)
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    data_dir = os.environ.get("TGREEDY_DATA_DIR")
    print(f"reproduce: {', '.join(requested)}{' (quick)' if args.quick else ''}; "
          f"{'TGREEDY_DATA_DIR is set' if data_dir else 'TGREEDY_DATA_DIR is not set: bundled data only'}")
    start = time.perf_counter()
    features_of: dict[str, ExperimentFeatures] = {}
    feature_seconds: dict[str, float] = {}
    status = 0
    ran = {}
    for name in requested:
        dataset = DATASET_OF[name]
        if dataset not in features_of:
            tick = time.perf_counter()
            try:
                features_of[dataset] = load_experiment_features(dataset, args.features, progress=sys.stdout.isatty())
            except FileNotFoundError as error:
                features_of[dataset] = None
                message = f"{name}: skipped, the {dataset} images are not available ({error})"
                print(message if explicit else message.split(" (")[0] + " -- set TGREEDY_DATA_DIR to a folder "
                      "holding them to run it")
                if explicit:
                    status = 1
            feature_seconds[dataset] = time.perf_counter() - tick
            if features_of[dataset] is not None:
                info = features_of[dataset].info
                print(f"{dataset}: {_describe_data(info)}; features ready in {feature_seconds[dataset]:.1f} s")
        features = features_of[dataset]
        if features is None:
            continue
        print(f"{name}: running")
        result = run_experiment(name, features, quick=args.quick, progress=print)
        result.setdefault("timings", {})["features"] = round(feature_seconds.pop(dataset, 0.0), 3)
        write_json(out_dir / f"{name}.json", result)
        ran[name] = result
        print(f"{name}: done in {result['seconds']:.1f} s -> {name}.json")
    results = read_results(out_dir)
    results.update(ran)
    if ran:
        earlier = sorted(set(results) - set(ran))
        if earlier:
            print(f"figures and claims also use the earlier results in the output folder: {', '.join(earlier)}")
        written = write_outputs(results, out_dir, figures=not args.no_figures)
        print(f"wrote {len(written)} files (figures, claims.json, claims.md) into {out_dir.name}/")
        table = claims_module.all_claims(results)
        counts = claims_module.verdict_counts(table)
        print("claims: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    print(f"total {time.perf_counter() - start:.1f} s")
    return status
