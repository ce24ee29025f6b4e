"""``python -m tgreedy_course reproduce`` and ``reference``: run the paper's experiments (by name, from
:mod:`tgreedy_lib.experiments.catalog`), write JSON, figures and the claims table; make a paper-scale run
the committed reference results.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

from tgreedy_lib import files
from .subcommand import check_outputs, parse_and_run
from . import claims as claims_module
from . import seeds
# QUICK and PAPER are the catalog's own dicts: ``cli.QUICK`` and ``catalog.QUICK`` are one object.
from tgreedy_lib.experiments.catalog import (DATASET_OF, DESIGNS, EXPERIMENTS, PAPER, QUICK, read_result,  # noqa: F401
                                  read_results, run_experiment, write_json)
from tgreedy_lib.experiments.design import Design
from tgreedy_lib.experiments import inputs
from tgreedy_lib.experiments.inputs import ExperimentFeatures, FeatureMapNotApplicable, load_experiment_features
from tgreedy_lib.experiments.readings import ALL_READINGS, COMPARISON_LABELS, COMPARISONS, PAPER_COMPARISON, PAPER_READINGS, reading_json


def _result_folders(out_dir: pathlib.Path) -> list[pathlib.Path]:
    """The folder of a one-seed run and the ``<map>/seed-<k>`` folders of a ``--seeds`` run."""
    return [out_dir] + sorted(p for p in out_dir.glob("*/seed-*") if p.is_dir())


def _report_damaged(out_dir: pathlib.Path, requested) -> None:
    """Remove the temporary files of killed writers and name every damaged result, before any work."""
    for folder in _result_folders(out_dir):
        files.remove_leftovers(folder)
        for name in EXPERIMENTS:
            path = folder / f"{name}.json"
            if not path.is_file():
                continue
            try:
                read_result(path)
            except ValueError as error:
                fate = "it is rerun now" if name in requested else "it is left out of the figures and claims"
                print(f"warning: {str(error).split('; rerun')[0]}: {fate}", file=sys.stderr)


def _finished_result(path: pathlib.Path, name: str, feature_map: str, seed: int, feature_seed: int, design: Design,
                     quick: bool) -> dict | None:
    """An earlier result that ``--resume`` keeps: intact, of the same experiment, settings, seed and feature map."""
    if not path.is_file():
        return None
    try:
        result = read_result(path)
    except ValueError:
        return None
    data = result.get("data") or {}
    recorded_seed = data.get("feature_seed", data.get("random_seed"))
    expected_map = inputs.resolve_feature_map(feature_map, DATASET_OF[name])
    same = (bool(result.get("quick")) == bool(quick) and result.get("design") == design.replace(seed=seed).as_json()
            and data.get("feature_map", expected_map) == expected_map
            and (recorded_seed is None or recorded_seed == feature_seed))
    return result if same else None


def _readings_text() -> str:
    return "".join(f"- `{name}`: {reading_json(name)['label']}. Reads: \"{reading_json(name)['quote']}\"\n"
                   for name in ALL_READINGS)


def write_outputs(results: dict, out_dir, figures: bool = True) -> list[pathlib.Path]:
    """Figures 1-4 (PNG and PDF, unless ``figures`` is false), ``claims.json`` and ``claims.md``.

    The claims are evaluated under the paper's reading (``claims``) and under every comparison of
    readings (``comparisons``); ``claims.md`` shows the first in full and all of them side by side.

    See Also
    --------
    run_experiment : The results it writes.
    tgreedy_lib.plotting.paper_figures.figure1 : The figures.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1 and 4.

    Examples
    --------
    >>> from tgreedy_lib.experiments import run_experiment
    >>> from tgreedy_course.cli import write_outputs
    >>> results = {"mnist-2-vs-other": run_experiment("mnist-2-vs-other", quick=True)}  # doctest: +SKIP
    >>> write_outputs(results, "results")  # doctest: +SKIP
    """
    out_dir = pathlib.Path(out_dir)
    written = write_figures(results, out_dir) if figures else []
    tables = claims_module.claims_by_comparison(results)
    table = tables[PAPER_COMPARISON]
    sources = {name: r.get("data", {}) for name, r in results.items()}
    designs = {name: r.get("design") for name, r in results.items() if r.get("design")}
    write_json(out_dir / "claims.json", {"claims": table, "counts": claims_module.verdict_counts(table),
                                         "comparisons": tables, "comparison_labels": COMPARISON_LABELS,
                                         "readings": {k: reading_json(k) for k in ALL_READINGS},
                                         "results_used": sources, "designs": designs, "seeds": 1})
    files.atomic_write_text(out_dir / "claims.md",
        "# The paper's claims against our measurements\n\n"
        "Generated by `python -m tgreedy_course reproduce` from the JSON results in this folder.\n\n"
        + "".join(f"- `{name}`: {_describe_data(data)}\n" for name, data in sources.items())
        + "".join(f"- design of `{name}`: {describe_design(d)}\n" for name, d in designs.items()) + "\n"
        + "## Under the paper's reading (signed T against stagewise greedy)\n\n"
        + claims_module.claims_markdown(table)
        + "\n## Verdicts under each reading\n\n" + _readings_text() + "\n"
        + claims_module.verdict_matrix_markdown(tables, COMPARISON_LABELS))
    return written + [out_dir / "claims.json", out_dir / "claims.md"]


def describe_design(design: dict | None) -> str:
    if not design:
        return "not recorded"
    train = "all training images found" if design.get("train_per_class") is None else \
        f"{design['train_per_class']:,} training images a class"
    target = "every test image of both classes" if design.get("target_per_class") is None else \
        f"{design['target_per_class']:,} + {design['target_per_class']:,} test images a '2 vs k' domain"
    return (f"{train}; {target}; {design.get('n_positive_pairs')} + {design.get('n_negative_pairs')} pairs a "
            f"similarity domain, negatives {design.get('negatives')}; seed {design.get('seed')}"
            + (" (the paper's design)" if design.get("matches_paper") else ""))


def _training_subsets_text(seed_data: list[dict]) -> str:
    """Whether the seeds' training images differ, per data set, read from the results' ``training_images``.

    Examples
    --------
    >>> one = lambda s: {"training_images": {"train_source": f"1,000 a class at random, seed {s}"}}
    >>> _training_subsets_text([{"mnist-similarity": one(0), "cifar-similarity": one(0)},
    ...                         {"mnist-similarity": one(1), "cifar-similarity": one(0)}])
    '; training images: mnist: its own subset each seed; cifar10: the same for every seed (1,000 a class at random, seed 0)'
    """
    sources: dict[str, set] = {}
    for results in seed_data:
        for name, data in results.items():
            source = (data.get("training_images") or {}).get("train_source")
            if source:
                sources.setdefault(DATASET_OF.get(name, name), set()).add(source)
    if not sources or len(seed_data) < 2:
        return ""
    return "; training images: " + "; ".join(
        f"{ds}: " + ("its own subset each seed" if len(found) > 1 else f"the same for every seed ({next(iter(found))})")
        for ds, found in sources.items())


#: How claims over seeds are called, in the words claims.md and notebook 11 print.
VERDICT_METHOD = (
    "Each claim gets two answers. *On average*: the claim's rule applied to the means over seeds of its measured "
    f"values; {claims_module.BOOTSTRAP_REPLICATES:,} bootstrap replicates over seeds (seeds drawn with replacement, "
    "the means recomputed, the rule applied) say how stable that verdict is: it stands when at least "
    f"{100 * claims_module.SETTLED_SHARE:.0f} % of the replicates give it, and the claim is *unsettled* otherwise. "
    "*In one run*: the share of seeds whose own run reproduces the claim, with a Wilson 95 % interval. "
    "Intervals of headline values: 95 % t intervals over seeds.")


def write_summary(per_map: dict, out_dir, figures: bool = True, timings: dict | None = None) -> list[pathlib.Path]:
    """``claims.json`` / ``claims.md`` over seeds and feature maps, and the seed-band figures.

    Parameters
    ----------
    per_map : dict
        Feature map name -> list (one per seed) of results dicts (experiment name -> result).

    Notes
    -----
    The primary claims table (``claims`` in the JSON, in full in the Markdown, under every reading)
    is :func:`tgreedy_course.seeds.primary_runs`: every experiment from its data set's
    learned features (``learned``: dbn for MNIST, conv for CIFAR-10) when those maps were run, else
    the first map. With more than one feature map, one feature-map table follows: a row per claim, a
    column per map run, the verdict with its seed counts, ``n/a`` where the map does not exist for
    the claim's data set.
    """
    out_dir = pathlib.Path(out_dir)
    primary, runs_of = seeds.primary_runs(per_map)
    with_primary = {primary: runs_of, **per_map} if primary not in per_map else per_map
    timings = {**(timings or {}), "stages_summed_over_seeds": _stages_summed_over_seeds(per_map)}
    payload = _summary_payload(per_map, primary, runs_of, with_primary, timings)
    write_json(out_dir / "claims.json", payload)
    files.atomic_write_text(out_dir / "claims.md", _summary_markdown(payload))
    write_json(out_dir / "bands.json", {fmap: seeds.band_summary(r) for fmap, r in with_primary.items()})
    write_json(out_dir / "timings.json", timings)
    written = [out_dir / "claims.json", out_dir / "claims.md", out_dir / "bands.json"]
    if figures:
        written += _write_band_figures(runs_of, out_dir)
    return written


def _stages_summed_over_seeds(per_map: dict) -> dict:
    """Seconds of each stage (statistics, selection ...) of each experiment, summed over its seeds, per map."""
    stages: dict = {}
    for fmap, runs in per_map.items():
        for results in runs:
            for name, r in results.items():
                into = stages.setdefault(fmap, {}).setdefault(name, {})
                for stage, sec in (r.get("timings") or {}).items():
                    into[stage] = round(into.get(stage, 0.0) + float(sec), 2)
    return stages


def _probe_accuracies(data: dict) -> dict:
    """The linear-probe accuracy of each seed's features, per map and data set (``None`` where not measured)."""
    return {fmap: {ds: [d.get(ds, {}).get("probe_accuracy") for d in [
        {DATASET_OF[n]: v for n, v in seed_data.items()} for seed_data in data[fmap]]]
        for ds in ("mnist", "cifar10")} for fmap in data}


