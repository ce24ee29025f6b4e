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
