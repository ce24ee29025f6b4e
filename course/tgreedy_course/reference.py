"""What notebooks 06-08 read from the committed reference results, rendered as tables and numbers.

``python -m tgreedy_course reproduce --seeds N --feature-maps ...`` writes ``claims.json``, ``bands.json``
and ``timings.json``; a paper-scale run is committed under ``course/tgreedy_course/reference_results``
and read with :func:`tgreedy_course.seeds.load_reference`. The functions here only *read*
that record (any feature maps, any seed counts it holds), so a notebook's sentence about the seeds,
the feature maps or the probes is computed from it, never typed in. Missing entries give ``None`` or
an empty table, never an error, so a notebook keeps running when the record's contents change.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.

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

from .prose import fmt, percent

__all__ = ["feature_maps", "map_for_task", "concrete_map", "task_seeds", "feature_map_verdicts", "map_seeds", "probe_rows",
           "seed_sd", "compact_claims", "claims_by_id", "verdict_groups", "two_vs_other_findings", "similarity_findings", "seed_findings",
           "reading_findings", "feature_map_findings"]

#: The CIFAR-10 features a reference run may prefer over the paper's DBN: the convolutional patch features,
#: when the record has them (the DBN's CIFAR-10 features barely beat raw pixels on a linear probe; notebook 06).
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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 4 (the experiments the record reproduces).
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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 4 (the paper's DBN features).
    """
    if feature_map != "learned":
        return feature_map
    resolved = ((reference or {}).get("claims") or {}).get("primary_feature_maps") or {}
    if dataset in resolved:
        return resolved[dataset]
    from tgreedy_lib.experiments.inputs import resolve_feature_map
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
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 4.
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
    """The verdict of every claim under every feature map: ``(header, rows)`` for :func:`~tgreedy_course.prose.show_table`.

    A cell gives both answers over the map's seeds: the verdict on average, then how many of the map's runs
    reproduce the claim (``reproduced (single runs: reproduced in all 20)``); ``-`` where that map did not run the claim. Each
    column names its map and how many seeds it ran (maps may differ). ``ids`` keeps those claims, in the
    record's order.

    Examples
    --------
    >>> ref = {"claims": {"primary_feature_map": "dbn", "seeds_per_map": {"dbn": 20, "pixels": 5}, "feature_maps": {
    ...     "dbn": [{"id": "a", "verdict": "reproduced", "seeds": {"verdicts": ["reproduced"] * 20}}],
    ...     "pixels": [{"id": "a", "verdict": "unsettled", "seeds": {"verdicts": ["partly"] * 2 + ["reproduced"] * 3}},
    ...                {"id": "b", "verdict": "partly"}]}}}
    >>> feature_map_verdicts(ref)
    (['claim', 'dbn (20 seeds)', 'pixels (5 seeds)'], [['a', 'reproduced (single runs: reproduced in all 20)', 'unsettled (single runs: reproduced in 3, partly in 2 of 5)'], ['b', '-', 'partly']])

    See Also
    --------
    tgreedy_course.summary.verdict_matrix_markdown : The same for tables of equal length.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1, 4 and 5 (the claims).
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
                cells.append(claim["verdict"] + _runs(claim))
        rows.append([cid] + cells)
    n_seeds = map_seeds(reference)
    return ["claim"] + [f"{m} ({n_seeds[m]} seeds)" if m in n_seeds else m for m in names], rows


def _runs(claim: dict) -> str:
    """`` (single runs: reproduced in 14, partly in 6 of 20)``: the verdicts of the seeds' own runs, each counted
    ("" for one run, n/a, not run)."""
    from .summary import claim_one_run, single_runs_text

    rate = claim_one_run(claim)
    if not rate or not rate.get("runs") or claim["verdict"] in ("n/a", "not run"):
        return ""
    return f" (single runs: {single_runs_text(rate)})"


def map_seeds(reference: dict | None) -> dict[str, int]:
    """``{feature map: seeds it ran}`` in the reference record (the maps may differ: e.g. nulls at fewer seeds).

    Examples
    --------
    >>> map_seeds({"claims": {"seeds_per_map": {"dbn": 20, "pixels": 5}}})
    {'dbn': 20, 'pixels': 5}
    >>> map_seeds(None)
    {}
    """
    from .seeds import map_seed_counts

    return map_seed_counts(((reference or {}).get("claims") or {}))


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
    tgreedy_course.seeds.band : How the band was made.

    References
    ----------
    .. [1] Student, "The probable error of a mean", Biometrika 6 (1908) (the t interval).
    """
    from .seeds import t_quantile_975

    if n_seeds is None or n_seeds < 2:
        return None
    scale = math.sqrt(n_seeds) / t_quantile_975(n_seeds - 1)
    return [(hi - lo) / 2 * scale for lo, hi in zip(curve["lo"], curve["hi"])]


