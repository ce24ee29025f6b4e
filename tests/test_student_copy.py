"""The student copy (``make student-copy``): what students get, and nothing that gives answers away.

* it holds the notebooks, the student assignments, the data, the book sources and the library with
  what installs it, a README and a Makefile for students, and nothing else (no instructor folders or guides,
  tests, CI files or git history), and no page of its book links to a guide left out;
* ``--repository-url`` (``make student-copy REPOSITORY_URL=...``) puts the class's address where the copy's book
  and run page open the repository; ``make grade WIDE=1`` passes ``--wide``;
* no file holds a solution line or a hidden test of any instructor notebook, and the student
  notebooks' answer cells are ``...``; the command's own check finds a planted leak, and it refuses
  to overwrite anything but an earlier copy;
* a notebook and an assignment run from the copy, with the copy's own library;
* ``make student-copy`` works before anything is installed (standard library only).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from tgreedy_course import assignments as A
from tgreedy_course import student_copy as S

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE_DIR = ROOT / "assignments" / "source"
NAMES = [p.stem for p in A.source_paths(SOURCE_DIR)]


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    out = tmp_path_factory.mktemp("student") / "student-copy"
    summary = S.write_student_copy(out, ROOT)
    assert summary["out"] == out and summary["assignments"] == len(NAMES)
    return out


def test_copy_holds_what_students_need_and_nothing_else(copy):
    top = sorted(p.name for p in copy.iterdir())
    assert top == sorted([".binder", ".gitignore", S.MARKER, "Makefile", "README.md", "assignments", "book", "data",
                          "course", "environment.yml", "notebooks", "pyproject.toml", "requirements.lock",
                          "results", "tgreedy_lib"])
    assert sorted(p.name for p in (copy / "assignments").iterdir()) == ["README.md", "student"]
    assert (ROOT / S.INSTRUCTORS / "exercise-keys.md").exists() and not (copy / S.INSTRUCTORS).exists()
    assert sorted(p.stem for p in (copy / "assignments" / "student").glob("*.ipynb")) == NAMES
    assert sorted(p.name for p in (copy / "notebooks").glob("*.ipynb")) == \
        sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert [p.name for p in (copy / "results").iterdir()] == ["verify.json"]  # notebooks 02-04 and 11 read it
    # the book's Binder button opens the class's repository: its .binder/ folder comes with the copy, as it is
    binder = sorted(p.name for p in (ROOT / ".binder").iterdir())
    assert binder and sorted(p.name for p in (copy / ".binder").iterdir()) == binder
    for name in binder:
        assert (copy / ".binder" / name).read_bytes() == (ROOT / ".binder" / name).read_bytes(), name
    assert os.access(copy / ".binder" / "postBuild", os.X_OK)
    assert (copy / "tgreedy_lib" / "datasets" / "bundled" / "SHA256SUMS").exists()
    assert not list(copy.rglob("__pycache__")) and not list(copy.rglob(".git"))
    # the course package without the instructors' tools, and its command line says so
    course = copy / "course" / "tgreedy_course"
    assert (copy / "course" / "pyproject.toml").exists() and (course / "prose.py").exists()
    assert [p for p in S.LEFT_OUT if (copy / p).exists()] == [] and (course / "reference_results").is_dir()
    # as on a machine where only the copy is installed: without this checkout's editable install (its finder)
    only_the_copy = ("import runpy, sys; sys.meta_path[:] = [f for f in sys.meta_path if 'Editable' not in "
                     "getattr(f, '__name__', '')]; sys.argv[1:] = ['grade', 'submissions']; "
                     "runpy.run_module('tgreedy_course', run_name='__main__', alter_sys=True)")
    run = subprocess.run([sys.executable, "-c", only_the_copy], cwd=copy, text=True, capture_output=True,
                         env={**os.environ, "PYTHONPATH": _path(copy)})
    assert run.returncode == 2 and "not part of this copy of the course" in run.stderr, run.stderr
    for path in copy.rglob("*"):
        assert path.name not in ("otter_config.json", "conftest.py") and not path.name.startswith("test_"), path
    # the student notebooks are the generated ones, byte for byte
    for name in NAMES:
        assert (copy / "assignments" / "student" / f"{name}.ipynb").read_bytes() == \
            (ROOT / "assignments" / "student" / f"{name}.ipynb").read_bytes()


def test_readme_and_makefile_are_for_students(copy):
    readme = (copy / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# tgreedy") and "**Students, start here.**" in readme and "make lab" in readme
    assert "## The notebooks" in readme and "## The library in one screen" in readme
    assert all(f"`{name}`" in readme for name in NAMES), "the assignments table"
    assert readme.count("**Students, start here.**") == 1 and "book/run.md" in readme
    for instructor_only in ("assignments/source", "autograder", "make reproduce", "make test", "make grade",
                            "For instructors", "reference-verdicts", "**Instructors**", "never a clone"):
        assert instructor_only not in readme, instructor_only
    howto = (copy / "assignments" / "README.md").read_text(encoding="utf-8")
    assert "grader.check" in howto and "hand it in" in howto and "source/" not in howto
    makefile = (copy / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z-]+):", makefile, flags=re.M)
    assert targets == ["install", "lab", "book", "clean"]
    # the recipes are the repository's, so the copy installs exactly as the course does
    install = re.search(r"^\$\(STAMP\):.*?(?=\n\n)", makefile, flags=re.M | re.S).group(0)
    assert install in (ROOT / "Makefile").read_text(encoding="utf-8")
    dry = subprocess.run(["make", "-n", "-C", str(copy), "lab"], capture_output=True, text=True)
    assert dry.returncode == 0 and "jupyter lab" in dry.stdout, dry.stderr


def test_guides_for_instructors_and_maintainers_stay_out_and_nothing_links_to_them(copy):
    assert (ROOT / "book" / "instructors.md").exists() and (ROOT / "book" / "development.md").exists()
    assert not (copy / "book" / "instructors.md").exists() and not (copy / "book" / "development.md").exists()
    assert S.LEFT_OUT_PAGES == ("instructors", "development")
    for page in (copy / "book").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\{doc\}`(?:[^`<]*<)?(?:instructors|development)>?`", text), page.name
    # the syllabus lost only its paragraph for instructors
    syllabus = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    assert "{doc}`instructor guide <instructors>`" in syllabus
    kept = (copy / "book" / "syllabus.md").read_text(encoding="utf-8")
    assert "### Session 7." in kept and "## Assignments and grading" in kept and "instructor guide" not in kept
    # the book's index lists the instructor guide only where the page exists
    assert 'if (src / "instructors.md").exists()' in (copy / "book" / "build.py").read_text(encoding="utf-8")
    # without --repository-url the copy's book keeps the public address, and the command says so
    assert S.PUBLIC_URL in (copy / "book" / "conf.py").read_text(encoding="utf-8")


def test_paragraphs_linking_to_a_left_out_page_are_dropped():
    text = "# Page\n\nKeep this.\n\nInstructors: the {doc}`instructor guide <instructors>`.\n\n" \
           "See {doc}`development` too.\n\nAnd {doc}`run`.\n"
    assert S.without_left_out_links(text) == "# Page\n\nKeep this.\n\nAnd {doc}`run`.\n"


def test_repository_url_goes_into_the_copys_book_and_run_page(tmp_path, capsys):
    from tgreedy_course.__main__ import main

    url = "https://github.com/my-class/course"
    out = tmp_path / "copy"
    assert main(["student-copy", "--out", str(out), "--root", str(ROOT), "--repository-url", url + "/"]) == 0
    assert f"open {url}" in capsys.readouterr().out
    for name in S.URL_FILES:
        text = (out / name).read_text(encoding="utf-8")
        assert url in text and S.PUBLIC_URL not in text, name
    assert not [p for p in out.rglob("*") if p.is_file() and p.suffix in (".md", ".py", ".ipynb", ".txt", ".yml")
                and S.PUBLIC_URL in p.read_text(encoding="utf-8", errors="replace")]
    # the copy's build reads the default from its conf.py: its Colab cell and buttons open the class's repository
    probe = subprocess.run([sys.executable, "-c", "import build; print(build.repository_url()); "
                            "import pathlib; print(build.run_page(pathlib.Path('run.md').read_text(), "
                            "build.repository_url()))"], cwd=out / "book", capture_output=True, text=True,
                           env={**os.environ, "TGREEDY_REPOSITORY_URL": ""})
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.splitlines()[0] == url and f"!git clone --quiet --depth 1 {url} /content/" in probe.stdout
    # without it the command warns that the copy's book opens the public repository
    assert main(["student-copy", "--out", str(out), "--root", str(ROOT)]) == 0
    assert "public repository with the solutions" in capsys.readouterr().out
    for bad in ("http://example.org/x", "github.com/my-class/course", "https://"):
        assert main(["student-copy", "--out", str(tmp_path / "bad"), "--root", str(ROOT), "--repository-url",
                     bad]) == 1
        assert "--repository-url must be" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_passes_the_repository_url_and_the_wide_table():
    dry = subprocess.run(["make", "-n", "-C", str(ROOT), "student-copy", "REPOSITORY_URL=https://x.org/c/d"],
                         capture_output=True, text=True)
    assert dry.returncode == 0 and "--repository-url https://x.org/c/d" in dry.stdout, dry.stderr
    assert "--repository-url" not in subprocess.run(["make", "-n", "-C", str(ROOT), "student-copy"],
                                                    capture_output=True, text=True).stdout
    for wide, flag in (("WIDE=1", True), ("WIDE=", False)):
        dry = subprocess.run(["make", "-n", "-C", str(ROOT), "grade", wide],
                             capture_output=True, text=True)
        line = next(line for line in dry.stdout.splitlines() if "tgreedy_course grade" in line)
        assert ("--wide" in line) == flag and "--jobs 2" in line, line


def _secrets():
    """Every solution line (30 characters or more) and hidden test body of the instructor notebooks."""
    for name in NAMES:
        source = SOURCE_DIR / f"{name}.ipynb"
        student_text = (ROOT / "assignments" / "student" / f"{name}.ipynb").read_text(encoding="utf-8")
        for q in A.read_questions(source):
            for code in q.solutions:
                for line in code.splitlines():
                    line = line.strip()
                    # a line the student version itself shows (a prompt naming the call to use) is no secret
                    if len(line) >= 30 and json.dumps(line)[1:-1] not in student_text:
                        yield name, q.name, "solution", line
            for test, hidden in zip(q.tests, q.hidden):
                if hidden:
                    yield name, q.name, "hidden test", test.split("\n", 1)[1].strip()


def test_no_solution_or_hidden_test_anywhere_in_the_copy(copy):
    texts = {}
    for path in copy.rglob("*"):
        if path.is_file():
            try:
                texts[path.relative_to(copy).as_posix()] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                pass
    everything = "\n".join(texts.values())
    secrets = list(_secrets())
    assert len(secrets) > 50
    found = [f"{name} {q} {kind}: {text[:60]!r}" for name, q, kind, text in secrets if text in everything]
    assert not found, found
    for name in NAMES:
        nb = json.loads(texts[f"assignments/student/{name}.ipynb"])
        answers = [c for c in nb["cells"] if "otter_answer_cell" in c["metadata"].get("tags", [])]
        assert answers and all("..." in "".join(c["source"]) for c in answers)
        assert all(not t.get("hidden", False) for t in nb["metadata"]["otter"]["tests"].values()
                   if isinstance(t, dict))
        assert "hidden=True" not in json.dumps(nb["metadata"])
    assert S.check_student_copy(copy, SOURCE_DIR) == []


def test_check_finds_planted_leaks_and_write_refuses_unsafe_folders(copy, tmp_path):
    planted = tmp_path / "planted"
    shutil.copytree(copy, planted)
    name, _, _, line = next(s for s in _secrets() if s[2] == "solution")
    path = planted / "assignments" / "student" / f"{name}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"][-1]["source"] = [line + "  # SOLUTION\n"]
    path.write_text(json.dumps(nb), encoding="utf-8")
    (planted / "assignments" / "autograder" / name).mkdir(parents=True)
    (planted / "assignments" / "autograder" / name / "otter_config.json").write_text("{}")
    # a key to a notebook's exercises, pasted into a notebook, and the keys' folder itself
    key = next(line for _, line in S._key_lines(ROOT / S.INSTRUCTORS))
    (planted / "notebooks" / "notes.md").write_text(f"A hint: {key}\n", encoding="utf-8")
    shutil.copytree(ROOT / S.INSTRUCTORS, planted / S.INSTRUCTORS)
    problems = S.check_student_copy(planted, SOURCE_DIR)
    assert any("notebooks/notes.md: contains a line of the exercise keys" in p for p in problems)
    assert any(p.startswith(f"{S.INSTRUCTORS}/: instructor folder") for p in problems)
    assert any("instructor folder" in p for p in problems) and any("grader file" in p for p in problems)
    assert any("solution line" in p for p in problems) and any("otter marker" in p for p in problems)

    with pytest.raises(ValueError, match="course repository itself"):
        S.write_student_copy(ROOT, ROOT)
    with pytest.raises(ValueError, match="course repository itself"):
        S.write_student_copy(ROOT / "notebooks", ROOT)
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "thesis.tex").write_text("mine")
    with pytest.raises(ValueError, match="not a student copy"):
        S.write_student_copy(occupied, ROOT)
    assert (occupied / "thesis.tex").read_text() == "mine"
    again = S.write_student_copy(planted, ROOT)   # an earlier copy (it has the marker) is replaced
    assert again["out"] == planted and not (planted / "assignments" / "autograder").exists()
    assert S.main(["--out", str(occupied), "--root", str(ROOT)]) == 1


def _path(copy: pathlib.Path) -> str:
    """PYTHONPATH for the copy's library and course package, as `pip install -e . -e course` there gives."""
    return os.pathsep.join([str(copy), str(copy / "course")])


