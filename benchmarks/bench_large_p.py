"""Memory and time of T-greedy at 10^4 - 10^6 features: dense scaling, OMP, sparse text.

Three measurements, each configuration in a fresh subprocess so that its peak memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``) is its own:

* ``scaling``: 10 domains x 500 samples, p = 10^4, 3 x 10^4, 10^5 dense Gaussian features,
  a 300-step T-greedy path from the raw rows (``DomainStatistics.from_samples`` with the
  default lazy Gram rows and row budget, then ``tgreedy_path``). Goal: peak memory under
  1.5 x the data + 1 GiB, time linear in p.
* ``omp``: p = 20,000, 10 domains x 500 samples, 300 steps: our whole fit against scikit-learn's
  ``OrthogonalMatchingPursuit(n_nonzero_coefs=300, fit_intercept=False)`` with
  ``precompute=True`` and ``precompute=False`` on the same pooled data (same seed), one after the
  other in one run (precompute=True in its own process, stopped after ``--gram-timeout`` seconds:
  its pooled 20,000 x 20,000 Gram alone is 4 x 10^12 flops). Goal: at least 5 x faster than the
  faster OMP.
* ``sparse``: a text-like problem, 10^6 sparse features (0.1 % nonzero), 5 domains x 2,000
  documents, a 100-step path on the CSR matrix (never densified). Goal: < 30 s and < 2 GiB.

numpy's bundled OpenBLAS (0.3.31, DYNAMIC_ARCH) segfaults in ``X.T @ X`` for a 5,000 x 20,000
matrix on this AMD machine unless ``OPENBLAS_CORETYPE=Haswell`` is set: this script sets it for
itself (and its subprocesses) before numpy is imported, and prints that it did. Tests and CI
leave the variable alone.

Run: ``python benchmarks/bench_large_p.py [scaling|omp|sparse|all] [--steps N] [--json PATH]``;
each configuration runs once (the machine is shared; timings swing by 20-50 %, and far more
when other jobs run: report the load with the numbers).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")  # before numpy: see the module docstring
if "--threads" in os.sys.argv:  # BLAS threads, before numpy (children inherit the environment)
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = os.sys.argv[os.sys.argv.index("--threads") + 1]

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

GiB = 2.0**30


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all its threads): less sensitive to other jobs than wall time."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_average() -> float:
    return os.getloadavg()[0]


def peak_rss() -> float:
    """Peak resident memory of this process so far, bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0


def dense_problem(p: int, n_domains: int = 10, per_domain: int = 500, seed: int = 0):
    """Gaussian features; 20 carry a shared effect, 20 more an effect whose sign varies by domain."""
    rng = np.random.default_rng(seed)
    m = n_domains * per_domain
    X = np.empty((m, p))
    for start in range(0, m, 500):  # in place: no temporary of the size of X
        rng.standard_normal(out=X[start:start + 500])
    d = np.repeat(np.arange(n_domains), per_domain)
    y = X[:, :20] @ rng.standard_normal(20)
    y += (X[:, 20:40] * rng.standard_normal((n_domains, 20))[d]).sum(axis=1)
    y += rng.standard_normal(m)
    return X, y, d