def compact_claims(claims: list[dict]) -> str:
    """Claims as a four-column Markdown table (id, the paper, measured, verdict), the quotes and rules in a collapsible block.

    The full seven-column table of :func:`tgreedy_course.summary.claims_markdown` is too wide
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
    tgreedy_course.summary.claims_markdown : Every column, for claims.md.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1, 4 and 5 (the claims).
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


# --------------------------------------------------------------------------- findings in words
# Notebooks 07, 08 and 08b end with "What we saw": plain sentences that say what held and what did not, every
# number taken from a claim's computed values (this run's, or the committed reference run's), every verdict read.

def _pct(value: float) -> str:
    return fmt(value, digits=2, percent=True)


def _num(value: float, digits: int | None = None) -> str:
    """Counts as whole numbers, anything else with three decimals (or ``digits``)."""
    if digits is None and float(value).is_integer():
        return fmt(int(value))
    return fmt(value, digits=3 if digits is None else digits)


def _assertion(claim: dict) -> str:
    """What a claim asserts, with its data: the ``paper`` text, or the quote when that is only a number."""
    import re

    from .summary import claim_data

    what = claim["paper"] if len(re.findall(r"[A-Za-z]{2,}", claim.get("paper", ""))) >= 3 else f"\"{claim['claim']}\""
    data = claim_data(claim["id"])
    return f"{data}: {what}" if data else what


def claims_by_id(claims) -> dict[str, dict]:
    """``{claim id: claim}`` for a list of claim dicts, or for a reference record's paper comparison.

    Examples
    --------
    >>> claims_by_id([{"id": "a", "verdict": "reproduced"}])["a"]["verdict"]
    'reproduced'
    >>> claims_by_id({"claims": {"comparisons": {"paper": [{"id": "b"}]}}})
    {'b': {'id': 'b'}}
    >>> claims_by_id(None)
    {}
    """
    if claims is None:
        return {}
    if isinstance(claims, dict):
        claims = ((claims.get("claims") or {}).get("comparisons") or {}).get("paper") or []
    return {c["id"]: c for c in claims}


def _values(claims: dict, cid: str) -> dict | None:
    claim = claims.get(cid)
    if not claim or claim.get("verdict") in ("not run", "n/a"):
        return None
    return claim.get("values") or None


def _seed_values(claim: dict | None) -> list[float]:
    seeds = (claim or {}).get("seeds")
    return [float(v) for v in (seeds or {}).get("values") or [] if v is not None] if isinstance(seeds, dict) else []


def two_vs_other_findings(claims, reference: dict | None = None, runs_out_at: int | None = None) -> list[str]:
    """Notebook 07's "What we saw": the introduction's claim and section 4.1, in sentences, from the claims' values.

    Parameters
    ----------
    claims : list of dict
        This run's claims (:func:`tgreedy_course.claims.all_claims`), ids ``intro.*``, ``fig*`` and
        ``disc.variability``; a claim that is missing or not run gives no sentence.
    reference : dict, optional
        The committed reference record (:func:`tgreedy_course.seeds.load_reference`): adds how often,
        over its seeds, T-greedy's target AUROC beat greedy's.
    runs_out_at : int, optional
        The step from which no candidate had a positive T along the signed path (notebook 07, section 6).

    Returns
    -------
    list of str
        Markdown paragraphs, each starting with its finding in bold.

    See Also
    --------
    similarity_findings : The same for section 4.2 (notebook 08).
    seed_findings : Over the reference run's seeds (notebook 08b).

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 1, 4.1 and 5.

    Examples
    --------
    >>> claims = [{"id": "fig2.target_better", "verdict": "not reproduced",
    ...            "values": {"splits_won": 1, "splits": 9, "share_won": 1 / 9}},
    ...           {"id": "fig2.overfits_less", "verdict": "not reproduced",
    ...            "values": {"splits_won": 2, "splits": 9, "share_won": 2 / 9}}]
    >>> print(two_vs_other_findings(claims)[0])
    **T-greedy transfers worse than greedy in most splits.** Over the first 10 features its target AUROC is above greedy's in 1 of 9 splits, and its gap between held-out source and target is smaller in 2 of 9: the paper's "T-greedy overfits much less" does not hold here.
    """
    c = claims_by_id(claims)
    found = (_introduction_jump(c), _greedy_collapse(c), _transfer_by_split(c), _size_of_picks_t(c, runs_out_at),
             _splits_differ(c), _transfer_over_reference_seeds(reference))
    return [text for text in found if text is not None]


def _introduction_jump(c: dict) -> str | None:
    """Section 1: logistic regression's error on the odd digits it never saw against the even ones it rejects."""
    even, odd = _values(c, "intro.even"), _values(c, "intro.odd")
    if not (even and odd):
        return None
    size = ("smaller than" if odd["error_odd"] < 0.25 else "larger than" if odd["error_odd"] > 0.45 else "as large as")
    lead = (("is real, but " if size != "as large as" else "is real, and ") + size + " the paper's"
            if odd["error_odd"] >= 3 * even["error_even"] else "hardly shows here")
    return (f"**The introduction's jump {lead}.** Against the even digits it was trained to reject, logistic regression errs on "
            f"{_pct(even['error_even'])} of the test images (the paper: about 0.5 %); against the odd digits it never "
            f"saw, on {_pct(odd['error_odd'])} (the paper: 35 %), {odd['error_odd'] / max(even['error_even'], 1e-12):.0f} "
            "times as often (the paper: 70 times).")


