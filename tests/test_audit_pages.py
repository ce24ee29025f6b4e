"""Notebooks 08b, 09 and 11 read as a course, and the claims page carries the audit.

* numbers as people write them (``prose.plural``, ``prose.percent``) and verdict cells that count every verdict of
  the single runs, so that none reads "partly (reproduced in 0 of 20 runs)";
* the claims page's appendix says, for each table, which features and seeds it uses, and why two tables that take
  CIFAR-10 from different feature maps disagree;
* in 08b, 09 and 11: no claim id, no in-house word, no "(s)" plural, no "1.0 features"; every cell that writes prose
  is hidden (metadata and tag); contents near the top, exercises last; figure text at least 9 pt at the book's width;
  at most 30 minutes of reading.
"""
from __future__ import annotations

import base64
import importlib.util
import json
import re
from pathlib import Path

import pytest

from tgreedy_course import claims, summary
from tgreedy_course.prose import percent, plural
from tgreedy_course.seeds import load_reference
from tgreedy_course.summary import audit_appendix_markdown

ROOT = Path(__file__).resolve().parents[1]
OWN = ["08b_claims_over_seeds", "09_when_to_stop", "11_what_holds"]
BOOK_WIDTH_PX = 720          # the book's text column in CSS pixels: a wider figure is scaled down to it
MIN_DISPLAYED_PT = 9.0
IN_HOUSE = ["stand-in", "committed reference run", "bar of 80", "fixed before the runs", "set before the runs",
            "k = 511", "claims.CLAIMS", "(descriptive)"]


def _cells(stem):
    return json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def _source(cell) -> str:
    return "".join(cell["source"])


def _visible_text(stem) -> str:
    """What a reader sees: markdown cells and the text outputs of code cells."""
    parts = []
    for cell in _cells(stem):
        if cell["cell_type"] == "markdown":
            parts.append(_source(cell))
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            parts.append("".join(data.get("text/markdown", "")) + "".join(out.get("text", "")))
    return "\n".join(parts)


# --------------------------------------------------------------------------- numbers as people write them

def test_plural_writes_counts_and_means_as_people_do():
    assert plural(1.0, "feature") == "1 feature" and plural(1, "seed") == "1 seed"
    assert plural(2, "feature") == "2 features" and plural(0, "step") == "0 steps"
    assert plural(39.94, "feature") == "39.9 features" and plural(2000.0, "feature") == "2,000 features"


def test_percent_keeps_only_the_digits_the_count_supports():
    assert percent(0.32777) == "33%" and percent(0.32777, n=180) == "33%"
    assert percent(0.32777, n=1_000_000) == "32.8%"


def test_a_verdict_cell_counts_every_verdict_of_the_single_runs():
    partly = {"id": "a", "verdict": claims.PARTLY, "seeds": {"verdicts": [claims.PARTLY] * 20}}
    mixed = {"id": "b", "verdict": claims.UNSETTLED,
             "seeds": {"verdicts": [claims.REPRODUCED] * 9 + [claims.PARTLY] * 11}}
    matrix = summary.verdict_matrix_markdown({"x": [partly, mixed]})
    assert "| a | partly (single runs: partly in all 20) |" in matrix
    assert "| b | unsettled (single runs: reproduced in 9, partly in 11 of 20) |" in matrix
    assert "reproduced in 0 of" not in matrix


# --------------------------------------------------------------------------- the claims page

@pytest.fixture(scope="module")
def reference():
    ref = load_reference()
    if ref is None:
        pytest.skip("no reference results")
    return ref


