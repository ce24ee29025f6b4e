"""The first notebooks' figures carry their own captions, and their titles read as plain text.

The book (book/build.py's caption_cells) puts a figure cell's metadata "caption" under the figure and uses it as
the image's alt text; without it the caption is a bare "Figure N.". The first heading is the page's title in the
book's navigation, where TeX is not rendered.
"""
import json
import re
from pathlib import Path

import pytest

from tgreedy_course.verify.domains_checks import _ranges

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EARLY = ["00_", "01_", "02_gini", "02b_", "02a_", "03_", "04_", "04c_"]
FIGURE_MIMES = ("image/png", "image/jpeg", "image/svg+xml")


def _notebooks():
    return [p for prefix in EARLY for p in sorted(NOTEBOOKS.glob(prefix + "*.ipynb"))]


def _figure_cells(path):
    cells = json.loads(path.read_text())["cells"]
    return [c for c in cells if c["cell_type"] == "code"
            and any(any(m in o.get("data", {}) for m in FIGURE_MIMES) for o in c.get("outputs", []))]


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.stem)
def test_every_figure_has_a_caption_sentence(path):
    figures = _figure_cells(path)
    assert figures, f"{path.name} has no figure: the list EARLY is out of date"
    for number, cell in enumerate(figures, 1):
        caption = cell["metadata"].get("caption", "")
        assert len(caption.split()) >= 12 and caption.rstrip().endswith("."), (
            f"{path.name}, figure {number}: give the figure cell a metadata 'caption' of a sentence or two "
            f"saying what it shows and what to notice (found {caption!r})")


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.stem)
def test_title_is_plain_text(path):
    first = json.loads(path.read_text())["cells"][0]
    title = next(line for line in "".join(first["source"]).splitlines() if line.startswith("# "))
    assert not re.search(r"[$\\{}^]", title), f"{path.name}: the title {title!r} shows as raw TeX in the navigation"


def test_lists_of_n_read_as_written_by_hand():
    assert _ranges([1, 2, 3, 4, 5] + list(range(7, 50, 2))) == "n = 1-5 and every odd n from 7 to 49"
    assert _ranges(list(range(1, 51)) + [100, 1000]) == "n = 1-50, 100 and 1000"
    assert _ranges([7, 9, 10, 11]) == "n = 7 and 9-11"
    assert _ranges([3]) == "n = 3"
    assert _ranges([]) == "no n"


CHECK_ID = re.compile(r"\b(?:domains|categorical)\.[a-z]+[0-9]*\b")
COMMAND = re.compile(r"`python -m tgreedy_course verify[^`]*`")


def _shown_text(cell) -> str:
    """What a reader sees of a cell: a markdown cell's source, a code cell's outputs (a hidden input is not shown)."""
    if cell["cell_type"] == "markdown":
        return "".join(cell["source"])
    texts = []
    for out in cell.get("outputs", []):
        texts.append("".join(out.get("text", "")))
        for key in ("text/markdown", "text/plain"):
            texts.append("".join(out.get("data", {}).get(key, "")))
    return "\n".join(texts)


@pytest.mark.parametrize("path", _notebooks() + sorted(NOTEBOOKS.glob("05_*.ipynb")), ids=lambda p: p.stem)
def test_results_of_the_command_line_checks_are_sentences_not_audit_tables(path):
    """A check's result reads as a sentence; its id appears only inside a one-line command a student can run, never in
    a table or as prose, and "verify" is never a noun on the page (the claims page keeps the table of ids)."""
    problems = []
    for index, cell in enumerate(json.loads(path.read_text())["cells"]):
        text = COMMAND.sub(" ", _shown_text(cell))
        if CHECK_ID.search(text) or re.search(r"\bverify\b", text) or "| check |" in text or "corrected claims" in text:
            problems.append(index)
    assert not problems, f"{path.name}: cells {problems} show check ids, 'verify' as a word or an audit table"


def test_the_audit_check_catches_a_table_of_ids():
    table = {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {
        "text/markdown": "| check | holds |\n|---|---|\n| domains.theorem2 | no |"}}]}
    command = {"cell_type": "markdown", "source": ["Check it yourself: `python -m tgreedy_course verify domains.theorem2`."]}
    assert CHECK_ID.search(COMMAND.sub(" ", _shown_text(table)))
    assert not CHECK_ID.search(COMMAND.sub(" ", _shown_text(command)))
