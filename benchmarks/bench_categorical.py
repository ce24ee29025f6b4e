"""Timings of the categorical-ranking library: vectorized filters and exact expectations.

The categorical feature-ranking paper (Eqs. 2-11, Lemmas 1-2, Thm. 3). Three measurements:

* ``filters``: :func:`tgreedy_lib.categorical.filter_scores` on a table of ``m`` examples and
  ``n_features`` categorical columns of mixed cardinality (one ``np.unique`` per column, one
  ``np.bincount`` for all), against a per-column loop over :func:`count_table`;
* ``expectations``: the exact binomial sums E[l_hat], E[l(h_Gini)], E[l(h_Bayes)], E[M_k];
* ``verify``: ``categorical.*`` checks at the ``--quick`` budget.

Run ``python benchmarks/bench_categorical.py [--json PATH]``. Timings on a shared 2-core machine
are noisy; take the minimum of the repeats.
"""
from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

from tgreedy_lib import categorical as cat
from tgreedy_course.verify import run_checks


def _best_of(function, repeats: int = 3) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=200)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    cardinalities = rng.choice([2, 5, 50, 1000, args.m], size=args.features)
    X = np.column_stack([rng.integers(0, k, args.m) for k in cardinalities])
    y = rng.integers(0, 2, args.m)

    filters = (cat.misclassification_error, cat.gini_index, cat.information_gain, cat.gain_ratio,
               cat.gini_error_estimate)

    def per_column():
        for j in range(X.shape[1]):
            _, codes = np.unique(X[:, j], return_inverse=True)
            counts, positives = cat.count_table(codes, y)
            for function in filters:
                function(counts, positives)

    p = rng.dirichlet(np.ones(500))
    q = rng.uniform(0, 1, 500)
    timings = {
        "filters_vectorized_s": _best_of(lambda: cat.filter_scores(X, y)),
        "filters_per_column_s": _best_of(per_column),
        "expected_gini_estimate_s (|V|=500, m=1000)": _best_of(lambda: cat.expected_gini_estimate(p, q, 1000)),
        "expected_gini_error_s (|V|=500, m=1000)": _best_of(lambda: cat.expected_gini_error(p, q, 1000)),
        "expected_bayes_error_s (|V|=500, m=1000)": _best_of(lambda: cat.expected_bayes_error(p, q, 1000)),
        "expected_missing_mass_all_k_s (|V|=500, m=1000)": _best_of(
            lambda: cat.expected_missing_mass(p, 1000, np.arange(1001))),
        "verify_categorical_quick_s": _best_of(lambda: run_checks(["categorical."], quick=True), repeats=1),
    }
    record = {"m": args.m, "n_features": args.features, "machine": platform.machine(),
              "python": platform.python_version(), "timings": timings}
    for name, seconds in timings.items():
        print(f"{name:52s} {seconds:8.3f}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(record, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