def _greedy_collapse(c: dict) -> str | None:
    """Figure 2: whether greedy's target AUROC on '2 vs 9' falls to chance after a few features; Figure 1's peak."""
    near, peak = _values(c, "fig2.greedy_random"), _values(c, "fig1.degrades")
    if not near:
        return None
    collapses = near["lowest_3_to_5"] <= 0.6
    text = (f"**Greedy {'collapses' if collapses else 'does not collapse'} on the new digit.** On '2 vs 9' its target "
            f"AUROC is {_num(near['after_1'])} after one feature and {'falls to' if collapses else 'never below'} "
            f"{_num(near['lowest_3_to_5'])} over features 3-5, where the paper's Figure 2 shows it near chance (0.5).")
    if peak:
        text += (f" Averaged over the splits its target AUROC peaks after {peak['peak_step']} features at "
                 f"{_num(peak['peak'])} and ends at {_num(peak['final'])}.")
    return text


def _transfer_by_split(c: dict) -> str | None:
    """Figure 2: in how many splits T-greedy's target AUROC beats greedy's, and its source-target gap is smaller."""
    won, gaps = _values(c, "fig2.target_better"), _values(c, "fig2.overfits_less")
    if not won:
        return None
    share = won["share_won"]
    way = ("worse than greedy in most splits" if share < 0.5 else "better than greedy in most splits" if share > 0.5
           else "better than greedy in as many splits as worse")
    text = (f"**T-greedy transfers {way}.** Over the first 10 features its target AUROC is above greedy's in "
            f"{int(won['splits_won'])} of {int(won['splits'])} splits")
    if not gaps:
        return text + "."
    return text + (f", and its gap between held-out source and target is smaller in {int(gaps['splits_won'])} of "
                   f"{int(gaps['splits'])}: the paper's \"T-greedy overfits much less\" "
                   + ("does not hold here." if gaps["share_won"] < 0.5 else "holds in most splits here."))


