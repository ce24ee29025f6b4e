"""Course assignments (otter-grader, offline, no Docker).

* every instructor version passes all its public and hidden tests (``otter assign`` runs them on the
  solutions while regenerating);
* the committed student and grader files are up to date with the sources (regenerated into a
  temporary folder and compared, volatile metadata ignored);
* every student version executes without errors and scores 0 until answered, with at least one
  public check failing per question;
* the grade command writes the expected CSV for a correct, a partly answered and a broken submission.

The notebooks run in fresh kernels, two at a time (the CI machine has 2 cores).
"""
from __future__ import annotations

import concurrent.futures
import csv
import json
import pathlib
import re
import shutil
import tempfile

import pytest

from tgreedy_lib.course import assignments as A

ASSIGNMENTS_DIR = A.find_assignments_dir(pathlib.Path(__file__).resolve().parent.parent)
SOURCE_DIR = ASSIGNMENTS_DIR / "source"
SOURCES = A.source_paths(SOURCE_DIR)
NAMES = [p.stem for p in SOURCES]
STUDENT_DIR = ASSIGNMENTS_DIR / "student"
GRADER_DIR = ASSIGNMENTS_DIR / "autograder"


def answer_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if "otter_answer_cell" in c.get("metadata", {}).get("tags", [])]