def sparse_problem(p: int = 1_000_000, n_domains: int = 5, per_domain: int = 2000, density: float = 0.001, seed: int = 0):
    """Word counts: every column has density x m nonzeros (1-3 counts) in random documents."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    m = n_domains * per_domain
    per_column = max(1, int(round(density * m)))
    indices = rng.integers(0, m, size=p * per_column).astype(np.int32)
    data = rng.integers(1, 4, size=indices.size).astype(np.float64)
    indptr = np.arange(0, indices.size + 1, per_column, dtype=np.int64)
    X = scipy.sparse.csc_matrix((data, indices, indptr), shape=(m, p))
    X.sum_duplicates()
    X = X.tocsr()
    d = np.repeat(np.arange(n_domains), per_domain)
    words = rng.choice(p, 40, replace=False)
    effect = X[:, words[:20]] @ rng.standard_normal(20)
    varying = np.asarray(X[:, words[20:]].multiply(rng.standard_normal((n_domains, 20))[d]).sum(axis=1)).ravel()
    y = effect + varying + 0.5 * rng.standard_normal(m)
    return X, y, d


def run_scaling(p: int, steps: int) -> dict:
    from tgreedy_lib import DomainStatistics, tgreedy_path

    X, y, d = dense_problem(p)
    data_bytes = X.nbytes + y.nbytes
    before = peak_rss()
    start, cpu = time.perf_counter(), cpu_seconds()
    stats = DomainStatistics.from_samples(X, y, d)
    path = tgreedy_path(stats, n_steps=steps)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    rows = stats._rows
    return dict(p=p, steps=path.n_steps, seconds=seconds, cpu_seconds=cpu, load=load_average(), data_gib=data_bytes / GiB, peak_gib=peak_rss() / GiB,
                peak_before_fit_gib=before / GiB, rows_formed=rows.n_known, blocks=rows.n_blocks,
                block_size=rows.block_size, evicted=rows.n_evicted, peak_cache_gib=rows.peak_cache_bytes / GiB,
                budget_gib=rows.max_memory / GiB)


def run_omp(p: int, steps: int) -> dict:
    """T-greedy's whole fit, then OMP with precompute=False, on the same data in one process."""
    from sklearn.linear_model import OrthogonalMatchingPursuit

    from tgreedy_lib import DomainStatistics, tgreedy_path

    X, y, d = dense_problem(p)
    out = dict(p=p, steps=steps)
    start, cpu = time.perf_counter(), cpu_seconds()
    stats = DomainStatistics.from_samples(X, y, d)
    path = tgreedy_path(stats, n_steps=steps)
    out["tgreedy_seconds"], out["tgreedy_cpu_seconds"] = time.perf_counter() - start, cpu_seconds() - cpu
    out["tgreedy_steps"] = path.n_steps
    out["rows_formed"], out["blocks"] = stats._rows.n_known, stats._rows.n_blocks
    # The floor: the BLAS work T-greedy cannot avoid, one Gram row per chosen feature and domain,
    # X_k[:, B]^T X_k / m_k for the path's features in blocks of 64 (compute-bound products).
    blocks = [np.sort(path.features[i:i + 64]) for i in range(0, path.n_steps, 64)]
    start, cpu = time.perf_counter(), cpu_seconds()
    for block in blocks:
        stats._rows.source.gram_block(block)
    out["floor_seconds"], out["floor_cpu_seconds"] = time.perf_counter() - start, cpu_seconds() - cpu
    del stats
    omp = OrthogonalMatchingPursuit(n_nonzero_coefs=steps, fit_intercept=False, precompute=False)
    start, cpu = time.perf_counter(), cpu_seconds()
    omp.fit(X, y)
    out["omp_precompute_False_seconds"], out["omp_precompute_False_cpu_seconds"] = time.perf_counter() - start, cpu_seconds() - cpu
    out["load"] = load_average()
    out["peak_gib"] = peak_rss() / GiB
    return out


def run_omp_gram(p: int, steps: int) -> dict:
    """OMP with precompute=True (the pooled 20,000 x 20,000 Gram first), on the same data (same seed)."""
    from sklearn.linear_model import OrthogonalMatchingPursuit

    X, y, d = dense_problem(p)
    omp = OrthogonalMatchingPursuit(n_nonzero_coefs=steps, fit_intercept=False, precompute=True)
    start, cpu = time.perf_counter(), cpu_seconds()
    omp.fit(X, y)
    return dict(p=p, steps=steps, omp_precompute_True_seconds=time.perf_counter() - start,
                omp_precompute_True_cpu_seconds=cpu_seconds() - cpu, peak_gib=peak_rss() / GiB)


def run_sparse(p: int, steps: int) -> dict:
    from tgreedy_lib import DomainStatistics, tgreedy_path

    start = time.perf_counter()
    X, y, d = sparse_problem(p)
    generate = time.perf_counter() - start
    data_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
    start, cpu = time.perf_counter(), cpu_seconds()
    stats = DomainStatistics.from_samples(X, y, d)
    path = tgreedy_path(stats, n_steps=steps)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    rows = stats._rows
    return dict(p=p, steps=path.n_steps, nnz=int(X.nnz), cpu_seconds=cpu, load=load_average(), density=X.nnz / (X.shape[0] * X.shape[1]),
                generate_seconds=generate, seconds=seconds, data_gib=data_bytes / GiB, peak_gib=peak_rss() / GiB,
                rows_formed=rows.n_known, blocks=rows.n_blocks, peak_cache_gib=rows.peak_cache_bytes / GiB)


RUNNERS = {"scaling": run_scaling, "omp": run_omp, "omp_gram": run_omp_gram, "sparse": run_sparse}


