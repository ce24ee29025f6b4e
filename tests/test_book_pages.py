"""The README and the book's pages written by hand (``book/*.md``): short README, a complete syllabus, the
product's own words.

* the README stays an opening (at most 200 lines): what the course is, the two commands, where students,
  instructors and researchers go next; the library, reproduction, data and development guides are pages of the book;
* the syllabus has 6-8 sessions, each with what you will do, the paper sections, the notebooks, the assignments, the
  hours and a difficulty; together the sessions cover every notebook and every assignment, and the prerequisites
  are named; its hours are computed (notebooks' reading time, assignment points, an allowance for the papers),
  and the notebook exercises the assignments grade are named per session, in the syllabus and the guide;
* no in-house words and no claim ids in the README or the pages (claim ids belong on the claims page).
"""
from __future__ import annotations

import importlib.util
import math
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = sorted((ROOT / "book").glob("*.md"))
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
ASSIGNMENTS = sorted(p.stem for p in (ROOT / "assignments" / "source").glob("*.ipynb"))

#: Words of the team's own work that mean nothing to a reader.
IN_HOUSE = ["stand-in", "committed reference run", "the bar of 80 %", "the old example k = 511", "claims.CLAIMS"]
#: A claim id of the experiments' claims (section.name), e.g. intro.even or mnist_sim.reliable.
CLAIM_ID = re.compile(r"\b(?:intro|fig1|fig2|mnist_sim|cifar_sim|disc)\.[a-z_]+\b")


def test_readme_is_an_opening():
    lines = README.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move the rest into a page of the book"
    assert "make lab" in README and "make test" in README
    for who in ("**Students**", "**Instructors**", "**Researchers**"):
        assert who in README, who
    # the guides it sends readers to exist
    for page in re.findall(r"`(book/[a-z-]+\.md)`", README):
        assert (ROOT / page).exists(), page


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_in_house_words_or_claim_ids(path):
    text = path.read_text(encoding="utf-8")
    found = [w for w in IN_HOUSE if w.lower() in text.lower()] + CLAIM_ID.findall(text)
    assert not found, f"{path.name}: {found}"


def test_syllabus_sessions_are_complete_and_cover_the_course():
    text = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    sessions = re.split(r"^### Session \d+\. ", text, flags=re.M)[1:]
    assert 6 <= len(sessions) <= 8, f"{len(sessions)} sessions"
    for i, session in enumerate(sessions, start=1):
        for part in ("**You will**", "**Read**", "**Notebook", "**Assignment", "**Hours**", "**Difficulty**"):
            assert part in session, f"session {i} lacks {part}"
        assert re.search(r"the (DA|categorical) paper, section", session), f"session {i}: no paper section"
        assert re.search(r"\*\*Difficulty\*\*: ★{1,3}\.", session), f"session {i}: difficulty"
        assert re.search(r"\*\*Hours\*\*: about \d+(\.5)?\.", session), f"session {i}: hours"
    linked = re.findall(r"\{doc\}`(\d\d[a-z]?_\w+)`", "".join(sessions))
    assert sorted(set(linked)) == NOTEBOOKS, set(NOTEBOOKS) ^ set(linked)
    assigned = re.findall(r"`(\d\d[a-z]?_\w+)`", "".join(s.split("**Assignment")[1].split("**Hours")[0]
                                                        for s in sessions))
    assert sorted(set(assigned)) == ASSIGNMENTS, set(ASSIGNMENTS) ^ set(assigned)
    prerequisites = text.split("## Before you start")[1].split("## The sessions")[0]
    for topic in ("Probability", "Concentration inequalities", "Least squares", "What an RBM is"):
        assert f"**{topic}**" in prerequisites, topic


