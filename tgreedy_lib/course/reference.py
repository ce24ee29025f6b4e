"""What notebooks 06-08 read from the committed reference results, rendered as tables and numbers.

``python -m tgreedy_lib reproduce --seeds N --feature-maps ...`` writes ``claims.json``, ``bands.json``
and ``timings.json``; a paper-scale run is committed under ``tgreedy_lib/experiments/reference_results``
and read with :func:`tgreedy_lib.experiments.seeds.load_reference`. The functions here only *read*
that record (any feature maps, any seed counts it holds), so a notebook's sentence about the seeds,
the feature maps or the probes is computed from it, never typed in. Missing entries give ``None`` or
an empty table, never an error, so a notebook keeps running when the record's contents change.

Examples
--------
>>> ref = {"claims": {"seeds": 2, "primary_feature_map": "dbn",
...                   "feature_maps": {"dbn": [{"id": "a", "verdict": "reproduced"}]},
...                   "probe_accuracy": {"dbn": {"mnist": [0.97, 0.98]}}},
...        "bands": {"dbn": {"seeds": 2, "tasks": {"mnist-similarity": {"greedy": {"n_seeds": 2}}}}}}
>>> feature_maps(ref), map_for_task(ref, "mnist-similarity"), map_for_task(ref, "cifar-similarity")
(['dbn'], 'dbn', None)
"""
from __future__ import annotations

import math

__all__ = ["feature_maps", "map_for_task", "concrete_map", "task_seeds", "feature_map_verdicts", "probe_rows",
           "seed_sd", "compact_claims"]

#: The CIFAR-10 features a reference run may prefer over the paper's DBN (issue 13: the convolutional
#: patch features, when the record has them).
PREFERRED_FOR_CIFAR = ("conv",)


def feature_maps(reference: dict | None) -> list[str]:
    """The feature maps the reference ran, the primary one first.

    Examples
    --------
    >>> feature_maps({"claims": {"primary_feature_map": "dbn", "feature_maps": {"pixels": [], "dbn": []}}})
    ['dbn', 'pixels']
    >>> feature_maps(None)
    []

    See Also
    --------
    map_for_task : The map whose results a task's figure reads.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample Statistical
       Approach", AISTATS 2012, section 4 (the experiments the record reproduces).
    """
    if not reference:
        return []
    claims = reference.get("claims") or {}
    names = list(claims.get("feature_maps") or {}) or list(reference.get("bands") or {})
    primary = claims.get("primary_feature_map")
    return ([primary] if primary in names else []) + [n for n in names if n != primary]


def map_for_task(reference: dict | None, task: str) -> str | None:
    """The feature map whose seed bands the notebook draws for ``task`` (None if no map has it).

    The CIFAR-10 task prefers the convolutional patch features (:data:`PREFERRED_FOR_CIFAR`) when the
    record has them; otherwise the primary map, then any map that ran the task.

    Examples
    --------
    >>> ref = {"claims": {"primary_feature_map": "dbn", "feature_maps": {"dbn": [], "conv": []}},
    ...        "bands": {"dbn": {"tasks": {"cifar-similarity": {}, "mnist-similarity": {}}},
    ...                  "conv": {"tasks": {"cifar-similarity": {}}}}}
    >>> map_for_task(ref, "cifar-similarity"), map_for_task(ref, "mnist-similarity")
    ('conv', 'dbn')

    See Also
    --------
    task_seeds : How many seeds ran the task under that map.

    References
    ----------
    .. [1] A. Coates, H. Lee and A. Y. Ng, "An Analysis of Single-Layer Networks in Unsupervised Feature
       Learning", AISTATS 2011 (the convolutional patch features).
    """
    bands = (reference or {}).get("bands") or {}
    having = [m for m in feature_maps(reference) if task in (bands.get(m) or {}).get("tasks", {})]
    if task.startswith("cifar"):
        for name in PREFERRED_FOR_CIFAR:
            if name in having:
                return name
    return having[0] if having else None