def _execute(notebook: pathlib.Path, copy: pathlib.Path, extra: str | None = None):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, as_version=4)
    if extra:
        nb.cells.append(nbformat.v4.new_code_cell(extra))
    env_backup = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = _path(copy)   # the kernel imports the copy's packages, not this checkout's
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(notebook.parent)}}).execute()
    finally:
        if env_backup is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_backup
    return nb


def test_a_notebook_and_an_assignment_run_from_the_copy(copy):
    nb = _execute(copy / "notebooks" / "02b_domains_and_regret.ipynb", copy,
                  extra="import tgreedy_lib, tgreedy_course; print(tgreedy_lib.__file__, tgreedy_course.__file__)")
    where = "".join(o.get("text", "") for o in nb.cells[-1].outputs).split()
    assert len(where) == 2 and all(pathlib.Path(w).resolve().is_relative_to(copy.resolve()) for w in where), where
    assert not [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    # an unanswered assignment runs top to bottom from the copy; its public checks report, they do not raise
    nb = _execute(copy / "assignments" / "student" / "02b_domains_and_regret.ipynb", copy)
    assert not [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("grader.check")]
    assert checks and all(c.outputs for c in checks)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_student_copy_needs_nothing_installed(tmp_path):
    out = tmp_path / "handout"
    # the system's python3, not this virtual environment: the command uses the standard library only
    run = subprocess.run(["make", "-s", "-C", str(ROOT), "student-copy", f"STUDENT_OUT={out}", "PYTHON=python3"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": "", "VIRTUAL_ENV": ""})
    assert run.returncode == 0, run.stderr
    assert "no solutions, hidden tests or grader files" in run.stdout
    assert sorted(p.stem for p in (out / "assignments" / "student").glob("*.ipynb")) == NAMES


def test_command_line(tmp_path, capsys):
    from tgreedy_course.__main__ import main

    out = tmp_path / "copy"
    assert main(["student-copy", "--out", str(out), "--root", str(ROOT)]) == 0
    assert "no solutions, hidden tests or grader files" in capsys.readouterr().out
    assert (out / S.MARKER).exists() and (out / "assignments" / "student").is_dir()
    assert main(["student-copy", "--out", str(ROOT / "tgreedy_lib"), "--root", str(ROOT)]) == 1
    assert "course repository itself" in capsys.readouterr().err


# --------------------------------------------------------------------------- answers written as formulas

#: Names a solution may give a Greek letter, and the letter TeX writes.
_GREEK = {"eps": "ε", "epsilon": "ε", "varepsilon": "ε", "delta": "δ", "alpha": "α", "beta": "β", "gamma": "γ",
          "sigma": "σ", "mu": "μ", "lam": "λ", "lambda": "λ", "theta": "θ", "tau": "τ", "rho": "ρ", "phi": "φ",
          "pi": "π", "nu": "ν", "eta": "η", "kappa": "κ", "omega": "ω", "xi": "ξ"}
_TEX_DROPPED = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg|cdot|times|,|;|!|quad|displaystyle|mathrm|operatorname)")


def _normal_formula(text: str) -> str:
    """A formula as one canonical string, whether written in Python or in TeX: ``(1 - (n - 1) * eps) ** 2`` and
    ``(1-(n-1)\\varepsilon)^2`` both become ``(1-(n-1)ε)^2``."""
    text = re.sub(r"\b(?:np|math|numpy|float|int)\.", "", text)
    while True:                                  # innermost braces first: \frac{a}{\sqrt{n}} -> (a)/(sqrt(n))
        before = text
        text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", text)
        text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", text)
        if text == before:
            break
    text = _TEX_DROPPED.sub("", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\b([A-Za-z]+)\b", lambda m: _GREEK.get(m.group(1), m.group(1)), text)
    text = text.replace("**", "^").replace("*", "").replace("{", "(").replace("}", ")")
    text = re.sub(r"\s+", "", text)
    text = re.sub(r"\^\(([^()]{1,3})\)", r"^\1", text)                                 # ^(2) -> ^2
    return text


def _solution_formulas(source_dir: pathlib.Path) -> list[tuple[str, str]]:
    """(where, canonical formula) for every formula an instructor notebook's solutions compute: the expression
    a solution line returns or assigns, when it is long enough to be an answer rather than a name or a number."""
    found = []
    for path in sorted(pathlib.Path(source_dir).glob("*.ipynb")):
        for block, cell, text in S._marked_cells(path):
            if block != "SOLUTION" or cell["cell_type"] != "code":
                continue
            for line in text.splitlines():
                m = re.match(r"\s*(?:return\s+|[A-Za-z_]\w*\s*=\s*)(.+?)\s*(?:#\s*SOLUTION)?\s*$", line)
                if not m:
                    continue
                # float(...) around the answer is Python, not the formula
                formula = _normal_formula(re.sub(r"^(?:float|int)\((.*)\)$", r"\1", m.group(1)))
                if len(formula) >= 12 and re.search(r"[-+/^]", formula) and "(" in formula \
                        and not re.search(r"[\[\]'\"]|\w\(|,", formula.replace("sqrt(", "√(")):
                    found.append((f"{path.name}: solution formula", formula))
    return found


def markdown_formulas(notebook: pathlib.Path) -> list[str]:
    """The canonical form of every formula (``$...$``, ``$$...$$``) in the Markdown cells of ``notebook``."""
    nb = json.loads(pathlib.Path(notebook).read_text(encoding="utf-8"))
    formulas = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            formulas += [_normal_formula(m) for m in re.findall(r"\$\$?([^$]+)\$\$?", S._cell_text(cell))]
    return formulas


def formula_leaks(notebook: pathlib.Path, source_dir: pathlib.Path) -> list[str]:
    """Where a Markdown formula of ``notebook`` writes out a formula an instructor solution computes (an
    answer given away in the text, which the line-by-line check of check_student_copy cannot see)."""
    formulas = markdown_formulas(notebook)
    return [f"{pathlib.Path(notebook).name}: its Markdown writes the {where.split(': ')[1]} of "
            f"{where.split(': ')[0]} ({formula})"
            for where, formula in _solution_formulas(source_dir) if any(formula in f for f in formulas)]


READ_BY_STUDENTS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "assignments" / "student").glob("*.ipynb"))
@pytest.mark.parametrize("notebook", READ_BY_STUDENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_markdown_formula_gives_a_solution_away(notebook):
    """A formula in a notebook's Markdown (TeX) that writes out what an instructor solution computes (Python) is an
    answer handed out; the two are compared in one canonical form."""
    assert formula_leaks(notebook, SOURCE_DIR) == []


def test_formulas_are_compared_across_python_and_tex(tmp_path):
    assert _normal_formula("(1 - (n - 1) * eps) ** 2 / (1 + (n - 1) * eps ** 2)") == \
        _normal_formula(r"(1-(n-1)\varepsilon)^2/(1+(n-1)\varepsilon^{2})") == "(1-(n-1)ε)^2/(1+(n-1)ε^2)"
    assert _normal_formula(r"\frac{a+b}{\sqrt{n}}") == "(a+b)/(sqrt(n))"
    # a planted formula is found, in display math too; a different one is not
    formulas = [f for _, f in _solution_formulas(SOURCE_DIR)]
    assert "(1-(n-1)ε)^2/(1+(n-1)ε^2)" in formulas
    for text, leaks in ((r"so $$R \ge \left(1-(n-1)\varepsilon\right)^2/(1+(n-1)\varepsilon^2)$$ here", True),
                        (r"so $R \ge (1-n\varepsilon)^2$ here", False)):
        nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": text}], "metadata": {},
              "nbformat": 4, "nbformat_minor": 5}
        path = tmp_path / "planted.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        assert bool(formula_leaks(path, SOURCE_DIR)) is leaks, text
