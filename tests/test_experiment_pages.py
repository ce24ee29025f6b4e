"""Notebooks 06-08 read as a course: findings in words next to their figures, one T-greedy a page, no machinery.

Read from the committed (executed) notebooks, as a student meets them:

* no claim id, verdict table or in-house word on the page; the paper's claims live on the book's claims page;
* every cell whose job is to write a sentence keeps its computed numbers but hides its input (book and JupyterLab);
* numbers as people write them ("after 32 features", never "32.0 features" or "feature(s)");
* the rule each page runs is said early, in the paper's blue, and legends name it;
* every figure's smallest text is at least 9 points as displayed in the book's 720-pixel column, nothing overprinted;
* one number per quantity: 07's median |T|, 06's training work of the two pools, 07's explained fall of the average
  after its peak, 08's Figure 4 right panel and its dotted line's colour;
* each page: learning goals and the paper's sections first, contents near the top, exercises last, at most
  30 minutes to read (the reading-time rule of ``test_notebook_reading``).
"""
from __future__ import annotations

import base64
import json
import re
import struct
from pathlib import Path

import pytest

from tgreedy_course.legibility import read_png_report
from tgreedy_lib.plotting.style import BOOK_COLUMN_PX, color_name

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PAGES = {"06": NOTEBOOKS / "06_dbn_features.ipynb", "07": NOTEBOOKS / "07_mnist_2_vs_other.ipynb",
         "08": NOTEBOOKS / "08_similarity_learning.ipynb"}
ALL = list(PAGES.values())

CLAIM_ID = re.compile(r"\b(?:intro|fig\d|mnist_sim|cifar_sim|disc|thm\d*|cor\d*)\.[a-z][a-z0-9_]+\b")
IN_HOUSE = ["stand-in", "stands in", "reference run", "committed reference", "the bar of", "old example",
            "claims.CLAIMS", "| verdict |", "reproduced (", "partly (", "purple"]
PROSE_CALLS = re.compile(r"\b(?:say|show_markdown|show_table)\(")
MACHINE_NUMBERS = [re.compile(p) for p in (r"\b\d+\.0 features?\b", r"\bfeature\(s\)", r"\bseed\(s\)",
                                           r"\b1 features\b", r"\bafter 1 features\b")]


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _source(cell) -> str:
    return "".join(cell["source"])


def _texts(cell) -> list[str]:
    """What a reader sees of a code cell's outputs: markdown, plain text and streams."""
    found = []
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        for key in ("text/markdown", "text/html"):
            if key in data:
                found.append("".join(data[key]))
        if "text" in out:
            found.append("".join(out["text"]))
    return found


def _page_text(path) -> str:
    return "\n".join(_source(c) if c["cell_type"] == "markdown" else "\n".join(_texts(c)) for c in _cells(path))


def _hidden(cell) -> bool:
    return (cell.get("metadata", {}).get("jupyter", {}).get("source_hidden") is True
            and "hide-input" in cell.get("metadata", {}).get("tags", []))


def _figures(path):
    """(cell index, PNG bytes, its text/plain) of every figure the page shows."""
    for index, cell in enumerate(_cells(path)):
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                yield index, base64.b64decode(out["data"]["image/png"]), "".join(out["data"].get("text/plain", ""))


# --------------------------------------------------------------------------- the audit off the page

@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_no_claim_ids_verdict_tables_or_in_house_words(path):
    text = _page_text(path) + "\n".join(_source(c) for c in _cells(path) if c["cell_type"] == "code")
    assert not CLAIM_ID.findall(text), f"{path.name}: claim ids on the page: {sorted(set(CLAIM_ID.findall(text)))}"
    found = [word for word in IN_HOUSE if word.lower() in text.lower()]
    assert not found, f"{path.name}: in-house words or audit tables on the page: {found}"


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_cells_that_write_sentences_hide_their_input(path):
    visible = [i for i, c in enumerate(_cells(path)) if c["cell_type"] == "code" and PROSE_CALLS.search(_source(c))
               and not _hidden(c) and len(_source(c).strip().splitlines()) > 1]
    assert not visible, (f"{path.name}: cells {visible} write prose in view; give them the metadata "
                         "jupyter.source_hidden and the tag hide-input")


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_numbers_are_written_as_people_write_them(path):
    text = _page_text(path)
    found = [m.group(0) for pattern in MACHINE_NUMBERS for m in pattern.finditer(text)]
    assert not found, f"{path.name}: machine-made numbers: {found}"


# --------------------------------------------------------------------------- one T-greedy a page