def _size_of_picks_t(c: dict, runs_out_at: int | None) -> str | None:
    """Section 4.1: whether T-greedy's picks have a larger |T| than greedy's, and why not when they do not."""
    t_high = _values(c, "fig2.t_higher")
    if not t_high:
        return None
    smaller = t_high["median_tgreedy"] < t_high["median_greedy"]
    text = (f"**Its picks have a {'smaller' if smaller else 'larger'} |T| than greedy's** (median "
            f"{_num(t_high['median_tgreedy'], 2)} against {_num(t_high['median_greedy'], 2)})")
    if not smaller:
        return text + ", as the paper says."
    return text + (", although it maximises T: the signed rule runs out of positive T-statistics"
                   + (f" (from step {runs_out_at} on '2 vs 9')" if runs_out_at else "")
                   + " and then adds the features closest to T = 0.")


def _splits_differ(c: dict) -> str | None:
    """Section 5: the spread of the target AUROC across held-out digits against one domain's standard error."""
    spread = _values(c, "disc.variability")
    if not spread:
        return None
    ratio = spread["min_ratio"]
    return (f"**The splits differ {'much ' if ratio >= 3 else ''}more than one split's sampling error explains**: the "
            f"spread of the target AUROC across the held-out digits is at least {ratio:.1f} times the standard error of "
            "one domain's AUROC" + (", as section 5 of the paper says." if ratio >= 3 else "."))


def _transfer_over_reference_seeds(reference: dict | None) -> str | None:
    """Over the committed reference run's seeds: how often T-greedy's target AUROC beat greedy's."""
    shares = _seed_values(claims_by_id(reference).get("fig2.target_better"))
    if not shares:
        return None
    return (f"Over {len(shares)} seeds, each a fresh draw of the training images and test domains (notebook 08b), "
            f"T-greedy's target AUROC is above greedy's in {percent(sum(shares) / len(shares))} of the splits on average, in fewer than half of them "
            f"in {sum(s < 0.5 for s in shares)} of the {len(shares)} seeds.")


