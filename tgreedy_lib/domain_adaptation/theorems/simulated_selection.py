"""T-greedy against greedy on simulated domains (Foster, Kakade & Salakhutdinov, AISTATS 2012, section 3.3).

Training domains are drawn from a :class:`tgreedy_lib.domain_adaptation.theorems.simulate.DomainProblem`, either as
population moments (``n_samples=None``: the paper's abstraction of section 2, where
``E[XY|d_k]`` and ``E[XX'|d_k]`` are known) or as ``n_samples`` draws per domain.
Both selectors run on the same :class:`tgreedy_lib.domain_adaptation.statistics.DomainStatistics`, and each
path is scored by its regret on a *new* random domain, ``||w - E[XY]||^2`` (exact,
section 3.1), and by how many spurious features it picked.
"""
from __future__ import annotations

import numpy as np

from ...validation import check_domain_count, check_whole_number
from ..lodo import steps_curve
from ..selectors import get_selector
from ..statistics import DomainStatistics
from .simulate import DomainProblem, risk_on_domains

__all__ = ["SELECTORS", "training_statistics", "compare_selectors", "sweep_selectors"]

#: The selectors compared by default: the paper's two (names in :mod:`..selectors`; any registered
#: selector may be passed as ``selectors``).
SELECTORS = ("tgreedy", "greedy")


def training_statistics(problem: DomainProblem, rng: np.random.Generator, n_domains: int,
                        n_samples: int | None = None) -> DomainStatistics:
    """Per-domain statistics of ``n_domains`` fresh training domains (population moments if ``n_samples`` is None)."""
    check_domain_count(n_domains, "n_domains")
    if n_samples is None:
        xx, xy, yy = problem.draw_moments(rng, int(n_domains))
        return DomainStatistics.from_moments(xx, xy, yy)
    return DomainStatistics.from_domains(problem.draw_samples(rng, int(n_domains), n_samples))


def compare_selectors(problem: DomainProblem, rng: np.random.Generator, n_domains: int = 8,
                      n_samples: int | None = None, n_steps: int = 10, n_repeats: int = 50,
                      refit: str = "stagewise", n_new_domains: int = 0, selectors=SELECTORS) -> dict:
    """``n_repeats`` times: draw ``n_domains`` training domains (population moments, or ``n_samples`` draws each),
    run the ``selectors`` for ``n_steps`` steps, and record per selector ``"regret"`` (n_repeats, n_steps + 1),
    ``"spurious"`` picks (n_repeats, n_steps) and, with ``n_new_domains`` > 0, the mean excess risk
    ``L_d(w) - L_d(E[XY])`` on that many new domains (``"new_domain_excess"``)."""
    check_whole_number(n_repeats, "n_repeats", 1)
    selectors = [get_selector(name).name for name in selectors]
    results = {name: {"regret": [], "spurious": [], "new_domain_excess": []} for name in selectors}
    spurious_mask = problem.kind == "spurious"
    for _ in range(int(n_repeats)):
        stats = training_statistics(problem, rng, n_domains, n_samples)
        paths = {name: get_selector(name).run(stats, n_steps, refit=refit) for name in selectors}
        if n_new_domains:
            xx, xy, yy = problem.draw_moments(rng, int(n_new_domains))
            best = risk_on_domains(problem.effect, xx, xy, yy)
        for name, path in paths.items():
            coef = steps_curve(path, n_steps)
            features = np.full(n_steps, -1)
            features[: path.features.size] = path.features[:n_steps]
            results[name]["regret"].append(problem.regret(coef))
            results[name]["spurious"].append(np.where(features >= 0, spurious_mask[np.maximum(features, 0)], False))
            if n_new_domains:
                results[name]["new_domain_excess"].append((risk_on_domains(coef, xx, xy, yy) - best).mean(axis=1))
    out = {"steps": np.arange(n_steps + 1), "n_domains": int(n_domains), "n_samples": n_samples,
           "n_repeats": int(n_repeats), "null_regret": float(problem.regret(np.zeros(problem.n_features))),
           "selectors": list(selectors)}
    for name, r in results.items():
        out[name] = {k: np.asarray(v) for k, v in r.items() if len(v)}
    return out


def sweep_selectors(problem: DomainProblem, rng: np.random.Generator, n_domains_values=(4, 8, 16, 32),
                    n_samples_values=(None,), n_steps: int = 10, n_repeats: int = 30,
                    at_step: int = 5, selectors=SELECTORS) -> list[dict]:
    """One row per ``(n_domains, n_samples)``: per selector the mean, s.e. and median regret after ``at_step``
    features (``"<name>_regret"``, ...) and the share of spurious picks among the first ``at_step``."""
    if not 1 <= at_step <= n_steps:
        raise ValueError(f"at_step must lie in 1..n_steps = {n_steps}, got {at_step}")
    rows = []
    for n_samples in n_samples_values:
        for n_domains in n_domains_values:
            res = compare_selectors(problem, rng, n_domains, n_samples, n_steps, n_repeats, selectors=selectors)
            row = {"n_domains": int(n_domains), "n_samples": n_samples, "null_regret": res["null_regret"]}
            for name in res["selectors"]:
                regret = res[name]["regret"][:, at_step]
                row[f"{name}_regret"] = float(regret.mean())
                row[f"{name}_regret_median"] = float(np.median(regret))
                row[f"{name}_regret_se"] = float(regret.std(ddof=1) / np.sqrt(regret.size)) if regret.size > 1 else 0.0
                row[f"{name}_spurious"] = float(res[name]["spurious"][:, :at_step].mean())
            rows.append(row)
    return rows
