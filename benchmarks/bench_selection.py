"""Speed of the statistics and of a T-greedy path, against the BLAS floor and against OMP.

Problem: n = 9 domains, 2,000 samples a domain, p = 2,000 features, a 300-step path.

* floor: the per-domain Gram matrices X_k^T X_k alone (the issue's floor: what the eager
  statistics must compute), and one pass over the data, X_k^T [y_k, 1] (no fit can do less);
* ours: the whole fit from the raw rows, ``DomainStatistics.from_samples`` + ``tgreedy_path``
  (and greedy, and the stepwise refit), with fresh statistics each run so that no lazily
  computed Gram row is reused; and the eager variant (``lazy=False``: the whole Gram, then the path);
* the lazy rows' worst case: correlated features (a 50-factor model) where the speculative
  blocks miss and the statistics fall back on the whole Gram, lazy against eager;
* what a user would otherwise pick: scikit-learn's ``OrthogonalMatchingPursuit`` with a
  precomputed Gram (``precompute=True``) and 300 nonzeros on the same pooled data, with its
  default ``fit_intercept=True`` and with ``fit_intercept=False``.

Each timing is the median of ``--repeat`` runs. Run: ``python benchmarks/bench_selection.py``
(``--json PATH`` writes the numbers). Timings on a shared machine are noisy; ratios less so.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np
from sklearn.linear_model import OrthogonalMatchingPursuit
from threadpoolctl import threadpool_info

from tgreedy_lib import DomainStatistics, greedy_path, tgreedy_path


def timed(function, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, default=9)
    parser.add_argument("--samples", type=int, default=2000, help="samples a domain")
    parser.add_argument("--features", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    n, m, p = args.domains, args.samples, args.features
    X = rng.standard_normal((n * m, p))
    domains = np.repeat(np.arange(n), m)
    beta = np.zeros(p)
    beta[:50] = rng.standard_normal(50)
    y = X @ beta + rng.standard_normal(n * m) + (X[:, 50:60] * rng.standard_normal((n, 10))[domains]).sum(axis=1)
    blocks = [X[domains == k] for k in range(n)]

    def fit(path_function, data=(X, y), lazy=True, **options):
        """The whole fit from the raw rows: fresh statistics (so no Gram row is cached) and the path."""
        stats = DomainStatistics.from_samples(*data, domains, lazy=lazy)
        path = path_function(stats, n_steps=args.steps, **options)
        return stats, path

    t_floor, _ = timed(lambda: [Xk.T @ Xk for Xk in blocks], args.repeat)
    ys = [y[domains == k] for k in range(n)]
    t_pass, _ = timed(lambda: [Xk.T @ np.column_stack([yk, np.ones_like(yk)]) for Xk, yk in zip(blocks, ys)],
                      args.repeat)
    t_lazy, _ = timed(lambda: DomainStatistics.from_samples(X, y, domains), args.repeat)
    t_eager, eager = timed(lambda: DomainStatistics.from_samples(X, y, domains, lazy=False), args.repeat)
    t_path_only, _ = timed(lambda: tgreedy_path(eager, n_steps=args.steps), args.repeat)
    t_tfit, (lazy_stats, path) = timed(lambda: fit(tgreedy_path), args.repeat)
    t_gfit, _ = timed(lambda: fit(greedy_path), args.repeat)
    t_sfit, _ = timed(lambda: fit(tgreedy_path, refit="stepwise"), args.repeat)
    rows_computed = lazy_stats._rows.n_known if lazy_stats._xx is None else args.features
    same = np.array_equal(path.features, tgreedy_path(eager, n_steps=args.steps).features)
    # A problem where speculation fails: 50 common factors make every feature correlated, the
    # ranking changes after each step, and the lazy rows must fall back on the whole Gram.
    F = rng.standard_normal((n * m, 50))
    Xc = 0.3 * F @ rng.standard_normal((50, p)) + rng.standard_normal((n * m, p))
    yc = F[:, :5].sum(axis=1) + (F[:, 5:10] * rng.standard_normal((n, 5))[domains]).sum(axis=1) + rng.standard_normal(n * m)
    t_corr_lazy, (corr_stats, _) = timed(lambda: fit(tgreedy_path, (Xc, yc)), args.repeat)
    t_corr_eager, _ = timed(lambda: fit(tgreedy_path, (Xc, yc), lazy=False), args.repeat)
    del Xc, F

    omp = {}
    for intercept in (True, False):
        est = OrthogonalMatchingPursuit(n_nonzero_coefs=args.steps, precompute=True, fit_intercept=intercept)
        omp[intercept], _ = timed(lambda: est.fit(X, y), args.repeat)

    results = {
        "problem": {"domains": n, "samples_per_domain": m, "features": p, "steps": args.steps},
        "seconds": {
            "floor_per_domain_gram": t_floor,
            "one_pass_per_domain_xty": t_pass,
            "statistics_lazy": t_lazy,
            "statistics_eager": t_eager,
            "tgreedy_path_on_eager_statistics": t_path_only,
            "tgreedy_fit": t_tfit,
            "greedy_fit": t_gfit,
            "tgreedy_stepwise_fit": t_sfit,
            "omp_fit_intercept_true": omp[True],
            "omp_fit_intercept_false": omp[False],
            "correlated_tgreedy_fit_lazy": t_corr_lazy,
            "correlated_tgreedy_fit_eager": t_corr_eager,
        },
        "correlated_gram_rows_computed_before_completion": corr_stats._rows.n_known,
        "gram_rows_computed": rows_computed,
        "lazy_and_eager_paths_agree": bool(same),
        "ratios": {
            "tgreedy_fit_over_floor": t_tfit / t_floor,
            "tgreedy_fit_over_one_pass": t_tfit / t_pass,
            "eager_fit_over_floor": (t_eager + t_path_only) / t_floor,
            "omp_default_over_tgreedy_fit": omp[True] / t_tfit,
            "omp_no_intercept_over_tgreedy_fit": omp[False] / t_tfit,
            "omp_default_over_eager_fit": omp[True] / (t_eager + t_path_only),
            "correlated_lazy_over_eager": t_corr_lazy / t_corr_eager,
        },
        "goals": {"tgreedy_fit_over_floor <=": 1.2, "omp_default_over_tgreedy_fit >=": 1.5},
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "blas": [(i.get("internal_api"), i.get("num_threads")) for i in threadpool_info()],
        },
    }
    s, r = results["seconds"], results["ratios"]
    print(f"problem: {n} domains x {m} samples, p = {p}, {args.steps} steps (median of {args.repeat})")
    print(f"  floor: per-domain Gram X_k^T X_k          {s['floor_per_domain_gram']:7.3f} s")
    print(f"  one pass: X_k^T [y_k, 1] per domain       {s['one_pass_per_domain_xty']:7.3f} s")
    print(f"  from_samples (lazy Gram rows, default)    {s['statistics_lazy']:7.3f} s")
    print(f"  from_samples(lazy=False) (whole Gram)     {s['statistics_eager']:7.3f} s")
    print(f"  tgreedy_path on the whole Gram            {s['tgreedy_path_on_eager_statistics']:7.3f} s")
    print(f"  whole T-greedy fit (stagewise)            {s['tgreedy_fit']:7.3f} s   = {r['tgreedy_fit_over_floor']:.2f} x floor (goal <= 1.2)")
    print(f"    = {r['tgreedy_fit_over_one_pass']:.0f} x one pass over the data")
    print(f"    Gram rows computed: {results['gram_rows_computed']} of {p}; same path as eager: {same}")
    print(f"  whole greedy fit (stagewise)              {s['greedy_fit']:7.3f} s")
    print(f"  whole T-greedy fit (stepwise)             {s['tgreedy_stepwise_fit']:7.3f} s")
    print(f"  eager fit (whole Gram + path)             {t_eager + t_path_only:7.3f} s   = {r['eager_fit_over_floor']:.2f} x floor")
    print(f"  OMP precompute, fit_intercept=True        {s['omp_fit_intercept_true']:7.3f} s   = {r['omp_default_over_tgreedy_fit']:.2f} x T-greedy fit (goal >= 1.5)")
    print(f"  OMP precompute, fit_intercept=False       {s['omp_fit_intercept_false']:7.3f} s   = {r['omp_no_intercept_over_tgreedy_fit']:.2f} x T-greedy fit")
    print(f"  correlated features (50 factors): lazy fit {t_corr_lazy:.3f} s, eager fit {t_corr_eager:.3f} s "
          f"= {r['correlated_lazy_over_eager']:.2f} x ({corr_stats._rows.n_known} lazy rows, then the whole Gram)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


if __name__ == "__main__":
    main()
