"""What holds: every theorem and experimental claim of both papers with its computed verdict."""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Sequence

from .claims import (CLAIMS, COUNT_ORDER, NOT_REPRODUCED, NOT_RUN, PARTLY, REPRODUCED, SECTION4_TASKS, UNSETTLED,
                     in_count_order, verdict_counts)
from .prose import fmt, markdown_table, plural, render, replace_readme_block
from . import seeds
from tgreedy_lib.experiments.readings import PAPER_COMPARISON

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
    "categorical.theorem3": (CAT, "Theorem 3, section 4", "02a_bayes_hypothesis_theorems"),
    "categorical.theorem4": (CAT, "Theorem 4, section 4 (Lemmas 8-13)", "02a_bayes_hypothesis_theorems"),
    "categorical.lemma11": (CAT, "Lemma 11, section 4", "02a_bayes_hypothesis_theorems"),
}

#: experiment -> (the data and task of its claims, section, notebook), in the paper's order; section 5 reads all three.
DATA_GROUPS = {"intro-logistic": ("MNIST, '2' against even digits, tested on odd ones", "section 1",
                                  "07_mnist_2_vs_other"),
               "mnist-2-vs-other": ("MNIST, '2' against each other digit", "section 4.1", "07_mnist_2_vs_other"),
               "mnist-similarity": ("MNIST, similarity", "section 4.2", "08_similarity_learning"),
               "cifar-similarity": ("CIFAR-10, similarity", "section 4.2", "08_similarity_learning"),
               SECTION4_TASKS: ("all three section-4 experiments", "section 5", "08b_claims_over_seeds")}
_SPECS = {spec.id: spec for spec in CLAIMS}
_WORDS = {PARTLY: "partly reproduced"}


def load_verify_records(path=None) -> dict[str, dict]:
    """``{check id: record}`` of the ``verify`` record at ``path`` (default: the committed ``results/verify.json``)."""
    path = Path(path) if path is not None else REPOSITORY / "results" / "verify.json"
    if not path.is_file():
        raise ValueError(f"no verify record at {path.name}; write it with "
                         "`python -m tgreedy_course verify --json results/verify.json`")
    return {record["id"]: record for record in json.loads(path.read_text())["checks"]}


def find_claims() -> tuple[list[dict], str]:
    """The experimental claims of the committed reference results, and a sentence saying where they come from."""
    for name in seeds.REFERENCE_NAMES:
        if (reference := seeds.load_reference(name)) is not None:
            folder = seeds.REFERENCE_DIR
            where = f"{folder.parent.parent.name}/{folder.parent.name}/{folder.name}/{name}/claims.json"
            return reference["claims"]["claims"], f"the committed reference results ({where})"
    raise ValueError("no reference results are committed; write them with `python -m tgreedy_course reproduce "
                     "--seeds N` and `python -m tgreedy_course reference`")


def _vacuous_note(check_id: str) -> str:
    from tgreedy_lib.categorical import first_m_below, theorem2_bound, theorem4_bound
    from tgreedy_lib.domain_adaptation.theorems import t_bounds as tb

    if check_id == "domains.theorem1":
        admitted = {n: float(tb.max_features(n, 0.05)) for n in (8, 9)}
        if max(admitted.values()) < 1:
            return ("vacuous at the paper's n = 8, 9 (at δ = 0.05 its size condition admits "
                    + ", ".join(f"{a:.3f} features at n = {n}" if i == 0 else f"{a:.3f} at n = {n}"
                                for i, (n, a) in enumerate(admitted.items())) + ")")
    if check_id == "domains.corollary3":
        return "also vacuous at the paper's n (same size condition)"
    if check_id == "categorical.theorem2":
        return (f"explicit bound vacuous (above 1) below m = {first_m_below(lambda m: theorem2_bound(m, 0.05), 1.0):,} "
                "(δ = 0.05)")
    if check_id == "categorical.theorem4":
        m = first_m_below(lambda m: theorem4_bound(m, 0.05), 1.0)  # 5.4e+17 written 5.4 × 10¹⁷
        mantissa, exponent = f"{m:.1e}".split("e")
        exponent = str(int(exponent)).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
        m = f"{m:,.0f}" if abs(m) < 1e6 else f"{mantissa} × 10{exponent}"
        return f"explicit bound vacuous (above 1) below m = {m} (δ = 0.05)"
    return ""


def theorem_rows(records: dict[str, dict]) -> list[list[str]]:
    """One row per theorem of :data:`THEOREMS`: paper, location, verdict, worst case, notebook."""
    rows = []
    for check_id, (paper, location, notebook) in THEOREMS.items():
        if (record := records.get(check_id)) is None:
            rows.append([paper, location, "not checked", "", notebook])
            continue
        verdict = "holds" if record["holds_as_printed"] else "false as printed"
        if note := _vacuous_note(check_id):
            verdict = f"holds, but {note}" if record["holds_as_printed"] else f"{verdict}; {note}"
        ratio = record["worst_case"].get("ratio")
        rows.append([paper, location, verdict,
                     "" if ratio is None else f"largest observed / bound = {_short(ratio)}", notebook])
    return rows


def claim_data(claim_id: str) -> str:
    """The data and task an experimental claim is about, from its experiments."""
    if (spec := _SPECS.get(claim_id)) is None:
        return ""
    if set(spec.experiments) >= set(SECTION4_TASKS):
        return DATA_GROUPS[SECTION4_TASKS][0]
    return "; ".join(DATA_GROUPS[task][0] if task in DATA_GROUPS else task for task in spec.experiments)


