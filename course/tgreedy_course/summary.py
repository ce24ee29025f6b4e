"""What holds: every theorem and experimental claim of both papers with its computed verdict.

The theorems' verdicts come from the ``verify`` record (``results/verify.json``, written by
``python -m tgreedy_course verify --json results/verify.json``); the experimental claims' verdicts from
a ``claims.json`` written by ``python -m tgreedy_course reproduce`` (paper-scale reference results where
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
import re
from pathlib import Path

__all__ = ["load_verify_records", "find_claims", "theorem_rows", "claim_rows", "claim_data", "verdict_headline",
           "verdict_method_markdown", "verify_table", "audit_appendix_markdown", "seed_story", "what_holds_story",
           "verdicts_by_data", "corrected_statements"]

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
        ``python -m tgreedy_course verify --json``; default: the committed ``results/verify.json``.

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
    >>> from tgreedy_course.summary import load_verify_records
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
                         "`python -m tgreedy_course verify --json results/verify.json`")
    return {record["id"]: record for record in json.loads(path.read_text())["checks"]}


def find_claims(quick_dir=None) -> tuple[list[dict], str]:
    """The experimental claims of [1]_ (section 4, Figures 1-2; section 5) with their computed verdicts.

    Committed reference results (:func:`tgreedy_course.seeds.load_reference`, package data)
    are used when present; otherwise the
    experiments run at the bundled ``--quick`` scale with random features into ``quick_dir``
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

    >>> from tgreedy_course.summary import find_claims
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
        raise ValueError(f"python -m tgreedy_course reproduce --quick failed with exit code {code}")
    claims = json.loads((out / "claims.json").read_text())["claims"]
    return claims, ("a run here at the bundled --quick scale with random features in place of the DBN "
                    "(`reproduce --quick --features random`): no paper-scale reference results are committed yet; "
                    "`python -m tgreedy_course reproduce` writes them. These verdicts are about the method on random "
                    "features in place of the learned ones, not the paper's numbers")