def test_the_appendix_names_features_and_seeds_for_every_table(reference):
    text = audit_appendix_markdown(reference)
    tables = re.split(r"^### ", text, flags=re.M)[1:]
    with_table = [t for t in tables if "\n| " in t]
    assert len(with_table) >= 4
    for table in with_table:
        head = table.split("\n| ", 1)[0]
        if table.startswith("How to read"):
            continue
        assert "seed" in head, table[:80]
        assert "MNIST" in head or "CIFAR-10" in head or "Same features" in head, table[:80]
    assert "reproduced in 0 of" not in text
    for claim in reference["claims"]["comparisons"]["paper"]:
        assert f"`{claim['id']}`" in text   # ids, rules and per-seed values live here


def test_the_appendix_says_why_the_two_cifar_feature_maps_disagree(reference):
    text = audit_appendix_markdown(reference)
    why = text.split("### Why tables A and C disagree")[1].split("###")[0]
    record = reference["claims"]
    dbn = {c["id"]: c for c in record["feature_maps"]["dbn"]}
    expected = [c["id"] for c in record["comparisons"]["paper"]
                if dbn[c["id"]]["verdict"] not in ("n/a", "not run", c["verdict"])]
    assert "disc.variability" in expected and "cifar_sim.greedy_random" in expected
    for cid in expected:
        line = next(line for line in why.splitlines() if line.startswith(f"* `{cid}`"))
        assert "convolutional patch features" in line and "deep belief network" in line
        assert dbn[cid]["verdict"] in line


