"""Where the time of ``python -m tgreedy_course reproduce`` goes, experiment by experiment and stage by stage.

Foster, Kakade & Salakhutdinov (AISTATS 2012), sections 1 and 4, at paper scale when
``TGREEDY_DATA_DIR`` holds the official data. Stages:

* ``features``: DBN features, read from the cache (or built, the first time, by
  :func:`tgreedy_lib.features.load_features`; ``--rebuild`` forces a build and times it);
* ``statistics``: per-domain second moments (one Gram matrix per class for '2 vs other'; per
  pair block for similarity), assembled for each split;
* ``selection``: the greedy and T-greedy paths;
* ``evaluation``: scores on the held-out pairs/images and the exact AUROC after every step;
* ``figures``: Figures 1-4 as PNG and PDF, and the claims table.

Run ``python benchmarks/bench_reproduce.py [--quick] [--cpu] [--json PATH]``. Timings on a shared
2-core machine are noisy (other processes compete for the cores); the split between stages less
so, and ``--cpu`` reports the stages (and each experiment) in CPU seconds of this process (all
its threads) instead of wall seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time

import matplotlib

matplotlib.use("Agg")

from tgreedy_course.cli import write_outputs  # noqa: E402
from tgreedy_lib.experiments import DATASET_OF, EXPERIMENTS, load_experiment_features, run_experiment  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*", default=list(EXPERIMENTS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the DBN features (times their training)")
    parser.add_argument("--features", default="dbn")
    parser.add_argument("--cpu", action="store_true", help="stages and experiments in CPU seconds, not wall")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    if args.cpu:
        from tgreedy_lib.experiments import runs

        runs.STAGE_CLOCK = time.process_time
    clock = time.process_time if args.cpu else time.perf_counter

    report = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "load_average_at_start": os.getloadavg()},
              "official_data": bool(os.environ.get("TGREEDY_DATA_DIR")), "quick": args.quick,
              "clock": "cpu" if args.cpu else "wall", "experiments": {}}
    start = time.perf_counter()
    features = {}
    results = {}
    for name in args.experiments:
        dataset = DATASET_OF[name]
        if dataset not in features:
            tick = time.perf_counter()
            try:
                if args.rebuild and args.features == "dbn":
                    from tgreedy_lib.features import load_features
                    load_features(dataset, rebuild=True, progress=False)
                features[dataset] = load_experiment_features(dataset, args.features)
            except FileNotFoundError as error:
                print(f"{name}: skipped ({error.__class__.__name__}: data not available)")
                features[dataset] = None
            seconds = time.perf_counter() - tick
            report.setdefault("features", {})[dataset] = round(seconds, 2)
            print(f"features {dataset}: {seconds:.1f} s")
        if features[dataset] is None:
            continue
        tick = clock()
        result = run_experiment(name, features[dataset], quick=args.quick)
        seconds = clock() - tick
        results[name] = result
        report["experiments"][name] = {"seconds": round(seconds, 2), "stages": result.get("timings", {}),
                                       "n_steps": result.get("n_features"), "splits": len(result.get("splits", []))}
        print(f"{name}: {seconds:.1f} s {result.get('timings', '')}")
    tick = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        write_outputs(results, folder)
    report["figures_and_claims"] = round(time.perf_counter() - tick, 2)
    report["total"] = round(time.perf_counter() - start, 2)
    report["machine"]["load_average_at_end"] = os.getloadavg()
    print(f"figures and claims: {report['figures_and_claims']:.1f} s; total {report['total']:.1f} s")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
