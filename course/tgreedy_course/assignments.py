"""Course assignments: generate student versions, check them, grade submissions (otter-grader).

Sources: ``assignments/source/NN_<name>.ipynb``. A submission's assignment is its ``metadata.otter.assignment_name``,
else found in its file name; its student is its first folder under the submissions folder, else its file name less
the assignment's (``alice_00_start_here.ipynb``). A notebook without a student stops grading before it starts."""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import csv
import dataclasses
import functools
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import zipfile

import yaml

from . import grading_sandbox
from .subcommand import check_outputs, parse_and_run

__all__ = ["find_assignments_dir", "source_paths", "Question", "read_questions", "generate",
           "check", "compare_trees", "normalized_notebook", "discover_submissions", "grade_one", "grade", "main"]

#: Cell metadata keys that change with every run or editor and are ignored when comparing.
VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime", "jupyter")
_MARKERS = tuple(f"# {end} {block}" for block in ("QUESTION", "SOLUTION", "TESTS") for end in ("BEGIN", "END"))


def find_assignments_dir(start=None) -> pathlib.Path:
    """The ``assignments/`` folder holding ``source/``, found from ``start`` (default: the current directory) up."""
    here = pathlib.Path(os.getcwd() if start is None else start).resolve()
    for folder in (here, *here.parents):
        if folder.name == "assignments" and (folder / "source").is_dir():
            return folder
        if (folder / "assignments" / "source").is_dir():
            return folder / "assignments"
    raise FileNotFoundError(f"no assignments/source/ folder in {here} or its parents: run the command inside the "
                            "course repository, or name the folders (--source and --out, or --autograder for grading)")


def _course_dir(path, *parts: str) -> pathlib.Path:
    return pathlib.Path(path) if path is not None else find_assignments_dir().joinpath(*parts)


@dataclasses.dataclass(frozen=True)
class Question:
    """One graded question of an instructor notebook: ``name`` and ``points`` (its ``# BEGIN QUESTION`` YAML), its
    ``prompt`` (markdown), ``solutions`` (without otter's markers), ``tests`` (each a ``def test_...``), ``hidden``."""
    name: str
    points: float
    prompt: str
    solutions: tuple[str, ...]
    tests: tuple[str, ...]
    hidden: tuple[bool, ...]


def _cells(path) -> list[tuple[dict, str]]:
    """(cell, its source as one string) of the notebook at ``path``."""
    nb = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    return [(c, "".join(c.get("source", ""))) for c in nb["cells"]]


def cell_test_config(text: str) -> dict:
    r'''The YAML of a test cell's config block (otter-assign's ``""" # BEGIN TEST CONFIG`` ... ``""" # END TEST CONFIG``), or {}.

    Examples
    --------
    >>> cell_test_config('""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\ndef test_x(): pass')
    {'points': 0}
    '''
    match = re.match(r'\s*"""\s*#\s*BEGIN TEST CONFIG\n(.*?)\n"""\s*#\s*END TEST CONFIG', text, flags=re.S | re.I)
    return (yaml.safe_load(match.group(1)) or {}) if match else {}


def read_questions(source) -> list[Question]:
    """The questions of an instructor notebook (otter-assign format), in order."""
    out, current, block = [], None, None
    for cell, text in _cells(source):
        first = text.strip().splitlines()[0] if text.strip() else ""
        if cell["cell_type"] == "raw" and first in _MARKERS:
            if first == "# BEGIN QUESTION":
                config = yaml.safe_load(text.split("\n", 1)[1]) if "\n" in text else {}
                current = {"name": config["name"], "points": config.get("points", 1), "prompt": [],
                           "solutions": [], "tests": []}
            elif first == "# END QUESTION":
                tests = tuple(current["tests"])
                out.append(Question(current["name"], current["points"], "\n\n".join(current["prompt"]),
                                    tuple(current["solutions"]), tests,
                                    tuple(bool(cell_test_config(t).get("hidden", t.lstrip().startswith("# HIDDEN")))
                                          for t in tests)))
                current = None
            else:
                block = first.split()[2].lower() if first.startswith("# BEGIN") else None
            continue
        if current is None:
            continue
        if block == "solution" and cell["cell_type"] == "code":
            current["solutions"].append("\n".join(re.sub(r"\s*# SOLUTION\s*$", "", line) for line in text.splitlines()
                                                  if line.strip() not in ("# BEGIN SOLUTION", "# END SOLUTION")))
        elif block == "tests" and cell["cell_type"] == "code":
            current["tests"].append(text)
        elif block is None and cell["cell_type"] == "markdown":
            current["prompt"].append(text)
    return out


