"""Grading played by hostile students, for real: ``python -m tgreedy_course grade`` grades one folder of
attacking submissions in a process of its own, and each test checks that one attack failed.

* eve reads the hidden tests in her working folder, then finds the ``grade`` command line in /proc and
  copies what she can from the folders it names and the folders above them (the solution notebooks
  in assignments/source, the grader's tests, the git history); these folders are open to everyone
  before grading, closed while it runs and open again after it;
* frank hands in a blank ``00_start_here`` that rewrites the tests to return early (otter's test
  runner patched, test files edited): it must score 0;
* mallory overwrites alice's notebook in the collected folder;
* trudy leaves a detached process (double fork, new session) that rewrites ``scores.csv`` once
  ``grade`` has written it;
* oscar prints 100 MB; alice is an honest student of the small assignment every attack uses.

These need root (to run student code as another user): CI runs as root. An endless loop that also
starts a detached process is graded by itself, with a short time limit. Without root, grading says
so in one line and goes on.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from tgreedy_course import assignments as A
from tgreedy_course import grading_sandbox as S

ASSIGNMENTS_DIR = A.find_assignments_dir(pathlib.Path(__file__).resolve().parent.parent)
REPO = ASSIGNMENTS_DIR.parent

needs_root = pytest.mark.skipif(A._isolation_problem() is not None,
                                reason=f"student code cannot be isolated here: {A._isolation_problem()}")

#: The small assignment the attacks hand in: one hidden test, passed unless the submission saw a secret.
ATTACK_TESTS = '''from otter.test_files import test_case

OK_FORMAT = False

name = "q1_nothing_seen"
points = 1

@test_case(points=None, hidden=True)
def test_nothing_seen(seen):
    assert seen == [], seen
'''

#: The grade command's line, read in /proc (each attack starts with it).
FIND_GRADE = '''
import glob, os, pathlib
def grade_command():
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            args = [a.decode() for a in open(path, "rb").read().split(b"\\0") if a]
        except OSError:
            continue
        if "tgreedy_course" in args and "grade" in args:
            return args
    return []
'''

EVE = FIND_GRADE + '''
seen = []
for path in pathlib.Path(".").rglob("*.py"):  # the hidden tests, wherever otter may put them
    if "hidden=True" in path.read_text(errors="replace"):
        seen.append(str(path))
roots = {p for a in grade_command() if a.startswith("/") for p in [pathlib.Path(a), *pathlib.Path(a).parents]}
for root in roots:
    for pattern in ("assignments/source/*.ipynb", "source/*.ipynb", "*/tests/*.py", ".git/HEAD", "*/*.ipynb", "*.ipynb"):
        for path in glob.glob(os.path.join(root, pattern)):
            try:
                text = open(path, "rb").read()
            except OSError:
                continue
            # a solution notebook, another student's notebook, a hidden test of 00 (named in two parts, so that
            # this file is not one), the repository's history
            secrets = (b"BEGIN SOLUTION", b"mallory") if path.endswith(".ipynb") else (b"test_values_match_" b"the_exact",)
            if any(s in text for s in secrets) or path.endswith("HEAD"):
                seen.append(path)
                os.makedirs("loot", exist_ok=True)
                open(os.path.join("loot", str(len(seen))), "wb").write(text)
'''

FRANK = '''
import pathlib
import otter.test_files.exception_test as _tests
_tests.test_case.call_func = lambda self, env: None  # every test passes
for path in pathlib.Path(".").rglob("*.py"):  # and every test file found returns at once
    try:
        path.write_text(path.read_text().replace("):\\n", "):\\n    return\\n"))
    except OSError:
        pass
'''

MALLORY = FIND_GRADE + '''
seen = []
args = grade_command()
folder = args[args.index("grade") + 1] if "grade" in args else "/nonexistent"
for path in pathlib.Path(folder).rglob("*.ipynb"):
    if "alice" in str(path):
        try:
            path.write_text("{}")
            seen.append(str(path))
        except OSError:
            pass
'''

TRUDY = FIND_GRADE + '''
import sys
seen = []
args = grade_command()
out = args[args.index("--out") + 1] if "--out" in args else "/nonexistent"
FORGER = """
import sys, time
for _ in range(6000):  # for ten minutes: forge the table as soon as it is written
    try:
        if "FORGED" not in open(sys.argv[1]).read():
            open(sys.argv[1], "w").write("FORGED")
    except OSError:
        pass
    time.sleep(0.1)