def verdict_headline(claims: list[dict]) -> str:
    """One sentence: how many experimental claims got each verdict (over seeds, both answers)."""
    counts = dict(Counter(c["verdict"] for c in claims))
    n_seeds = max((len(c["seeds"]["verdicts"]) for c in claims if isinstance(c.get("seeds"), dict)
                   and c["seeds"].get("verdicts")), default=0)
    reproduced = counts.pop("reproduced", 0)
    parts = [f"{reproduced} {'is' if reproduced == 1 else 'are'} reproduced", f"{counts.pop('partly', 0)} partly reproduced",
             f"{counts.pop('not reproduced', 0)} not reproduced"]
    unsettled = counts.pop("unsettled", 0)
    parts += [f"{v} {k}" for k, v in counts.items()]
    if not any((claim_one_run(c) or {}).get("runs") for c in claims):
        return f"Of {len(claims)} experimental claims, " + ", ".join(parts) + f" and {unsettled} unsettled."
    return (f"Of {len(claims)} experimental claims, on average over {n_seeds} seeds " + ", ".join(parts)
            + f" and {unsettled} unsettled (no verdict in {100 * seeds.SETTLED_SHARE:.0f} % of the bootstrap replicates "
            f"over seeds); in single runs, {one_run_summary(claims)}.")


def one_run_summary(claims: Sequence[dict]) -> str:
    """``1 claim is reproduced by every run, 1 by some runs, 1 by none``: the one-run answers in one clause."""
    rates = [r for r in (claim_one_run(c) for c in claims) if r and r.get("runs")]  # claims of one run left out
    every, none = sum(r[REPRODUCED] == r["runs"] for r in rates), sum(r[REPRODUCED] == 0 for r in rates)
    return (f"{every} claim{' is' if every == 1 else 's are'} reproduced by every run, "
            f"{len(rates) - every - none} by some runs, {none} by none")


def claims_record(reference: dict | None = None) -> dict:
    """The ``claims`` record of reference results (default: the committed ones)."""
    return ((seeds.load_reference() if reference is None else reference) or {}).get("claims") or {}


def verdict_method_markdown(reference: dict | None = None) -> str:
    """How the verdicts over seeds are called, and how many stay unsettled as seeds are added."""
    record = claims_record(reference)
    parts = [record["verdict_method"]] if record.get("verdict_method") else []
    if convergence := record.get("convergence") or {}:
        parts.append("**Unsettled claims as seeds are added** (the verdicts recomputed from the first seeds only): " + ", ".join(
            f"{entry['counts'].get(UNSETTLED, 0)} at {k} seeds" for k, entry in convergence.items()) + ".")
        parts.append(seeds.convergence_markdown(convergence))
    return "\n\n".join(parts)


def claim_rows(claims: list[dict]) -> list[list[str]]:
    """One row per experimental claim: location, data and task, the quote, verdict (over seeds both answers), notebook."""
    notebooks = {label: notebook for label, _, notebook in DATA_GROUPS.values()}
    rows = []
    for claim in claims:
        figure = f", Figure {claim['figure']}" if claim.get("figure") not in (None, "", "-") else ""
        verdict = claim["verdict"] if (rate := claim_one_run(claim)) is None else (
            f"on average: {_average_short(claim)}; single runs: {_runs_short(rate)}")
        data = claim_data(claim["id"])
        rows.append([f"section {claim['section']}{figure}", data, f"\"{claim['claim']}\"", verdict, notebooks.get(data, "")])
    return rows


def verify_table(results) -> str:
    """A compact Markdown table of ``verify`` results, the corrected claims in a collapsible block."""
    rows, notes = [], []
    for record in (r.to_json() if hasattr(r, "to_json") else r for r in results):
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
    if isinstance(value, float):
        return render("{v:.4g}", v=value)
    return fmt(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def claims_markdown(claims: list[dict]) -> str:
    """A Markdown table: claim (quoted), paper, measured, verdict (with the seed count), rule."""
    return markdown_table(["id", "section / fig.", "the paper says", "paper", "measured", "verdict", "rule"], [
        [c["id"], f"{c['section']} / {c['figure']}", f"\"{c['claim']}\"", c["paper"], c["measured"],
         f"**{c['verdict']}**" + (f" ({c['verdict_count']})" if c.get("verdict_count") else ""), c["rule"]]
        for c in claims], spaced=True) + "\n"


def verdict_matrix_markdown(tables: dict, labels: dict | None = None) -> str:
    """One row per claim, one column per table: on-average verdict, then the single runs'."""
    def cell(c):
        counted = c.get("seeds") and c["verdict"] not in (NOT_RUN, "n/a")
        return c["verdict"] + (f" (single runs: {single_runs_text(claim_one_run(c))})" if counted else "")

    return markdown_table(["claim"] + [(labels or {}).get(n, n) for n in tables], [
        [c["id"]] + [cell(t[i]) for t in tables.values()]
        for i, c in enumerate(next(iter(tables.values())))], spaced=True) + "\n"


def single_runs_text(rate: dict | None) -> str:
    """The single runs' verdicts, each counted: ``reproduced in 17, partly in 2, not reproduced in 1 of 20``."""
    if not rate or not rate.get("runs"):
        return NOT_RUN
    n = rate["runs"]
    shown = [(v, rate[v]) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED) if rate.get(v)]
    if len(shown) == 1:
        return f"{shown[0][0]} in all {n}" if n > 1 else f"{shown[0][0]} in its one run"
    return ", ".join(f"{v} in {k}" for v, k in shown) + f" of {n}"


def claim_one_run(claim: dict) -> dict | None:
    """A claim's one-run answer over its seeds (:func:`~tgreedy_course.seeds.one_run_rate`), None for one run."""
    if not isinstance(found := claim.get("seeds"), dict) or not found:
        return None
    return found.get("one_run") or (seeds.one_run_rate(found["verdicts"]) if found.get("verdicts") else None)


