"""The product speaks of the product: no tracker words in what students, instructors and readers see.

The notebooks, the assignments, the book's sources and the README are the product; the project's issue tracker is not.
A sentence such as "issue 13's goal of 65 %" or "the goal was 0.62" tells a reader about our work plan, not about the
papers, so any of them fails this test with the file and line to fix. "Learning goals" (a notebook's opening list) are
the product's own words and stay.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (pattern, what it is) -- matched case-insensitively, line by line.
TRACKER_WORDS = [
    (r"\bissues?\s*#?\d+", "an issue number"),
    (r"\bissue'?s\s+(?:goal|target|request)", "the issue's goal"),
    (r"(?<!learning )(?<!learning-)\bgoals?\b", "'goal' (a work-plan target; 'learning goals' are fine)"),
    (r"\btickets?\b", "'ticket'"),
    (r"\b(?:issue )?tracker\b", "'tracker'"),
    (r"\bpull request\b|\bPR\s*#\d+", "a pull request"),
]
PATTERN = re.compile("|".join(f"(?:{p})" for p, _ in TRACKER_WORDS), re.IGNORECASE)


def product_files() -> list[Path]:
    """Everything a student, an instructor or a reader of the book sees."""
    files = sorted((ROOT / "notebooks").glob("*.ipynb"))
    files += sorted(p for p in (ROOT / "assignments").rglob("*") if p.suffix in (".ipynb", ".md", ".py", ".txt")
                    and ".ipynb_checkpoints" not in p.parts)
    files += sorted(p for p in (ROOT / "book").rglob("*") if p.is_file() and p.suffix in (".py", ".md", ".js", ".css",
                                                                                            ".html", ".txt", ".rst"))
    files.append(ROOT / "README.md")
    return [p for p in files if p.is_file()]


def tracker_words(path: Path) -> list[str]:
    """``file:line: text`` for every line of ``path`` that speaks of the tracker (embedded images skipped)."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if '"image/' in line or re.search(r"\S{300}", line):  # an embedded image or other encoded data, not text
            continue
        match = PATTERN.search(line)
        if match:
            what = next(reason for pattern, reason in TRACKER_WORDS if re.search(pattern, match.group(0), re.IGNORECASE))
            found.append(f"{path.relative_to(ROOT)}:{number}: {what}: ...{line.strip()[max(match.start() - 60, 0):match.end() + 60]}...")
    return found


@pytest.mark.parametrize("path", product_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_tracker_words_in_the_product(path):
    found = tracker_words(path)
    assert not found, "tracker words in the product (say what the product does, not which issue asked for it):\n" + \
        "\n".join(found)


def test_the_scan_finds_tracker_words_and_spares_learning_goals(tmp_path):
    sample = tmp_path / "sample.md"
    sample.write_text("**Learning goals**\n(Learning goal 1 of notebook 07.)\nIssue 13's goal is met.\n"
                      "the goal was 0.62\nsee ticket 5\n", encoding="utf-8")
    monkey_root = tmp_path
    found = [line.split(":", 2)[1] for line in _scan(sample, monkey_root)]
    assert found == ["3", "4", "5"]


def _scan(path, root):
    global ROOT
    saved, ROOT = ROOT, root
    try:
        return tracker_words(path)
    finally:
        ROOT = saved


def test_the_product_files_include_every_kind():
    names = {str(p.relative_to(ROOT)) for p in product_files()}
    assert "README.md" in names
    assert any(n.startswith("notebooks/") for n in names) and any(n.startswith("book/") for n in names)
    assert any(n.startswith("assignments/") for n in names)