def _pair_signals(with_primary: dict) -> dict:
    """:func:`tgreedy_course.seeds.pair_signal` of each seed's similarity run, per map and data set."""
    return {fmap: {ds: [seeds.pair_signal(results.get(name)) for results in runs]
                   for name, ds in (("mnist-similarity", "mnist"), ("cifar-similarity", "cifar10"))}
            for fmap, runs in with_primary.items()}


def _summary_payload(per_map: dict, primary: str, runs_of: list[dict], with_primary: dict, timings: dict) -> dict:
    """What ``claims.json`` holds over seeds: the primary claims under every reading, the claims of each feature map,
    the feature builds, probes, pair signals, designs, the data of every result used and the timings."""
    n_seeds = len(runs_of)
    tables = seeds.comparison_tables(runs_of)
    by_map = {fmap: seeds.mark_not_applicable(seeds.claims_over_seeds(r, PAPER_COMPARISON), fmap)
              for fmap, r in per_map.items()}
    data = {fmap: [{name: r.get("data", {}) for name, r in results.items()} for results in runs]
            for fmap, runs in with_primary.items()}
    probes = _probe_accuracies(data)
    signal = _pair_signals(with_primary)
    designs = sorted({json.dumps({k: v for k, v in r["design"].items() if k != "seed"}, sort_keys=True)
                      for results in runs_of for r in results.values() if r.get("design")})
    table = tables[PAPER_COMPARISON]
    builds = seeds.feature_builds_of(with_primary)
    seeds_per_map = {fmap: len(runs) for fmap, runs in with_primary.items()}
    return {"claims": table, "counts": claims_module.verdict_counts(table), "seeds": n_seeds,
            "seeds_per_map": seeds_per_map, "primary_feature_map": primary,
            "primary_feature_maps": {ds: inputs.resolve_feature_map(primary, ds) if primary == seeds.LEARNED
                                     else primary for ds in builds.get(primary, {})},
            "comparisons": tables, "comparison_labels": COMPARISON_LABELS,
            "feature_maps": by_map,
            "feature_map_counts": {m: claims_module.verdict_counts(t) for m, t in by_map.items()},
            "feature_builds": builds, "readings": {k: reading_json(k) for k in ALL_READINGS},
            "convergence": seeds.convergence(runs_of), "verdict_method": VERDICT_METHOD,
            "probe_accuracy": probes, "pair_signal": signal, "designs": [json.loads(d) for d in designs],
            "results_used": data, "timings": timings}


