"""Results over several seeds and feature maps: claims with intervals and verdicts, curves with bands."""
from __future__ import annotations

import json
import math
import pathlib
import warnings
from collections import Counter
from typing import Sequence

import numpy as np

from .claims import (CLAIMS, NOT_REPRODUCED, NOT_RUN, PARTLY, REPRODUCED, UNSETTLED, VERDICTS, Rule, all_claims,
                     verdict_counts)
from .prose import and_list, fmt, markdown_table, plural
from tgreedy_lib.experiments.readings import COMPARISONS, PAPER_COMPARISON
from tgreedy_lib.plotting.paper_figures import BAND_TASK_TITLES as TASK_TITLES

#: Bootstrap replicates over seeds behind the "on average" verdict, and the seed of their draws.
BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_SEED = 0
#: Share of the bootstrap replicates that must give the verdict for it to stand (else ``unsettled``).
SETTLED_SHARE = 0.95


def t_quantile_975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    from scipy import stats

    return float(stats.t.ppf(0.975, df))


def mean_interval(values: Sequence[float]) -> dict:
    """Mean and 95 % t interval over seeds: mean +- t_{0.975, n-1} s / sqrt(n) (none for one seed)."""
    x = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if len(x) == 0:
        return {"mean": None, "ci95": None, "n": 0}
    mean = float(x.mean())
    if len(x) < 2:
        return {"mean": mean, "ci95": None, "n": 1}
    half = t_quantile_975(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": int(len(x))}


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (E. B. Wilson, JASA 22, 1927)."""
    from scipy import stats

    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {successes} of {trials}")
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = successes / trials
    centre = p + z * z / (2 * trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    return max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)


def _fmt(value: float) -> str:
    return fmt(value, digits=3)


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _numeric_values(rows: Sequence[dict]) -> dict[str, np.ndarray]:
    """``{name: per-seed array}`` of every scalar measured value (NaN where a seed lacks it)."""
    names = dict.fromkeys(k for r in rows for k, v in r.get("values", {}).items() if _is_number(v))
    return {k: np.array([float(r["values"][k]) if _is_number(r.get("values", {}).get(k)) else np.nan for r in rows])
            for k in names}


def _nanmean(x: np.ndarray, axis=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a value that no seed has stays NaN (its condition fails)
        return np.nanmean(x, axis=axis)


def average_verdict(rule: Rule, rows: Sequence[dict], replicates: int = BOOTSTRAP_REPLICATES,
                    seed: int = BOOTSTRAP_SEED) -> dict:
    """The rule on the seed means, kept when :data:`SETTLED_SHARE` of a bootstrap gives it, else ``unsettled``."""
    values = _numeric_values(rows)
    means = {k: float(_nanmean(v)) for k, v in values.items()}
    point = rule.verdict(means)
    n = len(rows)
    if n < 2:
        return {"verdict": point, "point_verdict": point, "shares": {point: 1.0}, "replicates": 0,
                "mean_values": means}
    draws = np.random.default_rng(seed).integers(0, n, size=(replicates, n))
    boot = {k: _nanmean(v[draws], axis=1) for k, v in values.items()}
    tally = Counter(rule.verdict({k: float(v[b]) for k, v in boot.items()}) for b in range(replicates))
    shares = {v: tally[v] / replicates for v in (REPRODUCED, PARTLY, NOT_REPRODUCED) if v in tally}
    verdict = point if shares.get(point, 0.0) >= SETTLED_SHARE else UNSETTLED
    return {"verdict": verdict, "point_verdict": point, "shares": shares, "replicates": int(replicates),
            "mean_values": means}


def one_run_rate(verdicts: Sequence[str], confidence: float = 0.95) -> dict:
    """How often a single run shows the claim: verdict counts and the Wilson interval (``wilson95``)."""
    ran = [v for v in verdicts if v != NOT_RUN]
    out: dict = {**{v: ran.count(v) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED)}, "runs": len(ran)}
    if ran:
        out["rate"] = out[REPRODUCED] / len(ran)
        out["wilson95"] = list(wilson_interval(out[REPRODUCED], len(ran), confidence))
    return out


def one_run_text(rate: dict) -> str:
    """``"one run: reproduced in 14 of 20 runs (48-85 %)"``, from :func:`one_run_rate`."""
    if not rate.get("runs"):
        return "one run: not run"
    lo, hi = rate["wilson95"]
    return f"one run: reproduced in {rate[REPRODUCED]} of {rate['runs']} runs ({100 * lo:.0f}-{100 * hi:.0f} %)"


def average_text(average: dict) -> str:
    """``on average: reproduced in 70 % of 2,000 bootstrap replicates, partly in 30 %``, from :func:`average_verdict`."""
    if not average.get("replicates"):
        return "one seed"
    ranked = sorted(average["shares"].items(), key=lambda kv: -kv[1])
    head, rest = ranked[0], ranked[1:]
    text = f"on average: {head[0]} in {100 * head[1]:.0f} % of {average['replicates']:,} bootstrap replicates"
    return text + "".join(f", {v} in {100 * s:.0f} %" for v, s in rest)


def aggregate_seeds(per_seed: Sequence[Sequence[dict]], rules: dict | None = None) -> list[dict]:
    """The claims tables of several seeds combined: each claim's on-average verdict, both answers and ``seeds``."""
    if not per_seed:
        raise ValueError("aggregate_seeds needs the claims of at least one seed")
    n = len(per_seed[0])
    if any(len(table) != n for table in per_seed):
        raise ValueError("every seed must have the same claims in the same order")
    rules = rules if rules is not None else {spec.id: spec.rule for spec in CLAIMS}
    out = []
    for i in range(n):
        rows = [table[i] for table in per_seed]
        if len(ids := {r["id"] for r in rows}) != 1:
            raise ValueError(f"claims out of order across seeds: {sorted(ids)}")
        claim_id = next(iter(ids))
        if claim_id not in rules:
            raise ValueError(f"no rule for the claim {claim_id!r}; pass rules={{claim id: Rule}}")
        ran = [r for r in rows if r["verdict"] != NOT_RUN]
        first, verdicts = (ran or rows)[0], [r["verdict"] for r in rows]
        key = first.get("headline")
        values = [r["values"].get(key) if r["verdict"] != NOT_RUN else None for r in rows]
        summary, rate = mean_interval([v for v in values if v is not None]), one_run_rate(verdicts)
        average = average_verdict(rules[claim_id], ran) if ran else {
            "verdict": NOT_RUN, "point_verdict": NOT_RUN, "shares": {}, "replicates": 0, "mean_values": {}}
        count_text = f"{average_text(average)}; {one_run_text(rate)}" if ran else f"not run in {plural(len(verdicts), 'seed')}"
        if summary["mean"] is None:
            measured = first["measured"]
        elif summary["ci95"] is None:
            measured = f"{key} = {_fmt(summary['mean'])} (one seed): {first['measured']}"
        else:
            lo, hi = summary["ci95"]
            measured = (f"{key}: mean {_fmt(summary['mean'])}, 95% interval [{_fmt(lo)}, {_fmt(hi)}] over "
                        f"{summary['n']} seeds; per seed " + ", ".join("-" if v is None else _fmt(v) for v in values))
        out.append({**first, "verdict": average["verdict"], "verdict_count": count_text, "measured": measured,
                    "seeds": {"values": values, "verdicts": verdicts,
                              "counts": {v: verdicts.count(v) for v in VERDICTS if v in verdicts}, **summary,
                              "average": average, "one_run": rate}})
    return out


def claims_over_seeds(per_seed_results: Sequence[dict], comparison: str = PAPER_COMPARISON) -> list[dict]:
    """Every claim under ``comparison``, aggregated over seeds (one results dict per seed; one seed: as is)."""
    tables = [all_claims(results, comparison) for results in per_seed_results]
    return tables[0] if len(tables) == 1 else aggregate_seeds(tables)


def comparison_tables(per_seed_results: Sequence[dict], comparisons: Sequence[str] = tuple(COMPARISONS)) -> dict:
    """``{comparison: claims_over_seeds(..., comparison)}``."""
    return {c: claims_over_seeds(per_seed_results, c) for c in comparisons}


#: Numbers of seeds at which :func:`convergence` counts the verdicts (those up to the seeds run).
CONVERGENCE_SIZES = (5, 10, 20)


def convergence(per_seed_results: Sequence[dict], sizes: Sequence[int] = CONVERGENCE_SIZES,
                comparison: str = PAPER_COMPARISON) -> dict:
    """``{k: {"counts": {verdict: claims}, "unsettled": [ids]}}`` over the first ``k`` seeds."""
    n = len(per_seed_results)
    ks = sorted({k for k in sizes if 2 <= k <= n} | ({n} if n >= 2 and any(k <= n for k in sizes) else set()))
    if not ks:
        return {}
    tables = [all_claims(results, comparison) for results in per_seed_results]
    return {str(k): {"counts": verdict_counts(rows), "unsettled": [r["id"] for r in rows if r["verdict"] == UNSETTLED]}
            for k in ks for rows in [aggregate_seeds(tables[:k])]}


def convergence_markdown(table: dict) -> str:
    """:func:`convergence` as a Markdown table: a row per number of seeds, a column per verdict."""
    verdicts = (REPRODUCED, PARTLY, NOT_REPRODUCED, UNSETTLED)
    return markdown_table(["seeds", *verdicts, "unsettled claims"], [
        [k, *(str(entry["counts"].get(v, 0)) for v in verdicts), ", ".join(entry["unsettled"]) or "-"]
        for k, entry in table.items()], spaced=True) + "\n"


#: The primary feature map: each data set's default learned features (``DEFAULT_FEATURE_MAP``).
LEARNED = "learned"
#: A feature-map table's cell where the map does not exist for the claim's data set(s) (conv on MNIST).
NOT_APPLICABLE = "n/a"


def _dataset_of(name: str, result: dict | None = None) -> str:
    from tgreedy_lib.experiments.catalog import DATASET_OF

    return DATASET_OF.get(name) or (result or {}).get("data", {}).get("dataset", "mnist")


def claim_datasets(claim_id: str) -> set[str]:
    """The data sets (``mnist``, ``cifar10``) a claim's experiments read; empty for an id not in ``CLAIMS``."""
    spec = next((spec for spec in CLAIMS if spec.id == claim_id), None)
    return {_dataset_of(name) for name in spec.experiments} if spec else set()


def primary_runs(per_map: dict) -> tuple[str, list[dict]]:
    """The primary feature map (``learned`` when it or every default map ran) and its per-seed results."""
    from tgreedy_lib.experiments.inputs import DEFAULT_FEATURE_MAP

    if LEARNED in per_map:
        return LEARNED, per_map[LEARNED]
    first = next(iter(per_map))
    datasets = {_dataset_of(name) for runs in per_map.values() for results in runs for name in results}
    needed = {DEFAULT_FEATURE_MAP.get(ds) for ds in datasets}
    if not datasets or not needed <= set(per_map):
        return first, per_map[first]
    from tgreedy_lib.experiments.catalog import EXPERIMENTS

    order, composed = {name: i for i, name in enumerate(EXPERIMENTS)}, []
    for s in range(max(len(per_map[fmap]) for fmap in needed)):  # a seed one map lacks leaves its claims not run
        merged = {name: result for fmap in needed for name, result in (per_map[fmap][s] if s < len(per_map[fmap]) else {}).items()
                  if DEFAULT_FEATURE_MAP.get(_dataset_of(name, result)) == fmap}
        composed.append(dict(sorted(merged.items(), key=lambda item: order.get(item[0], len(order)))))
    return LEARNED, composed


def mark_not_applicable(table: list[dict], feature_map: str) -> list[dict]:
    """``table`` with the verdict ``"n/a"`` for every claim none of whose experiments' data sets ``feature_map`` exists for."""
    from tgreedy_lib.experiments.inputs import feature_map_applies

    out = []
    for row in table:
        datasets = claim_datasets(row["id"])
        if datasets and not any(feature_map_applies(feature_map, ds) for ds in datasets):
            row = {**row, "verdict": NOT_APPLICABLE, "verdict_count": "",
                   "measured": f"the {feature_map} features do not exist for {', '.join(sorted(datasets))}",
                   "seeds": None}
        out.append(row)
    return out


def feature_builds_of(per_map: dict) -> dict:
    """``{feature map: {data set: distinct feature builds}}`` (a ``feature_seed`` or ``random_seed``; pixels 0)."""
    out: dict = {}
    for fmap, runs in per_map.items():
        seen: dict = {}
        for name, result in ((n, r) for results in runs for n, r in results.items()):
            data = result.get("data", {}) if isinstance(result, dict) else {}
            seed = data.get("feature_seed", data.get("random_seed"))
            seen.setdefault(data.get("dataset") or _dataset_of(name), set()).update(
                [] if seed is None else [(data.get("feature_map"), seed)])
        out[fmap] = {ds: len(seeds) for ds, seeds in sorted(seen.items())}
    return out


def seed_counts_text(seeds_per_map: dict) -> str:
    """``Seeds per feature map: dbn and conv at 20 seeds, pixels and random at 5 seeds.``"""
    groups: dict = {}
    for fmap, n in seeds_per_map.items():
        groups.setdefault(n, []).append(fmap)
    if len(groups) == 1:
        return f"Seeds per feature map: every map at {plural(next(iter(groups)), 'seed')}."
    return "Seeds per feature map: " + ", ".join(f"{and_list(maps)} at {plural(n, 'seed')}" for n, maps in groups.items()) + "."


def builds_text(builds: dict) -> str:
    """``"dbn: mnist 5, cifar10 1; conv: cifar10 5"`` (``"no learner"`` for counts of 0)."""
    return "; ".join(f"{fmap}: " + (", ".join(f"{ds} {n}" for ds, n in per_dataset.items() if n) or "no learner")
                     for fmap, per_dataset in builds.items())


def seed_curves(per_seed_results: Sequence[dict], task: str, reading: str, metric: str) -> np.ndarray:
    """The split-averaged curve of ``reading`` per seed, (n_seeds, n_steps); seeds without the task are left out."""
    rows = []
    for results in per_seed_results:
        if (result := results.get(task)) and reading in result.get("curves", {}):
            rows.append(np.asarray(result["curves"][reading][metric], dtype=float).mean(axis=0))
    if not rows:
        raise ValueError(f"no seed has {task} results for the reading {reading!r}")
    n = min(len(r) for r in rows)
    return np.stack([r[:n] for r in rows])


def band(curves: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over seeds and the 95 % t interval of the mean, per step (the interval is the mean itself for one seed)."""
    curves = np.asarray(curves, dtype=float)
    mean = curves.mean(axis=0)
    if curves.shape[0] < 2:
        return mean, mean, mean
    half = t_quantile_975(curves.shape[0] - 1) * curves.std(axis=0, ddof=1) / np.sqrt(curves.shape[0])
    return mean, mean - half, mean + half


def band_summary(per_seed_results: Sequence[dict], readings: Sequence[str] | None = None) -> dict:
    """``{"seeds": n, "tasks": {task: {reading: {metric: {mean, lo, hi}}}}}``: the split-averaged curves over seeds."""
    out = {"seeds": len(per_seed_results), "tasks": {}}
    for task in TASK_TITLES:
        if not (present := [r[task] for r in per_seed_results if r.get(task)]):
            continue
        names = readings or [n for n in present[0]["curves"] if all(n in p["curves"] for p in present)]
        out["tasks"][task] = {name: {**{metric: dict(zip(("mean", "lo", "hi"), (
            [round(float(v), 5) for v in arr] for arr in band(seed_curves(per_seed_results, task, name, metric)))))
            for metric in ("source_auroc", "target_auroc")}, "n_seeds": len(present)} for name in names}
    return out


def read_seed_results(out_dir, order: Sequence[str] = ()) -> dict:
    """``{feature_map: [results of seed 0, 1, ...]}`` of a ``reproduce --seeds N`` folder."""
    out_dir = pathlib.Path(out_dir)
    found = {}
    for map_dir in sorted(p for p in out_dir.iterdir() if p.is_dir()):
        seeds_dirs = sorted((p for p in map_dir.glob("seed-*") if p.is_dir() and p.name[5:].isdigit()),
                            key=lambda p: int(p.name[5:]))
        if not seeds_dirs:
            continue
        missing = sorted(set(range(len(seeds_dirs))) - {int(p.name[5:]) for p in seeds_dirs})
        if missing:  # position k must be seed k: the maps' seeds are paired by it
            raise ValueError(f"{map_dir} has {len(seeds_dirs)} seed folders but not seed-"
                             + ", seed-".join(map(str, missing)) + "; run the missing seeds (reproduce --resume) "
                             "or leave the extra ones out, so that the seeds run 0 to N-1")
        found[map_dir.name] = [{f.stem: _read_seed_json(f) for f in sorted(d.glob("*.json"))} for d in seeds_dirs]
        names = set().union(*found[map_dir.name])
        short = [f"{d.name} lacks {', '.join(sorted(names - set(r)))}" for d, r in zip(seeds_dirs, found[map_dir.name])
                 if names - set(r)]
        if short:  # a run still going, or one stopped early: its summary would count the missing runs as not run
            raise ValueError(f"{map_dir}: not every seed has the same experiments ({'; '.join(short)}); finish them "
                             "(reproduce --resume) or leave those seeds out")
    if not found:
        raise FileNotFoundError(f"no <feature map>/seed-<k>/ results in {out_dir}")
    first = [m for m in order if m in found]
    return {m: found[m] for m in first + [m for m in found if m not in first]}


def _read_seed_json(path):
    """One per-seed result; a ValueError naming the file when it is damaged (a run killed while writing it)."""
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is damaged ({error}); rerun that seed (reproduce --resume keeps the others) "
                         "or remove the file") from None


#: Committed reference results of ``reproduce --seeds N`` at paper scale (claims, bands, timings).
REFERENCE_DIR = pathlib.Path(__file__).resolve().parent / "reference_results"
#: The reference results :func:`load_reference` reads by default, first found.
REFERENCE_NAMES = ("paper-scale",)


def load_reference(name: str | None = None) -> dict | None:
    """The committed reference results ``name`` (default: the first committed), or None if absent."""
    if name is None:
        name = next((n for n in REFERENCE_NAMES if (REFERENCE_DIR / n / "claims.json").is_file()), REFERENCE_NAMES[0])
    if not ((folder := REFERENCE_DIR / name) / "claims.json").is_file():
        return None
    return {part: json.loads(path.read_text()) if (path := folder / f"{part}.json").is_file() else None
            for part in ("claims", "bands", "timings")}


def map_for_task(reference: dict | None, task: str) -> str | None:
    """The map whose bands notebook 08b draws for ``task``: conv for CIFAR-10 when present (the DBN's barely beat
    pixels), else the primary map, then any map that ran the task; None if none did (a record's gaps are no error).

    >>> ref = {"claims": {"primary_feature_map": "dbn", "feature_maps": {"dbn": [], "conv": []},
    ...                   "primary_feature_maps": {"mnist": "dbn", "cifar10": "conv"}},
    ...        "bands": {"dbn": {"tasks": {"cifar-similarity": {}, "mnist-similarity": {}}},
    ...                  "conv": {"tasks": {"cifar-similarity": {}}}}}
    >>> map_for_task(ref, "cifar-similarity"), map_for_task(ref, "mnist-similarity"), map_for_task(None, "mnist-similarity")
    ('conv', 'dbn', None)
    >>> concrete_map(ref, "learned", "cifar10"), concrete_map(ref, "pixels", "cifar10"), concrete_map(None, None, "mnist")
    ('conv', 'pixels', None)
    """
    claims, bands = (reference or {}).get("claims") or {}, (reference or {}).get("bands") or {}
    names = list(claims.get("feature_maps") or {}) or list(bands)
    primary = claims.get("primary_feature_map")
    having = [m for m in ([primary] if primary in names else []) + [n for n in names if n != primary]
              if task in (bands.get(m) or {}).get("tasks", {})]
    return "conv" if task.startswith("cifar") and "conv" in having else (having[0] if having else None)


def concrete_map(reference: dict | None, feature_map: str | None, dataset: str) -> str | None:
    """The features ``feature_map`` stands for on ``dataset`` (``"learned"``: the record's ``primary_feature_maps``)."""
    if feature_map != LEARNED:
        return feature_map
    resolved = ((reference or {}).get("claims") or {}).get("primary_feature_maps") or {}
    if dataset in resolved:
        return resolved[dataset]
    from tgreedy_lib.experiments.inputs import resolve_feature_map  # the record does not say: the library's default

    return resolve_feature_map(feature_map, dataset)


def pair_signal(result: dict | None) -> float | None:
    """Mean held-out source AUROC of a similarity experiment's all-features fit, or ``None`` without one."""
    values = ((result or {}).get("all_features_reference") or {}).get("source_auroc")
    return round(float(np.mean(values)), 4) if values else None