def _vacuous_note(check_id: str) -> str:
    from tgreedy_lib.categorical import theorem2_bound, theorem4_bound
    from tgreedy_lib.domain_adaptation.theorems import t_bounds as tb
    from tgreedy_lib.categorical import first_m_below
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

    >>> from tgreedy_course.summary import theorem_rows
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
    :data:`tgreedy_course.claims.CLAIMS` (the paper states some sentences once for two data sets).

    Examples
    --------
    >>> from tgreedy_course.summary import claim_data
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
    (counted as in :func:`tgreedy_course.seeds.one_run_summary`, with "fully" where no run reproduces a claim).

    Examples
    --------
    >>> from tgreedy_course.summary import verdict_headline
    >>> verdict_headline([{"verdict": "reproduced"}, {"verdict": "partly"}, {"verdict": "reproduced"}])
    'Of 3 experimental claims, 2 are reproduced, 1 partly reproduced, 0 not reproduced and 0 unsettled.'
    >>> seeded = {"verdicts": ["reproduced", "partly", "reproduced"], "average": {"replicates": 2000}}
    >>> print(verdict_headline([{"verdict": "reproduced", "seeds": seeded}, {"verdict": "unsettled", "seeds": seeded}]))
    Of 2 experimental claims, on average over 3 seeds 1 is reproduced, 0 partly reproduced, 0 not reproduced and 1 unsettled (no verdict in 95 % of the bootstrap replicates over seeds); in single runs, every run reproduces 0 claims, some runs but not all reproduce 2, and no run fully reproduces the other 0.
    """
    from .claims import SETTLED_SHARE, claim_one_run

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
            f"seeds); in single runs, {_single_runs_clause(rates)}.")


def _single_runs_clause(rates: list[dict]) -> str:
    """``every run reproduces 4 claims, some runs but not all reproduce 4, and no run fully reproduces the other 18``."""
    every = sum(1 for r in rates if r["reproduced"] == r["runs"])
    none = sum(1 for r in rates if r["reproduced"] == 0)
    some = len(rates) - every - none
    return (f"every run reproduces {every} claim{'s' if every != 1 else ''}, some runs but not all reproduce {some}, "
            f"and no run fully reproduces the other {none}")


def verdict_method_markdown(reference: dict | None = None) -> str:
    """How the verdicts over seeds are called, and how many claims stay unsettled as seeds are added.

    Both come from the record: its ``verdict_method`` (the sentence ``claims.md`` prints) and its
    ``convergence`` (the claims over the first 5, 10, 20 seeds of the run,
    :func:`tgreedy_course.seeds.convergence`), as Markdown. Empty for a record without them
    (or no record).

    Parameters
    ----------
    reference : dict, optional
        A reference record (:func:`tgreedy_course.seeds.load_reference`); default: the committed one.

    Returns
    -------
    str

    See Also
    --------
    verdict_headline : The counts of the on-average verdicts, and the one-run answers, in one sentence.
    tgreedy_course.claims.average_verdict : The on-average verdict and its bootstrap.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993.
    .. [2] E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
       Journal of the American Statistical Association 22(158):209-212, 1927.

    Examples
    --------
    >>> from tgreedy_course.summary import verdict_method_markdown
    >>> record = {"claims": {"verdict_method": "Each claim gets two answers.", "convergence": {
    ...     "5": {"counts": {"reproduced": 2, "unsettled": 1}, "unsettled": ["a"]},
    ...     "10": {"counts": {"reproduced": 3}, "unsettled": []}}}}
    >>> print(verdict_method_markdown(record))
    Each claim gets two answers.
    <BLANKLINE>
    **Unsettled claims as seeds are added** (the verdicts recomputed from only the first seeds of the reference run): 1 at 5 seeds, 0 at 10 seeds.
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
        parts.append("**Unsettled claims as seeds are added** (the verdicts recomputed from only the first seeds of the reference run): " + ", ".join(
            f"{entry['counts'].get(UNSETTLED, 0)} at {k} seeds" for k, entry in convergence.items()) + ".")
        parts.append(convergence_markdown(convergence))
    return "\n\n".join(parts)