"""
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", FORGER, out, "trudy-forger"])
    os._exit(0)
'''

OSCAR = '''
print("x" * 100_000_000)
seen = []
'''


def _notebook(assignment: str, *cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                  "source": textwrap.dedent(c)} for c in cells],
                       "metadata": {"otter": {"assignment_name": assignment}}, "nbformat": 4, "nbformat_minor": 5})


def _sandbox_processes() -> list[int]:
    return [pid for uid in range(S.FIRST_UID, S.FIRST_UID + 40) for pid in S.pids_of(uid)]


def _processes_named(marker: str) -> list[int]:
    found = []
    for path in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in path.read_bytes():
                found.append(int(path.parent.name))
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def attacked():
    """Grade the attacks with the command line; yield the folder, the table right after and the command's output."""
    # a folder others may read, as a course's folders usually are: the grader must close what matters itself
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="grading-attacks-"))
    tmp.chmod(0o755)
    grader = tmp / "autograder"
    shutil.copytree(ASSIGNMENTS_DIR / "autograder" / "00_start_here", grader / "00_start_here")
    (grader / "99_attacks" / "tests").mkdir(parents=True)
    (grader / "99_attacks" / "otter_config.json").write_text(json.dumps({"assignment_name": "99_attacks"}))
    (grader / "99_attacks" / "tests" / "q1_nothing_seen.py").write_text(ATTACK_TESTS)
    subs = tmp / "submissions"
    for folder in (subs / "alice", subs / "eve", subs / "mallory", subs / "trudy", subs / "oscar", subs / "frank"):
        folder.mkdir(parents=True)
    (subs / "alice" / "99_attacks.ipynb").write_text(_notebook("99_attacks", "seen = []"))
    (subs / "eve" / "99_attacks.ipynb").write_text(_notebook("99_attacks", EVE))
    (subs / "mallory" / "99_attacks.ipynb").write_text(_notebook("99_attacks", MALLORY))
    (subs / "trudy" / "99_attacks.ipynb").write_text(_notebook("99_attacks", TRUDY))
    (subs / "oscar" / "99_attacks.ipynb").write_text(_notebook("99_attacks", OSCAR))
    (subs / "frank" / "00_start_here.ipynb").write_text(_notebook("00_start_here", FRANK))
    for path in subs.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    digests = {p.relative_to(subs).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in subs.rglob("*.ipynb")}
    closed = (tmp / "autograder", subs, ASSIGNMENTS_DIR / "source", *S.git_dirs(REPO))
    modes = {folder: folder.stat().st_mode for folder in closed}
    out = tmp / "scores.csv"
    try:
        with open(tmp / "grade.log", "w+") as log:  # a file, not a pipe: a process left behind cannot hold it up
            code = subprocess.call([sys.executable, "-m", "tgreedy_course", "grade", str(subs), "--out", str(out),
                                    "--autograder", str(grader), "--jobs", "2", "--timeout", "120"], cwd=REPO,
                                   stdout=log, stderr=subprocess.STDOUT, timeout=300)
            log.seek(0)
            yield {"tmp": tmp, "subs": subs, "out": out, "table": out.read_bytes() if out.exists() else b"",
                   "code": code, "log": log.read(), "digests": digests, "modes": modes,
                   "modes_after": {folder: folder.stat().st_mode for folder in closed},
                   "left": _sandbox_processes() + _processes_named("trudy-forger")}
    finally:
        for uid in range(S.FIRST_UID, S.FIRST_UID + 40):
            S.kill_user(uid)
        for pid in _processes_named("trudy-forger"):
            os.kill(pid, 9)
        shutil.rmtree(tmp, ignore_errors=True)


def _totals(attacked) -> dict:
    rows = csv.DictReader(attacked["table"].decode().splitlines())
    return {r["student"]: r for r in rows if r["question"] == "TOTAL"}


@needs_root
def test_grading_ran_and_says_nothing_about_isolation(attacked):
    assert attacked["code"] == 0, attacked["log"][-2000:]
    assert "cannot" not in attacked["log"] and "your rights" not in attacked["log"], attacked["log"]
    assert float(_totals(attacked)["alice"]["score"]) == 1


@needs_root
def test_submissions_cannot_read_tests_solutions_or_history(attacked):
    eve = _totals(attacked)["eve"]   # the folders are open to everyone before and after: grade closed them meanwhile
    assert float(eve["score"]) == 1, "eve read secrets: " + eve["note"]
    assert attacked["modes"][attacked["tmp"] / "autograder"] & 0o005 and attacked["modes"][attacked["subs"]] & 0o005
    assert "private to their owners (chmod o-rwx) while grading" in attacked["log"], attacked["log"]