def claim_answers(claim: dict) -> tuple[str, str]:
    """A claim's two answers in a few words: ``(on average, in one run)``; a claim of a single run has no average."""
    verdict = claim["verdict"]
    if (rate := claim_one_run(claim)) is None:
        return (f"{verdict} (one run)" if verdict in (REPRODUCED, PARTLY, NOT_REPRODUCED) else verdict), verdict
    if not rate.get("runs"):
        return verdict, NOT_RUN
    one = seeds.one_run_text(rate).removeprefix("one run: ") + (f", partly in {rate[PARTLY]}" if rate.get(PARTLY) else "")
    average = claim["seeds"].get("average") or {}
    if not average.get("replicates") or not (shares := average.get("shares")):
        return verdict, one
    if verdict == UNSETTLED:
        ranked = sorted(shares.items(), key=lambda kv: -kv[1])
        return (f"{verdict} (" + ", ".join(f"{v} in {100 * s:.0f} %" for v, s in ranked) + " of the replicates)"), one
    return f"{verdict} ({100 * shares.get(verdict, 0.0):.0f} % of the replicates)", one


def counts_text(counts: dict) -> str:
    """``"2 reproduced, 1 unsettled, 17 n/a"``: counts of verdicts in the order of ``COUNT_ORDER``."""
    return ", ".join(f"{v} {k}" for k, v in in_count_order(counts).items())


#: The files of a ``reproduce --seeds`` folder that make up reference results.
REFERENCE_FILES = ("claims.json", "claims.md", "bands.json", "timings.json")


def write_reference(results_dir, name: str = seeds.REFERENCE_NAMES[0], readme=None, reference_dir=None) -> list:
    """Copy a ``reproduce --seeds N`` folder's reference files and rewrite ``readme``'s block; the files written."""
    if not (source := (results_dir := Path(results_dir)) / "claims.json").is_file():
        raise FileNotFoundError(f"{source} is missing: pass the --out folder of `python -m tgreedy_course reproduce "
                                "--seeds N` (or run its summary first)")
    if not {"seeds", "primary_feature_map"} <= set(json.loads(source.read_text())):
        raise ValueError(f"{source} is not the summary of a run over seeds (no 'primary_feature_map'); "
                         "run `python -m tgreedy_course reproduce --seeds N` into that folder")
    folder = Path(reference_dir or seeds.REFERENCE_DIR) / name
    folder.mkdir(parents=True, exist_ok=True)
    from tgreedy_lib.files import atomic_write_bytes, atomic_write_text

    written = []
    for file in REFERENCE_FILES:
        if (results_dir / file).is_file():
            atomic_write_bytes(folder / file, (results_dir / file).read_bytes())
            written.append(folder / file)
    if readme is not None:
        readme = Path(readme)
        atomic_write_text(readme, replace_readme_block(readme.read_text(), readme_verdicts(
            {"claims": json.loads((folder / "claims.json").read_text())})))
        written.append(readme)
    return written