def similarity_findings(claims, below_chance: dict | None = None, all_features: dict | None = None,
                        seeds_vs_splits: float | None = None) -> list[str]:
    """Notebook 08's "What we saw": section 4.2 in sentences, from this run's claims and a few of its numbers.

    Parameters
    ----------
    claims : list of dict
        This run's MNIST similarity claims (ids ``mnist_sim.*``).
    below_chance : dict, optional
        ``{"greedy": n, "tgreedy-signed": n, "points": n}``: (held-out class, step) points with a target AUROC
        below 0.5, per selector, out of ``points``.
    all_features : dict, optional
        ``{data set name: {"all": target AUROC of all features together, "greedy": best mean target along greedy's
        path, "tgreedy-signed": the same for T-greedy}}``.
    seeds_vs_splits : float, optional
        Median ratio of the split-to-split standard error of the mean target AUROC to its spread over seeds.

    Returns
    -------
    list of str

    See Also
    --------
    two_vs_other_findings : The same for section 4.1 (notebook 07).

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), sections 4.2 and 5.

    Examples
    --------
    >>> claims = [{"id": "mnist_sim.overfits_less", "verdict": "reproduced",
    ...            "values": {"tgreedy_gap": -0.004, "greedy_gap": 0.221}}]
    >>> print(similarity_findings(claims, all_features={"MNIST": {"all": 0.70, "greedy": 0.66, "tgreedy-signed": 0.80}})[1])
    **On MNIST a few selected features transfer better than all of them together**: the best mean target AUROC along T-greedy's path is 0.800 and along greedy's 0.660, against 0.700 for all features at once.
    """
    c = claims_by_id(claims)
    out = []
    gaps = _values(c, "mnist_sim.overfits_less")
    if gaps:
        held = c["mnist_sim.overfits_less"]["verdict"] == "reproduced"
        out.append(f"**T-greedy {'overfits far less than greedy' if held else 'does not overfit far less than greedy'} "
                   f"on MNIST similarity**: averaged over all held-out classes and steps, the gap between held-out source "
                   f"and target AUROC is {_num(gaps['tgreedy_gap'])} for T-greedy and {_num(gaps['greedy_gap'])} for greedy"
                   + (", as the paper's Figure 4 shows." if held else "."))
    for name, best in (all_features or {}).items():
        top = max(best["greedy"], best["tgreedy-signed"])
        lead = ("a few selected features transfer better than all of them together" if top > best["all"]
                else "no selection along the paths beats all features together")
        out.append(f"**On {name} {lead}**: the best mean target AUROC along T-greedy's path is "
                   f"{_num(best['tgreedy-signed'])} and along greedy's {_num(best['greedy'])}, against {_num(best['all'])} "
                   "for all features at once.")
    reliable = _values(c, "mnist_sim.reliable")
    if reliable:
        out.append(f"**T-greedy's target curve keeps rising for {int(reliable['tgreedy_useful_steps'])} features, not the "
                   f"paper's 25** (greedy's: {int(reliable['greedy_useful_steps'])}); its best mean target AUROC is "
                   f"{_num(reliable['tgreedy_best'])}, greedy's {_num(reliable['greedy_best'])}.")
    diverge = _values(c, "mnist_sim.greedy_diverge")
    if diverge:
        grows = diverge["gap_late"] > diverge["gap_1"]
        out.append(f"**Greedy's source and target curves {'diverge' if grows else 'do not diverge'}** with '9' held out: "
                   f"the gap is {_num(diverge['gap_1'])} after one feature and {_num(diverge['gap_late'])} after ten.")
    if below_chance:
        out.append(f"**A learned similarity can be worse than chance on a new class**: {_num(below_chance['greedy'])} of "
                   f"{_num(below_chance['points'])} (held-out class, step) points of greedy's paths are below 0.5, "
                   f"{_num(below_chance['tgreedy-signed'])} of T-greedy's; the uncentred products reward a feature the new "
                   "class lacks (section 3).")
    t_high = _values(c, "mnist_sim.t_higher")
    if t_high:
        share = fmt(t_high["share_higher"], percent=True)
        medians = f"median {_num(t_high['median_tgreedy'], 2)} against {_num(t_high['median_greedy'], 2)}"
        out.append(f"**T-greedy's picks have a higher |T| than greedy's at only {share} of the steps** ({medians}): not "
                   "\"generally higher\" as the paper says." if t_high["share_higher"] < 0.5 else
                   f"**T-greedy's picks have a higher |T| than greedy's at {share} of the steps** ({medians}).")
    if seeds_vs_splits is not None:
        out.append(f"**Which class is new matters {'more' if seeds_vs_splits > 1 else 'no more'} than the random draws**: the "
                   f"split-to-split standard error of the ten-class average is {seeds_vs_splits:.1f} times (median) its spread "
                   "over the reference run's seeds.")
    return out


_VERDICT_WORDS = (("reproduced", "Reproduced on average"), ("partly", "Partly reproduced on average"),
                  ("not reproduced", "Not reproduced on average"), ("unsettled", "Unsettled on average"))