def child(kind: str, p: int, steps: int, timeout: float | None = None) -> dict:
    """Run one configuration in a fresh interpreter; its last stdout line is the JSON result."""
    command = [sys.executable, __file__, "_one", kind, str(p), str(steps)]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run kills and reaps it: its CPU time is in RUSAGE_CHILDREN
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
        return dict(kind=kind, p=p, timed_out=timeout, cpu_seconds_when_stopped=used,
                    error=f"stopped after {timeout:.0f} s wall, {used:.0f} CPU s (data generation included)")
    if done.returncode != 0:
        return dict(kind=kind, p=p, error=f"exit {done.returncode}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "_one":
        kind, p, steps = argv[1], int(argv[2]), int(argv[3])
        print(json.dumps(RUNNERS[kind](p, steps)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="all", choices=("all", "scaling", "omp", "sparse"))
    parser.add_argument("--features", type=int, nargs="*", default=[10_000, 30_000, 100_000])
    parser.add_argument("--steps", type=int, default=300, help="steps of the scaling paths")
    parser.add_argument("--threads", type=int, help="BLAS threads (OPENBLAS_NUM_THREADS); on a loaded machine 1 "
                        "makes CPU seconds comparable (idle threads of a parallel product spin)")
    parser.add_argument("--omp-steps", type=int, default=300, help="steps of the OMP comparison")
    parser.add_argument("--gram-timeout", type=float, default=600.0,
                        help="seconds after which OMP precompute=True is stopped (its 20,000^2 Gram is the slow part)")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    print(f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} (set by this benchmark before importing numpy); "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset (all cores)')}; load {load_average():.1f}")
    results = {}
    if args.what in ("all", "scaling"):
        print(f"\nscaling: 10 domains x 500 samples, {args.steps}-step T-greedy, lazy rows, default row budget")
        print(f"{'p':>8} {'seconds':>8} {'cpu s':>8} {'load':>5} {'data GiB':>9} {'peak GiB':>9} {'goal GiB':>9} "
              f"{'rows':>6} {'blocks':>6} {'evicted':>7}")
        results["scaling"] = []
        for p in args.features:
            r = child("scaling", p, args.steps)
            results["scaling"].append(r)
            if "error" in r:
                print(f"{p:>8} ERROR {r['error']}")
                continue
            goal = 1.5 * r["data_gib"] + 1.0
            print(f"{p:>8} {r['seconds']:8.2f} {r['cpu_seconds']:8.2f} {r['load']:5.1f} {r['data_gib']:9.2f} "
                  f"{r['peak_gib']:9.2f} {goal:9.2f} {r['rows_formed']:6d} {r['blocks']:6d} {r['evicted']:7d}")
    if args.what in ("all", "omp"):
        print(f"\nomp: p = 20,000, 10 domains x 500 samples, {args.omp_steps} steps, the same data (same seed), one after the other")
        r = child("omp", 20_000, args.omp_steps)
        g = child("omp_gram", 20_000, args.omp_steps, timeout=args.gram_timeout)
        results["omp"] = dict(r, precompute_true=g)
        if "error" in r:
            print("ERROR", r["error"])
        else:
            gram = g.get("omp_precompute_True_seconds")
            faster = r["omp_precompute_False_seconds"] if gram is None else min(gram, r["omp_precompute_False_seconds"])
            results["omp"]["speedup_vs_faster_omp"] = faster / r["tgreedy_seconds"]
            print(f"  floor: the path's {r['tgreedy_steps']} Gram rows in blocks of 64  {r['floor_seconds']:8.2f} s  "
                  f"(CPU {r['floor_cpu_seconds']:.1f} s)")
            print(f"  T-greedy (statistics + path)     {r['tgreedy_seconds']:8.2f} s  (CPU {r['tgreedy_cpu_seconds']:.1f} s; "
                  f"{r['rows_formed']} rows in {r['blocks']} blocks; "
                  f"{r['tgreedy_cpu_seconds'] / r['floor_cpu_seconds']:.2f} x the floor's CPU)")
            print(f"  OMP precompute=False             {r['omp_precompute_False_seconds']:8.2f} s  "
                  f"(CPU {r['omp_precompute_False_cpu_seconds']:.1f} s; load {r['load']:.1f})")
            print("  OMP precompute=True              " + (f"{gram:8.2f} s  (CPU {g['omp_precompute_True_cpu_seconds']:.1f} s)"
                                                             if gram is not None else f"   > {g.get('timed_out', 0):.0f} s ({g['error']})"))
            print(f"  faster OMP / T-greedy            {faster / r['tgreedy_seconds']:8.1f} x wall   (goal >= 5)")
            cpu_gram = g.get("omp_precompute_True_cpu_seconds")
            cpu_faster = r["omp_precompute_False_cpu_seconds"] if cpu_gram is None else min(cpu_gram, r["omp_precompute_False_cpu_seconds"])
            results["omp"]["cpu_speedup_vs_faster_omp"] = cpu_faster / r["tgreedy_cpu_seconds"]
            print(f"  faster OMP / T-greedy            {cpu_faster / r['tgreedy_cpu_seconds']:8.1f} x CPU")
    if args.what in ("all", "sparse"):
        print("\nsparse: 10^6 features, 0.1 % nonzero, 5 domains x 2,000 documents, 100 steps (CSR, never densified)")
        r = child("sparse", 1_000_000, 100)
        results["sparse"] = r
        if "error" in r:
            print("ERROR", r["error"])
        else:
            print(f"  fit {r['seconds']:.2f} s (goal < 30; CPU {r['cpu_seconds']:.1f} s, load {r['load']:.1f}), "
                  f"peak {r['peak_gib']:.2f} GiB (goal < 2), "
                  f"data {r['data_gib']:.3f} GiB, nnz {r['nnz']}, rows formed {r['rows_formed']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