@pytest.mark.parametrize("key", ["07", "08"])
def test_the_rule_is_said_early_and_in_the_papers_blue(key):
    cells = _cells(PAGES[key])
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    opening = "\n".join(_source(c) for c in cells[:first_code] if c["cell_type"] == "markdown")
    assert r"\arg\max" in opening and "00_start_here" in opening and "blue" in opening, opening[:400]
    assert "purple" not in _page_text(PAGES[key])
    from tgreedy_lib.experiments.readings import PAPER_READINGS
    from tgreedy_lib.plotting.style import legend_label, selector_style

    # what the page's figures draw: the signed rule alone, so the paper's blue, and a legend naming the rule
    assert color_name(selector_style("tgreedy-signed", among=PAPER_READINGS).color) == "blue"
    assert legend_label("tgreedy-signed") == "T-greedy (arg max T)"


# --------------------------------------------------------------------------- figures a person can read

@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_every_figure_reads_at_9_points_in_the_books_column(path):
    shown = 0
    for index, png, _ in _figures(path):
        report = read_png_report(png)
        assert report is not None, f"{path.name} cell {index}: the figure carries no text report"
        width_px = struct.unpack(">I", png[16:20])[0]
        displayed_pt = report["smallest_text_pt"] * min(1.0, BOOK_COLUMN_PX / width_px)
        assert displayed_pt >= 9 - 1e-9, (f"{path.name} cell {index}: smallest text {report['smallest_text']!r} is "
                                          f"{displayed_pt:.1f} pt at the book's width ({width_px} px wide)")
        assert report["overlapping_texts"] == [], f"{path.name} cell {index}: {report['overlapping_texts']}"
        shown += 1
    assert shown >= 3


# --------------------------------------------------------------------------- one number per quantity

def test_07_states_one_median_t_pair():
    pairs = re.findall(r"median \|T\|[^0-9]{0,60}?(\d+\.\d+)[^0-9]{1,40}?(\d+\.\d+)", _page_text(PAGES["07"]))
    assert pairs, "07 states no median |T|"
    assert len(set(pairs)) == 1, f"07 states the median |T| of the picks as {sorted(set(pairs))}"


def test_07_says_which_split_makes_the_average_fall_next_to_figure_1():
    cells = _cells(PAGES["07"])
    figure1 = next(i for i, c in enumerate(cells) if "figures.figure1(" in _source(c))
    sentence = "\n".join(_texts(cells[figure1 + 1]))
    peak = re.search(r"peaks after (\d+) features", sentence)
    culprit = re.search(r"fall of the average right after its peak, from (\d\.\d+) to (\d\.\d+) at feature (\d+), "
                        r"is one split's: with '(\d)' held out", sentence)
    assert peak and culprit and _hidden(cells[figure1 + 1]), sentence
    assert int(culprit.group(3)) > int(peak.group(1)) and float(culprit.group(2)) < float(culprit.group(1))
    assert culprit.group(4) in "013456789"   # a held-out digit: every digit but '2'


def test_06_compares_the_two_pools_by_their_work_not_by_times_from_different_loads():
    from tgreedy_lib import features

    cells = _cells(PAGES["06"])
    index = next(i for i, c in enumerate(cells) if "COMPARE_POOLS = False" in _source(c))
    shown = "\n".join(_texts(cells[index]) + _texts(cells[index + 1]))
    assert not re.search(r"\d\s*s\b", shown.replace("images", "")), shown   # no seconds beside the pools
    for n, unlabeled in ((10_000, False), (60_000, True)):
        work = n * sum(layer.epochs for layer in features.default_config("mnist", unlabeled=unlabeled).training)
        assert re.search(rf"\| {n:,} \| {work:,} \|", shown), (n, work, shown)
    assert "is not shown" in shown


def test_08_draws_figure_4s_right_panel_and_names_its_dotted_line_by_its_colour():
    from tgreedy_lib.plotting.paper_figures import ALL_FEATURES_COLOR

    cells = _cells(PAGES["08"])
    index = next(i for i, c in enumerate(cells) if "figures.figure4(" in _source(c))
    assert "cifar_result" in _source(cells[index])
    ran_cifar = any("CIFAR-10 (conv features): 10 splits" in t for c in cells for t in _texts(c))
    plain = [p for i, _, p in _figures(PAGES["08"]) if i == index]
    assert plain and ("with 2 Axes" in plain[0]) == ran_cifar and ran_cifar, plain
    words = _page_text(PAGES["08"]) + _page_text(PAGES["07"])
    colour = color_name(ALL_FEATURES_COLOR)
    assert f"{colour} dotted" in words and not re.search(r"\b(?:gray|grey) dotted", words.replace(f"{colour} dotted", ""))


# --------------------------------------------------------------------------- a page of a course

@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_goals_and_sections_first_contents_near_the_top_exercises_last(path):
    cells = _cells(path)
    opening = _source(cells[0])
    assert "**Learning goals**" in opening and "section" in opening and "**Contents**" in opening
    headings = [line for c in cells if c["cell_type"] == "markdown" for line in _source(c).splitlines()
                if line.startswith("## ")]
    assert "Exercises" in headings[-1], headings
    listed = re.findall(r"^\d+\. (.+)$", opening.split("**Contents**")[1], flags=re.M)
    assert [h.split(". ", 1)[1] for h in headings] == listed, (headings, listed)