def source_paths(source_dir: pathlib.Path | None = None, names=None) -> list[pathlib.Path]:
    """Instructor notebooks ``NN_<name>.ipynb`` in order (default: ``assignments/source/``), filtered by ``names``."""
    source_dir = _course_dir(source_dir, "source")
    paths = sorted(source_dir.glob("[0-9][0-9]*_*.ipynb"))
    if names:
        wanted = [str(n).removesuffix(".ipynb") for n in names]
        paths = [p for p in paths if any(p.stem == w or p.stem.startswith(w + "_") for w in wanted)]
        if not paths:
            raise SystemExit(f"no source notebook matches {', '.join(map(str, names))} in {source_dir}")
    return paths


def normalized_notebook(nb: dict) -> dict:
    """A copy of a notebook dict without outputs, execution counts, cell ids and volatile metadata.

    Examples
    --------
    >>> from tgreedy_course.assignments import normalized_notebook
    >>> nb = {"cells": [{"cell_type": "code", "id": "a1", "execution_count": 3, "metadata": {},
    ...                  "outputs": [{"output_type": "stream", "text": "1"}], "source": "print(1)"}],
    ...       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    >>> normalized_notebook(nb)["cells"]
    [{'cell_type': 'code', 'execution_count': None, 'metadata': {}, 'outputs': [], 'source': 'print(1)'}]
    """
    nb = json.loads(json.dumps(nb))
    for cell in nb.get("cells", []):
        cell.pop("id", None)
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        for key in VOLATILE_CELL_METADATA:
            cell.get("metadata", {}).pop(key, None)
    meta = nb.get("metadata", {})
    for key in ("widgets", "toc", "varInspector"):
        meta.pop(key, None)
    if isinstance(meta.get("language_info"), dict):
        meta["language_info"] = {"name": meta["language_info"].get("name", "python")}
    return nb