def verdict_groups(claims: list[dict], seeds: int | None = None) -> list[str]:
    """One sentence per verdict: the claims that got it, each by its data and what the paper asserts.

    With ``seeds`` the verdicts are the on-average verdicts over that many seeds, and each claim adds its
    one-run answer (in how many of the runs its own verdict came out that way; for an unsettled claim, how
    the runs and the bootstrap replicates split); without, the verdicts of one run.

    Examples
    --------
    >>> for line in verdict_groups([{"id": "x", "paper": "the curves start close", "verdict": "not reproduced"}]):
    ...     print(line)
    **Not reproduced** (1 of 1 claims): the curves start close (`x`).
    >>> claim = {"id": "y", "paper": "the gap is small", "verdict": "unsettled", "seeds": {
    ...     "verdicts": ["reproduced"] * 9 + ["partly"] * 11,
    ...     "average": {"replicates": 2000, "shares": {"partly": 0.63, "reproduced": 0.37}}}}
    >>> print(verdict_groups([claim], seeds=20)[0])
    **Unsettled on average** (1 of 1 claims, 20 seeds): the gap is small (`y`; partly in 63 %, reproduced in 37 % of the bootstrap replicates; reproduced in 9, partly in 11 of 20 runs).
    """
    from .summary import claim_one_run

    out = []
    words = dict(_VERDICT_WORDS) if seeds else {"reproduced": "Reproduced", "partly": "Partly reproduced",
                                                  "not reproduced": "Not reproduced", "unsettled": "Unsettled"}
    if seeds and not any((c.get("seeds") or {}).get("average") for c in claims if isinstance(c.get("seeds"), dict)):
        # a record written before verdicts on average: there a verdict needed every seed to agree
        words = {"reproduced": "Held in every seed", "partly": "Held partly in every seed",
                 "not reproduced": "Failed in every seed", "unsettled": "The seeds disagree"}
    for verdict, _ in _VERDICT_WORDS:
        these = [c for c in claims if c["verdict"] == verdict]
        if not these:
            continue

        def one(c):
            details = []
            shares = ((c.get("seeds") or {}).get("average") or {}).get("shares") or {}
            if verdict == "unsettled" and shares:
                details.append(", ".join(f"{v} in {100 * p:.0f} %" for v, p in sorted(shares.items(), key=lambda kv: -kv[1]))
                               + " of the bootstrap replicates")
            rate = claim_one_run(c) if seeds else None
            if rate and rate.get("runs"):
                shown = [verdict] if verdict in rate else [v for v in ("reproduced", "partly", "not reproduced") if rate.get(v)]
                details.append(", ".join(f"{v} in {rate[v]}" for v in shown) + f" of {rate['runs']} runs")
            return f"{_assertion(c)} (`{c['id']}`" + "".join(f"; {d}" for d in details) + ")"
        scope = f", {seeds} seeds" if seeds else ""
        out.append(f"**{words[verdict]}** ({len(these)} of {len(claims)} claims{scope}): " + "; ".join(map(one, these)) + ".")
    return out


def seed_findings(reference: dict | None, ids=None) -> list[str]:
    """Notebook 08b's first findings: which claims hold on average over the seeds of the reference run, under the
    paper's reading, each with how many of the single runs reproduce it (:func:`verdict_groups`).

    Each group names the claims by what the paper asserts (the claim's ``paper`` text) and id; ``ids`` keeps
    those claims. An empty list without a reference record.

    Examples
    --------
    >>> ref = {"claims": {"seeds": 5, "comparisons": {"paper": [
    ...     {"id": "fig2.source_improves", "paper": "source AUROC rises", "verdict": "reproduced",
    ...      "seeds": {"verdicts": ["reproduced"] * 4 + ["partly"], "average": {"replicates": 2000}}},
    ...     {"id": "b", "paper": "T-greedy wins splits", "verdict": "not reproduced",
    ...      "seeds": {"verdicts": ["partly"] + ["not reproduced"] * 4, "average": {"replicates": 2000}}}]}}}
    >>> for line in seed_findings(ref): print(line)
    **Reproduced on average** (1 of 2 claims, 5 seeds): MNIST, '2' against each other digit: source AUROC rises (`fig2.source_improves`; reproduced in 4 of 5 runs).
    **Not reproduced on average** (1 of 2 claims, 5 seeds): T-greedy wins splits (`b`; not reproduced in 4 of 5 runs).
    """
    claims = ((reference or {}).get("claims") or {}).get("comparisons", {}).get("paper") or []
    if ids is not None:
        claims = [c for c in claims if c["id"] in set(ids)]
    if not claims:
        return []
    return verdict_groups(claims, (reference.get("claims") or {}).get("seeds"))