# --------------------------------------------------------------------------- what a student asked of 06-08

@pytest.mark.parametrize("key", ["07", "08"])
def test_the_papers_figures_are_named_as_the_papers(key):
    """A "Figure N" in the prose (quotes of the paper aside) is the paper's: the book numbers each page's own figures
    from 1, so an unqualified "Figure 3" would be ambiguous."""
    for cell in _cells(PAGES[key]):
        texts = [_source(cell)] if cell["cell_type"] == "markdown" else _texts(cell)
        for text in texts:
            prose = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))
            for match in re.finditer(r"\bFigures? \d", prose):
                before = prose[max(0, match.start() - 12):match.start()]
                assert re.search(r"(?:paper's|its|\band|,)\s*$", before), f"{key}: ambiguous {prose[match.start() - 40:match.end() + 20]!r}"


def test_06_reports_both_cifar_representations_and_why_08_swaps():
    text = _page_text(PAGES["06"])
    for row in ("whole-image DBN", "convolutional patch features"):
        assert re.search(rf"\| {row} \| [^|]* \| \d+\.\d(?:-\d+\.\d)? %", text), f"06: no probe for the {row}"
    assert re.search(r"\| convolutional patch features \| \d+\.\d % \|", text), "06: the patch features' probe is not computed"
    assert "swaps them in" in text and "carries no signal" in text


def test_08_states_the_size_of_the_gap_beside_its_signed_mean_and_the_cifar_gap():
    text = _page_text(PAGES["08"])
    assert re.search(r"ignoring its sign, is \d\.\d{3} for T-greedy against \d\.\d{3} for greedy", text), text[-3000:]
    assert re.search(r"On CIFAR-10 [^*]+\*\*: the gap is -?\d\.\d{3} for T-greedy and -?\d\.\d{3} for greedy", text)
    # the finding in plain words first, the claims page's score in one clause after it
    finding = re.search(r"\*\*T-greedy (?:keeps improving for (?:only )?about (\d+) features|does not keep improving)[^*]*\.\*\* "
                        r"Its target AUROC, averaged over the ten held-out digits, rises until (\d+) features", text)
    assert finding and (finding.group(1) is None or finding.group(1) == finding.group(2)), text[:3000]
    assert re.search(r"rises until \d+ features[^*]*?\(best \d\.\d{3}\); the claims page scores the claim "
                     r"\"(?:reproduced|partly|not reproduced|unsettled)\"", text)
    assert "its rule counts it reproduced only when" not in text


@pytest.mark.parametrize("key", ["07", "08"])
def test_a_box_says_what_held_before_the_exercises(key):
    """Each experiment page ends with what held of its claims over the seeds of the full runs, in words, no ids."""
    cells = _cells(PAGES[key])
    exercises = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and _source(c).startswith("## ")
                     and "Exercises" in _source(c).splitlines()[0])
    last_figure = max(i for i, _, _ in _figures(PAGES[key]))
    boxes = [i for i, c in enumerate(cells) if any("**What held, and what did not**" in t for t in _texts(c))]
    assert len(boxes) == 1 and last_figure < boxes[0] < exercises and _hidden(cells[boxes[0]]), (boxes, exercises)
    box = "\n".join(_texts(cells[boxes[0]]))
    assert re.search(r"over the \d+ seeds of the course's full runs", box) and "one seed" in box, box
    assert "Held:" in box and "Did not hold:" in box and not CLAIM_ID.findall(box), box


def test_panels_are_named_where_our_figures_draw_them():
    """Our Figure 4 has two panels (MNIST left, CIFAR-10 right); the |T| panel of 07's and 08's grids is bottom middle."""
    text8 = _page_text(PAGES["08"]) + "".join(c["metadata"].get("caption", "") for c in _cells(PAGES["08"]))
    assert "MNIST in the middle" not in text8 and "(the left panel is notebook 07's)" not in text8
    assert "MNIST on the left (the paper's middle panel)" in text8
    for key in ("07", "08"):
        captions = [c["metadata"].get("caption", "") for c in _cells(PAGES[key])]
        tees = [c for c in captions if "|T| of each" in c]
        assert tees and all("bottom-middle panel" in c for c in tees), tees


def test_06_says_no_in_house_words_and_shows_no_empty_cells():
    text = _page_text(PAGES["06"])
    found = [w for w in ("not built here", "kept results", "short run", "reference_results") if w in text]
    assert not found, found
    cells = _cells(PAGES["06"])
    for index, cell in enumerate(cells):   # a hidden cell is a "show the code" toggle: it must show something
        if cell["cell_type"] == "code" and _hidden(cell):
            assert cell.get("outputs"), f"06 cell {index}: a hidden cell that shows nothing"
    for name in ("def tile(", "for unlabeled, pool in", "try:"):
        holders = [c for c in cells if c["cell_type"] == "code" and name in _source(c)]
        assert holders and all(_hidden(c) for c in holders), name