def _per_map_lines(label: str, values_of: dict, fmt) -> str:
    """One Markdown line per map with a value: ``label``, then each data set's per-seed values."""
    return "".join(
        f"- `{fmap}`: {label} " + "; ".join(
            f"{ds} " + ", ".join("-" if v is None else fmt(v) for v in values)
            for ds, values in values_of[fmap].items() if any(v is not None for v in values)) + "\n"
        for fmap in values_of if any(v is not None for values in values_of[fmap].values() for v in values))


def _primary_features_text(payload: dict) -> str:
    """Which features the primary claims use, in words."""
    primary = payload["primary_feature_map"]
    if primary != seeds.LEARNED:
        return f"{primary} features"
    return ("each experiment takes its data set's learned features: "
            + ", ".join(f"{ds} -> {m}" for ds, m in payload["primary_feature_maps"].items())
            + " (the DBN for MNIST, as the paper; for CIFAR-10 the convolutional patch features, of the kind "
            "of Krizhevsky 2009 that section 4 cites)")


def _summary_markdown(payload: dict) -> str:
    """``claims.md`` over seeds, rendered from the ``claims.json`` record :func:`_summary_payload` makes."""
    primary, n_seeds, seeds_per_map = payload["primary_feature_map"], payload["seeds"], payload["seeds_per_map"]
    data = payload["results_used"][primary]
    probe_lines = (_per_map_lines("linear probe", payload["probe_accuracy"], lambda a: f"{100 * a:.1f}%")
                   + _per_map_lines("pair signal (held-out source AUROC of the all-features similarity fit, mean "
                                    "over splits)", payload["pair_signal"], lambda a: f"{a:.3f}"))
    md = ("# The paper's claims against our measurements, over seeds\n\n"
          f"Generated by `python -m tgreedy_course reproduce --seeds {n_seeds}`. Each seed draws its own "
          "balanced test domains and pairs" + _training_subsets_text(data) + ". Primary claims: "
          + _primary_features_text(payload) + ". Feature builds (seed s uses "
          "build s mod K): " + seeds.builds_text(payload["feature_builds"]) + ". "
          + (seeds.seed_counts_text(seeds_per_map) + " " if len(set(seeds_per_map.values())) > 1 else "")
          + VERDICT_METHOD + "\n\n"
          + "".join(f"- design: {describe_design({**d, 'seed': f'0-{n_seeds - 1}'})}\n" for d in payload["designs"])
          + "".join(f"- `{name}` ({primary}, seed 0): {_describe_data(d)}\n" for name, d in data[0].items())
          + probe_lines
          + f"\n## Under the paper's reading (signed T against stagewise greedy), {primary} features\n\n"
          + claims_module.claims_markdown(payload["claims"])
          + f"\n## Verdicts under each reading ({primary} features; each cell: the verdict on average, then how many "
            "of the seeds' own runs reproduce the claim)\n\n"
          + _readings_text() + "\n" + claims_module.verdict_matrix_markdown(payload["comparisons"], COMPARISON_LABELS))
    if len(payload["feature_maps"]) > 1:
        md += _feature_map_section(payload)
    if payload["convergence"]:
        md += ("\n## How the verdicts settle as seeds are added (the paper's reading, the first k seeds of this run)\n\n"
               + seeds.convergence_markdown(payload["convergence"]))
    return md