def reading_findings(reference: dict | None, labels: dict | None = None, ids=None) -> list[str]:
    """The claims whose verdict over the seeds changes with the reading of section 3.3, one sentence each.

    Examples
    --------
    >>> ref = {"claims": {"comparisons": {
    ...     "paper": [{"id": "t", "paper": "|T| of picks higher", "verdict": "not reproduced"}],
    ...     "abs-T": [{"id": "t", "paper": "|T| of picks higher", "verdict": "partly"}]}}}
    >>> print(reading_findings(ref, {"paper": "signed T", "abs-T": "|T|"})[0])
    |T| of picks higher (`t`): not reproduced under signed T, partly under |T|.
    """
    comparisons = ((reference or {}).get("claims") or {}).get("comparisons") or {}
    labels = labels or {}
    by_reading = {name: {c["id"]: c for c in claims} for name, claims in comparisons.items()}
    if not by_reading:
        return []
    first = next(iter(by_reading.values()))
    out = []
    for cid, claim in first.items():
        if ids is not None and cid not in set(ids):
            continue
        verdicts = {name: table[cid]["verdict"] for name, table in by_reading.items() if cid in table
                    and table[cid]["verdict"] not in ("not run", "n/a")}
        if len(set(verdicts.values())) > 1:
            out.append(f"{_assertion(claim)} (`{cid}`): "
                       + ", ".join(f"{v} under {labels.get(n, n)}" for n, v in verdicts.items()) + ".")
    return out


def feature_map_findings(reference: dict | None, ids=None) -> list[str]:
    """How the verdicts move between the feature maps of the reference run, in sentences.

    Examples
    --------
    >>> ref = {"claims": {"primary_feature_map": "dbn", "feature_maps": {
    ...     "dbn": [{"id": "a", "paper": "x", "verdict": "reproduced"}, {"id": "b", "paper": "gap is small", "verdict": "partly"}],
    ...     "pixels": [{"id": "a", "paper": "x", "verdict": "reproduced"}, {"id": "b", "paper": "gap is small", "verdict": "not reproduced"}]}}}
    >>> for line in feature_map_findings(ref): print(line)
    **1 of 2 claims get the same verdict on every feature map** (dbn, pixels).
    **Held on the dbn features, on average, but not on every other map:** gap is small (`b`; partly on dbn, not reproduced on pixels).
    """
    names = feature_maps(reference)
    by_map = {m: {c["id"]: c for c in ((reference or {}).get("claims") or {}).get("feature_maps", {}).get(m, [])}
              for m in names}
    if len(by_map) < 2:
        return []
    primary = names[0]
    order = [cid for cid in by_map[primary] if ids is None or cid in set(ids)]
    same, moved = 0, []
    for cid in order:
        verdicts = {m: by_map[m][cid]["verdict"] for m in names if cid in by_map[m]
                    and by_map[m][cid]["verdict"] not in ("n/a", "not run")}
        if len(set(verdicts.values())) <= 1:
            same += 1
        else:
            moved.append((by_map[primary][cid], verdicts))
    out = [f"**{same} of {len(order)} claims get the same verdict on every feature map** ({', '.join(names)})."]
    better = [(c, v) for c, v in moved if v.get(primary) in ("reproduced", "partly")
              and any(v[m] in ("not reproduced", "unsettled") for m in v if m != primary)]
    if better:
        n_seeds = map_seeds(reference)
        on = {m: f"{m} ({n_seeds[m]} seeds)" if len(set(n_seeds.values())) > 1 and m in n_seeds else m for m in names}
        out.append(f"**Held on the {primary} features, on average, but not on every other map:** " + "; ".join(
            f"{_assertion(c)} (`{c['id']}`; " + ", ".join(f"{v[m]} on {on[m]}" for m in v) + ")" for c, v in better) + ".")
    return out
