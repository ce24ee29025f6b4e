"""Speed of the theory tools behind notebooks 03-05 and ``verify domains.*``.

* exact sign-pattern enumeration (Theorem 2) against n: cost grows as 2^(n-1) patterns;
* closed forms (binomial, Beta) against n: constant cost;
* Monte Carlo coverage of Theorem 1's bound: simulated domain-feature draws per second;
* the three ``domains.*`` checks, ``--quick`` and full.

Each timing is the median of ``--repeat`` runs. Run: ``python benchmarks/bench_theory.py``
(``--json PATH`` writes the numbers). Timings on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np

from tgreedy_lib.domain_adaptation.theorems import self_normalized as sn
from tgreedy_lib.domain_adaptation.theorems import t_bounds as tb
from tgreedy_course.verify import run_checks


def timed(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="also time the full (non-quick) verify checks")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    t = np.geomspace(0.01, 50, 400)
    out = {"python": platform.python_version(), "numpy": np.__version__, "enumeration": {}, "closed_form": {}}
    for n in (8, 12, 16, 20):
        m = rng.random(n)
        out["enumeration"][n] = timed(lambda: sn.exact_tail_given_magnitudes(m, t), args.repeat)
        print(f"exact enumeration n = {n:2d} ({2 ** (n - 1):7d} patterns): {out['enumeration'][n] * 1e3:8.2f} ms")
    for n in (10, 50):
        out["closed_form"][n] = timed(lambda: (sn.rademacher_tail(n, t), sn.gaussian_tail(n, t)), args.repeat)
        print(f"binomial + Beta closed forms n = {n}: {out['closed_form'][n] * 1e3:.2f} ms")
    n, f, trials = 8, 2000, 200
    seconds = timed(lambda: tb.coverage_monte_carlo(rng, "cauchy", n, f, 0.05, n_trials=trials), args.repeat)
    out["coverage_draws_per_second"] = n * f * trials / seconds
    print(f"Theorem 1 coverage Monte Carlo: {out['coverage_draws_per_second'] / 1e6:.1f} M domain-feature draws/s")
    for quick in (True, False) if args.full else (True,):
        label = "quick" if quick else "full"
        results = run_checks(["domains."], quick=quick)
        out[f"verify_{label}"] = {r.id: r.seconds for r in results}
        print(f"verify domains. --{label}: " + ", ".join(f"{r.id} {r.seconds:.1f} s" for r in results))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(out, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
