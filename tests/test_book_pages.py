"""The README and the book's pages written by hand (``book/*.md``): short README, a complete syllabus, the
product's own words.

* the README stays an opening (at most 200 lines): what the course is, the two commands, where students,
  instructors and researchers go next; the library, reproduction, data and development guides are pages of the book;
* the syllabus has 6-8 sessions, each with what you will do, the paper sections, the notebooks, the assignments, the
  hours and a difficulty; together the sessions cover every notebook and every assignment, and the prerequisites
  are named;
* no in-house words and no claim ids in the README or the pages (claim ids belong on the claims page).
"""
from __future__ import annotations

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
    syllabus = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    session2 = syllabus.split("### Session 2.")[1].split("### Session 3.")[0]
    hours = float(re.search(r"\*\*Hours\*\*: about (\d+(?:\.5)?)", session2).group(1))
    others = [float(h) for h in re.findall(r"\*\*Hours\*\*: about (\d+(?:\.5)?)", syllabus)]
    assert hours == max(others) and hours > 4.5, "session 2 (two notebooks, the longest proofs) is the longest"


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