def claim_rows(claims: list[dict]) -> list[list[str]]:
    """One row per experimental claim of [1]_ (sections 4-5): location, data, claim, verdict, notebook.

    The data column (:func:`claim_data`) tells apart claims the paper makes in one sentence for two data sets.
    Over seeds the verdict cell gives both answers
    (:func:`tgreedy_course.claims.claim_answers`): ``on average: reproduced (100 % of the
    replicates); single runs: reproduced in 14, partly in 6 of 20``, every verdict of the single runs counted
    (:func:`tgreedy_course.claims.single_runs_text`); for a claim of one run, its verdict.

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

    >>> from tgreedy_course.summary import claim_rows
    >>> claims = [{"id": "fig1.degrades", "section": "4.1", "figure": 1, "claim": "T-greedy beats greedy",
    ...            "verdict": "holds"}]
    >>> claim_rows(claims)
    [['section 4.1, Figure 1', "MNIST, '2' against each other digit", '"T-greedy beats greedy"', 'holds', '07_mnist_2_vs_other']]
    >>> seeded = {**claims[0], "verdict": "partly", "seeds": {"verdicts": ["partly"] * 4 + ["reproduced"]}}
    >>> claim_rows([seeded])[0][3]
    'on average: partly; single runs: reproduced in 1, partly in 4 of 5'
    """
    from .claims import claim_answers, claim_one_run, single_runs_text

    rows = []
    for claim in claims:
        prefix = claim["id"].split(".")[0]
        figure = f", Figure {claim['figure']}" if claim.get("figure") not in (None, "", "-") else ""
        verdict = claim["verdict"]
        if claim_one_run(claim) is not None:
            average, _ = claim_answers(claim)
            verdict = f"on average: {average}; single runs: {single_runs_text(claim_one_run(claim))}"
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
    tgreedy_course.prose.markdown_table : Builds the table.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References).
    .. [2] Sabato & Shalev-Shwartz (2008; the module's References).

    Examples
    --------
    A small in-memory record:

    >>> from tgreedy_course.summary import verify_table
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


# --------------------------------------------------------------------------- the claims page's appendix

_MAP_WORDS = {"dbn": "the deep belief network (DBN)", "conv": "the convolutional patch features (conv)",
              "pixels": "raw pixels", "random": "random sigmoid units of the pixels (they learn nothing)"}


def _map_words(feature_map: str | None) -> str:
    return _MAP_WORDS.get(feature_map or "", feature_map or "-")


def _features_sentence(record: dict, name: str) -> str:
    """Which features a table of the reference record uses, per data set, and how many networks were trained."""
    from .seeds import LEARNED

    concrete = record.get("primary_feature_maps") or {} if name == LEARNED else {}
    builds = (record.get("feature_builds") or {}).get(name) or {}
    parts = []
    for dataset, label in (("mnist", "MNIST"), ("cifar10", "CIFAR-10")):
        if name == LEARNED:
            feature_map = concrete.get(dataset)
        else:
            runs = {c.get("verdict") for c in (record.get("feature_maps") or {}).get(name, [])}
            feature_map = name if runs - {"n/a"} else None
            if name == "conv" and dataset == "mnist":
                feature_map = None
        if feature_map is None:
            continue
        built = builds.get(dataset)
        how = "drawn" if feature_map == "random" else "learned"
        trained = (f", {how} {'once' if built == 1 else f'{built} times'}" if built else "") if feature_map != "pixels" else ""
        parts.append(f"{label} from {_map_words(feature_map)}{trained}")
    return "; ".join(parts)


#: The audit appendix's names of the comparisons over readings (notebook 00's words for each rule).
READING_LABELS = {"paper": "signed T-greedy (arg max T) vs stagewise greedy: the paper's reading",
                  "abs-T": "T-greedy by largest |T| vs stagewise greedy",
                  "stepwise-greedy": "signed T-greedy (arg max T) vs stepwise greedy (least-squares refit)"}


def audit_appendix_markdown(reference: dict | None = None) -> str:
    """The claims page's audit appendix: every claim of the reference record with its id, rule, verdicts and
    per-seed values, each table saying which features and seeds it uses.

    Four tables: (A) every claim under the paper's reading, with its rule, measured mean and both answers;
    (B) the verdicts under the two readings of T-greedy's rule and against stepwise greedy; (C) the verdicts under each feature map; (D) the
    per-seed values. Between C and A a paragraph says, claim by claim, why the two give different verdicts
    where they do (A takes CIFAR-10 from one feature map, C's DBN column from another).

    Parameters
    ----------
    reference : dict, optional
        A reference record (:func:`tgreedy_course.seeds.load_reference`); default: the committed one.

    Returns
    -------
    str
        Markdown with level-3 headings; empty without a record.

    Examples
    --------
    >>> text = audit_appendix_markdown()
    >>> "reproduced in 0 of" in text, "convolutional patch features" in text
    (False, True)
    """
    from .claims import CLAIMS, claim_answers, single_runs_text, claim_one_run, verdict_matrix_markdown
    from .prose import markdown_table
    from .seeds import LEARNED, load_reference

    reference = load_reference() if reference is None else reference
    record = (reference or {}).get("claims") or {}
    if not record.get("comparisons"):
        return ""
    seeds = record.get("seeds")
    seed_text = f"{seeds} seeds (0-{seeds - 1})" if seeds and seeds > 1 else "one seed"
    primary = record.get("primary_feature_map") or LEARNED
    primary_features = _features_sentence(record, primary)
    paper = record["comparisons"]["paper"]
    rules = {spec.id: spec for spec in CLAIMS}
    out = ["### How to read a verdict", "",
           "*reproduced*: the rule's first condition holds; *partly*: only its weaker second condition holds (for "
           "example, the error rises on the new digits, but not as far as the paper says); *not reproduced*: neither "
           "holds; *unsettled*: the bootstrap over seeds gives no verdict in 95 % of its replicates. Each cell says "
           "the verdict on the means over seeds first, then what the single runs gave, every verdict counted: "
           "\"partly (single runs: partly in all 20)\" is a claim that every run reproduces partly and none fully.", "",
           verdict_method_markdown(reference), ""]

    rows = []
    for c in paper:
        on_average, _ = claim_answers(c)
        s = c.get("seeds") or {}
        measured = c.get("headline", "")
        if s.get("mean") is not None:
            measured += f" = {s['mean']:.3g}" + (f" [{s['ci95'][0]:.3g}, {s['ci95'][1]:.3g}]" if s.get("ci95") else "")
        rows.append([f"`{c['id']}`", f"{c['section']}", claim_data(c["id"]) or "-", f"\"{c['claim']}\"", c["rule"],
                     measured, on_average, single_runs_text(claim_one_run(c))])
    out += [f"### A. Every claim under the paper's reading", "",
            f"Features: {primary_features}. Seeds: {seed_text}; each seed draws the "
            "training images, the test domains and pairs anew. Measured: the claim's headline value, mean over seeds "
            "and its 95 % t interval.", "",
            markdown_table(["id", "section", "data and task", "the paper's words", "rule", "measured (mean, 95 % interval)",
                            "on average", "single runs"], rows), ""]

    out += ["### B. The verdicts under the two readings of T-greedy's rule, and against stepwise greedy", "",
            "Notebook 00 names the readings: T-greedy adds the feature of largest signed T (the paper's arg max T) "
            "or of largest |T| (the library's default); greedy refits one weight per step (stagewise, the paper's "
            "greedy) or all weights by least squares (stepwise). "
            f"Same features and seeds as table A ({primary_features}; {seed_text}).", "",
            verdict_matrix_markdown(record["comparisons"], {**(record.get("comparison_labels") or {}),
                                                            **READING_LABELS}), ""]

    seeds_per_map = record.get("seeds_per_map") or {}
    columns = list(record.get("feature_maps") or {})
    out += ["### C. The verdicts under each feature map (the paper's reading)", "",
            "Each column runs every claim on one feature map, for both data sets where the map exists (`n/a`: the "
            "map does not exist for that data set). The columns:", ""]
    out += [f"* **{m}**: {_features_sentence(record, m)}; {seeds_per_map.get(m, seeds)} seeds (0-{seeds_per_map.get(m, seeds) - 1})." for m in columns]
    out += ["", verdict_matrix_markdown(record.get("feature_maps") or {},
                                        {m: f"{m} ({seeds_per_map.get(m, seeds)} seeds)" for m in columns}), ""]

    by_map = {m: {c["id"]: c for c in (record.get("feature_maps") or {}).get(m, [])} for m in columns}
    concrete = record.get("primary_feature_maps") or {}
    same_mnist = [m for m in columns if m == concrete.get("mnist")]    # the column whose MNIST features are table A's
    differ = [(c, by_map[m][c["id"]], m) for c in paper for m in same_mnist
              if c["id"] in by_map[m] and by_map[m][c["id"]]["verdict"] not in ("n/a", "not run")
              and by_map[m][c["id"]]["verdict"] != c["verdict"] and _same_mnist(concrete, m, c["id"])]
    out += ["### Why tables A and C disagree on some claims", ""]
    if differ:
        out.append(
            f"Table A takes MNIST from {_map_words(concrete.get('mnist'))} and CIFAR-10 from "
            f"{_map_words(concrete.get('cifar10'))}; the columns of table C take both data sets from one map. A claim "
            f"that reads CIFAR-10 can therefore get one verdict in A and another in column {', '.join(same_mnist)} of C, "
            "whose MNIST features are A's: the verdict moved with the CIFAR-10 features, not by chance (both tables "
            "use the same seeds). Claim by claim:")
        out.append("")
        for c, other, m in differ:
            out.append(f"* `{c['id']}` ({claim_data(c['id'])}): {c['verdict']} in table A "
                       f"(CIFAR-10 from {_map_words(concrete.get('cifar10'))}; single runs: "
                       f"{single_runs_text(claim_one_run(c))}), {other['verdict']} in column {m} of table C (CIFAR-10 "
                       f"from {_map_words(m)}; single runs: {single_runs_text(claim_one_run(other))}).")
    else:
        out.append("They agree wherever they use the same features.")
    out.append("")

    values = [[f"`{c['id']}`", c.get("headline", ""), ", ".join("-" if v is None else f"{v:.3g}"
                                                               for v in (c.get("seeds") or {}).get("values", []))]
              for c in paper]
    out += ["### D. Per-seed values (table A's features and seeds)", "",
            f"The headline value of each claim in each seed's run, seed 0 first ({primary_features}).", "",
            markdown_table(["id", "value", "per seed"], values), ""]
    return "\n".join(out)


def _claim_datasets(claim_id: str) -> set[str]:
    """The data sets a claim reads (``mnist``, ``cifar10``), from its experiments."""
    from .claims import CLAIMS

    spec = next((c for c in CLAIMS if c.id == claim_id), None)
    if spec is None:
        return set()
    return {"cifar10" if task.startswith("cifar") else "mnist" for task in spec.experiments}


def _same_mnist(concrete: dict, feature_map: str, claim_id: str) -> bool:
    """True when a column of table C differs from table A only in its CIFAR-10 features for this claim."""
    datasets = _claim_datasets(claim_id)
    if "cifar10" not in datasets or concrete.get("cifar10") == feature_map:
        return False
    return "mnist" not in datasets or concrete.get("mnist") == feature_map


def seed_story(reference: dict | None = None) -> str:
    """Notebook 08b's findings in a few sentences, every number read from the reference record; no claim ids
    (those, the rules and the per-seed values are on the claims page, :func:`audit_appendix_markdown`).

    Examples
    --------
    >>> text = seed_story()
    >>> "`" in text, "of the paper's" in text
    (False, True)
    """
    from .claims import NOT_REPRODUCED, PARTLY, REPRODUCED, UNSETTLED, claim_one_run
    from .prose import plural
    from .seeds import load_reference

    reference = load_reference() if reference is None else reference
    record = (reference or {}).get("claims") or {}
    paper = (record.get("comparisons") or {}).get("paper") or []
    if not paper:
        return ""
    seeds = record.get("seeds") or 1
    counts = {v: sum(c["verdict"] == v for c in paper) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED, UNSETTLED)}
    rates = [claim_one_run(c) or {} for c in paper]
    unanimous = sum(1 for r in rates if r.get("runs") and max(r.get(v, 0) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED))
                    == r["runs"])
    concrete = record.get("primary_feature_maps") or {}
    lines = [
        f"**What held.** Over {plural(seeds, 'seed')}, each a fresh draw of the training images and the test "
        f"domains and pairs, {counts[REPRODUCED]} of the paper's {len(paper)} experimental claims are reproduced "
        f"on average, {counts[PARTLY]} partly, {counts[NOT_REPRODUCED]} are not reproduced, and {counts[UNSETTLED]} "
        f"{'stays' if counts[UNSETTLED] == 1 else 'stay'} unsettled (features: MNIST from {_map_words(concrete.get('mnist'))}, "
        f"CIFAR-10 from {_map_words(concrete.get('cifar10'))}).",
        f"**Single runs agree for most claims, not all.** For {unanimous} of the {len(paper)} claims every single run "
        "gives the same verdict; for the others one run can tell a different story from the average."]
    comparisons = record.get("comparisons") or {}
    moved_reading = [c["id"] for i, c in enumerate(paper)
                     if len({t[i]["verdict"] for t in comparisons.values() if t[i]["verdict"] not in ("n/a", "not run")}) > 1]
    t_claims = [cid for cid in moved_reading if cid.endswith("t_higher")]
    lines.append(
        f"**The reading of section 3.3 matters for {plural(len(moved_reading), 'claim')}**"
        + (f", {len(t_claims)} of them about the size of $|T|$ of the features T-greedy picks: the signed rule runs out "
           "of positive T-statistics after a few steps and then picks features whose T is near zero; the $|T|$ "
           "rule does not run out." if t_claims else "."))
    maps = record.get("feature_maps") or {}
    parts = []
    if "dbn" in maps and concrete.get("cifar10") and concrete.get("cifar10") != "dbn":
        dbn = {x["id"]: x for x in maps["dbn"]}
        moved = sum(1 for c in paper if c["id"] in dbn and dbn[c["id"]]["verdict"] not in ("n/a", "not run", c["verdict"])
                    and "cifar10" in _claim_datasets(c["id"]))
        parts.append(f"on CIFAR-10 the verdict of {plural(moved, 'claim')} changes when the features come from the "
                     f"DBN instead of {_map_words(concrete.get('cifar10'))}")
    if "random" in maps and "dbn" in maps:
        ran = [(a, b) for a, b in zip(maps["dbn"], maps["random"]) if "n/a" not in (a["verdict"], b["verdict"])]
        both = sum(1 for a, b in ran if a["verdict"] == b["verdict"] == REPRODUCED)
        n_random = (record.get("seeds_per_map") or {}).get("random")
        parts.append(f"{plural(both, 'claim')} reproduced on the DBN features {'is' if both == 1 else 'are'} also "
                     "reproduced on random units that learn nothing"
                     + (f" (over {plural(n_random, 'seed')})" if n_random else "")
                     + ": such a claim says little about what the features learned")
    if parts:
        lines.append("**The features matter too:** " + "; and ".join(parts) + ".")
    lines.append("Each claim's rule, its verdicts under every reading and feature map, the features and seeds of "
                 "each table, and the per-seed values are on the book's *Claims and checks* page.")
    return "\n\n".join(lines)


