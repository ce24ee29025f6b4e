"""What notebooks 06-08 run on: the learned features of the DA paper's section 4 when cached, else raw pixels (07-08,
``info["pixels_instead"]``) or a short run of the network (06, ``info["short_run"]``), so that each runs in a minute.
"""
from __future__ import annotations

import dataclasses

from tgreedy_lib.experiments import load_experiment_features
from tgreedy_lib.experiments.inputs import resolve_feature_map

SHORT_EPOCHS = (3, 2, 3)   # per layer, notebook 06's short run of the MNIST network


def features_cached(dataset: str, feature_map: str = "learned", data_dir=None, cache_dir=None) -> bool:
    """Whether the learned features ``feature_map`` (seed 0) of ``dataset`` are cached; nothing is built.

    >>> import tempfile
    >>> features_cached("mnist", cache_dir=tempfile.mkdtemp())
    False
    """
    from tgreedy_lib.features import load_features
    kind = "patches" if resolve_feature_map(feature_map, dataset) == "conv" else "dbn"
    try:
        load_features(dataset, data_dir=data_dir, cache_dir=cache_dir, only_cached=True, probe=False, kind=kind)
    except LookupError:
        return False
    return True


def experiment_features(dataset: str, feature_map: str = "learned", *, build: bool = False, progress: bool = True,
                        data_dir=None, cache_dir=None):
    """Cached learned features (or built, with ``build``), else raw pixels, said in ``info["pixels_instead"]``.

    >>> import tempfile
    >>> features = experiment_features("mnist", cache_dir=tempfile.mkdtemp())
    >>> features.info["feature_map"], features.info["pixels_instead"].startswith("raw pixels replace")
    ('pixels', True)
    """
    if build or features_cached(dataset, feature_map, data_dir, cache_dir):
        features = load_experiment_features(dataset, feature_map, data_dir=data_dir, cache_dir=cache_dir,
                                            progress=progress)
        features.info["pixels_instead"] = None
        return features
    features = load_experiment_features(dataset, "pixels", data_dir=data_dir, cache_dir=cache_dir)
    features.info["pixels_instead"] = (
        f"raw pixels replace the {resolve_feature_map(feature_map, dataset)} features, which are not built on "
        f"this machine yet: every number below is about pixels, not the paper's features (set the flag at the top of "
        f"this cell to True to build them, a few minutes with progress bars, cached afterwards)")
    return features


def describe(features) -> str:
    """One line about the features a notebook runs on: data, scale, feature map, and what replaces them if anything.

    >>> import numpy as np
    >>> from tgreedy_lib.experiments import ExperimentFeatures
    >>> info = {"dataset": "mnist", "official": False, "feature_map": "pixels", "pixels_instead": "pixels replace them"}
    >>> describe(ExperimentFeatures(np.ones((4, 3)), np.arange(4), np.ones((2, 3)), np.arange(2), info))
    'mnist: 4 training / 2 test images, 3 pixels features, bundled images only (reduced scale). Note: pixels replace them.'
    """
    info = features.info
    scale = "official test set (the paper's scale)" if info.get("official") else "bundled images only (reduced scale)"
    line = (f"{info.get('dataset', '?')}: {len(features.train_features):,} training / {len(features.test_features):,} test "
            f"images, {features.train_features.shape[1]:,} {info.get('feature_map', '?')} features, {scale}")
    if source := (info.get("training_images") or {}).get("train_source"):
        line += f"; training images: {source}"
    note = info.get("pixels_instead") or info.get("short_run")
    return line + (f". Note: {note}." if note else ".")


def short_config(dataset: str = "mnist", unlabeled: bool = False):
    """The default network of ``dataset`` trained for :data:`SHORT_EPOCHS` epochs per layer (notebook 06's short run).

    >>> config = short_config()
    >>> config.layer_sizes, [t.epochs for t in config.training]
    ((784, 500, 500, 2000), [3, 2, 3])
    """
    from tgreedy_lib.features import default_config
    config = default_config(dataset, unlabeled=unlabeled)
    return config.replace(training=tuple(dataclasses.replace(t, epochs=e) for t, e in zip(config.training, SHORT_EPOCHS)))


