"""Leave-one-domain-out stopping: time against the number of domains, and against one plain fit.

Problem: n domains of 2 rows each (n = 500 and 2,000 by default), p = 20 features, a 10-step
T-greedy path; ``stop_lodo`` refits the path without each domain and scores it on that domain.

* floor: one plain fit (``DomainStatistics.from_samples`` + ``tgreedy_path``) on all n domains;
* ours: ``stop_lodo`` on that path (n leave-one-out paths), and, as a check, that the chosen
  k equals what n separate refits give, at the smallest n only.

Run: ``python benchmarks/bench_lodo.py [--domains 500 2000] [--json PATH]``. Timings on a shared
machine are noisy; the ratio to the plain fit less so.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from tgreedy_lib import DomainStatistics, tgreedy_path
from tgreedy_lib.domain_adaptation.stopping import stop_lodo


def problem(n_domains: int, rows: int = 2, p: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_domains * rows, p))
    domains = np.repeat(np.arange(n_domains), rows)
    swing = rng.standard_normal((n_domains, p)) * 0.3
    y = X[:, 0] + 0.5 * X[:, 1] + np.einsum("ij,ij->i", X, swing[domains]) + 0.5 * rng.standard_normal(X.shape[0])
    return X, y, domains


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    rows = []
    print(f"{'domains':>8} {'plain fit s':>12} {'lodo s':>10} {'lodo / fit':>11} {'k':>3}")
    for n in args.domains:
        X, y, domains = problem(n)
        start = time.perf_counter()
        stats = DomainStatistics.from_samples(X, y, domains)
        path = tgreedy_path(stats, args.steps)
        fit = time.perf_counter() - start
        start = time.perf_counter()
        result = stop_lodo(path, stats)
        lodo = time.perf_counter() - start
        rows.append({"n_domains": n, "fit_s": fit, "lodo_s": lodo, "ratio": lodo / fit, "k": result.k})
        print(f"{n:>8} {fit:>12.3f} {lodo:>10.3f} {lodo / fit:>11.1f} {result.k:>3}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