def _feature_map_section(payload: dict) -> str:
    """The section of ``claims.md`` that sets the verdicts of the feature maps run side by side."""
    maps_run, seeds_per_map = list(payload["feature_maps"]), payload["seeds_per_map"]
    return ("\n## Verdicts under each feature map (the paper's reading; each cell: the verdict on average, then how "
            "many of the map's runs reproduce the claim; n/a: the map does not exist for the claim's data set)\n\n"
            + seeds.seed_counts_text({fmap: seeds_per_map[fmap] for fmap in maps_run}) + "\n\n"
            + claims_module.verdict_matrix_markdown(payload["feature_maps"],
                                                    {fmap: f"{fmap} features, {seeds_per_map[fmap]} seeds"
                                                     for fmap in maps_run})
            + "\n" + "".join(f"- `{fmap}` ({seeds_per_map[fmap]} seeds): "
                              + claims_module.counts_text(payload["feature_map_counts"][fmap]) + "\n"
                              for fmap in maps_run))


def _write_band_figures(runs_of: list[dict], out_dir: pathlib.Path) -> list[pathlib.Path]:
    """The seed-band figure of each comparison of readings (PNG and PDF) for the primary claims' runs."""
    import matplotlib.pyplot as plt

    from tgreedy_lib.plotting import paper_figures as figures_module

    written = []
    summary = seeds.band_summary(runs_of)
    for comparison in COMPARISONS:
        fig = seeds.plot_band_summary(summary, comparison)
        written += figures_module.save_figure(fig, out_dir, f"figure4-seeds-{comparison}")
        plt.close(fig)
    return written


def _paper_pair(result: dict):
    """The paper's two readings when the result has them (Figures 2-4 draw those), else every selector in it."""
    return PAPER_READINGS if all(m in result.get("curves", {}) for m in PAPER_READINGS) else None


def write_figures(results: dict, out_dir) -> list[pathlib.Path]:
    """Figures 1-4 as PNG and PDF for whichever results are present."""
    import matplotlib.pyplot as plt

    from tgreedy_lib.plotting import paper_figures as figures

    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    two = results.get("mnist-2-vs-other")
    if two:
        for name, draw in (("figure1", figures.figure1), ("figure2", figures.figure2)):
            fig = draw(two) if draw is figures.figure1 else draw(two, methods=_paper_pair(two))
            written += figures.save_figure(fig, out_dir, name)
            plt.close(fig)
    similarity = [results.get("mnist-similarity"), results.get("cifar-similarity")]
    if any(similarity):
        present = [r for r in similarity if r]
        fig = figures.figure3(present, methods=_paper_pair(present[0]))
        written += figures.save_figure(fig, out_dir, "figure3")
        plt.close(fig)
    tasks = [results.get(n) for n in ("mnist-2-vs-other", "mnist-similarity", "cifar-similarity")]
    if any(tasks):
        present = [r for r in tasks if r]
        fig = figures.figure4(present, methods=_paper_pair(present[0]))
        written += figures.save_figure(fig, out_dir, "figure4")
        plt.close(fig)
    return written