def _range_text(values, scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
    values = [scale * v for v in values if v is not None]
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return (low if low == high else f"{low}-{high}") + unit


def readme_verdicts(reference: dict) -> str:
    """The README's short verdict list of reference results: answers, counts, convergence, feature maps."""
    ref = reference["claims"]
    primary, resolved = ref["primary_feature_map"], ref.get("primary_feature_maps") or {}
    label = f"{primary} features" + (" (" + ", ".join(f"{ds}: {m}" for ds, m in resolved.items()) + ")"
                                      if primary == seeds.LEARNED and resolved else "")
    builds = (ref.get("feature_builds") or {}).get(primary)
    builds = ("features learned " + ", ".join(f"{n} times for {ds}" for ds, n in builds.items()) if builds
              else "features learned once")
    lines = [f"Paper scale, {ref['seeds']} seeds, {label} ({builds}). Each claim has two answers under "
             f"the paper's reading: *on average* (the rule on the means over seeds; it stands when at least "
             f"{100 * seeds.SETTLED_SHARE:.0f} % of {seeds.BOOTSTRAP_REPLICATES:,} bootstrap replicates "
             "over seeds give it, else *unsettled*) and *in one run* (how many of the seeds' own runs reproduce it, "
             "Wilson 95 % interval); then its on-average verdicts under |T| and stepwise greedy:", ""]
    table = (comparisons := ref["comparisons"])[PAPER_COMPARISON]
    for i, claim in enumerate(table):
        others = [comparisons[c][i]["verdict"] for c in comparisons if c != PAPER_COMPARISON]
        average, one_run = claim_answers(claim)
        lines.append(f"- `{claim['id']}`: on average **{claim['verdict']}**{average[len(claim['verdict']):]}; "
                     f"in one run {one_run}; " + " / ".join(others))
    lines += ["", f"Counts under the paper's reading, on average over {ref['seeds']} seeds: "
              + counts_text(verdict_counts(table)) + f"; in one run, {one_run_summary(table)}."]
    if convergence := ref.get("convergence") or {}:
        lines += ["", "Claims unsettled on average when the verdicts use only the first seeds: " + ", ".join(
            f"{entry['counts'].get(UNSETTLED, 0)} with {k} seeds" for k, entry in convergence.items()) + "."]
    probes, signal = ref.get("probe_accuracy") or {}, ref.get("pair_signal") or {}
    maps = [m for m in probes if not (m == seeds.LEARNED and m not in (ref.get("feature_maps") or {}) and len(probes) > 1)]
    measured = [f"{fmap} on {ds} {_range_text(probes[fmap][ds], 100, 1, ' %')}"
                + (f" / {_range_text(auroc, 1, 3)}" if any(a is not None for a in auroc) else "")
                for fmap in maps for ds in ("mnist", "cifar10")
                if any(a is not None for a in probes[fmap].get(ds, []))
                for auroc in [(signal.get(fmap) or {}).get(ds, [])]]
    if measured:
        lines += ["", "What the features carry, over the seeds (linear probe with C chosen on a validation split of "
                  "the training images / held-out source AUROC of the all-features similarity fit): "
                  + "; ".join(measured) + "."]
    by_map, per_map = ref.get("feature_map_counts") or {}, ref.get("seeds_per_map") or {}
    if len(by_map) > 1:
        lines += ["", "Under each feature map (the paper's reading, on average; table C above has them claim by claim): "
                  + "; ".join(f"{m}" + (f" ({per_map[m]} seeds)" if m in per_map else "") + f": {counts_text(c)}"
                              for m, c in by_map.items()) + "."]
    return "\n".join(lines)


_MAP_WORDS = {"dbn": "the deep belief network (DBN)", "conv": "the convolutional patch features (conv)",
              "pixels": "raw pixels", "random": "random sigmoid units of the pixels (they learn nothing)"}


def _map_words(feature_map: str | None) -> str:
    return _MAP_WORDS.get(feature_map or "", feature_map or "-")


def _features_sentence(record: dict, name: str) -> str:
    """Which features a table of the reference record uses, per data set, and how many networks were trained."""
    concrete = record.get("primary_feature_maps") or {} if name == seeds.LEARNED else {}
    builds = (record.get("feature_builds") or {}).get(name) or {}
    parts = []
    for dataset, label in (("mnist", "MNIST"), ("cifar10", "CIFAR-10")):
        runs = {c.get("verdict") for c in (record.get("feature_maps") or {}).get(name, [])}
        feature_map = concrete.get(dataset) if name == seeds.LEARNED else (
            name if runs - {"n/a"} and (name, dataset) != ("conv", "mnist") else None)
        if feature_map is None:
            continue
        built = builds.get(dataset) if feature_map != "pixels" else None
        how = "drawn" if feature_map == "random" else "learned"
        trained = f", {how} {'once' if built == 1 else f'{built} times'}" if built else ""
        parts.append(f"{label} from {_map_words(feature_map)}{trained}")
    return "; ".join(parts)


def _plain_number(value: float) -> str:
    """``fmt`` with three significant digits, but 0.0000790 rather than 7.90e-05."""
    value = float(value)
    return fmt(value, 2 - math.floor(math.log10(abs(value)))) if value != 0 and abs(value) < 1e-4 else fmt(value)


def _runs_short(rate: dict | None) -> str:
    """The single runs' verdicts in a few words: ``all partly``, ``17 reproduced, 2 partly, 1 not reproduced``."""
    if not rate or not rate.get("runs"):
        return NOT_RUN
    shown = [(v, rate[v]) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED) if rate.get(v)]
    if len(shown) == 1:
        return f"all {shown[0][0]}" if rate["runs"] > 1 else f"{shown[0][0]} (one run)"
    return ", ".join(f"{k} {v}" for v, k in shown)


def _average_short(claim: dict) -> str:
    """The verdict on the means over seeds; an unsettled one with the bootstrap's shares of each verdict."""
    verdict = claim["verdict"]
    shares = ((claim.get("seeds") or {}).get("average") or {}).get("shares") or {}
    if verdict == UNSETTLED and shares:
        shown = [(k, v) for k, v in sorted(shares.items(), key=lambda kv: -kv[1]) if round(100 * v) > 0]
        return f"{verdict}: " + ", ".join(f"{k} in {100 * v:.0f} %" for k, v in shown) + " of the replicates"
    return verdict


