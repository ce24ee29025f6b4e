#!/usr/bin/env python3
"""Deep-belief-network benchmark: training throughput against a matrix-product floor, and time to features.

    python benchmarks/bench_dbn.py                  # throughput per layer + MNIST (+ CIFAR-10 if found)
    python benchmarks/bench_dbn.py --skip-features  # throughput only (a few seconds)
    python benchmarks/bench_dbn.py --json out.json

1. Throughput. One epoch of CD-1 (``RBM.fit``) on 10,000 random inputs for every layer shape of the
   default MNIST and CIFAR-10 networks, in samples a second, against the *floor*: the five matrix
   products a CD-1 step cannot avoid (``v W``, ``h W'``, ``v' W``, ``v' p``, ``v'' p'``) timed alone on
   the same batch sizes. The ratio (floor time / training time) says how much of the time goes to
   the products themselves; the rest is sampling, element-wise work and Python overhead.
2. Wall time to features: ``load_features(..., rebuild=True)`` in the usual cache, i.e. the
   DBN trained from scratch and applied to the paper's 10,000 training and 10,000 test images. For
   MNIST twice when its 60,000 official training images are found: the DBN learning from them (the
   default there), then from the 10,000 training digits alone.
   Goals on a 2-core CPU: MNIST under 60 s, CIFAR-10 under 5 min.

Torch runs on ``--threads`` threads (default 2) in float32. Timings on a shared machine are noisy:
run it alone. The CPU seconds of the process are reported too: on a busy machine, CPU seconds
divided by the thread count bounds what the wall time would be on an idle one.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import platform
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from tgreedy_lib import features  # noqa: E402
from tgreedy_lib.features.dbn import RBM, RBMTraining  # noqa: E402


def matmul_floor_seconds(n_samples: int, n_visible: int, n_hidden: int, batch_size: int, repeats: int) -> float:
    """Best-of-``repeats`` time of the five CD-1 matrix products over one epoch of ``n_samples``."""
    g = torch.Generator().manual_seed(0)
    v = torch.rand(batch_size, n_visible, generator=g)
    w = torch.randn(n_visible, n_hidden, generator=g) * 0.01
    h = torch.rand(batch_size, n_hidden, generator=g)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n_samples // batch_size):
            v @ w
            h @ w.T
            v @ w
            v.T @ h
            v.T @ h
        best = min(best, time.perf_counter() - start)
    return best


def training_seconds(n_samples: int, n_visible: int, n_hidden: int, visible: str, batch_size: int,
                     repeats: int) -> float:
    """Best-of-``repeats`` time of one CD-1 epoch of ``RBM.fit`` on random data."""
    g = torch.Generator().manual_seed(0)
    data = torch.rand(n_samples, n_visible, generator=g)
    if visible == "gaussian":
        data = torch.randn(n_samples, n_visible, generator=g)
    best = float("inf")
    for _ in range(repeats):
        rbm = RBM(n_visible, n_hidden, visible=visible, device="cpu")
        start = time.perf_counter()
        rbm.fit(data, RBMTraining(epochs=1, batch_size=batch_size, learning_rate=0.001), progress=False)
        best = min(best, time.perf_counter() - start)
    return best


def throughput_table(n_samples: int, repeats: int) -> list[dict]:
    rows = []
    for dataset in features.FEATURE_DATASETS:
        config = features.default_config(dataset)
        for layer, (n_in, n_out) in enumerate(zip(config.layer_sizes[:-1], config.layer_sizes[1:])):
            visible = config.visible if layer == 0 else "bernoulli"
            batch = config.training[layer].batch_size
            train = training_seconds(n_samples, n_in, n_out, visible, batch, repeats)
            floor = matmul_floor_seconds(n_samples, n_in, n_out, batch, repeats)
            rows.append({"dataset": dataset, "layer": layer + 1, "shape": f"{n_in}->{n_out}", "batch_size": batch,
                         "samples_per_s": round(n_samples / train), "floor_samples_per_s": round(n_samples / floor),
                         "floor_over_training": round(floor / train, 3)})
    return rows


def time_to_features(dataset: str, data_dir: str | None, unlabeled: bool = True) -> dict:
    # rebuild=True in the usual cache: the data are found where they normally are (the unlabeled MNIST
    # images sit in the cache after `python -m tgreedy_course download mnist`), and the rebuilt features
    # equal the cached ones (the build is seeded).
    start, cpu_start = time.perf_counter(), time.process_time()
    fs = features.load_features(dataset, data_dir=data_dir, rebuild=True, progress=False, device="cpu",
                                unlabeled=unlabeled)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"dataset": dataset, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "build_s": fs.info["seconds"],
            "seconds_per_layer": fs.info["seconds_per_layer"], "train_size": fs.info["train_size"],
            "test_size": fs.info["test_size"], "official_test": fs.info["official"],
            "dbn_training_images": fs.info["dbn_training_images"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--samples", type=int, default=10000, help="samples per throughput epoch")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--skip-features", action="store_true", help="only the throughput table")
    parser.add_argument("--datasets", nargs="+", default=list(features.FEATURE_DATASETS),
                        choices=features.FEATURE_DATASETS, help="data sets to time features for")
    parser.add_argument("--data-dir", default=None, help="default: $TGREEDY_DATA_DIR")
    parser.add_argument("--json", type=pathlib.Path, help="also write the results here")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(), "machine": platform.machine(),
              "throughput": throughput_table(args.samples, args.repeats), "time_to_features": []}
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float32, CPU")
    print(f"{'dataset':8} {'layer':>5} {'shape':>10} {'batch':>5} {'samples/s':>10} {'floor/s':>10} {'floor/train':>11}")
    for row in result["throughput"]:
        print(f"{row['dataset']:8} {row['layer']:>5} {row['shape']:>10} {row['batch_size']:>5} "
              f"{row['samples_per_s']:>10} {row['floor_samples_per_s']:>10} {row['floor_over_training']:>11.2f}")
    if not args.skip_features:
        # MNIST twice when its 60,000 official training images are found: the DBN learning from them
        # (the default), and from the 10,000 training digits alone (what a fresh clone has).
        for dataset, goal, unlabeled in (("mnist", 60, True), ("mnist", 60, False), ("cifar10", 300, True)):
            if dataset not in args.datasets:
                continue
            if not unlabeled and result["time_to_features"][-1]["dbn_training_images"] == \
                    result["time_to_features"][-1]["train_size"]:
                continue  # no unlabeled pool: the run above already was the 10,000-digit one
            try:
                timing = time_to_features(dataset, args.data_dir, unlabeled)
            except FileNotFoundError as error:
                print(f"{dataset}: skipped ({str(error).split('.')[0]})")
                continue
            timing["goal_s"] = goal
            result["time_to_features"].append(timing)
            print(f"{dataset}: features from scratch in {timing['wall_s']} s wall, {timing['cpu_s']} s CPU "
                  f"(goal < {goal} s wall; DBN learns from {timing['dbn_training_images']:,} images, layers "
                  f"{timing['seconds_per_layer']} s; {timing['train_size']} train / {timing['test_size']} test, "
                  f"official test set: {timing['official_test']})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