def test_the_book_puts_the_appendix_on_the_claims_page():
    spec = importlib.util.spec_from_file_location("book_build", ROOT / "book" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    lines = build.audit_appendix()
    if not lines:
        pytest.skip("no reference results")
    assert lines[0].startswith("## The claims, one by one") and "### A. Every claim" in "\n".join(lines)


# --------------------------------------------------------------------------- the notebooks

@pytest.mark.parametrize("stem", OWN)
def test_no_claim_id_and_no_in_house_word_on_the_page(stem):
    text = _visible_text(stem)
    ids = [cid for cid in claims.CLAIM_IDS if re.search(rf"(?<![\w.]){re.escape(cid)}(?![\w])", text)]
    assert not ids, f"{stem}: claim ids belong on the claims page: {ids}"
    words = [w for w in IN_HOUSE if w in text]
    assert not words, f"{stem}: in-house words on the page: {words}"
    assert not re.search(r"\w\(s\)", text), f"{stem}: write the plural, not '(s)'"
    assert not re.search(r"\b1\.0 (?:feature|step|seed)", text), f"{stem}: write '1 feature', not '1.0 features'"


PROSE_WRITERS = re.compile(r"\b(?:say|show_markdown|show_table|render)\(|\bf\"")


@pytest.mark.parametrize("stem", OWN)
def test_cells_that_write_prose_are_hidden(stem):
    shown = []
    for i, cell in enumerate(_cells(stem)):
        if cell["cell_type"] != "code" or not PROSE_WRITERS.search(_source(cell)):
            continue
        if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
            continue   # a figure's code stays in view
        meta = cell.get("metadata", {})
        if not (meta.get("jupyter", {}).get("source_hidden") and "hide-input" in meta.get("tags", [])):
            shown.append(i)
    assert not shown, f"{stem}: cells {shown} write prose in view; hide their input (source_hidden and hide-input)"


@pytest.mark.parametrize("stem", OWN)
def test_contents_and_goals_first_exercises_last(stem):
    cells = _cells(stem)
    first = _source(cells[0])
    assert "**Learning goals**" in first and "**Contents**" in first and "section" in first.lower()
    headings = [line for c in cells if c["cell_type"] == "markdown" for line in _source(c).splitlines()
                if line.startswith("## ")]
    assert "Exercises" in headings[-1], headings


@pytest.mark.parametrize("stem", OWN)
def test_figure_text_is_at_least_9_pt_at_the_books_width(stem):
    from tgreedy_course.legibility import png_width_px, read_png_report

    checked = 0
    for cell in _cells(stem):
        for out in cell.get("outputs", []):
            png = out.get("data", {}).get("image/png")
            if not png:
                continue
            data = base64.b64decode(png)
            report = read_png_report(data)
            assert report is not None, f"{stem}: a figure without its legibility report"
            scale = min(1.0, BOOK_WIDTH_PX / png_width_px(data))
            assert report["smallest_text_pt"] * scale >= MIN_DISPLAYED_PT - 1e-9, (stem, report["smallest_text"])
            assert not report["overlapping_texts"], (stem, report["overlapping_texts"])
            checked += 1
    assert checked


def test_render_writes_whole_counts_without_decimals_and_resolves_plural_marks():
    from tgreedy_course.prose import render

    assert render("with {k:.1f} features on average", k=1.0) == "with 1 feature on average"
    assert render("peaks after {k:.1f} features", k=32.0) == "peaks after 32 features"
    assert render("over {n} seed(s), {m} feature build(s)", n=1, m=5) == "over 1 seed, 5 feature builds"
    assert render("{k:.1f} features", k=39.94) == "39.9 features"


def test_the_claims_page_shows_the_appendix_and_not_the_theorem_table_twice(tmp_path):
    spec = importlib.util.spec_from_file_location("book_build", ROOT / "book" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    if not build.audit_appendix():
        pytest.skip("no reference results")
    verify_json = ROOT / "results" / "verify.json"
    if not verify_json.exists():
        pytest.skip("no committed verify record")
    from tgreedy_course.notebooks import notebook_paths

    src = tmp_path / "src"
    src.mkdir()
    build.write_pages(src, notebook_paths(ROOT / "notebooks"), verify_json, None)
    page = (src / "claims.md").read_text(encoding="utf-8")
    assert "## The claims, one by one" in page and "### Why tables A and C disagree" in page
    assert "### From {doc}`11_what_holds`" not in page     # the theorems are in their own section already


# --------------------------------------------------------------------------- readable tables, claims named in words

def test_the_appendix_tables_are_narrow_and_speak_plainly(reference):
    text = audit_appendix_markdown(reference)
    table_a = text.split("### A.")[1].split("### B.")[0]
    heads = [line for line in table_a.splitlines() if line.startswith("| claim |")]
    assert heads and all(line.count(" | ") + 1 <= 5 for line in heads), heads    # five columns at most
    assert "(single runs:" not in text and "e+0" not in text and "e-0" not in text and " >= " not in table_a
    generic = next(line for line in table_a.splitlines() if line.startswith("| `intro.generic` |"))
    # the measured cell says in words what it measures, then the name the rule reads it by
    assert "strengths C with the odd-digit error at least 3 times the even (`strengths_at_3x`) = " in generic


def test_08b_names_the_claims_that_depend_on_the_reading_and_the_features(reference):
    text = summary.dependence_tables(reference)
    assert not [cid for cid in claims.CLAIM_IDS if cid in text]
    reading, features = text.split("depends on the features")
    paper, moved = reference["claims"]["comparisons"]["paper"], 0
    for i, _ in enumerate(paper):
        verdicts = {t[i]["verdict"] for t in reference["claims"]["comparisons"].values()} - {"n/a", "not run"}
        moved += len(verdicts) > 1
    assert reading.count("\n| ") - 1 == moved        # header, then one row per claim whose verdict moves
    assert "random units" in features


def test_09_says_only_what_the_paired_intervals_support():
    from tgreedy_course import compare_tables, when_to_stop

    ref = compare_tables.load_reference()
    table = when_to_stop.method_table(ref)
    assert "±" in table and "paired" in table
    line = next(x for x in when_to_stop.findings_from_reference(ref).splitlines() if x.startswith("* **Stopped the same way"))
    assert "95% interval" in line and "leads" not in line


def test_10_ends_without_an_unanswered_check_message():
    cells = _cells("10_your_own_data")
    last = [c for c in cells if c["cell_type"] == "code"][-1]
    assert not "".join(o.get("text", "") for o in last.get("outputs", [])).strip()
