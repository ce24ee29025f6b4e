"""The instructors' keys (``instructors/exercise-keys.md``) answer every notebook's exercises: one heading per
notebook (``## 02a · ...``), one numbered key per exercise, so a notebook that gains or loses an exercise fails here,
by name, until its keys follow."""
from __future__ import annotations

import pathlib
import re

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEYS = ROOT / "instructors" / "exercise-keys.md"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


def exercise_count(source: str) -> int:
    """The exercises in a notebook's "Exercises" cell: its top-level numbered items and its top-level bullets
    (notebook 09 lists its graded questions numbered and further exercises as bullets)."""
    body = re.split(r"^#+ .*Exercises.*$", source, maxsplit=1, flags=re.M)[1]
    body = re.split(r"^#+ ", body, maxsplit=1, flags=re.M)[0]
    return len(re.findall(r"^(?:\d+\.|[*-]) ", body, flags=re.M))


def notebook_exercises(path: pathlib.Path) -> int:
    cells = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"
             and re.search(r"^#+ .*Exercises", c.source, flags=re.M)]
    if len(cells) != 1:
        raise AssertionError(f"{path.name}: {len(cells)} cells with an 'Exercises' heading, expected one")
    return exercise_count(cells[0])


def key_sections(text: str) -> dict[str, str]:
    """``{notebook number (e.g. "02a"): the keys under its heading}``; a number given twice is an error."""
    sections = {}
    for match in re.finditer(r"^## (\d\d[a-z]?) · .*?$(.*?)(?=^## |\Z)", text, flags=re.M | re.S):
        if match.group(1) in sections:
            raise AssertionError(f"exercise-keys.md has two headings for notebook {match.group(1)}")
        sections[match.group(1)] = match.group(2)
    return sections


def key_count(section: str) -> int:
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", section, flags=re.M)]
    assert numbers == list(range(1, len(numbers) + 1)), f"keys numbered {numbers}, not 1, 2, 3, ..."
    return len(numbers)


def test_counting_reads_numbered_items_and_bullets_of_the_exercises_cell_only():
    cell = ("## 6. Exercises\n\n1. **(code)** one\n   continued\n2. two\n\nFurther:\n\n* **(code)** three\n"
            "  - not an exercise\n\n## Next\n\n3. not here\n")
    assert exercise_count(cell) == 3
    assert key_count("\n1. a\n   more\n2. b\n") == 2
    with pytest.raises(AssertionError, match="numbered"):
        key_count("\n1. a\n3. b\n")
    with pytest.raises(AssertionError, match="two headings"):
        key_sections("## 01 · x\n1. a\n## 01 · y\n1. b\n")


def test_keys_have_one_heading_per_notebook():
    sections = key_sections(KEYS.read_text(encoding="utf-8"))
    numbers = [p.name.split("_")[0] for p in NOTEBOOKS]
    assert sorted(sections) == sorted(numbers), \
        f"headings without a notebook: {sorted(set(sections) - set(numbers))}; notebooks without a heading: " \
        f"{sorted(set(numbers) - set(sections))}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_exercise_of_the_notebook_has_a_key(path):
    sections = key_sections(KEYS.read_text(encoding="utf-8"))
    number = path.name.split("_")[0]
    assert number in sections, f"{path.stem}: no '## {number} · ...' heading in instructors/exercise-keys.md"
    exercises, keys = notebook_exercises(path), key_count(sections[number])
    assert exercises == keys, (f"{path.stem}: {exercises} exercises in the notebook, {keys} keys under '## {number}' "
                               "in instructors/exercise-keys.md: write the missing keys (or remove the extra ones)")