@needs_root
def test_grading_gives_the_folders_their_rights_back(attacked):
    assert attacked["modes_after"] == attacked["modes"], "grade left folders closed (another grading run at the same time?)"
    assert not attacked["out"].stat().st_mode & 0o007, "the scores stay private"


@needs_root
def test_blank_submission_that_rewrites_the_tests_scores_zero(attacked):
    frank = _totals(attacked)["frank"]
    assert float(frank["score"]) == 0 and float(frank["possible"]) == 8


@needs_root
def test_submissions_cannot_overwrite_other_submissions(attacked):
    subs, digests = attacked["subs"], attacked["digests"]
    now = {p.relative_to(subs).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in subs.rglob("*.ipynb")}
    assert now == digests
    totals = _totals(attacked)
    assert float(totals["mallory"]["score"]) == 1 and float(totals["alice"]["score"]) == 1
    assert {name: r["sha256"] for name, r in totals.items()} == \
        {rel.split("/")[0]: digest for rel, digest in digests.items()}


@needs_root
def test_no_process_survives_grading_and_the_scores_stay_as_written(attacked):
    assert attacked["left"] == [], "processes of the submissions still run after grade returned"
    time.sleep(1.5)  # what trudy's process would need to forge the table
    assert attacked["out"].read_bytes() == attacked["table"]
    assert b"FORGED" not in attacked["table"] and float(_totals(attacked)["trudy"]["score"]) == 1
    assert not attacked["out"].stat().st_mode & 0o007


@needs_root
def test_huge_output_costs_nothing(attacked):
    oscar = _totals(attacked)["oscar"]
    assert float(oscar["score"]) == 1 and oscar["note"] == ""


@needs_root
def test_endless_loop_with_a_detached_process_times_out_and_leaves_nothing(tmp_path):
    grader = tmp_path / "99_attacks"
    (grader / "tests").mkdir(parents=True)
    (grader / "tests" / "q1_nothing_seen.py").write_text(ATTACK_TESTS)
    (grader / "otter_config.json").write_text(json.dumps({"assignment_name": "99_attacks"}))
    marker = f"left-behind-{os.getpid()}-{time.time_ns()}"
    notebook = tmp_path / "loop.ipynb"
    notebook.write_text(_notebook("99_attacks", f"""
        import os, sys
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(1)", "{marker}"])
        while True:
            pass
        """))
    start = time.monotonic()
    try:
        result = A.grade_one(notebook, grader, timeout=5)
        assert result["catastrophic"] == "timed out after 5 s" and time.monotonic() - start < 60
        assert _processes_named(marker) == [] and _sandbox_processes() == []
    finally:
        for pid in _processes_named(marker):
            os.kill(pid, 9)


def test_safe_unpickler_refuses_code_and_keeps_data():
    import pickle

    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"], "c": pd.Categorical(["u", "v"])}, index=["g1", "g2"])
    value = {"array": np.arange(3.0), "scalar": np.float64(1.5), "frame": frame, "set": {1, 2},
             "rng": np.random.default_rng(0), "series": frame["b"]}
    back = S._safe_loads(pickle.dumps(value, protocol=4))
    assert np.array_equal(back["array"], value["array"]) and back["scalar"] == 1.5 and back["set"] == {1, 2}
    assert back["frame"].equals(frame) and back["series"].equals(frame["b"])
    assert back["rng"].random() == np.random.default_rng(0).random()

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo owned",))

    for payload in (Evil(), S.grade_in_sandbox, A.grade, A.Question):  # the course package is not trusted
        with pytest.raises(pickle.UnpicklingError, match="may not send"):
            S._safe_loads(pickle.dumps(payload, protocol=4))


def test_without_root_grading_says_so_in_one_line_and_goes_on(tmp_path, monkeypatch, capsys):
    grader = tmp_path / "autograder" / "99_attacks"
    (grader / "tests").mkdir(parents=True)
    (grader / "tests" / "q1_nothing_seen.py").write_text(ATTACK_TESTS)
    (grader / "otter_config.json").write_text(json.dumps({"assignment_name": "99_attacks"}))
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice_99_attacks.ipynb").write_text(_notebook("99_attacks", "seen = []"))
    monkeypatch.setattr(S, "_is_root", lambda: False)
    A._isolation_problem.cache_clear()
    try:
        rows = A.grade(tmp_path / "subs", tmp_path / "scores.csv", grader_root=tmp_path / "autograder", quiet=True)
    finally:
        A._isolation_problem.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not run as root" in err[0] and "your rights" in err[0]
    assert [r["score"] for r in rows if r["question"] == "TOTAL"] == [1]
