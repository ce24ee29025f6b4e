#!/usr/bin/env python3
"""CIFAR-10 features side by side: convolutional patch features (k-means, RBM), the old whole-image DBN, pixels.

    python benchmarks/bench_patch_features.py                 # everything (about 15-25 min on 2 cores)
    python benchmarks/bench_patch_features.py --only kmeans   # one feature map
    python benchmarks/bench_patch_features.py --json out.json
    python benchmarks/bench_patch_features.py --sweep whitening_epsilon=0.1,0.3,1,3 --seeds 0,1,2

For each feature map it prints

* time to features from scratch, per stage (patches, whitening, dictionary, encoding of the 10,000
  training and 10,000 test images), as wall seconds *and* user + system CPU seconds of the process:
  the machine is shared, so wall time swings with the load while CPU seconds divided by the thread
  count bound what an idle machine would take;
* the linear probe of :func:`tgreedy_lib.features.validated_probe` (10,000 training / 10,000
  official test images; standardized inputs, L2 logistic regression, ``C`` chosen on a validation
  split of the training images);
* the all-features similarity fit of section 4.2 on held-out source and target pairs
  (:func:`tgreedy_lib.experiments.runs.similarity_reference_auroc`, what ``run_similarity`` reports as
  ``all_features_reference``).

``--sweep SETTING=V1,V2,...`` instead chooses one setting of :class:`PatchFeatureConfig` the only
fair way: for every value and feature seed it builds (or reads from the cache) the k-means features
and their validated probe, and ranks the values by the mean over seeds of the best *validation*
accuracy (the 20 % of the training images the probe holds out); the test accuracy is printed beside
it but chooses nothing.

Features are built with ``load_features(..., rebuild=True)`` in the usual cache (so the experiments
reuse them); the old DBN is rebuilt only with ``--rebuild-dbn`` (else its recorded build time is
shown). Needs CIFAR-10 (``TGREEDY_DATA_DIR``). Goals for the default: probe >= 65 %, similarity
source AUROC >= 0.62, features from scratch < 5 min on this 2-core machine.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from tgreedy_lib import datasets, features  # noqa: E402
from tgreedy_lib.experiments.runs import similarity_reference_auroc  # noqa: E402
from tgreedy_lib.features import PatchFeatureConfig  # noqa: E402

MAPS = ("kmeans", "rbm", "dbn", "pixels")


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def measure(name: str, rebuild_dbn: bool, n_patches: int | None) -> dict:
    print(f"\n== {name}", flush=True)
    start_wall, start_cpu = time.perf_counter(), cpu_seconds()
    if name == "pixels":
        data = datasets.load_cifar10_paper()
        train, test = features.dbn_inputs(data.train_images), features.dbn_inputs(data.test_images)
        train_labels, test_labels = data.train_labels, data.test_labels
        build = {"seconds": 0.0, "cpu_seconds": 0.0, "stages": {}, "built": False}
    else:
        if name == "dbn":
            fs = features.load_features("cifar10", kind="dbn", rebuild=rebuild_dbn, progress=False, probe=False)
            stages = {f"layer {i + 1}": s for i, s in enumerate(fs.info["seconds_per_layer"])}
        else:
            config = PatchFeatureConfig(dictionary=name)
            if n_patches:
                config = config.replace(n_patches=n_patches)
            fs = features.load_features("cifar10", kind="patches", config=config, rebuild=True, progress=False,
                                        probe=False)
            stages = fs.info["seconds_per_stage"]
        build = {"seconds": fs.info["seconds"], "cpu_seconds": fs.info.get("cpu_seconds"), "stages": stages,
                 "built": not fs.info["from_cache"], "config": fs.info["config"]}
        train, test, train_labels, test_labels = fs.train_features, fs.test_features, fs.train_labels, fs.test_labels
    build["load_wall_seconds"] = round(time.perf_counter() - start_wall, 2)
    build["load_cpu_seconds"] = round(cpu_seconds() - start_cpu, 2)
    print(f"features: {'built' if build['built'] else 'recorded'} in {build['seconds']:.1f} s wall"
          + (f", {build['cpu_seconds']:.1f} s CPU" if build.get("cpu_seconds") else "")
          + "".join(f"; {k} {v:.1f} s" for k, v in build["stages"].items()), flush=True)
    tick, tick_cpu = time.perf_counter(), cpu_seconds()
    if name == "pixels":
        probe = features.validated_probe(train, train_labels, test, test_labels)
    else:
        probe = features.feature_probe(fs, rebuild=True)
    probe_times = (round(time.perf_counter() - tick, 1), round(cpu_seconds() - tick_cpu, 1))
    print(f"probe: {probe['test_accuracy']:.4f} test (C = {probe['C']} chosen on validation: "
          f"{dict(zip(probe['c_grid'], probe['validation_accuracy']))}); {probe_times[0]} s wall, "
          f"{probe_times[1]} s CPU", flush=True)
    tick, tick_cpu = time.perf_counter(), cpu_seconds()
    similarity = similarity_reference_auroc(train, train_labels, test, test_labels)
    similarity_times = (round(time.perf_counter() - tick, 1), round(cpu_seconds() - tick_cpu, 1))
    print(f"similarity (all features): source AUROC {similarity['source_auroc']:.3f}, target AUROC "
          f"{similarity['target_auroc']:.3f}; {similarity_times[0]} s wall, {similarity_times[1]} s CPU", flush=True)
    return {"map": name, "n_features": int(train.shape[1]), "build": build,
            "probe": {k: probe[k] for k in ("test_accuracy", "train_accuracy", "C", "c_grid", "validation_accuracy")},
            "probe_seconds": probe_times, "similarity": similarity, "similarity_seconds": similarity_times}


def sweep(setting: str, values: list[str], feature_seeds: list[int]) -> list[dict]:
    """Validation (and test) accuracy of the probe for every value of one setting and every feature seed."""
    field = {f.name: f for f in dataclasses.fields(PatchFeatureConfig)}.get(setting)
    if field is None:
        raise SystemExit(f"--sweep: {setting!r} is not a PatchFeatureConfig setting")
    default = getattr(PatchFeatureConfig(), setting)
    rows = []
    for text in values:
        value = type(default)(float(text)) if isinstance(default, (int, float)) else text
        per_seed = []
        for seed in feature_seeds:
            config = PatchFeatureConfig(**{setting: value, "seed": seed})
            fs = features.load_features("cifar10", kind="patches", config=config, progress=False, probe=False)
            probe = features.feature_probe(fs)
            per_seed.append({"seed": seed, "validation": max(probe["validation_accuracy"]), "C": probe["C"],
                             "test": probe["test_accuracy"], "build_cpu_seconds": fs.info.get("cpu_seconds")})
            print(f"{setting}={value} seed {seed}: validation {per_seed[-1]['validation']:.4f} (C = {probe['C']}), "
                  f"test {probe['test_accuracy']:.4f}", flush=True)
        rows.append({"value": value, "default": value == default, "seeds": per_seed,
                     "validation_mean": float(np.mean([r["validation"] for r in per_seed])),
                     "test_mean": float(np.mean([r["test"] for r in per_seed]))})
    best = max(rows, key=lambda r: r["validation_mean"])
    print(f"\n| {setting} | validation (mean of best over C) | test (mean) | C per seed |")
    print("|---|---|---|---|")
    for r in rows:
        mark = " (chosen)" if r is best else ""
        print(f"| {r['value']}{' (default)' if r['default'] else ''}{mark} | {100 * r['validation_mean']:.2f} % | "
              f"{100 * r['test_mean']:.2f} % | {', '.join(str(s['C']) for s in r['seeds'])} |")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=MAPS, action="append", help="measure only these (repeatable)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-patches", type=int, default=None, help="override the patch count")
    parser.add_argument("--rebuild-dbn", action="store_true", help="rebuild the old DBN and time it")
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--sweep", metavar="SETTING=V1,V2,...",
                        help="rank values of one PatchFeatureConfig setting by validation accuracy over --seeds")
    parser.add_argument("--seeds", default="0,1,2", help="feature seeds of --sweep (default 0,1,2)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.sweep:
        setting, _, values = args.sweep.partition("=")
        if not values:
            parser.error("--sweep needs SETTING=V1,V2,... e.g. whitening_epsilon=0.1,0.3,1")
        rows = sweep(setting.strip(), [v.strip() for v in values.split(",") if v.strip()],
                     [int(s) for s in args.seeds.split(",")])
        if args.json:
            args.json.write_text(json.dumps({"sweep": setting, "rows": rows}, indent=2) + "\n")
        return 0
    print(f"{platform.processor() or platform.machine()}, torch {torch.__version__}, {args.threads} threads, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    results = []
    for name in args.only or MAPS:
        results.append(measure(name, args.rebuild_dbn, args.n_patches))
        if args.json:  # after every map, so a long run that is cut short keeps what it measured
            args.json.write_text(json.dumps({"results": results, "threads": args.threads,
                                             "load_average": os.getloadavg()[0]}, indent=2) + "\n")
    print("\n| features | n | probe (test) | C | similarity source / target AUROC | build wall s | build CPU s |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        cpu = r["build"].get("cpu_seconds")
        print(f"| {r['map']} | {r['n_features']} | {r['probe']['test_accuracy']:.4f} | {r['probe']['C']} | "
              f"{r['similarity']['source_auroc']:.3f} / {r['similarity']['target_auroc']:.3f} | "
              f"{r['build']['seconds']:.1f} | {'' if cpu is None else f'{cpu:.1f}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