def _assign_one(source: pathlib.Path, out_dir: pathlib.Path, run_tests: bool, quiet: bool) -> None:
    """``otter assign`` on one source; the student notebook and the grader's files into ``out_dir``."""
    from otter.assign import main as otter_assign
    name = source.stem
    with tempfile.TemporaryDirectory(prefix=f"assign-{name}-") as tmp:
        dist = pathlib.Path(tmp) / "dist"
        sink, cwd = io.StringIO(), os.getcwd()
        try:
            with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
                otter_assign(str(source.resolve()), str(dist), no_pdfs=True, no_run_tests=not run_tests)
        except Exception as exc:
            raise RuntimeError(f"otter assign failed on {source.name}: {exc}\n{sink.getvalue()[-4000:]}") from exc
        finally:
            os.chdir(cwd)
        nb = normalized_notebook(json.loads((dist / "student" / source.name).read_text(encoding="utf-8")))
        for cell in nb["cells"]:  # sources as lists of lines, as nbformat writes them: readable diffs
            cell["source"] = cell["source"].splitlines(keepends=True)
        (out_dir / "student").mkdir(parents=True, exist_ok=True)
        (out_dir / "student" / source.name).write_text(
            json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        grader_dir = out_dir / "autograder" / name
        if grader_dir.exists():
            shutil.rmtree(grader_dir)
        (grader_dir / "tests").mkdir(parents=True)
        # the setup cells as students get them (not answers, not checks): a submission must leave their names alone
        given, block = set(), None
        for cell, text in _cells(source):  # the code cells of the source outside its solution and test blocks
            first = text.strip().splitlines()[0] if text.strip() else ""
            if cell["cell_type"] == "raw" and first in _MARKERS:
                block = first.split()[2].lower() if first.startswith("# BEGIN") and "QUESTION" not in first else None
            elif cell["cell_type"] == "code" and block is None:
                given.add(text.strip())
        setup = [c["source"] for c in nb["cells"] if c["cell_type"] == "code"
                 and ("".join(c["source"]).strip() in given or "otter.Notebook(" in "".join(c["source"]))]
        zips = sorted((dist / "autograder").glob("*.zip"))
        if len(zips) != 1:
            raise RuntimeError(f"otter assign wrote {len(zips)} autograder zip files for {source.name}")
        with zipfile.ZipFile(zips[0]) as zf:
            for member in zf.namelist():  # what local grading reads, not Gradescope's image files
                if member == "otter_config.json" or (member.startswith("tests/") and member.endswith(".py")):
                    (grader_dir / member).write_bytes(zf.read(member))
        (grader_dir / "setup.json").write_text(
            json.dumps({"setup_cells": ["".join(c) for c in setup]}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def generate(source_dir: pathlib.Path | None = None, out_dir: pathlib.Path | None = None, names=None,
             run_tests: bool = True, quiet: bool = True, jobs: int = 1) -> list[str]:
    """Generate student notebooks and grader files for every source; return the assignment names. With
    ``run_tests`` otter runs each instructor notebook and raises unless every test passes on the solutions."""
    sources = source_paths(source_dir, names)
    out_dir = _course_dir(out_dir)
    if jobs > 1 and len(sources) > 1:  # otter assign changes the working directory: processes, not threads
        ctx = __import__("multiprocessing").get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for future in [pool.submit(_assign_one, s, out_dir, run_tests, quiet) for s in sources]:
                future.result()
    else:
        for source in sources:
            _assign_one(source, out_dir, run_tests, quiet)
    return [s.stem for s in sources]


def _tree_files(root: pathlib.Path, names) -> dict[str, pathlib.Path]:
    files = {}
    for base in (root / "student", root / "autograder"):
        for path in sorted(base.rglob("*")) if base.exists() else ():
            # not what running a notebook leaves behind (.OTTER_LOG, .ipynb_checkpoints, __pycache__)
            if path.is_file() and not any(part.startswith((".", "__pycache__")) for part in path.relative_to(base).parts):
                rel = path.relative_to(root).as_posix()
                if names is None or any(f"/{n}" in "/" + rel for n in names):
                    files[rel] = path
    return files


def compare_trees(expected: pathlib.Path, actual: pathlib.Path, names=None) -> list[str]:
    """Differences between two generated trees (student/ and autograder/), volatile metadata ignored."""
    exp, act = _tree_files(pathlib.Path(expected), names), _tree_files(pathlib.Path(actual), names)
    problems = [f"missing: {rel}" for rel in sorted(set(exp) - set(act))]
    problems += [f"not generated from any source (stale?): {rel}" for rel in sorted(set(act) - set(exp))]
    for rel in sorted(set(exp) & set(act)):
        if rel.endswith(".ipynb"):
            same = normalized_notebook(json.loads(exp[rel].read_text(encoding="utf-8"))) == \
                normalized_notebook(json.loads(act[rel].read_text(encoding="utf-8")))
        else:
            same = exp[rel].read_bytes() == act[rel].read_bytes()
        if not same:
            problems.append(f"out of date: {rel}")
    return problems


def check(source_dir: pathlib.Path | None = None, out_dir: pathlib.Path | None = None, names=None,
          run_tests: bool = True, jobs: int = 1) -> list[str]:
    """Regenerate into a temporary folder and compare with ``out_dir``; return the differences."""
    with tempfile.TemporaryDirectory(prefix="assignments-check-") as tmp:
        stems = generate(source_dir, pathlib.Path(tmp), names=names, run_tests=run_tests, jobs=jobs)
        return compare_trees(pathlib.Path(tmp), _course_dir(out_dir), names=stems if names else None)


def _question_points(grader_dir: pathlib.Path) -> dict[str, float]:
    """Question name -> points, read from the grader's test files (in file order)."""
    out = {}
    for path in sorted((grader_dir / "tests").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = re.search(r'^name\s*=\s*"([^"]+)"', text, flags=re.M)
        points = re.search(r"^points\s*=\s*([0-9.]+)", text, flags=re.M)
        out[name.group(1) if name else path.stem] = float(points.group(1)) if points else 1.0
    return out


def discover_submissions(submissions_dir: pathlib.Path, known: list[str]) -> list[dict]:
    """Every submitted notebook: ``path``, ``student``, ``assignment`` (None if unknown) and a ``note``."""
    submissions_dir = pathlib.Path(submissions_dir)
    found = []
    for path in sorted(submissions_dir.rglob("*.ipynb")):
        rel = path.relative_to(submissions_dir)
        if any(part.startswith(".") for part in rel.parts):  # .ipynb_checkpoints, hidden folders
            continue
        assignment, note = None, ""
        try:
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
            assignment = (meta.get("otter") or {}).get("assignment_name")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            note = f"unreadable notebook: {type(exc).__name__}"
        if assignment not in known:
            by_name = [k for k in known if k in path.stem]
            assignment = max(by_name, key=len) if by_name else None
        if len(rel.parts) > 1:
            student = rel.parts[0]
        else:  # empty when the file is named after its assignment alone: grade refuses it
            stem = re.sub(rf"{re.escape(assignment)}-\d+$", assignment, path.stem) if assignment else path.stem
            student = (stem.replace(assignment, "") if assignment else stem).strip("_- .")
        if assignment is None and not note:
            note = "unknown assignment (neither notebook metadata nor file name names one)"
        found.append({"path": path, "student": student, "assignment": assignment, "note": note})
    return found


def _grader_files(grader_dir: pathlib.Path) -> tuple[dict[str, str], list[str]]:
    """An assignment's test files (file name -> source) and its setup cells' sources (``setup.json``, or none)."""
    setup = grader_dir / "setup.json"
    return ({p.name: p.read_text(encoding="utf-8") for p in sorted((grader_dir / "tests").glob("*.py"))},
            json.loads(setup.read_text(encoding="utf-8"))["setup_cells"] if setup.exists() else [])


def grade_one(notebook: pathlib.Path, grader_dir: pathlib.Path, timeout: float = 600.0) -> dict:
    """Grade one submission against ``grader_dir``'s tests as :func:`grade` does; :func:`.grade_in_sandbox`'s dict."""
    grader_dir = pathlib.Path(grader_dir)
    tests, setup = _grader_files(grader_dir)
    return grading_sandbox.grade_in_sandbox(pathlib.Path(notebook).read_bytes(), grader_dir.name, tests, timeout,
                                            isolate=_isolation_problem() is None, setup=setup)


@functools.lru_cache(1)
def _isolation_problem() -> str | None:
    return grading_sandbox.isolation_problem()


def _private_folders(grader_root: pathlib.Path, submissions_dir: pathlib.Path) -> list[pathlib.Path]:
    """What student code must not read: solutions, tests, submissions and the git folders of the checkouts."""
    folders = [grader_root, grader_root.parent / "source", submissions_dir]
    # the course checkouts this command runs in and from (its package, its Python), and their history
    for start in (pathlib.Path.cwd(), grader_root, pathlib.Path(__file__), pathlib.Path(sys.prefix)):
        with contextlib.suppress(FileNotFoundError):
            folders.append(find_assignments_dir(start.resolve()) / "source")
        folders += grading_sandbox.git_dirs(start.resolve())
    return list(dict.fromkeys(pathlib.Path(f).resolve() for f in folders))


def grade(submissions_dir, out="scores.csv", grader_root: pathlib.Path | None = None,
          jobs: int = 1, timeout: float = 600.0, wide: bool = False, quiet: bool = False) -> list[dict]:
    """Grade every notebook under ``submissions_dir``, write the CSV ``out`` and return its long rows (and a ``TOTAL``
    per submission). A question not reached, or whose rule test fails, scores 0. Nothing is graded when a notebook
    has no student or a student has several for one assignment. As root, the folders student code must not read
    are private while grading, ``out`` for good; otherwise a line on standard error says it is not."""
    grader_root = _course_dir(grader_root, "autograder")
    known = sorted(p.name for p in grader_root.iterdir() if (p / "otter_config.json").exists())
    subs = discover_submissions(pathlib.Path(submissions_dir), known)
    if not subs:
        raise SystemExit(f"no .ipynb submissions under {submissions_dir}")
    unnamed = [s["path"].relative_to(submissions_dir).as_posix() for s in subs  # no name, or an assignment's
               if not s["student"] or s["student"] in known or s["student"] == s["assignment"]]
    if unnamed:
        raise SystemExit(f"grade: no student name in {', '.join(unnamed[:5])}{' ...' if len(unnamed) > 5 else ''} "
                         "(nothing graded): put each notebook in a folder named after its student (SUBMISSIONS_DIR/"
                         "<student>/<assignment>.ipynb, under the name the student handed it in), or name it "
                         "<student>_<assignment>.ipynb directly in SUBMISSIONS_DIR (assignments/README.md, 'Handing "
                         "in', renames a downloaded batch in one line)")
    groups: dict = {}
    for s in subs:
        if s["student"] and s["assignment"]:
            groups.setdefault((s["student"], s["assignment"]), []).append(s["path"].relative_to(submissions_dir))
    twice = [" and ".join(p.as_posix() for p in group) for group in groups.values() if len(group) > 1]
    if twice:
        raise SystemExit(f"grade: one student, one assignment, several notebooks: {'; '.join(twice[:5])}"
                         f"{' ...' if len(twice) > 5 else ''} (nothing graded): keep the one to grade (a "
                         "learning-management system marks a resubmission with -1, -2, ...) and move the others out "
                         "of SUBMISSIONS_DIR")
    problem = _isolation_problem()
    if problem:
        print(problem, file=sys.stderr)
        return _grade(subs, submissions_dir, out, grader_root, jobs, timeout, wide, quiet, problem)
    grading_sandbox.make_private([out])  # an earlier table stays private for good
    with grading_sandbox.private_while_grading(_private_folders(grader_root, pathlib.Path(submissions_dir))) \
            as (changed, reopened):
        if changed:
            print(f"grade: made {', '.join(map(str, changed))} private to their owners (chmod o-rwx) while "
                  "grading; they get their rights back when the last grading run on this machine ends", file=sys.stderr)
        rows = _grade(subs, submissions_dir, out, grader_root, jobs, timeout, wide, quiet, problem)
    if changed and not reopened():
        print(f"grade: another grading run goes on here: {', '.join(map(str, changed))} stay private until it ends "
              "(chmod o+rx reopens a folder by hand)", file=sys.stderr)
    return rows


def _grade(subs, submissions_dir, out, grader_root, jobs, timeout, wide, quiet, problem) -> list[dict]:
    for sub in subs:  # what is graded is what was read here, once, and its digest goes into the table
        sub["bytes"] = sub["path"].read_bytes()
        sub["sha256"] = hashlib.sha256(sub["bytes"]).hexdigest()
        sub["file"] = sub["path"].relative_to(submissions_dir).as_posix()
    assignments = {s["assignment"] for s in subs if s["assignment"]}
    files = {a: _grader_files(grader_root / a) for a in assignments}  # (tests, setup)
    results = [None] * len(subs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(grading_sandbox.grade_in_sandbox, s["bytes"], s["assignment"], files[s["assignment"]][0],
                               timeout, problem is None, files[s["assignment"]][1]): i
                   for i, s in enumerate(subs) if s["assignment"] and not s["note"]}
        for future in concurrent.futures.as_completed(futures):
            s, r = subs[futures[future]], future.result()  # its processes are gone by now
            results[futures[future]] = r
            if not quiet:
                got = sum(q["score"] for q in r["questions"].values())
                print(f"graded {s['file']}: {s['student']}, {s['assignment']}, {got:g} points"
                      + (f" ({r['catastrophic']})" if r["catastrophic"] else ""), file=sys.stderr)
    rows = []
    for sub, res in zip(subs, results):
        def row(question, score, possible, note):
            return {"student": sub["student"], "assignment": sub["assignment"] or "", "question": question,
                    "score": score, "possible": possible, "note": note, "file": sub["file"], "sha256": sub["sha256"]}
        notes = [sub["note"]] if sub["note"] else []
        if res is not None:
            notes += res["errors"] + ([res["catastrophic"]] if res["catastrophic"] else [])
        total = possible = 0.0
        for q, pts in (_question_points(grader_root / sub["assignment"]) if sub["assignment"] else {}).items():
            r = (res or {}).get("questions", {}).get(q)
            score = min(max(float(r["score"]), 0.0), pts) if r else 0.0
            rows.append(row(q, score, pts, "not graded" if r is None else question_note(r)))
            total, possible = total + score, possible + pts
        rows.append(row("TOTAL", total, possible, "; ".join(notes)))
    _write_csv(rows, pathlib.Path(out), wide)
    if problem is None:
        grading_sandbox.make_private([out])
    return rows


def question_note(r: dict) -> str:
    """A question's ``note`` in the scores: a broken rule, the scored (hidden) tests that failed, changed setup names.

    Examples
    --------
    >>> question_note({"rule": None, "scored_tests": 2, "scored_failed": 2, "setup_changed": ["sn"]})
    '2 of 2 scored tests failed; setup name `sn` was redefined or removed'
    >>> question_note({"rule": "question 1 ...; f uses sn.f", "scored_tests": 3, "scored_failed": 0, "setup_changed": []})
    'rule broken, 0 points: question 1 ...; f uses sn.f'
    """
    parts = [f"rule broken, 0 points: {r['rule']}"] if r.get("rule") else []
    if r.get("scored_failed"):
        parts.append(f"{r['scored_failed']} of {r['scored_tests']} scored tests failed")
    changed = r.get("setup_changed") or []
    if changed:
        names = ", ".join(f"`{n}`" for n in changed)
        parts.append(f"setup name {names} was redefined or removed" if len(changed) == 1
                     else f"setup names {names} were redefined or removed")
    return "; ".join(parts)


def _write_csv(rows: list[dict], out: pathlib.Path, wide: bool) -> None:
    from tgreedy_lib.files import atomic_writer
    with atomic_writer(out, "w", newline="") as f:  # a killed grader never leaves half a table
        writer = csv.writer(f)
        if not wide:
            writer.writerow(["student", "assignment", "question", "score", "possible", "note", "file", "sha256"])
            writer.writerows([r["student"], r["assignment"], r["question"], f"{r['score']:g}", f"{r['possible']:g}",
                              r["note"], r.get("file", ""), r.get("sha256", "")] for r in rows)
            return
        several = len({r["assignment"] for r in rows}) > 1
        column = lambda r: f"{r['assignment']}:{r['question']}" if several else r["question"]  # noqa: E731
        columns = list(dict.fromkeys(column(r) for r in rows if r["question"] != "TOTAL"))
        writer.writerow(["student", "assignment", *columns, "total", "possible", "percent", "note", "file", "sha256"])
        record: dict = {}
        for r in rows:
            if r["question"] != "TOTAL":
                record[column(r)] = f"{r['score']:g}"
                continue
            pct = 100.0 * r["score"] / r["possible"] if r["possible"] else 0.0
            writer.writerow([r["student"], r["assignment"], *[record.get(c, "") for c in columns], f"{r['score']:g}",
                             f"{r['possible']:g}", f"{pct:.1f}", r["note"], r.get("file", ""), r.get("sha256", "")])
            record = {}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``python -m tgreedy_course assignments {generate,check,grade}``."""
    parser.description = __doc__.split("\n\n")[0]
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help in (("generate", "write assignments/student/ and assignments/autograder/ from the sources"),
                       ("check", "fail unless the generated versions are up to date with the sources")):
        g = sub.add_parser(name, help=help)
        g.add_argument("names", nargs="*", help="assignments, e.g. 00 or 00_start_here (default: all)")
        g.add_argument("--source", type=pathlib.Path, default=None,
                       help="folder of instructor notebooks (default: assignments/source/, found from the current directory)")
        g.add_argument("--out", type=pathlib.Path, default=None,
                       help="folder that holds student/ and autograder/ (default: assignments/)")
        g.add_argument("--no-run-tests", action="store_true", help="do not run the tests against the solutions")
        g.add_argument("--jobs", type=int, default=1, help="assignments generated in parallel")
    grade = sub.add_parser("grade", help="grade a folder of submitted notebooks into a CSV table")
    add_grade_arguments(grade, own=False)


def add_grade_arguments(r: argparse.ArgumentParser, own: bool = True) -> None:
    """The arguments of ``python -m tgreedy_course grade`` (``assignments grade`` as a command of its own)."""
    if own:
        r.description = "grade a folder of submitted notebooks into a CSV table"
        r.set_defaults(command="grade")
    r.add_argument("submissions", type=pathlib.Path,
                   help="folder of submitted notebooks (searched recursively): SUBMISSIONS/<student>/<assignment>.ipynb "
                        "or SUBMISSIONS/<student>_<assignment>.ipynb; best outside the repository")
    r.add_argument("--out", type=pathlib.Path, default=pathlib.Path("scores.csv"),
                   help="CSV to write, private to its owner and group (best outside the repository; .gitignore "
                        "ignores *scores*.csv)")
    r.add_argument("--wide", action="store_true", help="one row per student and assignment, a column per question")
    r.add_argument("--autograder", type=pathlib.Path, default=None,
                   help="folder of generated grader files (default: assignments/autograder, found from the current directory)")
    r.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel")
    r.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per submission")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``python -m tgreedy_course assignments ...`` and ``grade``: check the outputs, then generate, check or grade."""
    status = check_outputs(parser.prog, folders={"--out": args.out if args.command == "generate" else None},
                           files={"--out": args.out if args.command == "grade" else None})
    if status is not None:  # before any notebook is generated or graded
        return status
    try:
        if args.command == "grade":
            rows = grade(args.submissions, args.out, grader_root=args.autograder, jobs=args.jobs,
                         timeout=args.timeout, wide=args.wide)
            print(f"graded {sum(r['question'] == 'TOTAL' for r in rows)} submissions; wrote {args.out}")
            return 0
        make = generate if args.command == "generate" else check
        done = make(args.source, args.out, names=args.names or None, run_tests=not args.no_run_tests, jobs=args.jobs)
    except FileNotFoundError as exc:  # the course folders are not where the command was run
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # otter assign failed, or a test failed on the solutions
        print(exc, file=sys.stderr)
        return 1
    if args.command == "generate":
        checked = "" if args.no_run_tests else " (all tests pass on the solutions)"
        print(f"generated {len(done)} assignments into {_course_dir(args.out)}{checked}: {', '.join(done)}")
        return 0
    print("\n".join(done + ["generated assignments are out of date: run `python -m tgreedy_course assignments generate`"]
                    if done else ["generated assignments are up to date with their sources"]))
    return 1 if done else 0


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course assignments") -> int:
    """``python -m tgreedy_course assignments`` from Python; returns the exit code."""
    return parse_and_run(add_arguments, run, argv, prog)


def grade_main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course grade") -> int:
    """``python -m tgreedy_course grade`` from Python; returns the exit code."""
    return parse_and_run(add_grade_arguments, run, argv, prog)


if __name__ == "__main__":
    sys.exit(main())
