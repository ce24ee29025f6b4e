"""Small and mid-size fits of the scikit-learn selectors against scikit-learn's OMP, p = 50 to 20,000.

Cross-validation and grid search are thousands of small fits, so the fixed cost of one
``TGreedy(k).fit(X, y, domains=d)`` matters as much as its flops. For each size, in one process and
interleaved (so that a burst of load on the shared machine hits every contender alike):

* ``TGreedy(k)`` (``fit_intercept=True``, the default) and ``TGreedy(k, fit_intercept=False)``;
* ``OrthogonalMatchingPursuit(n_nonzero_coefs=k)`` (``fit_intercept=True``, ``precompute="auto"``:
  the pooled Gram when n > p), what a user would otherwise pick;
* the floor: one pooled Gram ``X.T @ X`` when n > p (the products OMP and the whole per-domain Gram
  cost), else one pass ``X.T @ y``.

Sizes: two from real panels (n = 2,660 rows in 7 domains with p = 66, and n = 630 in 7
domains with p = 274; k = 20), then n = 2,660 in 7 domains with p = 50 ... 20,000 and k = 20.
Each figure is the fastest of ``--repeat`` fits (the least disturbed by other jobs); the ratio
``omp / tgreedy`` above 1 means T-greedy is faster. Run with a checkout's package first on the
path to compare versions (a version without ``fit_intercept`` is timed without it).

``OPENBLAS_CORETYPE=Haswell`` is set for this process before numpy is imported (numpy's OpenBLAS
segfaults on very large products on this machine without it); tests and CI leave it alone.

Run: ``python benchmarks/bench_small_fits.py [--repeat N] [--threads T] [--json PATH]``.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")  # before numpy: see the module docstring
if "--threads" in os.sys.argv:  # BLAS threads, before numpy
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = os.sys.argv[os.sys.argv.index("--threads") + 1]

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.linear_model import OrthogonalMatchingPursuit  # noqa: E402

import tgreedy_lib  # noqa: E402
from tgreedy_lib import TGreedy  # noqa: E402

#: (n rows, p features, n domains, k steps): two sizes from real panels, then a sweep over p.
SIZES = [(2660, 66, 7, 20), (630, 274, 7, 20)] + [(2660, p, 7, 20) for p in
                                                  (50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000)]


def problem(n: int, p: int, n_domains: int, seed: int = 0):
    """Gaussian features with means away from 0, 10 real effects that vary a little between domains."""
    rng = np.random.default_rng(seed)
    d = np.arange(n) % n_domains
    X = rng.standard_normal((n, p)) + rng.normal(1.0, 0.5, size=p)
    w = np.zeros((n_domains, p))
    w[:, :10] = rng.normal(1.0, 0.2, size=(n_domains, 10))
    y = 5.0 + np.einsum("ij,ij->i", X, w[d]) + rng.standard_normal(n)
    return X, y, d


def fastest(fits: dict, repeat: int) -> dict:
    """The fastest of ``repeat`` interleaved runs of each callable, in seconds."""
    best = {name: np.inf for name in fits}
    for _ in range(repeat):
        for name, fit in fits.items():
            start = time.perf_counter()
            fit()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=0, help="fits per contender (default: by size, 3-300)")
    parser.add_argument("--threads", type=int, help="BLAS threads (default: OpenBLAS's own)")
    parser.add_argument("--json", help="write the numbers to this file")
    args = parser.parse_args()
    has_intercept = "fit_intercept" in TGreedy().get_params()
    print(f"tgreedy_lib from {os.path.dirname(tgreedy_lib.__file__)}; BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; OPENBLAS_CORETYPE=Haswell set for this process; "
          f"load average {os.getloadavg()[0]:.1f}")
    header = (f"{'n':>5} {'p':>6} {'k':>3} | {'floor ms':>9} {'T-greedy ms':>11} {'no icpt ms':>10} {'OMP ms':>9} | "
              f"{'OMP/T-greedy':>12} {'OMP/no icpt':>11} {'T-greedy/floor':>14}")
    print(header)
    print("-" * len(header))
    rows = []
    for n, p, n_domains, k in SIZES:
        X, y, d = problem(n, p, n_domains)
        repeat = args.repeat or int(np.clip(1e9 / (n * p * max(min(n, p), k)), 3, 300))
        fits = {
            "floor": (lambda: X.T @ X) if n > p else (lambda: X.T @ y),
            "tgreedy": lambda: TGreedy(k).fit(X, y, domains=d),
            "omp": lambda: OrthogonalMatchingPursuit(n_nonzero_coefs=k).fit(X, y),
        }
        if has_intercept:
            fits["no_intercept"] = lambda: TGreedy(k, fit_intercept=False).fit(X, y, domains=d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # OMP's warnings about early stopping on collinear atoms
            best = fastest(fits, repeat)
        row = {"n": n, "p": p, "n_domains": n_domains, "k": k, "repeat": repeat,
               **{f"{name}_s": seconds for name, seconds in best.items()},
               "omp_over_tgreedy": best["omp"] / best["tgreedy"], "tgreedy_over_floor": best["tgreedy"] / best["floor"]}
        no_icpt = best.get("no_intercept", np.nan)
        print(f"{n:>5} {p:>6} {k:>3} | {best['floor'] * 1e3:>9.3f} {best['tgreedy'] * 1e3:>11.3f} {no_icpt * 1e3:>10.3f} "
              f"{best['omp'] * 1e3:>9.3f} | {row['omp_over_tgreedy']:>12.2f} {best['omp'] / no_icpt:>11.2f} "
              f"{row['tgreedy_over_floor']:>14.2f}", flush=True)
        rows.append(row)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"threads": os.environ.get("OPENBLAS_NUM_THREADS"), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