#: The data groups of the experimental claims, in the paper's order, with the section and notebook.
DATA_GROUPS = (("MNIST, '2' against even digits, tested on odd ones", "section 1", "07_mnist_2_vs_other"),
               ("MNIST, '2' against each other digit", "section 4.1", "07_mnist_2_vs_other"),
               ("MNIST, similarity", "section 4.2", "08_similarity_learning"),
               ("CIFAR-10, similarity", "section 4.2", "08_similarity_learning"),
               ("all three section-4 experiments", "section 5", "08b_claims_over_seeds"))


def verdicts_by_data(claims: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """``{data group: {verdict: [claims]}}`` in the order of :data:`DATA_GROUPS` and reproduced, partly, not
    reproduced, unsettled (others after).

    Examples
    --------
    >>> groups = verdicts_by_data([{"id": "mnist_sim.t_higher", "verdict": "partly"}])
    >>> {k: {v: len(c) for v, c in g.items()} for k, g in groups.items()}
    {'MNIST, similarity': {'partly': 1}}
    """
    from .claims import COUNT_ORDER

    rank = {v: i for i, v in enumerate(COUNT_ORDER)}
    out: dict[str, dict[str, list[dict]]] = {}
    for label, _, _ in DATA_GROUPS:
        these = [c for c in claims if claim_data(c["id"]) == label]
        if these:
            by_verdict: dict[str, list[dict]] = {}
            for c in sorted(these, key=lambda c: rank.get(c["verdict"], len(rank))):
                by_verdict.setdefault(c["verdict"], []).append(c)
            out[label] = by_verdict
    return out


def what_holds_story(claims: list[dict]) -> str:
    """Notebook 11's account of the experiments: per data set and task, how many claims got each verdict and
    what each of them asserts, in plain words (the claim's ``paper`` text); no ids, rules or per-seed values.

    Examples
    --------
    >>> print(what_holds_story([{"id": "mnist_sim.t_higher", "verdict": "not reproduced",
    ...                          "paper": "|T| of T-greedy's picks above greedy's"}]))
    * **MNIST, similarity** (section 4.2, notebook 08_similarity_learning): 1 claim, not reproduced: |T| of T-greedy's picks above greedy's.
    """
    from .prose import plural

    words = {"reproduced": "reproduced", "partly": "partly reproduced", "not reproduced": "not reproduced",
             "unsettled": "unsettled"}
    where = {label: (section, notebook) for label, section, notebook in DATA_GROUPS}
    lines = []
    for label, by_verdict in verdicts_by_data(claims).items():
        n = sum(len(v) for v in by_verdict.values())
        parts = [f"{len(cs) if n > 1 else ''} {words.get(v, v)}".strip() + ": " + "; ".join(_asserts(c) for c in cs)
                 for v, cs in by_verdict.items()]
        section, notebook = where[label]
        lines.append(f"* **{label}** ({section}, notebook {notebook}): {plural(n, 'claim')}, " + ". ".join(parts) + ".")
    return "\n".join(lines)


def _asserts(claim: dict) -> str:
    """What a claim asserts in words: its ``paper`` text, or the quoted sentence when that text is only a number."""
    import re

    text = claim.get("paper", "")
    if claim.get("claim") and re.match(r"^(about )?[\d.,]+ ?%", text):
        return f"\"{claim['claim']}\""
    return text


#: What holds instead of each statement that is false as printed, typeset, one sentence each (the claims page and
#: notebook 11 show these; the verify record's ``corrected_claim`` is the evidence behind them).
CORRECTED_TEX = {
    "domains.theorem2": r"$\Pr\left[\frac{(\sum_i Z_i)^2}{\sum_i Z_i^2} > t\right] \le 2 e^{-t/2}$: the two-sided "
                        r"bound the appendix's proof gives.",
    "domains.corollary3": r"with probability $\ge 1 - \delta$, $L(\hat\mu_S) - L(\mu_S) \le \frac{1}{n} \sum_i "
                          r"[\hat\sigma_S]_i^2 \, (8 q \log p + 4 \log(2/\delta))$: Theorem 1 on the $q\, p^q$ basis "
                          r"elements, as the proof says (the factor 4).",
    "categorical.lemma11": r"$\lvert f(Z) - \mathbb{E} f \rvert \le \sqrt{\frac{2 \ln(1/\delta)}{k}}$ with probability "
                           r"$\ge 1 - \delta$: no factor $1/e$.",
}

#: ASCII math of the verify records and how a page shows it.
_ASCII_TEX = [
    ("w.p. >= 1-delta", r"with probability $\ge 1-\delta$"),
    ("With probability >= 1 - delta", r"With probability $\ge 1-\delta$"),
    ("sqrt(2 ln(1/delta) / (e k))", r"$\sqrt{2\ln(1/\delta)/(e k)}$"),
    ("sqrt(2 ln(1/delta)/(e k))", r"$\sqrt{2\ln(1/\delta)/(e k)}$"),
    ("sqrt(2 ln(1/delta) / k)", r"$\sqrt{2\ln(1/\delta)/k}$"),
    ("sqrt(2 ln(1/delta)/k)", r"$\sqrt{2\ln(1/\delta)/k}$"),
    ("|f(Z) - E f|", r"$\lvert f(Z) - \mathbb{E} f\rvert$"),
    ("E[l_hat] - E[l(h_Gini)]", r"$\mathbb{E}[\hat\ell] - \mathbb{E}[\ell(h_{\mathrm{Gini}})]$"),
    ("L(mu_hat_S) - L(mu_S)", r"$L(\hat\mu_S) - L(\mu_S)$"),
    ("[sigma_hat_S]_i^2", r"$[\hat\sigma_S]_i^2$"),
    ("mu_hat_S", r"$\hat\mu_S$"),
    ("2 exp(-t/2)", r"$2e^{-t/2}$"), ("exp(-t/2)", r"$e^{-t/2}$"), ("e^(-t/2)", r"$e^{-t/2}$"),
    ("exp(-99/200)", r"$e^{-99/200}$"), ("e^(-99/200)", r"$e^{-99/200}$"),
    ("e^(n/8)", r"$e^{n/8}$"), ("e^(-n/8)", r"$e^{-n/8}$"),
    (" >= ", r" $\ge$ "), (" <= ", r" $\le$ "),
]

def tex_math(text: str) -> str:
    """A verify record's ASCII math as a page shows it: the common formulas typeset, and a list that repeats one
    law at many n ("Pareto n=1, Pareto n=2") as that law once with its n.

    Examples
    --------
    >>> print(tex_math("w.p. >= 1-delta, Pr > e^(-t/2)"))
    with probability $\\ge 1-\\delta$, Pr > $e^{-t/2}$
    >>> tex_math("Cauchy n=1, Pareto (index 1/4) n=1, Pareto (index 1/4) n=2, Pareto (index 1/4) n=5.")
    'Cauchy n=1, Pareto (index 1/4) at n = 1, 2, 5.'
    """
    for plain, tex in _ASCII_TEX:
        text = text.replace(plain, tex)
    return re.sub(r"(?:(?<=, )|^)((?:[A-Z][\w\-]*)(?: [\w\-]+)*(?: \([^()]*\))?) n=(\d+)((?:, \1 n=\d+)+)",
                  lambda m: f"{m.group(1)} at n = {m.group(2)}, "
                            + ", ".join(re.findall(r"n=(\d+)", m.group(3))), text)


def corrected_statements(records: dict[str, dict]) -> str:
    """The statements that hold where a printed one fails, one bullet each, named by paper and theorem (no check ids):
    the typeset statement of :data:`CORRECTED_TEX` with the record's evidence collapsed behind it.

    Examples
    --------
    >>> print(corrected_statements({"categorical.lemma11": {"corrected_claim": "no factor 1/e"}}))
    * **Lemma 11** (Sabato & Shalev-Shwartz (2008)): $\\lvert f(Z) - \\mathbb{E} f \\rvert \\le \\sqrt{\\frac{2 \\ln(1/\\delta)}{k}}$ with probability $\\ge 1 - \\delta$: no factor $1/e$. <details><summary>why, and the checks</summary>no factor 1/e</details>
    """
    lines = []
    for check_id, record in records.items():
        if record.get("corrected_claim"):
            paper, location, _ = THEOREMS.get(check_id, ("", check_id, ""))
            evidence = tex_math(" ".join(str(record["corrected_claim"]).split()))
            statement = CORRECTED_TEX.get(check_id)
            lines.append(f"* **{location.split(',')[0]}** ({paper}): "
                         + (f"{statement} <details><summary>why, and the checks</summary>{evidence}</details>"
                            if statement else evidence))
    return "\n".join(lines)


def central_findings(claims: list[dict]) -> str:
    """The paper's central comparisons in two sentences, each verdict read from ``claims`` (notebook 11).

    Examples
    --------
    >>> claims = [{"id": i, "verdict": "not reproduced"} for i in ("fig2.target_better", "fig2.t_higher",
    ...           "mnist_sim.overfits_less", "cifar_sim.overfits_less")]
    >>> central_findings(claims).startswith("The comparison at the heart of section 4.1")
    True
    """
    by_id = {c["id"]: c["verdict"] for c in claims}
    words = {"partly": "partly reproduced"}

    def verdict(cid):
        return words.get(by_id.get(cid, "not run"), by_id.get(cid, "not run"))

    return ("The comparison at the heart of section 4.1, that on MNIST '2 vs other' T-greedy's target AUROC beats "
            f"greedy's over the first 10 features, is **{verdict('fig2.target_better')}**; that T-greedy's picks have "
            f"a larger $|T|$ than greedy's is **{verdict('fig2.t_higher')}** under the paper's signed rule. On the "
            "similarity tasks of section 4.2, T-greedy's much smaller gap between source and target is "
            f"**{verdict('mnist_sim.overfits_less')}** on MNIST and **{verdict('cifar_sim.overfits_less')}** on "
            "CIFAR-10. Notebook 09 adds what the paper left open: how to choose the number of features.")
