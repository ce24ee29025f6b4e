"""Results over several seeds and feature maps: claims with intervals and verdict counts, curves with bands.

A *seed* fixes everything random in one run of the reproduction: the feature learner (the DBN's
seed, or the random units'), the 1,000-a-class training subset, the balanced test domains and the
similarity pairs. :func:`claims_over_seeds` evaluates every claim once per seed and combines them
with :func:`tgreedy_course.claims.aggregate_seeds`; :func:`plot_seed_bands` draws the
split-averaged curves of Figure 4 as the mean over seeds with a 95 % t band.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import claims as claims_module
from tgreedy_lib.experiments.readings import COMPARISONS, PAPER_COMPARISON, comparison_pair

from tgreedy_lib.plotting.paper_figures import BAND_TASK_TITLES as TASK_TITLES


def claims_over_seeds(per_seed_results: Sequence[dict], comparison: str = PAPER_COMPARISON) -> list[dict]:
    """Every claim under ``comparison``, aggregated over seeds (one results dict per seed).

    With one seed the claims are returned as :func:`~tgreedy_course.claims.all_claims` gives them.
    """
    tables = [claims_module.all_claims(results, comparison) for results in per_seed_results]
    if len(tables) == 1:
        return tables[0]
    return claims_module.aggregate_seeds(tables)


#: Numbers of seeds at which :func:`convergence` counts the verdicts (those up to the seeds run).
CONVERGENCE_SIZES = (5, 10, 20)


def convergence(per_seed_results: Sequence[dict], sizes: Sequence[int] = CONVERGENCE_SIZES,
                comparison: str = PAPER_COMPARISON) -> dict:
    """How the on-average verdicts settle as seeds are added: the claims over the first ``k`` seeds, for each ``k``.

    Returns
    -------
    dict
        ``{k: {"counts": {verdict: number of claims}, "unsettled": [claim ids]}}`` for every ``k`` in
        ``sizes`` up to the number of seeds (and that number itself), keys as strings (JSON).

    Examples
    --------
    >>> convergence([{}] * 3, sizes=(5,))
    {}
    """
    n = len(per_seed_results)
    ks = sorted({k for k in sizes if 2 <= k <= n} | ({n} if n >= 2 and any(k <= n for k in sizes) else set()))
    if not ks:
        return {}
    tables = [claims_module.all_claims(results, comparison) for results in per_seed_results]
    out = {}
    for k in ks:
        rows = claims_module.aggregate_seeds(tables[:k])
        out[str(k)] = {"counts": claims_module.verdict_counts(rows),
                       "unsettled": [r["id"] for r in rows if r["verdict"] == claims_module.UNSETTLED]}
    return out


def convergence_markdown(table: dict) -> str:
    """:func:`convergence` as a Markdown table: a row per number of seeds, a column per verdict.

    Examples
    --------
    >>> print(convergence_markdown({"5": {"counts": {"reproduced": 2, "unsettled": 1}, "unsettled": ["a"]}}))
    | seeds | reproduced | partly | not reproduced | unsettled | unsettled claims |
    | --- | --- | --- | --- | --- | --- |
    | 5 | 2 | 0 | 0 | 1 | a |
    <BLANKLINE>
    """
    verdicts = (claims_module.REPRODUCED, claims_module.PARTLY, claims_module.NOT_REPRODUCED, claims_module.UNSETTLED)
    lines = ["| seeds | " + " | ".join(verdicts) + " | unsettled claims |", "| --- |" + " --- |" * (len(verdicts) + 1)]
    for k, entry in table.items():
        lines.append(f"| {k} | " + " | ".join(str(entry["counts"].get(v, 0)) for v in verdicts)
                     + f" | {', '.join(entry['unsettled']) or '-'} |")
    return "\n".join(lines) + "\n"


def comparison_tables(per_seed_results: Sequence[dict], comparisons: Sequence[str] = tuple(COMPARISONS)) -> dict:
    """``{comparison: claims_over_seeds(..., comparison)}``."""
    return {c: claims_over_seeds(per_seed_results, c) for c in comparisons}


#: The name of the primary feature map: each data set's default learned features
#: (:data:`tgreedy_lib.experiments.inputs.DEFAULT_FEATURE_MAP`).
LEARNED = "learned"
#: A feature-map table's cell where the map does not exist for the claim's data set(s) (conv on MNIST).
NOT_APPLICABLE = "n/a"


def _dataset_of(name: str, result: dict | None = None) -> str:
    from tgreedy_lib.experiments.catalog import DATASET_OF

    return DATASET_OF.get(name) or (result or {}).get("data", {}).get("dataset", "mnist")


def primary_runs(per_map: dict) -> tuple[str, list[dict]]:
    """The primary claims' feature map and its per-seed results.

    ``"learned"`` when it was run itself, or when every data set's default learned map
    (:data:`~tgreedy_lib.experiments.inputs.DEFAULT_FEATURE_MAP`: dbn for MNIST, conv for CIFAR-10)
    was run: then each seed's results take every experiment from its data set's default map (no
    experiment is run twice). Otherwise the first feature map.

    Examples
    --------
    >>> runs = {"dbn": [{"mnist-similarity": "m-dbn", "cifar-similarity": "c-dbn"}],
    ...         "conv": [{"cifar-similarity": "c-conv"}], "pixels": [{"mnist-similarity": "m-pix"}]}
    >>> primary_runs(runs)
    ('learned', [{'mnist-similarity': 'm-dbn', 'cifar-similarity': 'c-conv'}])
    >>> primary_runs({"pixels": runs["pixels"], "dbn": runs["dbn"]})[0]
    'pixels'
    """
    from tgreedy_lib.experiments.inputs import DEFAULT_FEATURE_MAP

    if LEARNED in per_map:
        return LEARNED, per_map[LEARNED]
    first = next(iter(per_map))
    datasets = {_dataset_of(name) for runs in per_map.values() for results in runs for name in results}
    needed = {DEFAULT_FEATURE_MAP.get(ds) for ds in datasets}
    if not datasets or not needed <= set(per_map):
        return first, per_map[first]
    from tgreedy_lib.experiments.catalog import EXPERIMENTS

    composed = []
    for s in range(max(len(per_map[fmap]) for fmap in needed)):  # a seed one map lacks leaves its claims not run
        merged = {}
        for fmap in needed:
            for name, result in (per_map[fmap][s] if s < len(per_map[fmap]) else {}).items():
                if DEFAULT_FEATURE_MAP.get(_dataset_of(name, result)) == fmap:
                    merged[name] = result
        order = {name: i for i, name in enumerate(EXPERIMENTS)}
        composed.append(dict(sorted(merged.items(), key=lambda item: order.get(item[0], len(order)))))
    return LEARNED, composed


def mark_not_applicable(table: list[dict], feature_map: str) -> list[dict]:
    """``table`` with the verdict ``"n/a"`` for every claim none of whose experiments' data sets ``feature_map`` exists for."""
    from tgreedy_lib.experiments.inputs import feature_map_applies

    specs = {spec.id: spec for spec in claims_module.CLAIMS}
    out = []
    for row in table:
        spec = specs.get(row["id"])
        datasets = {_dataset_of(name) for name in spec.experiments} if spec else set()
        if datasets and not any(feature_map_applies(feature_map, ds) for ds in datasets):
            row = {**row, "verdict": NOT_APPLICABLE, "verdict_count": "",
                   "measured": f"the {feature_map} features do not exist for {', '.join(sorted(datasets))}",
                   "seeds": None}
        out.append(row)
    return out