def _measured_short(claim: dict) -> str:
    """The headline value's mean over seeds with its 95 % interval, and the mean of every other value the rule names."""
    s = claim.get("seeds") or {}
    means = (s.get("average") or {}).get("mean_values") or {}
    rule, head = claim.get("rule", ""), claim.get("headline", "")
    named = [n for n in means if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", rule)]
    parts = []
    if s.get("mean") is not None:
        mean = float(s["mean"])
        digits = None if abs(mean) >= 1 or mean == 0 else max(3, 2 - math.floor(math.log10(abs(mean))))

        def num(x):                                   # the interval with the mean's decimals (no 4.9e-05)
            return fmt(float(x), digits)
        interval = f" ({num(s['ci95'][0])} to {num(s['ci95'][1])})" if s.get("ci95") else ""
        parts.append(f"{_measured_label(head)} = {num(mean)}{interval}")
    parts += [f"{_measured_label(n)} = {fmt(means[n])}" for n in named if n != head and means[n] is not None]
    if head not in named and len(parts) > 1:          # the rule does not read the headline: its own names first
        parts = parts[1:] + [f"also {parts[0]}"]
    return "; ".join(parts)


#: What each value a claim's rule reads measures, in words (its name follows in code type).
MEASURED_LABELS = {
    "error_even": "test error against even digits", "error_odd": "test error against odd digits",
    "increase_percent": "rise of the error, in %", "min_ratio": "smallest ratio",
    "strengths_at_3x": "strengths C with the odd-digit error at least 3 times the even", "strengths": "strengths C tried",
    "drop": "fall of greedy's target AUROC from its peak", "peak_step": "features at the peak",
    "lowest_3_to_5": "lowest target AUROC after 3 to 5 features", "after_1": "after 1 feature",
    "after_4": "after 4 features", "first": "source AUROC at the first feature", "last": "at the last feature",
    "max": "highest", "gap_late": "source-target gap later on", "gap_1": "after 1 feature",
    "difference": "greedy's source AUROC minus T-greedy's", "tgreedy_gap_first5": "T-greedy's source-target gap over the first 5 features",
    "greedy_gap_first5": "greedy's", "share_won": "share of splits T-greedy wins",
    "share_higher": "share of steps where T-greedy's pick has the larger |T|",
    "tgreedy_useful_steps": "T-greedy's useful steps", "greedy_useful_steps": "greedy's", "gain": "T-greedy's gain over its first feature",
    "tgreedy_best": "T-greedy's best target AUROC", "greedy_best": "greedy's",
    "tgreedy_gap": "T-greedy's source-target gap", "greedy_gap": "greedy's",
    "greedy_max": "greedy's highest target AUROC", "share_holding": "share of the tasks where it holds",
    "tasks_holding": "tasks where it holds", "max_first_gap": "largest source-target gap at the first feature",
}


def _measured_label(name: str) -> str:
    """``lowest target AUROC after 3 to 5 features (`lowest_3_to_5`)``: a measured value in words, then its name."""
    return f"{MEASURED_LABELS[name]} (`{name}`)" if name in MEASURED_LABELS else f"`{name}`"


def _matrix_short(tables: dict, labels: dict) -> str:
    """One row per claim, one column per table: the verdict on the means and, where not every run gave it, how many did."""
    def cell(c):
        rate = claim_one_run(c) if c.get("seeds") and c["verdict"] not in (NOT_RUN, "n/a") else None
        if not rate or not rate.get("runs"):
            return c["verdict"]
        if c["verdict"] == UNSETTLED:
            return f"{c['verdict']} ({_runs_short(rate)})"
        agree = rate.get(c["verdict"], 0)
        return c["verdict"] if agree == rate["runs"] else f"{c['verdict']} ({agree} of {rate['runs']})"

    return markdown_table(["claim"] + [labels.get(n, n) for n in tables], [
        [f"`{c['id']}`"] + [cell(t[i]) for t in tables.values()]
        for i, c in enumerate(next(iter(tables.values())))]) + "\n"


def audit_appendix_markdown(reference: dict | None = None) -> str:
    """The claims page's audit appendix: tables A (paper's reading), B (readings), C (feature maps), D (per seed)."""
    record = claims_record(reference)
    if not record.get("comparisons"):
        return ""
    n_seeds = record.get("seeds")
    seed_text = f"{n_seeds} seeds (0-{n_seeds - 1})" if n_seeds and n_seeds > 1 else "one seed"
    primary_features = _features_sentence(record, record.get("primary_feature_map") or seeds.LEARNED)
    paper = record["comparisons"]["paper"]
    out = ["### How to read a verdict", "",
           "*reproduced*: the rule's first condition holds; *partly*: only its weaker second condition holds (for "
           "example, the error rises on the new digits, but not as far as the paper says); *not reproduced*: neither "
           "holds; *unsettled*: the bootstrap over seeds gives no verdict in 95 % of its replicates. A verdict is "
           "called on the means over seeds; each seed's own run gets a verdict too, and table A counts those in a "
           "column of its own.", "",
           verdict_method_markdown(reference).replace(
               "*In one run*: the share of seeds whose own run reproduces the claim, with a Wilson 95 % interval.",
               "*In one run*: how many of the seeds' own runs give each verdict (the last column of table A; in "
               "brackets in tables B and C where not every run agrees)."), ""]

    out += ["### A. Every claim under the paper's reading", "",
            f"Features: {primary_features}. Seeds: {seed_text}; each seed draws the training images, the test domains "
            f"and pairs anew. *Measured*: the values the claim's rule reads, in words and under the rule's own names: the main one "
            f"as its mean over the seeds with a 95 % interval, the others as means. *Single runs*: the verdicts of the "
            f"{plural(n_seeds or 1, 'run')} of single seeds. The rules are listed after the tables.", ""]
    for label, section, _ in DATA_GROUPS.values():
        if not (group := [c for c in paper if claim_data(c["id"]) == label]):
            continue
        out += [f"**{label}** ({section})", "",
                markdown_table(["claim", "the paper's words", "measured", "on average",
                                f"single runs (of {n_seeds})" if n_seeds and n_seeds > 1 else "single run"],
                               [[f"`{c['id']}`", f"\"{c['claim']}\"", _measured_short(c), _average_short(c),
                                 _runs_short(claim_one_run(c))] for c in group]), ""]
    out += ["<details><summary>The rules, claim by claim</summary>", "",
            *[f"* `{c['id']}`: {c['rule'].replace(' >= ', ' ≥ ').replace(' <= ', ' ≤ ')}" for c in paper], "", "</details>", ""]

    out += ["### B. The verdicts under the two readings of T-greedy's rule, and against stepwise greedy", "",
            "Notebook 00 names the readings: T-greedy adds the feature of largest signed T (the paper's arg max T) "
            "or of largest |T| (the library's default); greedy refits one weight per step (stagewise, the paper's "
            "greedy) or all weights by least squares (stepwise). "
            f"Same features and seeds as table A ({primary_features}; {seed_text}). Each cell is the verdict on "
            f"the means over seeds; in brackets, where not every single run gave it, how many of the {n_seeds} did.", "",
            _matrix_short(record["comparisons"], _READING_HEADS), ""]

    seeds_per_map, columns = record.get("seeds_per_map") or {}, list(record.get("feature_maps") or {})
    out += ["### C. The verdicts under each feature map (the paper's reading)", "",
            "Each column runs every claim on one feature map, for both data sets where the map exists (`n/a`: the "
            "map does not exist for that data set). In brackets, as in table B, how many single runs gave the verdict "
            "where not all did. The columns:", ""]
    out += [f"* **{_MAP_HEADS.get(m, m)}**: {_features_sentence(record, m)}; {seeds_per_map.get(m, n_seeds)} seeds "
            f"(0-{seeds_per_map.get(m, n_seeds) - 1})." for m in columns]
    out += ["", _matrix_short(record.get("feature_maps") or {},
                              {m: f"{_MAP_HEADS.get(m, m)} ({seeds_per_map.get(m, n_seeds)} seeds)" for m in columns}), ""]

    by_map = {m: {c["id"]: c for c in (record.get("feature_maps") or {}).get(m, [])} for m in columns}
    concrete = record.get("primary_feature_maps") or {}
    same_mnist = [m for m in columns if m == concrete.get("mnist")]    # the column whose MNIST features are table A's
    differ = [(c, by_map[m][c["id"]], m) for c in paper for m in same_mnist  # A and C differ only in CIFAR-10 features
              if c["id"] in by_map[m] and by_map[m][c["id"]]["verdict"] not in ("n/a", "not run", c["verdict"])
              and "cifar10" in seeds.claim_datasets(c["id"]) and concrete.get("cifar10") != m]
    out += ["### Why tables A and C disagree on some claims", ""]
    if differ:
        out.append(
            f"Table A takes MNIST from {_map_words(concrete.get('mnist'))} and CIFAR-10 from "
            f"{_map_words(concrete.get('cifar10'))}; the columns of table C take both data sets from one map. A claim "
            f"that reads CIFAR-10 can therefore get one verdict in A and another in the "
            f"{', '.join(_MAP_HEADS.get(m, m) for m in same_mnist)} column of C, whose MNIST features are A's: the "
            "verdict moved with the CIFAR-10 features, not by chance (both tables use the same seeds). Claim by claim:")
        out += [""] + [f"* `{c['id']}` ({claim_data(c['id'])}): {c['verdict']} in table A "
                       f"(CIFAR-10 from {_map_words(concrete.get('cifar10'))}; single runs: "
                       f"{_runs_short(claim_one_run(c))}), {other['verdict']} in the {_MAP_HEADS.get(m, m)} column of "
                       f"table C (CIFAR-10 from {_map_words(m)}; single runs: {_runs_short(claim_one_run(other))})."
                       for c, other, m in differ]
    else:
        out.append("They agree wherever they use the same features.")
    out.append("")

    values = [[f"`{c['id']}`", c.get("headline", ""), "; ".join("-" if v is None else _plain_number(v)
                                                               for v in (c.get("seeds") or {}).get("values", []))]
              for c in paper]
    out += ["### D. Per-seed values (table A's features and seeds)", "",
            f"The main measured value of each claim (the first name in table A's measured cell, or the one after "
            f"'also') in each seed's run, seed 0 first ({primary_features}).", "",
            markdown_table(["claim", "value", "per seed"], values), ""]
    return "\n".join(out)


def seed_story(reference: dict | None = None) -> str:
    """Notebook 08b's findings in a few sentences, every number read from the reference record."""
    record = claims_record(reference)
    paper = (record.get("comparisons") or {}).get("paper") or []
    if not paper:
        return ""
    n_seeds = record.get("seeds") or 1
    counts = {v: sum(c["verdict"] == v for c in paper) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED, UNSETTLED)}
    unanimous = sum(bool(r.get("runs")) and max(r.get(v, 0) for v in (REPRODUCED, PARTLY, NOT_REPRODUCED)) == r["runs"]
                    for r in (claim_one_run(c) or {} for c in paper))
    concrete = record.get("primary_feature_maps") or {}

    def named(verdict):
        return "; ".join(f"{_asserts(c)} ({claim_data(c['id'])})" for c in paper if c["verdict"] == verdict)

    lines = [
        f"**What held.** Over {plural(n_seeds, 'seed')}, each a fresh draw of the training images and the test "
        f"domains and pairs, {counts[REPRODUCED]} of the paper's {len(paper)} experimental claims are reproduced "
        f"on average, {counts[PARTLY]} partly, {counts[NOT_REPRODUCED]} are not reproduced, and {counts[UNSETTLED]} "
        f"{'stays' if counts[UNSETTLED] == 1 else 'stay'} unsettled (features: MNIST from {_map_words(concrete.get('mnist'))}, "
        f"CIFAR-10 from {_map_words(concrete.get('cifar10'))}).\n\n*Reproduced:* "
        + named(REPRODUCED) + "".join(f".\n\n*{head}:* {named(v)}" for head, v in (
            ("Not reproduced", NOT_REPRODUCED), ("Unsettled", UNSETTLED)) if counts[v]) + ".",
        f"**Single runs agree for most claims, not all.** For {unanimous} of the {len(paper)} claims every single run "
        "gives the same verdict; for the others one run can tell a different story from the average."]
    moved_reading = [c["id"] for i, c in enumerate(paper)
                     if len({t[i]["verdict"] for t in record["comparisons"].values() if _live(t[i]["verdict"])}) > 1]
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
                    and "cifar10" in seeds.claim_datasets(c["id"]))
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