def concrete_map(reference: dict | None, feature_map: str | None, dataset: str) -> str | None:
    """The features ``feature_map`` stands for on ``dataset``: a record's ``"learned"`` map is the DBN on MNIST and
    the convolutional patch features on CIFAR-10 (as the record's ``primary_feature_maps`` says); others are themselves.

    Examples
    --------
    >>> ref = {"claims": {"primary_feature_maps": {"mnist": "dbn", "cifar10": "conv"}}}
    >>> concrete_map(ref, "learned", "cifar10"), concrete_map(ref, "pixels", "cifar10"), concrete_map(None, None, "mnist")
    ('conv', 'pixels', None)

    See Also
    --------
    map_for_task : Which map's results a task reads.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, AISTATS 2012, section 4 (the paper's DBN features).
    """
    if feature_map != "learned":
        return feature_map
    resolved = ((reference or {}).get("claims") or {}).get("primary_feature_maps") or {}
    if dataset in resolved:
        return resolved[dataset]
    from ..experiments.inputs import resolve_feature_map
    return resolve_feature_map(feature_map, dataset)


def task_seeds(reference: dict | None, task: str, feature_map: str | None = None) -> int | None:
    """Seeds behind the bands of ``task`` under ``feature_map`` (default :func:`map_for_task`).

    Examples
    --------
    >>> ref = {"bands": {"dbn": {"seeds": 5, "tasks": {"cifar-similarity": {"greedy": {"n_seeds": 1}}}}}}
    >>> task_seeds(ref, "cifar-similarity"), task_seeds(ref, "mnist-similarity")
    (1, None)

    See Also
    --------
    seed_sd : The spread over those seeds.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, AISTATS 2012, section 4.
    """
    feature_map = feature_map or map_for_task(reference, task)
    if feature_map is None:
        return None
    entry = ((reference or {}).get("bands") or {}).get(feature_map, {}).get("tasks", {}).get(task)
    if not entry:
        return None
    counts = [v.get("n_seeds") for v in entry.values() if isinstance(v, dict) and v.get("n_seeds") is not None]
    return int(min(counts)) if counts else None


def feature_map_verdicts(reference: dict | None, ids=None) -> tuple[list[str], list[list[str]]]:
    """The verdict of every claim under every feature map: ``(header, rows)`` for :func:`~tgreedy_lib.course.prose.show_table`.

    A cell is the verdict with its seed counts, reproduced/partly/not of the seeds run (``reproduced (5/0/0 of 5)``),
    or ``-`` where that map did not run the claim. ``ids`` keeps those claims, in the record's order.

    Examples
    --------
    >>> ref = {"claims": {"primary_feature_map": "dbn", "feature_maps": {
    ...     "dbn": [{"id": "a", "verdict": "reproduced", "seeds": {"counts": {"reproduced": 5}}}],
    ...     "pixels": [{"id": "a", "verdict": "unsettled", "seeds": {"counts": {"partly": 2, "not reproduced": 3}}},
    ...                {"id": "b", "verdict": "partly"}]}}}
    >>> feature_map_verdicts(ref)
    (['claim', 'dbn', 'pixels'], [['a', 'reproduced (5/0/0 of 5)', 'unsettled (0/2/3 of 5)'], ['b', '-', 'partly']])

    See Also
    --------
    tgreedy_lib.experiments.claims.verdict_matrix_markdown : The same for tables of equal length.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, AISTATS 2012, sections 1, 4 and 5 (the claims).
    """
    names = feature_maps(reference)
    by_map = {m: {c["id"]: c for c in ((reference or {}).get("claims") or {}).get("feature_maps", {}).get(m, [])}
              for m in names}
    order = []
    for m in names:
        order += [cid for cid in by_map[m] if cid not in order]
    if ids is not None:
        order = [cid for cid in order if cid in set(ids)]
    rows = []
    for cid in order:
        cells = []
        for m in names:
            claim = by_map[m].get(cid)
            if claim is None:
                cells.append("-")
            else:
                cells.append(claim["verdict"] + _counts(claim))
        rows.append([cid] + cells)
    return ["claim"] + names, rows


def _counts(claim: dict) -> str:
    counts = (claim.get("seeds") or {}).get("counts") if isinstance(claim.get("seeds"), dict) else None
    if not counts:
        return f" ({claim['verdict_count']})" if claim.get("verdict_count") else ""
    ran = sum(v for k, v in counts.items() if k != "not run")
    return " (" + "/".join(str(counts.get(k, 0)) for k in ("reproduced", "partly", "not reproduced")) + f" of {ran})"