def mnist_network(full: bool = False, progress: bool = True, data_dir=None, cache_dir=None):
    """Notebook 06's MNIST network: cached or with ``full`` the full run, else a short run (``info["short_run"]``)."""
    from tgreedy_lib.datasets import load_paper_dataset
    from tgreedy_lib.features import default_config, load_features
    if full or features_cached("mnist", "dbn", data_dir, cache_dir):
        network = load_features("mnist", data_dir=data_dir, cache_dir=cache_dir, progress=progress, probe=full)
        network.info["short_run"] = None
        return network
    unlabeled = load_paper_dataset("mnist", data_dir, cache_dir=cache_dir).unlabeled_images is not None
    network = load_features("mnist", data_dir=data_dir, cache_dir=cache_dir, config=short_config("mnist", unlabeled),
                            progress=progress, probe=False)
    full_epochs = [t.epochs for t in default_config("mnist", unlabeled=unlabeled).training]
    network.info["short_run"] = (
        f"a short run: {', '.join(map(str, SHORT_EPOCHS))} epochs per layer instead of "
        f"{', '.join(map(str, full_epochs))}, because the full network is not built on this machine yet "
        f"(set the flag at the top of this cell to True to train it, with progress bars; cached afterwards)")
    return network


def quick_probe(feature_set) -> dict:
    """:func:`tgreedy_lib.features.probe_report`'s linear probe stopped early (seconds; within a point or so)."""
    from threadpoolctl import threadpool_limits

    from tgreedy_lib.features import PROBE_REGULARIZATION, dbn_inputs, linear_probe
    regularization = PROBE_REGULARIZATION[feature_set.info["dataset"]]
    fit = dict(max_iter=100, tol=1e-3)
    with threadpool_limits(1):  # small fits: extra BLAS threads only spin on a shared machine
        features = linear_probe(feature_set.train_features, feature_set.train_labels, feature_set.test_features,
                                feature_set.test_labels, regularization, **fit)
        pixels = linear_probe(dbn_inputs(feature_set.train_images), feature_set.train_labels,
                              dbn_inputs(feature_set.test_images), feature_set.test_labels, regularization, **fit)
    return {"dataset": feature_set.info["dataset"], "C": regularization, "dbn_features": features,
            "raw_pixels": pixels, "gain": round(features["test_accuracy"] - pixels["test_accuracy"], 4), "quick": True}


CIFAR_REPRESENTATIONS = {"pixels": "raw pixels", "random": "random sigmoid units of the pixels (nothing learnt)",
                         "dbn": "whole-image DBN", "conv": "convolutional patch features"}


def kept_probes(dataset: str = "cifar10", reference: dict | None = None) -> dict:
    """Per feature map of ``dataset``, the kept reference results' linear probe test accuracy and held-out source
    AUROC of the similarity on all its features, a value a seed (empty if none are kept).

    >>> kept = kept_probes("cifar10", {"claims": {"probe_accuracy": {"dbn": {"cifar10": [0.4, 0.41], "mnist": [0.97]},
    ...     "conv": {"mnist": [None]}}, "pair_signal": {"dbn": {"cifar10": [0.5, 0.51]}}}})
    >>> kept
    {'dbn': {'probe': [0.4, 0.41], 'pair_signal': [0.5, 0.51]}}
    """
    from tgreedy_course.summary import claims_record
    claims, kept = claims_record(reference), {}
    for fmap, per_dataset in (claims.get("probe_accuracy") or {}).items():
        probe = [a for a in per_dataset.get(dataset) or [] if a is not None]
        signal = [a for a in ((claims.get("pair_signal") or {}).get(fmap) or {}).get(dataset) or [] if a is not None]
        if probe or signal:
            kept[fmap] = {"probe": probe, "pair_signal": signal}
    return kept


def cifar_probes(patches=None, dbn=None, reference: dict | None = None) -> dict:
    """Notebook 06's CIFAR-10 table, ``{map: {"name", "here", "kept_probe", "kept_signal"}}``: the linear probe
    computed here on the cached ``patches`` and ``dbn`` feature sets (or None), and what the kept results measured."""
    from tgreedy_lib.features import feature_probe
    kept = kept_probes("cifar10", reference)
    here, rows = {"dbn": dbn, "conv": patches}, {}
    for fmap, name in CIFAR_REPRESENTATIONS.items():
        computed = feature_probe(here[fmap])["test_accuracy"] if here.get(fmap) is not None else None
        if computed is not None or fmap in kept:
            rows[fmap] = {"name": name, "here": computed, "kept_probe": kept.get(fmap, {}).get("probe", []),
                          "kept_signal": kept.get(fmap, {}).get("pair_signal", [])}
    return rows