def reference_answers(source: pathlib.Path) -> list[str]:
    """The solution cells of an instructor notebook, markers removed, in the order of the answer cells."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    answers, inside = [], False
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "raw" and text.strip() in ("# BEGIN SOLUTION", "# END SOLUTION"):
            inside = text.strip() == "# BEGIN SOLUTION"
            continue
        if inside and cell["cell_type"] == "code":
            lines = [re.sub(r"\s*# SOLUTION$", "", line) for line in text.splitlines()
                     if line.strip() not in ("# BEGIN SOLUTION", "# END SOLUTION")]
            answers.append("\n".join(lines))
    return answers


def test_every_assignment_has_sources_student_and_grader_files():
    assert "00_start_here" in NAMES
    for name in NAMES:
        assert (STUDENT_DIR / f"{name}.ipynb").exists(), name
        questions = A._question_points(GRADER_DIR / name)
        assert len(questions) >= 2, f"{name}: at least two graded questions"
        nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
        assert len(answer_cells(nb)) == len(reference_answers(SOURCE_DIR / f"{name}.ipynb"))
        # student versions: no solutions, no hidden tests, no outputs
        text = json.dumps(nb)
        assert "# SOLUTION" not in text and "BEGIN SOLUTION" not in text and "hidden=True" not in text
        assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")
        assert nb["metadata"]["otter"]["assignment_name"] == name


@pytest.fixture(scope="module")
def regenerated():
    with tempfile.TemporaryDirectory(prefix="assignments-regenerated-") as tmp:
        out = pathlib.Path(tmp)
        # run_tests=True: otter executes each instructor notebook and raises unless every test passes
        stems = A.generate(SOURCE_DIR, out, run_tests=True, jobs=2)
        yield out, stems


def test_instructor_versions_pass_all_their_checks(regenerated):
    _, stems = regenerated
    assert stems == NAMES


def test_generated_versions_are_up_to_date(regenerated):
    out, _ = regenerated
    problems = A.compare_trees(out, ASSIGNMENTS_DIR)
    assert not problems, "run `python -m tgreedy_lib assignments generate`:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def student_results():
    with tempfile.TemporaryDirectory(prefix="assignments-student-") as tmp:
        zips = {n: A._build_autograder_zip(GRADER_DIR / n, pathlib.Path(tmp) / f"{n}.zip") for n in NAMES}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futures = {n: pool.submit(A._grade_in_subprocess, STUDENT_DIR / f"{n}.ipynb", zips[n], 300) for n in NAMES}
            yield {n: f.result() for n, f in futures.items()}


@pytest.mark.parametrize("name", NAMES)
def test_student_version_executes_without_errors(student_results, name):
    result = student_results[name]
    assert result["catastrophic"] is None, result["catastrophic"]
    assert result["errors"] == [], result["errors"]


@pytest.mark.parametrize("name", NAMES)
def test_student_checks_fail_until_answered(student_results, name):
    questions = student_results[name]["questions"]
    assert set(questions) == set(A._question_points(GRADER_DIR / name))
    for q, r in questions.items():
        assert r["score"] == 0, f"{name} {q}: scores {r['score']} unanswered"
        assert r["failed_public"] >= 1, f"{name} {q}: no public check fails unanswered"


def _write_submission(student_nb: dict, answers: list, path: pathlib.Path) -> None:
    nb = json.loads(json.dumps(student_nb))
    for cell, answer in zip(answer_cells(nb), answers):
        if answer is not None:
            cell["source"] = answer
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_grade_command_writes_scores_per_student_and_question(tmp_path):
    name = "00_start_here"
    student_nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
    solutions = reference_answers(SOURCE_DIR / f"{name}.ipynb")
    assert len(solutions) >= 3
    subs = tmp_path / "submissions"
    _write_submission(student_nb, solutions, subs / "alice" / f"{name}.ipynb")                     # correct
    _write_submission(student_nb, [solutions[0]], subs / "bob" / f"{name}.ipynb")                  # first answer only
    broken = [solutions[0], "raise RuntimeError('my code is broken')"] + solutions[2:]
    _write_submission(student_nb, broken, subs / f"carol_{name}.ipynb")                             # a cell raises
    out = tmp_path / "scores.csv"
    long_rows = A.grade(subs, out, jobs=2, quiet=True)

    rows = list(csv.DictReader(out.open()))
    points = A._question_points(GRADER_DIR / name)
    table = {(r["student"], r["question"]): r for r in rows}
    assert {r["student"] for r in rows} == {"alice", "bob", "carol"}
    assert all(r["assignment"] == name for r in rows)
    assert len(rows) == 3 * (len(points) + 1)
    first, second, *rest = points
    possible = sum(points.values())
    # correct: full marks
    assert all(float(table["alice", q]["score"]) == points[q] for q in points)
    assert float(table["alice", "TOTAL"]["score"]) == possible == float(table["alice", "TOTAL"]["possible"])
    # partly answered: the first question only
    assert float(table["bob", first]["score"]) == points[first]
    assert all(float(table["bob", q]["score"]) == 0 for q in [second, *rest])
    assert float(table["bob", "TOTAL"]["score"]) == points[first]
    # broken: the raising cell costs its question; grading goes on after it
    assert float(table["carol", second]["score"]) == 0
    assert all(float(table["carol", q]["score"]) == points[q] for q in [first, *rest])
    assert "raised RuntimeError" in table["carol", "TOTAL"]["note"]
    assert table["carol", "TOTAL"]["file"] == f"carol_{name}.ipynb"

    wide = tmp_path / "wide.csv"
    A._write_csv(long_rows, wide, wide=True)
    wide_rows = {r["student"]: r for r in csv.DictReader(wide.open())}
    assert float(wide_rows["alice"]["percent"]) == 100.0
    assert float(wide_rows["bob"][first]) == points[first]


def test_grade_reports_unreadable_and_unknown_notebooks(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "dave_00_start_here.ipynb").write_text("{ not json", encoding="utf-8")
    (subs / "erin_homework.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                          "nbformat_minor": 5}), encoding="utf-8")
    out = tmp_path / "scores.csv"
    assert A.main([str(subs), "--out", str(out)], prog="python -m tgreedy_lib grade") == 0
    totals = {r["student"]: r for r in csv.DictReader(out.open()) if r["question"] == "TOTAL"}
    assert totals["dave"]["assignment"] == "00_start_here" and float(totals["dave"]["score"]) == 0
    assert "unreadable" in totals["dave"]["note"]
    assert "unknown assignment" in totals["erin_homework"]["note"]


def test_compare_trees_ignores_volatile_metadata_and_finds_changes(tmp_path):
    copy = tmp_path / "copy"
    for sub in ("student", "autograder"):
        shutil.copytree(ASSIGNMENTS_DIR / sub, copy / sub)
    assert A.compare_trees(ASSIGNMENTS_DIR, copy) == []
    path = copy / "student" / "00_start_here.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):  # what running and saving in Jupyter changes
        cell["id"] = f"cell-{i}"
        cell.setdefault("metadata", {})["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00"}
        if cell["cell_type"] == "code":
            cell["execution_count"] = i
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x\n"}]
    nb["metadata"]["language_info"]["version"] = "3.99"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert A.compare_trees(ASSIGNMENTS_DIR, copy) == []
    answer_cells(nb)[0]["source"] = "regret = 'leaked'"
    path.write_text(json.dumps(nb), encoding="utf-8")
    test_file = next((copy / "autograder" / "00_start_here" / "tests").glob("*.py"))
    test_file.write_text(test_file.read_text() + "\n# edited\n")
    (copy / "student" / "99_removed.ipynb").write_text("{}")
    problems = A.compare_trees(ASSIGNMENTS_DIR, copy)
    assert "out of date: student/00_start_here.ipynb" in problems
    assert f"out of date: {test_file.relative_to(copy).as_posix()}" in problems
    assert "not generated from any source (stale?): student/99_removed.ipynb" in problems


def test_course_folders_are_found_from_the_current_directory_not_from_the_package(tmp_path, monkeypatch, capsys):
    from tgreedy_lib.course import notebooks

    root = ASSIGNMENTS_DIR.parent
    assert A.find_assignments_dir(root / "notebooks") == ASSIGNMENTS_DIR
    assert A.find_assignments_dir(SOURCE_DIR) == ASSIGNMENTS_DIR
    assert notebooks.find_notebook_dir(root) == root / "notebooks"
    monkeypatch.chdir(root / "assignments" / "student")
    assert A.source_paths() == SOURCES and notebooks.notebook_paths()[0].name.startswith("00_")
    monkeypatch.chdir(tmp_path)  # outside the course: a clear error naming the fix
    with pytest.raises(FileNotFoundError, match=r"assignments/source/ folder in .* \(--source and --out"):
        A.find_assignments_dir()
    with pytest.raises(FileNotFoundError, match="--notebooks DIR"):
        notebooks.notebook_paths()
    assert A.main(["check"]) == 2
    assert "run the command inside the course repository" in capsys.readouterr().err
    assert notebooks.main([]) == 2