def feature_builds_of(per_map: dict) -> dict:
    """``{feature map: {data set: number of distinct feature builds}}`` read from the results' ``data`` blocks.

    A build is a distinct ``feature_seed`` (learnt features) or ``random_seed`` (random units); raw
    pixels have no learner and count 0.
    """
    out: dict = {}
    for fmap, runs in per_map.items():
        seen: dict = {}
        for results in runs:
            for name, result in results.items():
                data = result.get("data", {}) if isinstance(result, dict) else {}
                ds = data.get("dataset") or _dataset_of(name)
                seed = data.get("feature_seed", data.get("random_seed"))
                seen.setdefault(ds, set())
                if seed is not None:
                    seen[ds].add((data.get("feature_map"), seed))
        out[fmap] = {ds: len(seeds) for ds, seeds in sorted(seen.items())}
    return out


def seed_counts_text(seeds_per_map: dict) -> str:
    """How many seeds each feature map ran, in one sentence (maps with the same count together).

    Examples
    --------
    >>> seed_counts_text({"dbn": 20, "conv": 20, "pixels": 5, "random": 5})
    'Seeds per feature map: dbn and conv at 20 seeds, pixels and random at 5 seeds.'
    >>> seed_counts_text({"dbn": 5, "pixels": 5})
    'Seeds per feature map: every map at 5 seeds.'
    """
    groups: dict = {}
    for fmap, n in seeds_per_map.items():
        groups.setdefault(n, []).append(fmap)
    if len(groups) == 1:
        return f"Seeds per feature map: every map at {next(iter(groups))} seed{'s' if next(iter(groups)) != 1 else ''}."

    def names(maps):
        return maps[0] if len(maps) == 1 else ", ".join(maps[:-1]) + " and " + maps[-1]
    return "Seeds per feature map: " + ", ".join(f"{names(maps)} at {n} seed{'s' if n != 1 else ''}"
                                                for n, maps in groups.items()) + "."