#: Short column heads of the readings and feature maps in notebook 08b's tables.
_READING_HEADS = {"paper": "arg max T vs greedy (the paper's)", "abs-T": "largest |T| vs greedy",
                  "stepwise-greedy": "arg max T vs stepwise greedy"}
_MAP_HEADS = {"dbn": "DBN", "conv": "conv patches", "pixels": "raw pixels", "random": "random units"}


def _live(verdict: str) -> bool:
    return verdict not in ("n/a", "not run")


def dependence_tables(reference: dict | None = None) -> str:
    """Notebook 08b: the claims whose verdict changes with the reading of section 3.3 or the features."""
    record = claims_record(reference)
    paper = (comparisons := record.get("comparisons") or {}).get("paper") or []
    readings = [r for r in ("paper", "abs-T", "stepwise-greedy") if r in comparisons]
    rows = []
    for i, claim in enumerate(paper):
        verdicts = [comparisons[r][i]["verdict"] for r in readings]
        if len({v for v in verdicts if _live(v)}) > 1:
            rows.append([_asserts(claim), claim_data(claim["id"])] + [_WORDS.get(v, v) for v in verdicts])
    reading_table = markdown_table(["the paper says", "data and task"] + [_READING_HEADS[r] for r in readings], rows)
    maps = record.get("feature_maps") or {}
    names = [m for m in ("dbn", "pixels", "random") if m in maps]
    by_map = {m: {c["id"]: c["verdict"] for c in maps[m]} for m in names}
    rows = []
    for claim in paper:       # the same claims as seed_story counts: CIFAR-10's verdict moves with the DBN, or
        dbn = by_map.get("dbn", {}).get(claim["id"], "n/a")       # random units reproduce a claim the DBN does
        moved = _live(dbn) and dbn != claim["verdict"] and "cifar10" in seeds.claim_datasets(claim["id"])
        random_too = dbn == by_map.get("random", {}).get(claim["id"]) == REPRODUCED
        if moved or random_too:
            rows.append([_asserts(claim), claim_data(claim["id"]), _WORDS.get(claim["verdict"], claim["verdict"])]
                        + [_WORDS.get(v, v) if _live(v) else "not tested"
                           for v in (by_map[m].get(claim["id"], "n/a") for m in names)])
    seeds_per_map, concrete = record.get("seeds_per_map") or {}, record.get("primary_feature_maps") or {}
    learned_head = (f"learned ({_MAP_HEADS.get(concrete.get('mnist'), concrete.get('mnist'))} on MNIST, "
                    f"{_MAP_HEADS.get(concrete.get('cifar10'), concrete.get('cifar10'))} on CIFAR-10)")
    feature_table = markdown_table(["the paper says", "data and task", learned_head] + [
        f"{_MAP_HEADS.get(m, m)}{' everywhere' if m == 'dbn' else ''} ({plural(seeds_per_map.get(m, 0), 'seed')})"
        for m in names], rows)
    return ("**Claims whose verdict depends on the reading** (on average over the seeds, DBN features on MNIST and "
            "conv patch features on CIFAR-10):\n\n" + reading_table
            + "\n\n**Claims whose verdict depends on the features**, or that random units reproduce as well as "
            "learned features (the paper's reading):\n\n" + feature_table)


