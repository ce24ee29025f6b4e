"""Which feature map's results notebook 08b reads from the committed reference record
(:func:`tgreedy_course.seeds.load_reference`); missing entries give ``None``, never an error.

Examples
--------
>>> ref = {"claims": {"primary_feature_map": "dbn", "feature_maps": {"dbn": [], "conv": []},
...                   "primary_feature_maps": {"mnist": "dbn", "cifar10": "conv"}},
...        "bands": {"dbn": {"tasks": {"cifar-similarity": {}, "mnist-similarity": {}}},
...                  "conv": {"tasks": {"cifar-similarity": {}}}}}
>>> feature_maps(ref), map_for_task(ref, "cifar-similarity"), map_for_task(ref, "mnist-similarity")
(['dbn', 'conv'], 'conv', 'dbn')
>>> concrete_map(ref, "learned", "cifar10"), concrete_map(ref, "pixels", "cifar10"), concrete_map(None, None, "mnist")
('conv', 'pixels', None)
"""
from __future__ import annotations


def feature_maps(reference: dict | None) -> list[str]:
    """The feature maps the reference ran, the primary one first."""
    if not reference:
        return []
    claims = reference.get("claims") or {}
    names = list(claims.get("feature_maps") or {}) or list(reference.get("bands") or {})
    primary = claims.get("primary_feature_map")
    return ([primary] if primary in names else []) + [n for n in names if n != primary]


def map_for_task(reference: dict | None, task: str) -> str | None:
    """The map whose bands notebook 08b draws for ``task``: conv for CIFAR-10 when present (the DBN's barely beat
    pixels), else the primary map, then any map that ran the task; None if none did."""
    bands = (reference or {}).get("bands") or {}
    having = [m for m in feature_maps(reference) if task in (bands.get(m) or {}).get("tasks", {})]
    if task.startswith("cifar") and "conv" in having:
        return "conv"
    return having[0] if having else None


def concrete_map(reference: dict | None, feature_map: str | None, dataset: str) -> str | None:
    """The features ``feature_map`` stands for on ``dataset`` (``"learned"``: the record's ``primary_feature_maps``)."""
    if feature_map != "learned":
        return feature_map
    resolved = ((reference or {}).get("claims") or {}).get("primary_feature_maps") or {}
    if dataset in resolved:
        return resolved[dataset]
    from tgreedy_lib.experiments.inputs import resolve_feature_map  # the record does not say: the library's default

    return resolve_feature_map(feature_map, dataset)
