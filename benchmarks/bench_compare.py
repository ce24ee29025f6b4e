"""Where ``python -m tgreedy_course compare`` spends its time, and V-REx with one BLAS thread or many.

* per component (T-greedy path, each stopping rule, each baseline): wall-clock and CPU seconds
  summed over the splits of one experiment, read from ``compare.json`` (``--from PATH``) or from
  a fresh run of the simulated experiments (``--splits``);
* V-REx's L-BFGS-B fits on one simulated split, side by side in this process: inside
  ``threadpool_limits(1)`` (what :func:`tgreedy_lib.domain_adaptation.baselines.vrex_fit` does)
  and with the BLAS's default threads. Both give the same weights (checked);
* the summaries of the whole payload (every rule's row, the rule chosen for each split on the other
  splits of its experiment, the baselines), which are recomputed from the splits' results: the
  nested choice is post-processing, its cost next to nothing beside the runs.

Run: ``python benchmarks/bench_compare.py [--from results/compare.json] [--json PATH]``. Timings
on a shared machine are noisy; the ratio of the side-by-side pair is the figure to read.
"""
from __future__ import annotations

import argparse
import collections
import json
import time
from unittest import mock

import numpy as np

from tgreedy_lib.domain_adaptation import baselines
from tgreedy_lib.experiments import compare


def clocks(function):
    wall, cpu = time.perf_counter(), time.process_time()
    out = function()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def vrex_threads(n_domains: int, repeat: int) -> dict:
    stats = next(compare.simulated_splits(n_domains, 1, seed=0)).stats
    rows = {}
    one, _, _ = clocks(lambda: baselines.vrex_path(stats))
    for label in ("one BLAS thread", "default BLAS threads") * repeat:
        if label == "one BLAS thread":
            out, wall, cpu = clocks(lambda: baselines.vrex_path(stats))
        else:  # the same fit with the limit lifted: threadpool_limits(1) becomes a no-op
            with mock.patch.object(baselines, "threadpool_limits", lambda *a, **k: _NoLimit()):
                out, wall, cpu = clocks(lambda: baselines.vrex_path(stats))
        np.testing.assert_allclose(out.coef, one.coef, rtol=0, atol=1e-12)
        rows.setdefault(label, []).append((wall, cpu))
    return {label: {"wall_s": float(np.median([w for w, _ in v])), "cpu_s": float(np.median([c for _, c in v]))}
            for label, v in rows.items()}


class _NoLimit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def components(payload: dict) -> dict:
    out = {}
    for name, experiment in payload["experiments"].items():
        total = collections.Counter()
        for split in experiment["splits"]:
            total.update(split["seconds"])
        out[name] = {"seconds": experiment["seconds"], "loading": experiment.get("seconds_loading"),
                     "components": dict(total.most_common())}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", metavar="PATH", help="a compare.json to break down")
    parser.add_argument("--splits", type=int, default=3, help="simulated splits to run when no --from")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    result = {"vrex_n16": vrex_threads(16, args.repeat)}
    for label, r in result["vrex_n16"].items():
        print(f"V-REx path, 16 domains, {label}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU")
    if args.source:
        payload = json.loads(open(args.source).read())
    else:
        payload = {"experiments": {"simulated-n8": compare.run_compare_experiment("simulated-n8", n_splits=args.splits)}}
    result["components"] = components(payload)
    _, wall, cpu = clocks(lambda: ([compare.summarize(e["splits"]) for e in payload["experiments"].values()],
                                   compare.pooled_summary(payload["experiments"])))
    result["summaries"] = {"wall_s": wall, "cpu_s": cpu,
                           "n_splits": sum(len(e["splits"]) for e in payload["experiments"].values())}
    print(f"summaries with the nested rule choice, {result['summaries']['n_splits']} splits: "
          f"{1000 * wall:.1f} ms wall, {1000 * cpu:.1f} ms CPU")
    for name, c in result["components"].items():
        top = ", ".join(f"{k} {v:.1f}" for k, v in list(c["components"].items())[:6])
        print(f"{name}: {c['seconds']:.0f} s (loading {c['loading'] or 0:.0f} s); {top}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