def _describe_data(data: dict) -> str:
    scale = "official test set (paper scale)" if data.get("official") else "bundled data only (reduced scale)"
    text = (f"{data.get('dataset', '?')}, {data.get('feature_map', '?')} features ({data.get('n_features', '?')}), "
            f"{data.get('train_size', '?')} training / {data.get('test_size', '?')} test images, {scale}")
    training = data.get("training_images") or {}
    if training.get("train_source"):
        counts = training.get("train_class_counts") or []
        text += f"; training images: {training['train_source']}"
        if counts and not training.get("paper_training_set"):
            text += f" ({min(counts):,}-{max(counts):,} a class, not the paper's 1,000)"
    if data.get("probe_accuracy") is not None:
        text += f"; linear probe {100 * data['probe_accuracy']:.1f}%"
    return text


def summarize(out_dir, figures: bool = True) -> list[pathlib.Path]:
    """Rewrite ``claims.json``, ``claims.md``, ``bands.json`` and the band figures of a ``--seeds`` run
    from its per-seed JSON files (e.g. after the claims table changed)."""
    out_dir = pathlib.Path(out_dir)
    timings = None
    if (out_dir / "timings.json").is_file():
        try:
            timings = json.loads((out_dir / "timings.json").read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{out_dir / 'timings.json'} is damaged ({error}); remove it (only the order of the "
                             "feature maps and the timings come from it)") from None
    order = list((timings or {}).get("per_feature_map", {}))
    return write_summary(seeds.read_seed_results(out_dir, order), out_dir, figures=figures, timings=timings)


#: Probe accuracy per (feature map, data set, feature seed), measured once per feature build.
PROBES: dict = {}


def parse_feature_builds(text: str | None, feature_maps, seeds: int) -> dict:
    """``--feature-builds`` as ``{(feature map, data set or None): K}``: ``"dbn:cifar10=1,random=2"``.

    ``MAP=K`` sets every data set of a map, ``MAP:DATASET=K`` one of them (it wins over ``MAP=K``);
    each ``K`` must lie in 1..``seeds``.

    Examples
    --------
    >>> parse_feature_builds("dbn:cifar10=1,random=2", ["dbn", "random"], 5)
    {('dbn', 'cifar10'): 1, ('random', None): 2}
    """
    out: dict = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        target, sep, count = part.partition("=")
        feature_map, _, dataset = target.partition(":")
        if not sep or not count.strip().isdigit():
            raise ValueError(f"--feature-builds entry {part!r} is not MAP=K or MAP:DATASET=K (e.g. dbn:cifar10=1)")
        if feature_map not in feature_maps:
            raise ValueError(f"--feature-builds names {feature_map!r}, which is not among the feature maps run "
                             f"({', '.join(feature_maps)})")
        if dataset and dataset not in inputs.DATASETS:
            raise ValueError(f"--feature-builds names the data set {dataset!r}; choose from {', '.join(inputs.DATASETS)}")
        k = int(count)
        if not 1 <= k <= seeds:
            raise ValueError(f"--feature-builds {part!r}: K must be between 1 and --seeds ({seeds})")
        out[(feature_map, dataset or None)] = k
    return out


def feature_builds(args, feature_map: str, dataset: str) -> int:
    """How many independent feature builds ``feature_map`` gets on ``dataset``: seed s uses build s % K."""
    overrides = getattr(args, "feature_builds", None) or {}
    for key in ((feature_map, dataset), (feature_map, None)):
        if key in overrides:
            return overrides[key]
    return args.feature_seeds


def _run_one(requested, out_dir, feature_map, seed, design, args, explicit, timings) -> tuple[dict, int]:
    """Run the requested experiments for one feature map and one seed; write their JSON into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    features_of: dict[str, ExperimentFeatures | None] = {}
    feature_seconds: dict[str, float] = {}
    status = 0
    ran = {}
    tag = f"[{feature_map}, seed {seed}] " if (args.seeds > 1 or len(args.feature_maps) > 1) else ""
    for name in requested:
        dataset = DATASET_OF[name]
        if getattr(args, "resume", False):
            kept = _finished_result(out_dir / f"{name}.json", name, feature_map, seed,
                                    seed % feature_builds(args, feature_map, dataset), design, args.quick)
            if kept is not None:
                ran[name] = kept
                print(f"{tag}{name}: kept from the earlier run ({name}.json; --resume)")
                continue
        if dataset not in features_of:
            tick = time.perf_counter()
            try:
                feature_seed = seed % feature_builds(args, feature_map, dataset)
                features_of[dataset] = load_experiment_features(
                    dataset, feature_map, progress=sys.stdout.isatty(), train_per_class=design.train_per_class,
                    seed=feature_seed, design_seed=seed, probe=args.probe and seed == feature_seed)
                probe_key = (inputs.resolve_feature_map(feature_map, dataset), dataset, feature_seed)
                if seed == feature_seed and features_of[dataset].info.get("probe_accuracy") is not None:
                    PROBES[probe_key] = features_of[dataset].info["probe_accuracy"]
                elif probe_key in PROBES:  # the same feature build: its probe (on the first seed's training subset)
                    features_of[dataset].info["probe_accuracy"] = PROBES[probe_key]
            except NotImplementedError as error:
                features_of[dataset] = None
                print(f"{tag}{name}: skipped, {error}")
                if not isinstance(error, FeatureMapNotApplicable):   # a map that exists nowhere else is no failure
                    status = 1
            except FileNotFoundError as error:
                features_of[dataset] = None
                message = f"{tag}{name}: skipped, the {dataset} images are not available ({error})"
                print(message if explicit else message.split(" (")[0] + " -- set TGREEDY_DATA_DIR to a folder "
                      "holding them to run it")
                if explicit:
                    status = 1
            feature_seconds[dataset] = time.perf_counter() - tick
            timings.setdefault(f"features {dataset}", []).append(round(feature_seconds[dataset], 2))
            if features_of[dataset] is not None:
                info = features_of[dataset].info
                print(f"{tag}{dataset}: {_describe_data(info)}; features ready in {feature_seconds[dataset]:.1f} s")
        features = features_of[dataset]
        if features is None:
            continue
        print(f"{tag}{name}: running")
        result = run_experiment(name, features, quick=args.quick, progress=print if not tag else None,
                                design=design.replace(seed=seed))
        result.setdefault("timings", {})["features"] = round(feature_seconds.pop(dataset, 0.0), 3)
        timings.setdefault(name, []).append(result["seconds"])
        write_json(out_dir / f"{name}.json", result)
        ran[name] = result
        print(f"{tag}{name}: done in {result['seconds']:.1f} s -> {name}.json")
    return ran, status


def add_reference_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``python -m tgreedy_course reference``."""
    parser.description = ("Copy the summary of a paper-scale `reproduce --seeds N` run into "
                          "course/tgreedy_course/reference_results/NAME and rewrite the reference-verdicts block "
                          "of the book's claims page from it (maintainers).")
    parser.add_argument("results", help="the --out folder of `python -m tgreedy_course reproduce --seeds N ...`")
    parser.add_argument("--name", default=seeds.REFERENCE_NAMES[0],
                        help=f"reference results folder name (default: {seeds.REFERENCE_NAMES[0]})")
    parser.add_argument("--readme", default="book/_generated/reference-verdicts.md",
                        help="the page whose reference-verdicts block is rewritten (default: "
                             "book/_generated/reference-verdicts.md, shown on the book's claims page; '' for none)")
    parser.add_argument("--summarize", action="store_true",
                        help="first rewrite the folder's claims from its per-seed JSON files (cli.summarize)")


def run_reference(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``python -m tgreedy_course reference RESULTS``: make a paper-scale run the committed reference results.

    Maintainers only (``make reference``): copies ``claims.json``, ``claims.md``, ``bands.json`` and
    ``timings.json`` of a ``reproduce --seeds N`` output folder into
    ``course/tgreedy_course/reference_results/<name>/`` and rewrites the README's block of
    reference verdicts from them (:func:`tgreedy_course.seeds.write_reference`).
    """
    results = pathlib.Path(args.results)
    if not results.is_dir():
        parser.error(f"{results} is not a folder")
    status = check_outputs(parser.prog, folders={"the reference folder": seeds.REFERENCE_DIR / args.name,
                                                     "RESULTS (--summarize rewrites its summary)":
                                                         results if args.summarize else None},
                               existing_files={"--readme": args.readme or None})
    if status is not None:
        return status
    if args.summarize:
        summarize(results, figures=False)
    try:
        written = seeds.write_reference(results, args.name, readme=args.readme or None)
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))
    for path in written:
        print(f"wrote {path}")
    return 0


def reference_main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course reference") -> int:
    """``python -m tgreedy_course reference`` from Python: :func:`run_reference` on ``argv``."""
    return parse_and_run(add_reference_arguments, run_reference, argv, prog)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``python -m tgreedy_course reproduce``."""
    parser.description = (
        "Run the experiments of Foster, Kakade & Salakhutdinov (AISTATS 2012), sections 1 and 4, "
        "on learned features; write <experiment>.json, Figures 1-4 (PNG, PDF) and the "
        "claims table, under every reading of the selectors. Paper scale when TGREEDY_DATA_DIR holds "
        "the official data, bundled data otherwise. The primary claims use each data set's learned "
        "features: the deep belief network for MNIST (the paper's), the convolutional patch features "
        "for CIFAR-10 (of the kind of Krizhevsky 2009, which section 4 cites).")
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT",
                        help=f"any of {', '.join(EXPERIMENTS)} (default: all whose data are available)")
    parser.add_argument("--quick", action="store_true", help="fewer steps and splits (for CI)")
    parser.add_argument("--out", default="results", help="output folder (default: results)")
    parser.add_argument("--no-figures", action="store_true", help="write the JSON results and claims only")
    parser.add_argument("--features", choices=inputs.FEATURE_MAPS, default="learned",
                        help="feature map: learned (default: each data set's learned features, the DBN for MNIST "
                             "as the paper, the convolutional patch features for CIFAR-10), dbn (the deep belief "
                             "network for both), conv (CIFAR-10 only), or the nulls pixels / random")
    parser.add_argument("--feature-maps", default=None, metavar="MAP[,MAP...]",
                        help="several feature maps, e.g. dbn,conv,pixels,random: the claims under each in one "
                             "feature-map table ('n/a' where a map does not apply, e.g. conv on MNIST). The primary "
                             "claims table takes every experiment from its data set's learned features (dbn for "
                             "MNIST, conv for CIFAR-10) when those maps are run, else from the first map "
                             "(overrides --features)")
    parser.add_argument("--seeds", type=int, default=1,
                        help="independent repetitions (feature learner, training subset, test domains, pairs); "
                             "claims get per-seed values, a 95%% interval and verdict counts (default 1)")
    parser.add_argument("--feature-seeds", type=int, default=None, metavar="K",
                        help="independent feature builds: seed s uses feature seed s %% K (default: one build per "
                             "seed). K < N repeats the draws (training subset, test domains, pairs) on fewer "
                             "builds, when building features is the bottleneck; every JSON records both seeds")
    parser.add_argument("--feature-builds", default=None, metavar="MAP[:DATASET]=K[,...]",
                        help="per feature map (and data set) number of feature builds, overriding --feature-seeds, "
                             "e.g. dbn:cifar10=1 (the whole-image CIFAR-10 DBN takes 10+ minutes a build); "
                             "claims.json and claims.md record the builds of every map and data set")
    parser.add_argument("--design", choices=tuple(DESIGNS), default="paper",
                        help="paper (1,000 training images a class, balanced 1,000 + 1,000 test domains, random "
                             "negatives; default) or earlier (all bundled digits, every test image, stratified negatives)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the results an earlier (interrupted) run left in --out when they are intact and "
                             "were made with the same --quick, design, seed and feature map; run only the rest")
    parser.add_argument("--probe", action=argparse.BooleanOptionalAction, default=None,
                        help="measure the linear-probe accuracy of the features (default: yes unless --quick)")


def _check_arguments(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Check ``reproduce``'s arguments together (a usage error names the wrong one) and complete their defaults."""
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    args.feature_seeds = args.seeds if args.feature_seeds is None else args.feature_seeds
    if not 1 <= args.feature_seeds <= args.seeds:
        parser.error(f"--feature-seeds must be between 1 and --seeds ({args.seeds}), got {args.feature_seeds}")
    maps = [m.strip() for m in (args.feature_maps or args.features).split(",") if m.strip()]
    unknown_maps = [m for m in maps if m not in inputs.FEATURE_MAPS]
    if unknown_maps or not maps:
        parser.error(f"unknown feature map(s) {unknown_maps}; choose from {', '.join(inputs.FEATURE_MAPS)}")
    args.feature_maps = list(dict.fromkeys(maps))
    try:
        args.feature_builds = parse_feature_builds(args.feature_builds, args.feature_maps, args.seeds)
    except ValueError as error:
        parser.error(str(error))
    if args.probe is None:
        args.probe = not args.quick
    unknown = [e for e in args.experiments if e not in EXPERIMENTS]
    if unknown:
        parser.error(f"unknown experiment(s) {unknown}; choose from {', '.join(EXPERIMENTS)}")


def _run_every_seed(requested, out_dir: pathlib.Path, design: Design, args, explicit: bool, flat: bool):
    """Every requested experiment, for each feature map and seed: ``(per_map, timings, status)``."""
    status = 0
    timings: dict = {}
    per_map: dict = {}
    for feature_map in args.feature_maps:
        by_seed = {}
        timings_of_map = timings.setdefault(feature_map, {})
        # Seeds that build features first (the last of them first: seed 0's features are the ones notebooks
        # and CI build, so the most likely to be cached by the time they are needed), then the seeds reusing them.
        most_builds = max(feature_builds(args, feature_map, DATASET_OF[name]) for name in requested)
        for seed in sorted(range(args.seeds), key=lambda s: (s >= most_builds, -s)):
            folder = out_dir if flat else out_dir / feature_map / f"seed-{seed}"
            ran, code = _run_one(requested, folder, feature_map, seed, design, args, explicit, timings_of_map)
            status = max(status, code)
            by_seed[seed] = ran
        per_map[feature_map] = [by_seed[seed] for seed in range(args.seeds)]
    return per_map, timings, status


def _write_one_run(ran: dict, out_dir: pathlib.Path, figures: bool) -> None:
    """One seed, one feature map: figures and claims from this run's results and the intact earlier ones."""
    results = read_results(out_dir, skip_damaged=True)  # damaged ones were named at the start
    results.update(ran)
    if ran:
        earlier = sorted(set(results) - set(ran))
        if earlier:
            print(f"figures and claims also use the earlier results in the output folder: {', '.join(earlier)}")
        written = write_outputs(results, out_dir, figures=figures)
        print(f"wrote {len(written)} files (figures, claims.json, claims.md) into {out_dir.name}/")
        table = claims_module.all_claims(results)
        print("claims (paper's reading): " + ", ".join(
            f"{v} {k}" for k, v in claims_module.verdict_counts(table).items()))


def _write_over_seeds(per_map: dict, timings: dict, requested, out_dir: pathlib.Path, args, total: float) -> None:
    """Several seeds or feature maps: the timings, the claims over seeds and the seed-band figures."""
    builds = {fmap: {DATASET_OF[name]: feature_builds(args, fmap, DATASET_OF[name]) for name in requested}
              for fmap in args.feature_maps}
    summary = {"total_seconds": total, "per_feature_map": timings, "seeds": args.seeds,
               "feature_seeds": args.feature_seeds, "feature_builds": builds}
    write_json(out_dir / "timings.json", summary)
    written = write_summary(per_map, out_dir, figures=not args.no_figures, timings=summary)
    print(f"wrote {len(written)} files (claims.json, claims.md, seed-band figures) into {out_dir.name}/")
    counts = json.loads((out_dir / "claims.json").read_text())["counts"]
    print(f"claims over {args.seeds} seeds (paper's reading, on average): " + claims_module.counts_text(counts))


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``python -m tgreedy_course reproduce``: check the arguments and the output folder, run every experiment for
    each feature map and seed, then write the figures and claims (one run) or the claims over seeds.

    See Also
    --------
    run_experiment : One experiment from Python.
    """
    _check_arguments(args, parser)
    if "matplotlib.pyplot" not in sys.modules:
        import matplotlib

        matplotlib.use("Agg")  # files only, no window
    requested = list(dict.fromkeys(args.experiments)) or list(EXPERIMENTS)
    explicit = bool(args.experiments)
    design = DESIGNS[args.design]
    status = check_outputs(parser.prog, folders={"--out": args.out})  # before any work: never lose it at the end
    if status is not None:
        return status
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    _report_damaged(out_dir, requested)
    data_dir = os.environ.get("TGREEDY_DATA_DIR")
    flat = args.seeds == 1 and len(args.feature_maps) == 1
    print(f"reproduce: {', '.join(requested)}{' (quick)' if args.quick else ''}; "
          f"{'TGREEDY_DATA_DIR is set' if data_dir else 'TGREEDY_DATA_DIR is not set: bundled data only'}; "
          f"design {args.design}; feature map(s) {', '.join(args.feature_maps)}; {args.seeds} seed(s), "
          f"{args.feature_seeds} feature build(s) each")
    start = time.perf_counter()
    per_map, timings, status = _run_every_seed(requested, out_dir, design, args, explicit, flat)
    if flat:
        _write_one_run(per_map[args.feature_maps[0]][0], out_dir, figures=not args.no_figures)
    elif any(any(r) for runs_ in per_map.values() for r in runs_):
        _write_over_seeds(per_map, timings, requested, out_dir, args, round(time.perf_counter() - start, 1))
    print(f"total {time.perf_counter() - start:.1f} s")
    return status


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course reproduce") -> int:
    """``python -m tgreedy_course reproduce`` from Python; returns the exit code.

    ``python -m tgreedy_course`` parses every command with one parser (:mod:`tgreedy_course.__main__`) and calls
    :func:`run` or :func:`run_reference`. This function, for callers from Python, parses ``argv`` as
    ``reproduce`` does; :func:`reference_main` does the same for ``reference``.

    See Also
    --------
    run_experiment : The same from Python.

    Examples
    --------
    >>> from tgreedy_course.cli import main
    >>> main(["mnist-2-vs-other", "--quick", "--out", "results"])  # doctest: +SKIP
    """
    return parse_and_run(add_arguments, run, argv, prog)