def probe_rows(reference: dict | None) -> list[list]:
    """``[feature map, data set, mean linear-probe accuracy, seeds with a probe]`` for every recorded probe.

    Examples
    --------
    >>> probe_rows({"claims": {"primary_feature_map": "dbn",
    ...             "probe_accuracy": {"dbn": {"mnist": [0.97, 0.98], "cifar10": [0.4, None]}}}})
    [['dbn', 'mnist', 0.975, 2], ['dbn', 'cifar10', 0.4, 1]]

    See Also
    --------
    feature_map_verdicts : The claims under the same maps.

    References
    ----------
    .. [1] G. Alain and Y. Bengio, "Understanding intermediate layers using linear classifier probes",
       arXiv:1610.01644, 2016 (the linear probe).
    """
    probes = ((reference or {}).get("claims") or {}).get("probe_accuracy") or {}
    rows = []
    for m in [n for n in feature_maps(reference) if n in probes] + [n for n in probes if n not in feature_maps(reference)]:
        for dataset, values in (probes.get(m) or {}).items():
            values = [float(v) for v in (values if isinstance(values, list) else [values]) if v is not None]
            if values:
                rows.append([m, dataset, round(sum(values) / len(values), 6), len(values)])
    return rows


def seed_sd(curve: dict, n_seeds: int) -> list[float] | None:
    """Standard deviation over seeds, per step, backed out of a band's 95 % t interval of the mean.

    A band stores ``mean``, ``lo`` and ``hi = mean + t_{0.975, n-1} s / sqrt(n)``; this returns ``s``
    (None for fewer than two seeds, where there is no spread to speak of).

    Examples
    --------
    >>> seed_sd({"mean": [0.5], "lo": [0.4], "hi": [0.6]}, 5)  # t_{0.975,4} = 2.776
    [0.0805...]

    See Also
    --------
    tgreedy_lib.experiments.seeds.band : How the band was made.

    References
    ----------
    .. [1] Student, "The probable error of a mean", Biometrika 6 (1908) (the t interval).
    """
    from ..experiments.claims import t_quantile_975

    if n_seeds is None or n_seeds < 2:
        return None
    scale = math.sqrt(n_seeds) / t_quantile_975(n_seeds - 1)
    return [(hi - lo) / 2 * scale for lo, hi in zip(curve["lo"], curve["hi"])]


def compact_claims(claims: list[dict]) -> str:
    """Claims as a four-column Markdown table (id, the paper, measured, verdict), the quotes and rules in a collapsible block.

    The full seven-column table of :func:`tgreedy_lib.experiments.claims.claims_markdown` is too wide
    to read in a notebook; here each row keeps what a reader compares, and the quote and the rule that
    decided follow below the table, one line per claim. Pipes are escaped.

    Examples
    --------
    >>> print(compact_claims([{"id": "fig2.t_higher", "section": "4.1", "figure": "2", "claim": "T is higher",
    ...     "paper": "|T| of T-greedy above greedy's", "measured": "share 0.07", "verdict": "not reproduced",
    ...     "rule": "reproduced if share >= 0.75"}]))
    | claim | the paper | measured | verdict |
    |---|---|---|---|
    | fig2.t_higher | \\|T\\| of T-greedy above greedy's | share 0.07 | **not reproduced** |
    <BLANKLINE>
    <details><summary>the paper's words and the rule behind each verdict</summary>
    <BLANKLINE>
    * `fig2.t_higher` (section 4.1, figure 2): "T is higher"; rule: reproduced if share >= 0.75
    <BLANKLINE>
    </details>

    See Also
    --------
    tgreedy_lib.experiments.claims.claims_markdown : Every column, for claims.md.

    References
    ----------
    .. [1] D. Foster, S. Kakade and R. Salakhutdinov, AISTATS 2012, sections 1, 4 and 5 (the claims).
    """
    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| claim | the paper | measured | verdict |", "|---|---|---|---|"]
    notes = []
    for c in claims:
        verdict = f"**{c['verdict']}**" + (f" ({c['verdict_count']})" if c.get("verdict_count") else "")
        lines.append("| " + " | ".join(cell(x) for x in (c["id"], c["paper"], c["measured"], verdict)) + " |")
        notes.append(f"* `{c['id']}` (section {c['section']}, figure {c['figure']}): \"{c['claim']}\"; rule: {c['rule']}")
    return ("\n".join(lines) + "\n\n<details><summary>the paper's words and the rule behind each verdict</summary>\n\n"
            + "\n".join(notes) + "\n\n</details>")
