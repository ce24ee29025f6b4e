"""Speed of ``diagnose``: against its floor and against the nested leave-one-domain-out a user would write.

Problem (default): 7 domains of 430 samples (n = 3,010), p = 60 features, the default grid of k (8 values).

* floor: the per-domain moments ``X_k^T X_k`` and ``X_k^T y_k`` (one pass; every fold of ``diagnose`` is
  computed from them);
* ours: the whole ``diagnose`` call: the spread with its interval (1,000 draws of its chi-square shape), then four methods
  (T-greedy, greedy, OMP, the lasso) under leave-one-domain-out with k chosen by an inner leave-one-domain-out;
* what a user would otherwise write, for **one** method: scikit-learn's ``GridSearchCV`` over the same k with
  ``LeaveOneGroupOut`` inside ``cross_val_score`` with ``LeaveOneGroupOut``, on a
  ``Pipeline(StandardScaler, TGreedy, LinearRegression)`` with the domain labels routed to the selector.

Each timing is the median of ``--repeat`` runs. Run: ``python benchmarks/bench_diagnosis.py`` (``--json PATH``
writes the numbers).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import numpy as np
import sklearn
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, LeaveOneGroupOut, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from tgreedy_lib import TGreedy, diagnose
from tgreedy_lib.diagnosis import _Moments, _check_grid


def timed(function, repeat):
    function()                     # once untimed: imports, first-call set-up
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def nested_sklearn(X, y, domains, grid):
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = Pipeline([("scale", StandardScaler()),
                         ("select", TGreedy().set_fit_request(domains="groups")),
                         ("fit", LinearRegression())])
        model = TransformedTargetRegressor(regressor=pipe, transformer=StandardScaler())
        search = GridSearchCV(model, {"regressor__select__n_features_to_select": list(grid)},
                              cv=LeaveOneGroupOut(), scoring="r2")
        return cross_val_score(search, X, y, cv=LeaveOneGroupOut(), scoring="r2", params={"groups": domains})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, default=7)
    parser.add_argument("--samples", type=int, default=430, help="samples a domain")
    parser.add_argument("--features", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    K, m, p = args.domains, args.samples, args.features
    X = rng.standard_normal((K * m, p))
    domains = np.repeat(np.arange(K), m)
    beta = np.zeros(p)
    beta[:5] = 0.4
    y = X @ beta + (X[:, 5:25] * (0.6 * rng.standard_normal((K, 20)))[domains]).sum(axis=1) + rng.standard_normal(K * m)
    grid = _check_grid(None, p)

    floor, _ = timed(lambda: _Moments.of(X, y, domains, K), args.repeat)
    ours, result = timed(lambda: diagnose(X, y, domains), args.repeat)
    theirs, _ = timed(lambda: nested_sklearn(X, y, domains, grid), args.repeat)
    numbers = {"n": K * m, "p": p, "domains": K, "k_grid": grid.tolist(), "floor_s": floor, "diagnose_s": ours,
               "sklearn_nested_tgreedy_only_s": theirs, "diagnose_over_floor": ours / floor,
               "sklearn_one_method_over_diagnose_four": theirs / ours, "verdict": result.verdict}
    print(f"n = {K * m:,}, p = {p}, {K} domains, k in {grid.tolist()}")
    print(f"{'floor: per-domain moments':<58}{floor:>9.4f} s")
    print(f"{'diagnose (4 methods, nested LODO, spread interval)':<58}{ours:>9.3f} s  {ours / floor:8.0f} x floor")
    print(f"{'scikit-learn nested LODO, T-greedy alone':<58}{theirs:>9.3f} s  {theirs / ours:8.1f} x diagnose")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(numbers, handle, indent=1)


if __name__ == "__main__":
    main()