def verdicts_by_data(claims: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """``{data group: {verdict: [claims]}}`` in the order of :data:`DATA_GROUPS` and of ``COUNT_ORDER``."""
    out = {}
    for label, _, _ in DATA_GROUPS.values():
        if these := [c for c in claims if claim_data(c["id"]) == label]:
            out[label] = {v: [c for c in these if c["verdict"] == v] for v in in_count_order(Counter(c["verdict"] for c in these))}
    return out


def what_holds_story(claims: list[dict]) -> str:
    """Notebook 11: per data set and task, each verdict's count and what its claims assert in words."""
    groups, lines = verdicts_by_data(claims), []
    for label, section, notebook in (g for g in DATA_GROUPS.values() if g[0] in groups):
        n = sum(len(v) for v in groups[label].values())
        parts = [f"{len(cs) if n > 1 else ''} {_WORDS.get(v, v)}".strip() + ": " + "; ".join(_asserts(c) for c in cs)
                 for v, cs in groups[label].items()]
        lines.append(f"* **{label}** ({section}, [notebook {notebook.split('_')[0]}]({notebook}.ipynb)): "
                     f"{plural(n, 'claim')}, " + ". ".join(parts) + ".")
    return "\n".join(lines)


def _asserts(claim: dict) -> str:
    """What a claim asserts in words: its ``paper`` text, or the quoted sentence when that text is only a number."""
    text = claim.get("paper", "")
    if claim.get("claim") and re.match(r"^(about )?[\d.,]+ ?%", text):
        return f"\"{claim['claim']}\""
    return text


#: What holds instead of each statement false as printed, typeset (the record's ``corrected_claim`` is the evidence).
CORRECTED_TEX = {
    "domains.theorem2": r"$\Pr\left[\frac{(\sum_i Z_i)^2}{\sum_i Z_i^2} > t\right] \le 2 e^{-t/2}$: the two-sided "
                        r"bound the appendix's proof gives.",
    "domains.corollary3": r"with probability $\ge 1 - \delta$, $L(\hat\mu_S) - L(\mu_S) \le \frac{1}{n} \sum_i "
                          r"[\hat\sigma_S]_i^2 \, (8 q \log p + 4 \log(2/\delta))$: Theorem 1 on the $q\, p^q$ basis "
                          r"elements, as the proof says (the factor 4).",
    "categorical.lemma11": r"$\lvert f(Z) - \mathbb{E} f \rvert \le \sqrt{\frac{2 \ln(1/\delta)}{k}}$ with probability "
                           r"$\ge 1 - \delta$: no factor $1/e$.",
}

#: ASCII math of the verify records and how a page shows it: the corrected statements' phrases before generic pieces.
_ASCII_TEX = [
    ("(sum_i [sigma_hat_S]_i^2) 4 log(2 q p^q / delta) / n",
     r"$\frac{1}{n}\left(\sum_i [\hat\sigma_S]_i^2\right) 4\log(2 q\, p^q/\delta)$"),
    ("(sum_i [sigma_hat_S]_i^2) (8 q log p + 4 log(2/delta)) / n",
     r"$\frac{1}{n}\left(\sum_i [\hat\sigma_S]_i^2\right)(8 q \log p + 4\log(2/\delta))$"),
    ("the q p^q basis elements", r"the $q\, p^q$ basis elements"), ("the printed log(2/delta)", r"the printed $\log(2/\delta)$"),
    ("size-q subset", r"size-$q$ subset"), ("'with probability 1 - delta'", r"'with probability $1 - \delta$'"),
    ("relative to delta", r"relative to $\delta$"), ("at delta = ", r"at $\delta$ = "), (", delta = ", r", $\delta$ = "),
    ("Pr[(sum Z_i)^2 / sum Z_i^2 > t]", r"$\Pr\left[(\sum_i Z_i)^2 / \sum_i Z_i^2 > t\right]$"),
    ("Pr[sum Z_i > sqrt(t sum Z_i^2)]", r"$\Pr\left[\sum_i Z_i > \sqrt{t \sum_i Z_i^2}\right]$"),
    ("Z_1 = +-1 and Z_2..Z_n = +-1e-4/n", r"$Z_1 = \pm 1$ and $Z_2, \dots, Z_n = \pm 10^{-4}/n$"),
    ("(1 - 1e-4)^2 / (1 + 1e-8) > 99/100", r"$(1 - 10^{-4})^2 / (1 + 10^{-8}) > 99/100$"),
    ("Pr[ratio > 99/100] = 1 > exp(-99/200)", r"$\Pr[\text{ratio} > 99/100] = 1 > e^{-99/200}$"),
    ("tail/(2 exp(-t/2))", r"tail / $2e^{-t/2}$"),
    ("2q-1 <= sqrt(2 ln(1/delta)/k)", r"$2q-1 \le \sqrt{2\ln(1/\delta)/k}$"), ("factor sqrt(e)", r"factor $\sqrt{e}$"),
    ("w.p. >= 1-delta", r"with probability $\ge 1-\delta$"), ("With probability >= 1 - delta", r"With probability $\ge 1-\delta$"),
    ("sqrt(2 ln(1/delta) / (e k))", r"$\sqrt{2\ln(1/\delta)/(e k)}$"), ("sqrt(2 ln(1/delta)/(e k))", r"$\sqrt{2\ln(1/\delta)/(e k)}$"),
    ("sqrt(2 ln(1/delta) / k)", r"$\sqrt{2\ln(1/\delta)/k}$"), ("sqrt(2 ln(1/delta)/k)", r"$\sqrt{2\ln(1/\delta)/k}$"),
    ("|f(Z) - E f|", r"$\lvert f(Z) - \mathbb{E} f\rvert$"),
    ("E[l_hat] - E[l(h_Gini)]", r"$\mathbb{E}[\hat\ell] - \mathbb{E}[\ell(h_{\mathrm{Gini}})]$"),
    ("L(mu_hat_S) - L(mu_S)", r"$L(\hat\mu_S) - L(\mu_S)$"), ("[sigma_hat_S]_i^2", r"$[\hat\sigma_S]_i^2$"), ("mu_hat_S", r"$\hat\mu_S$"),
    ("2 exp(-t/2)", r"$2e^{-t/2}$"), ("exp(-t/2)", r"$e^{-t/2}$"), ("e^(-t/2)", r"$e^{-t/2}$"),
    ("exp(-99/200)", r"$e^{-99/200}$"), ("e^(-99/200)", r"$e^{-99/200}$"),
    ("e^(n/8)", r"$e^{n/8}$"), ("e^(-n/8)", r"$e^{-n/8}$"),
    (" >= ", r" $\ge$ "), (" <= ", r" $\le$ "),
]


def tex_math(text: str) -> str:
    """A verify record's ASCII math typeset, and "Pareto n=1, Pareto n=2" written as "Pareto at n = 1, 2"."""
    for plain, tex in _ASCII_TEX:
        text = text.replace(plain, tex)
    return re.sub(r"(?:(?<=, )|^)((?:[A-Z][\w\-]*)(?: [\w\-]+)*(?: \([^()]*\))?) n=(\d+)((?:, \1 n=\d+)+)",
                  lambda m: f"{m.group(1)} at n = {m.group(2)}, "
                            + ", ".join(re.findall(r"n=(\d+)", m.group(3))), text)


def corrected_statements(records: dict[str, dict]) -> str:
    """One bullet per statement that holds where a printed one fails: typeset, with the record's evidence."""
    lines = []
    for check_id, record in ((k, r) for k, r in records.items() if r.get("corrected_claim")):
        paper, location, _ = THEOREMS.get(check_id, ("", check_id, ""))
        evidence = tex_math(" ".join(str(record["corrected_claim"]).split()))
        statement = CORRECTED_TEX.get(check_id)
        lines.append(f"* **{location.split(',')[0]}** ({paper}): " + (
            f"{statement} <details><summary>why, and the checks</summary>{evidence}</details>" if statement else evidence))
    return "\n".join(lines)


def central_findings(claims: list[dict]) -> str:
    """The paper's central comparisons in two sentences, each verdict read from ``claims`` (notebook 11)."""
    by_id = {c["id"]: c["verdict"] for c in claims}

    def verdict(cid):
        return _WORDS.get(by_id.get(cid, NOT_RUN), by_id.get(cid, NOT_RUN))

    return ("The comparison at the heart of section 4.1, that on MNIST '2 vs other' T-greedy's target AUROC beats "
            f"greedy's over the first 10 features, is **{verdict('fig2.target_better')}**; that T-greedy's picks have "
            f"a larger $|T|$ than greedy's is **{verdict('fig2.t_higher')}** under the paper's signed rule. On the "
            "similarity tasks of section 4.2, T-greedy's much smaller gap between source and target is "
            f"**{verdict('mnist_sim.overfits_less')}** on MNIST and **{verdict('cifar_sim.overfits_less')}** on "
            "CIFAR-10. Notebook 09 adds what the paper left open: how to choose the number of features.")