def builds_text(builds: dict) -> str:
    """``"dbn: mnist 5, cifar10 1; conv: cifar10 5"`` (``"no learner"`` for counts of 0)."""
    parts = []
    for fmap, per_dataset in builds.items():
        inner = ", ".join(f"{ds} {n}" for ds, n in per_dataset.items() if n)
        parts.append(f"{fmap}: {inner or 'no learner'}")
    return "; ".join(parts)


def seed_curves(per_seed_results: Sequence[dict], task: str, reading: str, metric: str) -> np.ndarray:
    """The split-averaged curve of ``reading`` per seed, (n_seeds, n_steps); seeds without the task are left out."""
    rows = []
    for results in per_seed_results:
        result = results.get(task)
        if result and reading in result.get("curves", {}):
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
    half = claims_module.t_quantile_975(curves.shape[0] - 1) * curves.std(axis=0, ddof=1) / np.sqrt(curves.shape[0])
    return mean, mean - half, mean + half


def band_summary(per_seed_results: Sequence[dict], readings: Sequence[str] | None = None) -> dict:
    """The split-averaged curves over seeds, compact: ``{task: {reading: {metric: {mean, lo, hi}}}}`` plus ``seeds``.

    ``lo`` and ``hi`` bound the 95 % t interval of the mean over seeds at each step. Small enough to
    commit as reference results and to draw without the per-seed files (:func:`plot_band_summary`).
    """
    out = {"seeds": len(per_seed_results), "tasks": {}}
    for task in TASK_TITLES:
        if not any(r.get(task) for r in per_seed_results):
            continue
        present = [r[task] for r in per_seed_results if r.get(task)]
        names = readings or [n for n in present[0]["curves"] if all(n in p["curves"] for p in present)]
        out["tasks"][task] = {}
        for name in names:
            entry = {}
            for metric in ("source_auroc", "target_auroc"):
                mean, lo, hi = band(seed_curves(per_seed_results, task, name, metric))
                entry[metric] = {k: [round(float(v), 5) for v in arr] for k, arr in
                                 (("mean", mean), ("lo", lo), ("hi", hi))}
            entry["n_seeds"] = len(present)
            out["tasks"][task][name] = entry
    return out