def paper_claim(measure: str, task: str, result: dict | None = None, reference: dict | None = None) -> dict:
    """The paper's claim that ``measure`` checks on ``task``: ``params``, ``rule``, ``here`` and ``values`` (its verdict
    on ``result`` and what the rule read), ``kept`` and ``seeds`` (over the kept results' seeds), None if not known.

    >>> claim = paper_claim("reliable_features", "mnist-similarity", reference={})
    >>> claim["params"]["expected"], claim["here"], claim["kept"]
    (25, None, None)
    """
    from tgreedy_course import claims
    from tgreedy_course.summary import claims_record
    found = [s for s in claims.CLAIMS if s.measure == measure and s.params.get("task") == task]
    if len(found) != 1:
        raise ValueError(f"{len(found)} claims have the measure {measure!r} on the task {task!r}; name one that has one")
    spec, here, values = found[0], None, None
    if result is not None:
        row = claims.evaluate_claim(spec, claims.comparison_view({task: result}))
        here, values = row["verdict"], row["values"]
    rows = claims_record(reference).get("comparisons", {}).get(claims.PAPER_COMPARISON, [])
    kept = next((r for r in rows if r["id"] == spec.id), None)
    return {"params": dict(spec.params), "rule": spec.rule.text(), "here": here, "values": values,
            "kept": kept["verdict"] if kept else None, "seeds": kept.get("seeds") if kept else None}


HELD_WORDS = {"reproduced": "Held", "partly": "Held in part", "not reproduced": "Did not hold",
              "unsettled": "The seeds disagree"}


def _in_short(row: dict) -> str:
    text = row.get("paper", "")
    if row.get("claim") and (text[:1].isdigit() or text.startswith("about ")):
        return f"\"{row['claim']}\""
    return text.replace(" >> ", " much larger than ").replace(" (Fig. 4)", "")


def what_held(tasks, reference: dict | None = None) -> str:
    """A Markdown box for the end of a page: what held of the paper's claims about ``tasks`` (keys of
    ``summary.DATA_GROUPS``) over the seeds of the course's saved full runs, and what did not (empty if none).

    >>> row = {"id": "fig2.t_higher", "verdict": "not reproduced", "paper": "|T| of T-greedy's picks above greedy's"}
    >>> print(what_held(["mnist-2-vs-other"], {"claims": {"seeds": 20, "comparisons": {"paper": [row]}}}))
    > **What held, and what did not**, over the 20 seeds of the course's full runs (the figures above are one run, one seed):
    >
    > * MNIST, '2' against each other digit (section 4.1):
    >   * Did not hold: |T| of T-greedy's picks above greedy's.
    >>> what_held(["mnist-2-vs-other"], {"claims": {"comparisons": {}}})
    ''
    """
    from tgreedy_course import claims, summary
    if unknown := [t for t in tasks if t not in summary.DATA_GROUPS]:
        raise ValueError(f"no experiment {unknown!r}; name keys of summary.DATA_GROUPS: {list(summary.DATA_GROUPS)}")
    record = summary.claims_record(reference)
    groups = summary.verdicts_by_data((record.get("comparisons") or {}).get(claims.PAPER_COMPARISON) or [])
    lines = []
    for task in tasks:
        label, section = summary.DATA_GROUPS[task][:2]
        if label in groups:
            lines.append(f"> * {label[:1].upper() + label[1:]} ({section}):")
            lines += [f">   * {HELD_WORDS.get(v, v)}: " + "; ".join(_in_short(r) for r in found) + "."
                      for v, found in groups[label].items()]
    if not lines:
        return ""
    seeds = f"{record['seeds']} " if record.get("seeds") else ""
    return "\n".join([f"> **What held, and what did not**, over the {seeds}seeds of the course's full runs "
                      "(the figures above are one run, one seed):", ">"] + lines)
