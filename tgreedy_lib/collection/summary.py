"""What holds: every theorem and experimental claim of both papers with its computed verdict.

The theorems' verdicts come from the ``verify`` record (``results/verify.json``, written by
``python -m tgreedy_lib verify --json results/verify.json``); the experimental claims' verdicts from
a ``claims.json`` written by ``python -m tgreedy_lib reproduce`` (paper-scale reference results where
they are committed, else a run at the bundled ``--quick`` scale, which the table says). Only the
paper locations and the notebook that shows each result are written here; every verdict is read.

Papers: Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical Approach*,
AISTATS 2012 (ids ``domains.*``, claims); Sabato & Shalev-Shwartz, *Ranking Categorical Features
Using Generalization Properties*, JMLR 9 (2008) (ids ``categorical.*``).

References
----------
.. [1] S. Sabato and S. Shalev-Shwartz, "Ranking Categorical Features Using Generalization
       Properties", Journal of Machine Learning Research 9:1083-1114, 2008.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["load_verify_records", "find_claims", "theorem_rows", "claim_rows", "claim_data", "verdict_headline",
           "verdict_method_markdown", "verify_table"]

REPOSITORY = Path(__file__).resolve().parents[2]
DA = "Foster, Kakade & Salakhutdinov (2012)"
CAT = "Sabato & Shalev-Shwartz (2008)"

#: check id -> (paper, location in the paper, notebook that shows it)
THEOREMS = {
    "domains.theorem2": (DA, "Theorem 2, section 3.1; appendix", "03_self_normalized_sums"),
    "domains.theorem1": (DA, "Theorem 1, section 3.1; appendix", "04_t_statistic_bounds"),
    "domains.corollary3": (DA, "Corollary 3, section 3.2", "04c_corollary3_subset_selection"),
    "categorical.theorem1": (CAT, "Theorem 1, section 3", "02_gini_estimator_theorems"),
    "categorical.theorem2": (CAT, "Theorem 2, section 3 (Lemmas 3-7)", "02_gini_estimator_theorems"),
    "categorical.theorem3": (CAT, "Theorem 3, section 4", "02c_bayes_hypothesis_theorems"),
    "categorical.theorem4": (CAT, "Theorem 4, section 4 (Lemmas 8-13)", "02c_bayes_hypothesis_theorems"),
    "categorical.lemma11": (CAT, "Lemma 11, section 4", "02c_bayes_hypothesis_theorems"),
}

#: claim id prefix -> notebook that shows it
CLAIM_NOTEBOOKS = {"intro": "07_mnist_2_vs_other", "fig1": "07_mnist_2_vs_other", "fig2": "07_mnist_2_vs_other",
                   "mnist_sim": "08_similarity_learning", "cifar_sim": "08_similarity_learning",
                   "disc": "08b_claims_over_seeds"}
#: experiment -> the data and task it stands for (the data-set label of a claim)
TASK_LABELS = {"intro-logistic": "MNIST, '2' against even digits, tested on odd ones",
               "mnist-2-vs-other": "MNIST, '2' against each other digit",
               "mnist-similarity": "MNIST, similarity", "cifar-similarity": "CIFAR-10, similarity"}



def load_verify_records(path=None) -> dict[str, dict]:
    """The ``verify`` record of the theorems of both papers ([1]_, section 3; [2]_, sections 3-4) as ``{check id: record}``.

    Parameters
    ----------
    path : str or Path, optional
        A JSON file with a ``"checks"`` list, as written by
        ``python -m tgreedy_lib verify --json``; default: the committed ``results/verify.json``.

    Returns
    -------
    dict
        ``{check id: record}``; each record has ``id``, ``holds_as_printed`` and ``worst_case``.

    Raises
    ------
    ValueError
        When the file does not exist (the message says how to write it).

    See Also
    --------
    theorem_rows : One table row per theorem from these records.
    verify_table : A compact table of the records.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    A small record written to a temporary file:

    >>> import json, pathlib, tempfile
    >>> from tgreedy_lib.collection.summary import load_verify_records
    >>> record = {"id": "domains.theorem1", "claim": "Theorem 1", "holds_as_printed": True,
    ...           "worst_case": {"parameters": {"n": 8, "p": 30}, "observed": 0.031, "bound": 0.05, "ratio": 0.62}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "verify.json"
    ...     _ = path.write_text(json.dumps({"checks": [record]}))
    ...     records = load_verify_records(path)
    >>> list(records), records["domains.theorem1"]["holds_as_printed"]
    (['domains.theorem1'], True)
    """
    path = Path(path) if path is not None else REPOSITORY / "results" / "verify.json"
    if not path.is_file():
        raise ValueError(f"no verify record at {path.name}; write it with "
                         "`python -m tgreedy_lib verify --json results/verify.json`")
    return {record["id"]: record for record in json.loads(path.read_text())["checks"]}


def find_claims(quick_dir=None) -> tuple[list[dict], str]:
    """The experimental claims of [1]_ (section 4, Figures 1-2; section 5) with their computed verdicts.

    Committed reference results (:func:`tgreedy_lib.collection.seeds.load_reference`, package data)
    are used when present; otherwise the
    experiments run at the bundled ``--quick`` scale with random stand-in features into ``quick_dir``
    (a temporary folder if None), and the sentence says so.

    Parameters
    ----------
    quick_dir : str or Path, optional
        Where a ``--quick`` run writes its results when nothing is committed.

    Returns
    -------
    claims : list of dict
        Each with ``id``, ``section``, ``figure``, ``claim`` and ``verdict``.
    source : str
        A sentence saying where the verdicts come from.

    Raises
    ------
    ValueError
        When the ``--quick`` run fails.

    See Also
    --------
    claim_rows : One table row per claim.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    The repository commits paper-scale reference results, so nothing is run:

    >>> from tgreedy_lib.collection.summary import find_claims
    >>> claims, source = find_claims()
    >>> source
    'the committed reference results (...claims.json)'
    >>> {"id", "section", "claim", "verdict"} <= set(claims[0])
    True
    """
    from .seeds import REFERENCE_DIR, REFERENCE_NAMES, load_reference

    for name in REFERENCE_NAMES:
        reference = load_reference(name)
        if reference is not None:
            where = f"{REFERENCE_DIR.parent.parent.name}/{REFERENCE_DIR.parent.name}/{REFERENCE_DIR.name}/{name}/claims.json"
            return reference["claims"]["claims"], f"the committed reference results ({where})"
    import tempfile

    from .cli import main as reproduce
    out = Path(quick_dir or tempfile.mkdtemp(prefix="tgreedy-quick-"))
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        code = reproduce(["--quick", "--no-figures", "--features", "random", "--out", str(out)])
    if code:
        raise ValueError(f"python -m tgreedy_lib reproduce --quick failed with exit code {code}")
    claims = json.loads((out / "claims.json").read_text())["claims"]
    return claims, ("a run here at the bundled --quick scale with random features in place of the DBN "
                    "(`reproduce --quick --features random`): no paper-scale reference results are committed yet; "
                    "`python -m tgreedy_lib reproduce` writes them. These verdicts are about the method on stand-in "
                    "features, not the paper's numbers")


def _vacuous_note(check_id: str) -> str:
    from ..categorical import theorem2_bound, theorem4_bound
    from ..domain_adaptation.theory import t_bounds as tb
    from ..categorical import first_m_below
    if check_id == "domains.theorem1":
        largest = max(float(tb.max_features(n, 0.05)) for n in (8, 9))
        if largest < 1:
            return f"vacuous at the paper's n = 8, 9 (admits |F| <= {largest:.3f} at delta = 0.05)"
    if check_id == "domains.corollary3":
        return "also vacuous at the paper's n (same size condition)"
    if check_id == "categorical.theorem2":
        return f"explicit bound vacuous (> 1) below m = {first_m_below(lambda m: theorem2_bound(m, 0.05), 1.0):,} (delta = 0.05)"
    if check_id == "categorical.theorem4":
        return f"explicit bound vacuous (> 1) below m = {first_m_below(lambda m: theorem4_bound(m, 0.05), 1.0):.1e} (delta = 0.05)"
    return ""


def theorem_rows(records: dict[str, dict]) -> list[list[str]]:
    """One row per theorem of both papers ([1]_, section 3.1; [2]_, sections 3-4): paper, location, verdict, worst case, notebook.

    The verdict is read from the record (``holds`` or ``false as printed``), with a note where
    the bound is vacuous at the paper's sizes (computed, not typed); a theorem without a record
    is ``not checked``.

    Parameters
    ----------
    records : dict
        ``{check id: record}`` as returned by :func:`load_verify_records`.

    Returns
    -------
    list of list of str
        One row per entry of :data:`THEOREMS`.

    See Also
    --------
    load_verify_records : Reads the records.
    claim_rows : The rows of the experimental claims.
    verify_table : A compact table of any verify records.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    A small in-memory record:

    >>> from tgreedy_lib.collection.summary import theorem_rows
    >>> record = {"id": "domains.theorem1", "claim": "Theorem 1", "holds_as_printed": True,
    ...           "worst_case": {"parameters": {"n": 8, "p": 30}, "observed": 0.031, "bound": 0.05, "ratio": 0.62}}
    >>> rows = theorem_rows({"domains.theorem1": record})
    >>> rows[0][1:3]                                          # no record for Theorem 2
    ['Theorem 2, section 3.1; appendix', 'not checked']
    >>> rows[1][1:]
    ['Theorem 1, section 3.1; appendix', "holds, but vacuous at the paper's n = 8, 9 (admits |F| <= 0.077 at delta = 0.05)", 'largest observed / bound = 0.62', '04_t_statistic_bounds']
    """
    rows = []
    for check_id, (paper, location, notebook) in THEOREMS.items():
        record = records.get(check_id)
        if record is None:
            rows.append([paper, location, "not checked", "", notebook])
            continue
        verdict = "holds" if record["holds_as_printed"] else "false as printed"
        note = _vacuous_note(check_id)
        if note and record["holds_as_printed"] and ("vacuous at the paper's n" in note or "vacuous (" in note):
            verdict = "holds, but " + note
        elif note:
            verdict += "; " + note
        worst = record["worst_case"]
        ratio = worst.get("ratio")
        rows.append([paper, location, verdict,
                     "" if ratio is None else f"largest observed / bound = {_short(ratio)}", notebook])
    return rows


def claim_data(claim_id: str) -> str:
    """The data and task an experimental claim of [1]_ is about, from its experiments in
    :data:`tgreedy_lib.collection.claims.CLAIMS` (the paper states some sentences once for two data sets).

    Examples
    --------
    >>> from tgreedy_lib.collection.summary import claim_data
    >>> claim_data("mnist_sim.t_higher"), claim_data("cifar_sim.t_higher")
    ('MNIST, similarity', 'CIFAR-10, similarity')
    >>> claim_data("disc.variability"), claim_data("no.such")
    ('all three section-4 experiments', '')

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    """
    from .claims import CLAIMS, SECTION4_TASKS

    spec = next((c for c in CLAIMS if c.id == claim_id), None)
    if spec is None:
        return ""
    if set(spec.experiments) >= set(SECTION4_TASKS) and len(spec.experiments) > 1:
        return "all three section-4 experiments"
    return "; ".join(TASK_LABELS.get(task, task) for task in spec.experiments)


def verdict_headline(claims: list[dict]) -> str:
    """One sentence: how many experimental claims got each verdict, in the order reproduced, partly, not, unsettled.

    Over seeds the counts are of the on-average verdicts, and the sentence adds the one-run answers: how
    many claims every run, some runs and no run reproduce
    (:func:`tgreedy_lib.collection.seeds.one_run_summary`).

    Examples
    --------
    >>> from tgreedy_lib.collection.summary import verdict_headline
    >>> verdict_headline([{"verdict": "reproduced"}, {"verdict": "partly"}, {"verdict": "reproduced"}])
    'Of 3 experimental claims, 2 are reproduced, 1 partly reproduced, 0 not reproduced and 0 unsettled.'
    >>> seeded = {"verdicts": ["reproduced", "partly", "reproduced"], "average": {"replicates": 2000}}
    >>> print(verdict_headline([{"verdict": "reproduced", "seeds": seeded}, {"verdict": "unsettled", "seeds": seeded}]))
    Of 2 experimental claims, on average over 3 seeds 1 is reproduced, 0 partly reproduced, 0 not reproduced and 1 unsettled (no verdict in 95 % of the bootstrap replicates over seeds); in one run, every run reproduces 0 claims, some runs but not all 2, no run 0.
    """
    from .claims import SETTLED_SHARE, claim_one_run
    from .seeds import one_run_summary

    counts = {}
    for claim in claims:
        counts[claim["verdict"]] = counts.get(claim["verdict"], 0) + 1
    rates = [r for r in (claim_one_run(c) for c in claims) if r and r.get("runs")]
    n_seeds = max((len(c["seeds"]["verdicts"]) for c in claims if isinstance(c.get("seeds"), dict)
                   and c["seeds"].get("verdicts")), default=0)
    reproduced = counts.pop("reproduced", 0)
    parts = [f"{reproduced} {'is' if reproduced == 1 else 'are'} reproduced", f"{counts.pop('partly', 0)} partly reproduced",
             f"{counts.pop('not reproduced', 0)} not reproduced"]
    unsettled = counts.pop("unsettled", 0)
    parts += [f"{v} {k}" for k, v in counts.items()]
    if not rates:
        return f"Of {len(claims)} experimental claims, " + ", ".join(parts) + f" and {unsettled} unsettled."
    if not any((c.get("seeds") or {}).get("average") for c in claims if isinstance(c.get("seeds"), dict)):
        # a record written before verdicts on average: a verdict there needed every seed to agree
        return (f"Of {len(claims)} experimental claims, over {n_seeds} seeds " + ", ".join(parts)
                + f" and {unsettled} unsettled (the seeds disagree).")
    return (f"Of {len(claims)} experimental claims, on average over {n_seeds} seeds " + ", ".join(parts)
            + f" and {unsettled} unsettled (no verdict in {100 * SETTLED_SHARE:.0f} % of the bootstrap replicates over "
            f"seeds); in one run, {one_run_summary(claims)}.")


def verdict_method_markdown(reference: dict | None = None) -> str:
    """How the verdicts over seeds are called, and how many claims stay unsettled as seeds are added.

    Both come from the record: its ``verdict_method`` (the sentence ``claims.md`` prints) and its
    ``convergence`` (the claims over the first 5, 10, 20 seeds of the run,
    :func:`tgreedy_lib.collection.seeds.convergence`), as Markdown. Empty for a record without them
    (or no record).

    Parameters
    ----------
    reference : dict, optional
        A reference record (:func:`tgreedy_lib.collection.seeds.load_reference`); default: the committed one.

    Returns
    -------
    str

    See Also
    --------
    verdict_headline : The counts of the on-average verdicts, and the one-run answers, in one sentence.
    tgreedy_lib.collection.claims.average_verdict : The on-average verdict and its bootstrap.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993.
    .. [2] E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
       Journal of the American Statistical Association 22(158):209-212, 1927.

    Examples
    --------
    >>> from tgreedy_lib.collection.summary import verdict_method_markdown
    >>> record = {"claims": {"verdict_method": "Each claim gets two answers.", "convergence": {
    ...     "5": {"counts": {"reproduced": 2, "unsettled": 1}, "unsettled": ["a"]},
    ...     "10": {"counts": {"reproduced": 3}, "unsettled": []}}}}
    >>> print(verdict_method_markdown(record))
    Each claim gets two answers.
    <BLANKLINE>
    **Unsettled claims as seeds are added** (the first k seeds of the reference run): 1 at 5 seeds, 0 at 10 seeds.
    <BLANKLINE>
    | seeds | reproduced | partly | not reproduced | unsettled | unsettled claims |
    | --- | --- | --- | --- | --- | --- |
    | 5 | 2 | 0 | 0 | 1 | a |
    | 10 | 3 | 0 | 0 | 0 | - |
    <BLANKLINE>
    >>> verdict_method_markdown({"claims": {}})
    ''
    """
    from .claims import UNSETTLED
    from .seeds import convergence_markdown, load_reference

    record = ((load_reference() if reference is None else reference) or {}).get("claims") or {}
    parts = [record["verdict_method"]] if record.get("verdict_method") else []
    convergence = record.get("convergence") or {}
    if convergence:
        parts.append("**Unsettled claims as seeds are added** (the first k seeds of the reference run): " + ", ".join(
            f"{entry['counts'].get(UNSETTLED, 0)} at {k} seeds" for k, entry in convergence.items()) + ".")
        parts.append(convergence_markdown(convergence))
    return "\n\n".join(parts)


def claim_rows(claims: list[dict]) -> list[list[str]]:
    """One row per experimental claim of [1]_ (sections 4-5): location, data, claim, verdict, notebook.

    The data column (:func:`claim_data`) tells apart claims the paper makes in one sentence for two data sets.
    Over seeds the verdict cell gives both answers
    (:func:`tgreedy_lib.collection.claims.claim_answers`): ``on average: reproduced (100 % of the
    replicates); in one run: reproduced in 14 of 20 runs (48-85 %)``; for a claim of one run, its verdict.

    Parameters
    ----------
    claims : list of dict
        As returned by :func:`find_claims`: ``id``, ``section``, ``figure``, ``claim``, ``verdict``.

    Returns
    -------
    list of list of str

    See Also
    --------
    find_claims : Reads the claims.
    theorem_rows : The rows of the theorems.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).

    Examples
    --------
    A small in-memory record:

    >>> from tgreedy_lib.collection.summary import claim_rows
    >>> claims = [{"id": "fig1.degrades", "section": "4.1", "figure": 1, "claim": "T-greedy beats greedy",
    ...            "verdict": "holds"}]
    >>> claim_rows(claims)
    [['section 4.1, Figure 1', "MNIST, '2' against each other digit", '"T-greedy beats greedy"', 'holds', '07_mnist_2_vs_other']]
    >>> seeded = {**claims[0], "verdict": "partly", "seeds": {"verdicts": ["partly"] * 4 + ["reproduced"]}}
    >>> claim_rows([seeded])[0][3]
    'on average: partly; in one run: reproduced in 1 of 5 runs (4-62 %), partly in 4'
    """
    from .claims import claim_answers, claim_one_run

    rows = []
    for claim in claims:
        prefix = claim["id"].split(".")[0]
        figure = f", Figure {claim['figure']}" if claim.get("figure") not in (None, "", "-") else ""
        verdict = claim["verdict"]
        if claim_one_run(claim) is not None:
            average, one_run = claim_answers(claim)
            verdict = f"on average: {average}; in one run: {one_run}"
        rows.append([f"section {claim['section']}{figure}", claim_data(claim["id"]), f"\"{claim['claim']}\"",
                     verdict, CLAIM_NOTEBOOKS.get(prefix, "")])
    return rows


def verify_table(results) -> str:
    """A compact Markdown table of ``verify`` results for the theorems of [1]_ and [2]_.

    Columns: check, holds as printed, worst case (parameters; observed against bound); the
    corrected claims follow in a collapsible block.

    Parameters
    ----------
    results : iterable of CheckResult or dict
        ``CheckResult`` objects or their JSON records.

    Returns
    -------
    str

    See Also
    --------
    theorem_rows : The summary's rows, with paper locations and notebooks.
    tgreedy_lib.collection.prose.markdown_table : Builds the table.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    A small in-memory record:

    >>> from tgreedy_lib.collection.summary import verify_table
    >>> record = {"id": "domains.theorem1", "claim": "Theorem 1", "holds_as_printed": True,
    ...           "worst_case": {"parameters": {"n": 8, "p": 30}, "observed": 0.031, "bound": 0.05, "ratio": 0.62}}
    >>> print(verify_table([record]))
    | check | holds as printed | worst case found | observed against bound |
    |---|---|---|---|
    | domains.theorem1 | yes | n = 8, p = 30 | 0.031 against 0.05 |
    """
    from .prose import markdown_table
    records = [r.to_json() if hasattr(r, "to_json") else r for r in results]
    rows, notes = [], []
    for record in records:
        worst = record["worst_case"]
        parameters = ", ".join(f"{k} = {_short(v)}" for k, v in (worst.get("parameters") or {}).items()
                               if not isinstance(v, (dict, list)))
        rows.append([record["id"], "yes" if record["holds_as_printed"] else "**no**", parameters,
                     f"{_short(worst.get('observed'))} against {_short(worst.get('bound'))}"])
        if record.get("corrected_claim"):
            notes.append(f"* `{record['id']}`: {record['corrected_claim']}")
    text = markdown_table(["check", "holds as printed", "worst case found", "observed against bound"], rows)
    if notes:
        text += ("\n\n<details><summary>corrected claims</summary>\n\n" + "\n".join(notes).replace("|", "\\|")
                 + "\n\n</details>")
    return text


def _short(value) -> str:
    from .prose import _no_negative_zero
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,d}"
    if isinstance(value, float):
        return _no_negative_zero(f"{value:.4g}")
    return str(value)