def test_syllabus_and_guide_say_which_assignment_goes_with_02a_and_04c():
    table = (ROOT / "assignments" / "README.md").read_text(encoding="utf-8")
    for page in ("syllabus", "instructors"):
        text = (ROOT / "book" / f"{page}.md").read_text(encoding="utf-8")
        assert "but 08b and 11 has" not in text and "but 08b and 11 (" not in text, page
        for notebook, assignment in (("02a", "02"), ("04c", "04")):
            # the assignments' own table says which assignment covers the notebook; the page says the same
            assert re.search(rf"^\| `{assignment}_\w+` \|[^\n]*`{notebook}_", table, re.M), (notebook, assignment)
            assert re.search(rf"{notebook} shares\s+(?:assignment\s+)?`?{assignment}", text), (page, notebook)


def _reading_minutes(path) -> float:
    """The reading-time estimate of ``tests/test_notebook_reading.py`` for one notebook, in minutes."""
    spec = importlib.util.spec_from_file_location("notebook_reading", ROOT / "tests" / "test_notebook_reading.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reading_minutes(path)[0]


def test_syllabus_hours_are_computed_from_reading_time_and_points():
    """Each session's hours: twice its notebooks' reading time, 15 minutes an assignment point and the stated
    allowance for the papers, rounded up to the half hour; the table, the sessions and the weekly plan agree."""
    text = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    table = text.split("### Where the hours come from")[1].split("\n## ")[0]
    rows = re.findall(r"^\| (\d) \| ([\w, ]+) \| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \|$", table, re.M)
    sessions = re.split(r"^### Session \d+\. ", text, flags=re.M)[1:]
    assert len(rows) == len(sessions) == 7
    points = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^\| `(\d\d[a-z]?)_\w+` \|.*\| \d \((\d+)\) \|$",
        (ROOT / "assignments" / "README.md").read_text(encoding="utf-8"), re.M)}
    notebooks = {p.stem.split("_")[0]: p for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")}
    hours = [float(h) for h in re.findall(r"\*\*Hours\*\*: about (\d+(?:\.5)?)\.", text)]
    for (number, names, minutes, pts, papers, total), session, stated in zip(rows, sessions, hours):
        names = names.split(", ")
        linked = [n.split("_")[0] for n in re.findall(r"\{doc\}`(\d\d[a-z]?_\w+)`", session.split("**Notebook")[1])]
        assert names == linked, (number, names, linked)
        reading = sum(_reading_minutes(notebooks[n]) for n in names)
        assert int(minutes) == round(reading), (number, minutes, reading)
        assigned = re.findall(r"`(\d\d[a-z]?)_\w+`", session.split("**Assignment")[1].split("\n- **")[0])
        assert int(pts) == sum(points[a] for a in assigned), (number, pts, assigned)
        computed = math.ceil(2 * ((2 * reading + 15 * int(pts)) / 60 + float(papers))) / 2
        assert float(total) == computed == stated, f"session {number}: table {total}, computed {computed}, " \
                                                   f"session {stated}"


def test_graded_exercises_are_named_in_the_syllabus_and_the_guide():
    """Every notebook exercise that an assignment grades ("Exercise N of notebook NN" in its prompt) is named in
    its session's "Graded exercises" line and in the guide's table; the lab is told to leave them out."""
    import json

    graded = set()
    for path in sorted((ROOT / "assignments" / "student").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"])
            for n, notebook in re.findall(r"Exercise (\d) of notebook (\d\d[a-z]?)", text):
                graded.add((notebook, int(n)))
    assert len(graded) >= 9
    syllabus = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    lines = " ".join(" ".join(re.findall(r"\*\*Graded exercises\*\*: ([^\n]*(?:\n  [^\n]*)*)", syllabus)).split())
    guide = (ROOT / "book" / "instructors.md").read_text(encoding="utf-8")
    table = " ".join(guide.split("### The exercises that are graded")[1].split("\n### ")[0].split())
    syllabus, guide = " ".join(syllabus.split()), " ".join(guide.split())
    for notebook, n in sorted(graded):
        for where, text in (("syllabus", lines), ("guide", table)):
            found = re.findall(rf"exercises? ([\d, and]+) of notebook {notebook}\b|notebook {notebook}, exercises? "
                               rf"([\d, and]+)", text)
            numbers = {int(d) for pair in found for part in pair for d in re.findall(r"\d", part)}
            assert n in numbers, f"{where}: exercise {n} of notebook {notebook} is graded but not named"
    assert "the lab leaves them out" in lines and "after the due date" in syllabus and "after the assignment's due" in guide


def test_syllabus_weekly_plan_matches_the_sessions_and_dates_every_assignment():
    """The weekly plan: one row per session, contact hours plus self-study equal to the session's hours less the
    lab's 1.5 hours counted in them, and every assignment due exactly once (the last session's a week after it)."""
    text = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    plan = text.split("## The weekly plan")[1].split("\n## ")[0]
    rows = re.findall(r"^\| (\d+) \| (.*?) \| (\d+) \| (?:about ([\d.]+))? ?\|(.*?)\|$", plan, re.M)
    sessions = re.findall(r"^### Session (\d+)\. (.+)$", text, re.M)
    hours = [float(h) for h in re.findall(r"\*\*Hours\*\*: about (\d+(?:\.5)?)", text)]
    assert len(rows) == len(sessions) + 1, "a row per session and one for the week after the last"
    for (week, session, contact, study, _), (number, title), total in zip(rows, sessions, hours):
        assert session == f"{number}. {title}", (session, title)
        assert float(study) == total - 1.5, f"session {number}: self-study {study} is not {total} - 1.5 of lab"
    due = re.findall(r"`(\d\d[a-z]?)`", "".join(r[4] for r in rows))
    assert sorted(due) == sorted(a.split("_")[0] for a in ASSIGNMENTS), sorted(due)
    assert rows[-1][2] == "0" and rows[-1][4].strip(), "the last session's assignments fall due in the week after it"
    assert "**Due dates.**" in plan


def test_guide_lists_the_derivation_questions_and_the_fixed_values():
    """The guide's list of derivation questions is the prompts' "(derivation ...)" questions, and its table of fixed
    values names every ``# SOLUTION`` line whose value is a literal (a number, a string, True or False)."""
    import ast
    import json

    guide = (ROOT / "book" / "instructors.md").read_text(encoding="utf-8")
    derivations, literals = {}, {}
    for path in sorted((ROOT / "assignments" / "source").glob("*.ipynb")):
        number = path.stem.split("_")[0]
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"])
            kind = re.match(r"\*\*Question (\d+) \(derivation", text)
            if cell["cell_type"] == "markdown" and kind:
                derivations.setdefault(number, []).append(int(kind.group(1)))
            for line in text.splitlines() if cell["cell_type"] == "code" else []:
                found = re.match(r"\s*(\w+) = (.+?)\s*# SOLUTION\s*$", line)
                if found:
                    try:
                        ast.literal_eval(found.group(2))
                    except (ValueError, SyntaxError):
                        continue
                    literals.setdefault(number, []).append(f"`{found.group(1)} = {found.group(2)}`")
    listed = re.search(r"for the derivation questions \(([^)]*)\)", guide).group(1)
    named = {}
    for number, questions in re.findall(r"(\d\d[a-z]?) (Q[\dQ\- and]+)", listed):
        for a, b in re.findall(r"Q(\d)(?:-Q(\d))?", questions):
            named.setdefault(number, []).extend(range(int(a), int(b or a) + 1))
    assert named == derivations, (named, derivations)
    table = guide.split("## What re-seeding protects")[1].split("\n## ")[0]
    for number, values in literals.items():
        row = " ".join(re.findall(rf"^\| `{number}_\w+` \|([^\n]*)$", table, re.M))
        assert all(v in row for v in values), (number, values, row)
    assert len(literals) >= 6