def plot_band_summary(summary: dict, comparison: str = PAPER_COMPARISON, axes=None, tasks: Sequence[str] | None = None):
    """Draw a :func:`band_summary`: per task, the comparison's two readings, source dashed and target solid,
    mean over seeds with its 95 % band (drawn by :func:`tgreedy_lib.plotting.paper_figures.plot_band_summary`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from tgreedy_lib.plotting.paper_figures import plot_band_summary as draw

    return draw(summary, comparison, axes, tasks)


def plot_seed_bands(per_seed_results: Sequence[dict], comparison: str = PAPER_COMPARISON, axes=None,
                    tasks: Sequence[str] | None = None):
    """Figure 4 over seeds from the per-seed results (see :func:`band_summary`, :func:`plot_band_summary`)."""
    return plot_band_summary(band_summary(per_seed_results, comparison_pair(comparison)), comparison, axes, tasks)


def read_seed_results(out_dir, order: Sequence[str] = ()) -> dict:
    """The per-seed results a ``reproduce --seeds N`` run wrote: ``{feature_map: [results of seed 0, 1, ...]}``.

    Feature maps named in ``order`` come first, in that order (the first is the primary one). The map
    folders may come from different runs (links to them in one folder) and hold different numbers of
    seeds; each must hold ``seed-0`` to ``seed-<n-1>``, every seed with the same experiments (a ValueError
    names the seeds or results missing).
    """
    import pathlib

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
    import json

    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is damaged ({error}); rerun that seed (reproduce --resume keeps the others) "
                         "or remove the file") from None


#: Committed reference results of ``reproduce --seeds N`` at paper scale (claims, bands, timings).
REFERENCE_DIR = __import__("pathlib").Path(__file__).resolve().parent / "reference_results"
#: The reference results :func:`load_reference` reads by default, first found: ``paper-scale`` (written by
#: ``python -m tgreedy_course reference``, primary claims on each data set's learned features).
REFERENCE_NAMES = ("paper-scale",)
#: The README's block of reference verdicts lies between these two lines.
README_MARKERS = ("<!-- reference-verdicts:begin -->", "<!-- reference-verdicts:end -->")
#: The files of a ``reproduce --seeds`` folder that make up reference results.
REFERENCE_FILES = ("claims.json", "claims.md", "bands.json", "timings.json")


def load_reference(name: str | None = None) -> dict | None:
    """The committed reference results ``name`` (``claims``, ``bands``, ``timings``), or None if absent.

    They were computed by ``python -m tgreedy_course reproduce --seeds N`` at paper scale; the
    ``claims.md`` beside them says how (seeds, feature builds, data, design). ``name=None``: the
    first of :data:`REFERENCE_NAMES` that is committed.
    """
    import json

    if name is None:
        name = next((n for n in REFERENCE_NAMES if (REFERENCE_DIR / n / "claims.json").is_file()), REFERENCE_NAMES[0])
    folder = REFERENCE_DIR / name
    if not (folder / "claims.json").is_file():
        return None
    out = {"claims": json.loads((folder / "claims.json").read_text())}
    for part in ("bands", "timings"):
        path = folder / f"{part}.json"
        out[part] = json.loads(path.read_text()) if path.is_file() else None
    return out


def pair_signal(result: dict | None) -> float | None:
    """How much pair signal a similarity experiment's features carry: the mean over its splits of the
    held-out source AUROC of the all-features fit (``all_features_reference``), or ``None`` without one.

    Examples
    --------
    >>> pair_signal({"all_features_reference": {"source_auroc": [0.6, 0.7], "target_auroc": [0.5, 0.5]}})
    0.65
    >>> pair_signal(None) is None
    True
    """
    reference = (result or {}).get("all_features_reference") or {}
    values = reference.get("source_auroc")
    return round(float(np.mean(values)), 4) if values else None


def _range_text(values, scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
    values = [scale * v for v in values if v is not None]
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return (low if low == high else f"{low}-{high}") + unit


def one_run_summary(claims: Sequence[dict]) -> str:
    """The one-run answers of a claims table in one clause: how many claims every run, no run and some runs reproduce.

    Examples
    --------
    >>> rows = [{"verdict": "reproduced", "seeds": {"verdicts": ["reproduced"] * 3}},
    ...         {"verdict": "not reproduced", "seeds": {"verdicts": ["partly", "not reproduced", "reproduced"]}},
    ...         {"verdict": "partly", "seeds": {"verdicts": ["partly"] * 3}}]
    >>> one_run_summary(rows)
    'every run reproduces 1 claim, some runs but not all 1, no run 1'
    """
    every = some = none = 0
    for claim in claims:
        rate = claims_module.claim_one_run(claim)
        if not rate or not rate.get("runs"):
            continue
        k = rate[claims_module.REPRODUCED]
        every, some, none = every + (k == rate["runs"]), some + (0 < k < rate["runs"]), none + (k == 0)
    return (f"every run reproduces {every} claim{'s' if every != 1 else ''}, some runs but not all {some}, "
            f"no run {none}")


def readme_verdicts(reference: dict) -> str:
    """The README's short verdict list, rendered from committed reference results (see ``load_reference``).

    Each claim gets both answers (on average, from the bootstrap over seeds; in one run, with its Wilson
    interval) under the paper's reading, then its on-average verdicts under the other readings; the
    headline counts, how the unsettled count falls with seeds and the counts per feature map follow,
    all computed from ``reference``.
    """
    ref = reference["claims"]
    primary = ref["primary_feature_map"]
    resolved = ref.get("primary_feature_maps") or {}
    label = f"{primary} features" + (" (" + ", ".join(f"{ds}: {m}" for ds, m in resolved.items()) + ")"
                                      if primary == LEARNED and resolved else "")
    lines = [f"Paper scale, {ref['seeds']} seeds, {label} ({_builds_text(ref)}). Each claim has two answers under "
             f"the paper's reading: *on average* (the rule on the means over seeds; it stands when at least "
             f"{100 * claims_module.SETTLED_SHARE:.0f} % of {claims_module.BOOTSTRAP_REPLICATES:,} bootstrap replicates "
             "over seeds give it, else *unsettled*) and *in one run* (how many of the seeds' own runs reproduce it, "
             "Wilson 95 % interval); then its on-average verdicts under |T| and stepwise greedy:", ""]
    comparisons = ref["comparisons"]
    for i, claim in enumerate(comparisons[PAPER_COMPARISON]):
        others = [comparisons[c][i]["verdict"] for c in comparisons if c != PAPER_COMPARISON]
        average, one_run = claims_module.claim_answers(claim)
        lines.append(f"- `{claim['id']}`: on average **{claim['verdict']}**{average[len(claim['verdict']):]}; "
                     f"in one run {one_run}; " + " / ".join(others))
    table = comparisons[PAPER_COMPARISON]
    counts = claims_module.verdict_counts(table)
    lines += ["", f"Counts under the paper's reading, on average over {ref['seeds']} seeds: "
              + claims_module.counts_text(counts) + f"; in one run, {one_run_summary(table)}."]
    convergence = ref.get("convergence") or {}
    if convergence:
        lines += ["", "Claims unsettled on average when the verdicts use only the first seeds of the run: " + ", ".join(
            f"{entry['counts'].get(claims_module.UNSETTLED, 0)} with {k} seeds" for k, entry in convergence.items()) + "."]
    probes, signal = ref.get("probe_accuracy") or {}, ref.get("pair_signal") or {}
    maps = [m for m in probes if not (m == LEARNED and m not in (ref.get("feature_maps") or {}) and len(probes) > 1)]
    measured = []
    for fmap in maps:
        for ds in ("mnist", "cifar10"):
            accs = [a for a in probes[fmap].get(ds, []) if a is not None]
            if not accs:
                continue
            auroc = [a for a in (signal.get(fmap) or {}).get(ds, []) if a is not None]
            measured.append(f"{fmap} on {ds} {_range_text(accs, 100, 1, ' %')}"
                            + (f" / {_range_text(auroc, 1, 3)}" if auroc else ""))
    if measured:
        lines += ["", "What the features carry, over the seeds (linear probe with C chosen on a validation split of "
                  "the training images / held-out source AUROC of the all-features similarity fit): "
                  + "; ".join(measured) + "."]
    by_map = ref.get("feature_map_counts") or {}
    per_map = map_seed_counts(ref)
    if len(by_map) > 1:
        lines += ["", "Under each feature map (the paper's reading, on average; the full table is in `claims.md`): "
                  + "; ".join(f"{m}" + (f" ({per_map[m]} seeds)" if m in per_map else "") + ": "
                              + claims_module.counts_text(c)
                              for m, c in by_map.items()) + "."]
    return "\n".join(lines)


def map_seed_counts(claims_record: dict) -> dict:
    """``{feature map: seeds it ran}`` of a ``claims.json`` record: its ``seeds_per_map``, or counted from the
    per-seed verdicts of each map's claims (records written before ``seeds_per_map``).

    Examples
    --------
    >>> map_seed_counts({"feature_maps": {"pixels": [{"verdict": "n/a", "seeds": None},
    ...                                              {"verdict": "partly", "seeds": {"verdicts": ["partly"] * 5}}]}})
    {'pixels': 5}
    """
    if claims_record.get("seeds_per_map"):
        return dict(claims_record["seeds_per_map"])
    out = {}
    for fmap, rows in (claims_record.get("feature_maps") or {}).items():
        found = [len(r["seeds"]["verdicts"]) for r in rows if isinstance(r.get("seeds"), dict) and r["seeds"].get("verdicts")]
        if found:
            out[fmap] = max(found)
    return out


def replace_readme_block(readme_text: str, block: str) -> str:
    """``readme_text`` with the lines between :data:`README_MARKERS` replaced by ``block``.

    Examples
    --------
    >>> text = "a\\n<!-- reference-verdicts:begin -->\\nold\\n<!-- reference-verdicts:end -->\\nb\\n"
    >>> print(replace_readme_block(text, "new"))
    a
    <!-- reference-verdicts:begin -->
    new
    <!-- reference-verdicts:end -->
    b
    <BLANKLINE>
    """
    begin, end = README_MARKERS
    if readme_text.count(begin) != 1 or readme_text.count(end) != 1 or readme_text.index(begin) > readme_text.index(end):
        raise ValueError(f"the README must hold the lines {begin} and {end} once each, in that order")
    head, rest = readme_text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{block.strip()}\n{end}{tail}"


def write_reference(results_dir, name: str = REFERENCE_NAMES[0], readme=None, reference_dir=None) -> list:
    """Make a ``reproduce --seeds N`` output folder the committed reference results, and quote it in the README.

    Copies :data:`REFERENCE_FILES` of ``results_dir`` (``claims.json`` must be there: the summary of a
    run with ``--seeds`` or several feature maps; ``python -m tgreedy_course reproduce`` writes it, and
    :func:`tgreedy_course.cli.summarize` rewrites it from the per-seed files) into
    ``reference_dir / name`` (default: :data:`REFERENCE_DIR`), then replaces the block between
    :data:`README_MARKERS` of ``readme`` (if given) by :func:`readme_verdicts` of the copy.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    import json
    import pathlib

    results_dir = pathlib.Path(results_dir)
    source = results_dir / "claims.json"
    if not source.is_file():
        raise FileNotFoundError(f"{source} is missing: pass the --out folder of `python -m tgreedy_course reproduce "
                                "--seeds N` (or run its summary first)")
    if "seeds" not in json.loads(source.read_text()) or "primary_feature_map" not in json.loads(source.read_text()):
        raise ValueError(f"{source} is not the summary of a run over seeds (no 'primary_feature_map'); "
                         "run `python -m tgreedy_course reproduce --seeds N` into that folder")
    folder = pathlib.Path(reference_dir or REFERENCE_DIR) / name
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    from tgreedy_lib.files import atomic_write_bytes, atomic_write_text

    for file in REFERENCE_FILES:
        if (results_dir / file).is_file():
            atomic_write_bytes(folder / file, (results_dir / file).read_bytes())
            written.append(folder / file)
    if readme is not None:
        readme = pathlib.Path(readme)
        out = {"claims": json.loads((folder / "claims.json").read_text())}
        atomic_write_text(readme, replace_readme_block(readme.read_text(), readme_verdicts(out)))
        written.append(readme)
    return written


def _builds_text(ref: dict) -> str:
    primary = ref["primary_feature_map"]
    per_dataset = (ref.get("feature_builds") or {}).get(primary)
    if per_dataset:
        return "feature builds: " + ", ".join(f"{ds} {n}" for ds, n in per_dataset.items())
    builds = set()
    for per_seed in ref.get("results_used", {}).get(primary, []):
        for data in per_seed.values():
            if data.get("feature_seed") is not None:
                builds.add(data["feature_seed"])
    return f"{len(builds) or 1} feature build(s)"
