"""What students get: a copy of the course without solutions, hidden tests or grader files.

``make student-copy`` writes :data:`COPIED` less :data:`LEFT_OUT`, the student assignments, and a README and
Makefile for students; ``--repository-url`` puts the class's address in the copy's book and run page. Every file is
checked before the folder is moved into place (:class:`LeakError` on a solution, hidden test, otter marker or key
line). Standard library only: the Makefile runs it before installing.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

__all__ = ["find_course_root", "write_student_copy", "check_student_copy", "LeakError", "main"]

#: What students get, as it is, less LEFT_OUT: the tools for assignments, grading and this command, and the guides
#: for instructors and maintainers.
COPIED = ("notebooks", "data", "book", "tgreedy_lib", "course", "pyproject.toml", "requirements.lock",
          "environment.yml", "results/verify.json", ".binder")
LEFT_OUT = ("course/tgreedy_course/assignments.py", "course/tgreedy_course/grading_sandbox.py",
            "course/tgreedy_course/student_copy.py", "book/instructors.md", "book/development.md")
LEFT_OUT_PAGES = tuple(pathlib.PurePosixPath(name).stem for name in LEFT_OUT if name.startswith("book/"))
#: The public repository's address, which ``--repository-url`` replaces in URL_FILES with the class's own.
PUBLIC_URL = "https://github.com/tgreedy/tgreedy"
URL_FILES = ("book/conf.py", "book/run.md")
#: The Makefile targets that make sense without the instructor material.
STUDENT_TARGETS = ("install", "$(STAMP)", "lab", "book", "clean")
#: The keys to the notebooks' exercises: never copied, and none of their lines may be in a copy.
INSTRUCTORS = "instructors"
MARKER = ".student-copy"   # a later run may replace a folder holding it, and nothing else
SKIPPED_PARTS = ("__pycache__", ".ipynb_checkpoints", ".OTTER_LOG", "node_modules", ".pytest_cache")
FORBIDDEN_MARKERS = ("# BEGIN SOLUTION", "# END SOLUTION", "# SOLUTION", "# BEGIN TESTS", "# HIDDEN",
                     "BEGIN QUESTION", "hidden=True", "otter_config")


class LeakError(RuntimeError):
    """The student copy would contain a solution, a hidden test or a grader file."""


def find_course_root(start=None) -> pathlib.Path:
    """The repository (holding ``assignments/source/`` and ``notebooks/``) at ``start`` (default: here) or above."""
    here = pathlib.Path(os.getcwd() if start is None else start).resolve()
    for folder in (here, *here.parents):
        if (folder / "assignments" / "source").is_dir() and (folder / "notebooks").is_dir():
            return folder
    raise FileNotFoundError(f"no course repository (assignments/source/ and notebooks/) at {here} or above: "
                            "run the command inside the course repository, or pass --root")


def _files_to_copy(root: pathlib.Path) -> list[str]:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        tracked = [name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        tracked = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*")) if p.is_file()]
    return [name for name in tracked
            if any(name == entry or name.startswith(entry + "/") for entry in COPIED) and name not in LEFT_OUT
            and not any(part in SKIPPED_PARTS or part.endswith((".pyc", ".egg-info")) for part in name.split("/"))
            and (root / name).is_file()]


def _section(text: str, heading: str) -> str:
    start = text.find(heading)
    if start < 0:
        raise RuntimeError(f"README.md has no {heading.strip()!r} section, which the student README copies: "
                           "update course/tgreedy_course/student_copy.py")
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)].rstrip() + "\n"


#: The students' opening of their README, in place of the repository README's words to each kind of reader.
STUDENT_START = """**Students, start here.** This folder is your class's copy of the course. On a machine with Python 3.11,
pip and `make`, in this folder:

```bash
make lab
```

It installs what is missing into `.venv` (the first time: a few minutes) and opens the course in JupyterLab at
`notebooks/00_start_here.ipynb`. Read the notebooks in their numbered order and run each one top to bottom
(Run > Run All Cells). The syllabus (`book/syllabus.md`) says what each session reads, runs and hands in;
`assignments/README.md` says how to work on an assignment and hand it in. Without installing anything:
`book/run.md` (Binder and Colab)."""


def student_readme(readme: str, assignments_table: str) -> str:
    """The students' README: the README's title, opening (less its bold paragraphs) and sections, and assignments."""
    opening = readme[:readme.find("\n## ")].rstrip()
    if not opening.startswith("# "):
        raise RuntimeError("README.md must open with its title")
    title, _, rest = opening.partition("\n")
    about = [part for part in re.split(r"\n\s*\n", rest.strip()) if part and not part.startswith("**")
             and not part.startswith("```")]
    return "\n\n".join([
        title, STUDENT_START, *about,
        _section(readme, "## The notebooks\n").rstrip(),
        "## Assignments\n\nTwelve notebooks have a graded companion assignment in `assignments/student/` (02a shares "
        "assignment 02, 04c shares 04; 08b and 11 have none); `assignments/README.md` says how to work on one and "
        "hand it in.\n\n" + assignments_table.rstrip(),
        _section(readme, "## The library in one screen\n").rstrip(),
        "## About this copy\n\nThis folder is the student copy of the course, written by `make student-copy` "
        "in the course repository: the notebooks, the assignments, the data and the library, without the "
        "solutions and the grader's files.",
    ]) + "\n"


def student_assignments_readme(table: str) -> str:
    return f"""# Assignments

Twelve notebooks of the course have a graded companion assignment here, `student/NN_<name>.ipynb` (the
table below): notebook 02a shares assignment 02 (its Lemma 11 question), 04c shares assignment 04 (its Corollary 3
question), and 08b and 11 have none.

1. Install the course environment once (`make install` in the folder above; `make lab` also opens JupyterLab).
2. Open the assignment and run its first cells (they load the grader and rebuild what the questions need).
3. Answer each question in the cell below it: replace every `...`, keep the variable names.
4. Run the `grader.check("...")` cell after each answer. It runs the **public** checks (types, shapes, ranges),
   which carry no points: all the points are on the checks your instructor's grader runs later, so a passing
   public check says only that your answer has the right form.
5. Save the notebook and hand it in under the same file name (e.g. `03_self_normalized_sums.ipynb`, not renamed):
   your instructor files it under your name. Hand in one notebook per assignment; if you hand in again, make sure
   only your latest file is the one handed in (the grader refuses two notebooks from one student for one assignment).

Derivation questions ask you to derive a result of the paper and implement your formula; the grader compares it
with an exact computation (an enumeration of every case, or the library's own). Some questions end with a paragraph
**Rule, checked by the grader**: it names the answers the grader reads and what their code must not use (usually
the course's library, `tgreedy_lib`, which holds the answers); if it does, the question scores 0 and your scores'
note says what it used. Don't give a name the setup cells define (`sn`, `np`, `stats`, ...) another value, and don't
delete one: the grader's checks use them. The library's modules
appear in the assignments under short names, set in each setup cell: `cat` is `tgreedy_lib.categorical` (the
categorical paper's estimator and filters), `sn` is `tgreedy_lib.domain_adaptation.theorems.self_normalized`
(Theorem 2 of the DA paper) and `tb` is `tgreedy_lib.domain_adaptation.theorems.t_bounds` (Theorem 1 and
Corollary 3); a "path function" is `tgreedy_path` or `greedy_path`, which run a whole selection. Where a choice
(`True`/`False`, a selector, a letter) follows from a value you compute, it scores only together with that value.
Table- and plot-reading questions ask for numbers read off and for the reasoning that explains them.

{table.rstrip()}
"""


def _assignments_table(assignments_readme: str) -> str:
    lines = assignments_readme.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("| assignment |")), None)
    if start is None:
        raise RuntimeError("assignments/README.md has no table starting '| assignment |', which the student copy uses")
    return "\n".join(itertools.takewhile(lambda line: line.startswith("|"), lines[start:])) + "\n"


def student_makefile(makefile: str) -> str:
    """The repository Makefile's variables and the blocks of :data:`STUDENT_TARGETS`, nothing else."""
    blocks = re.split(r"\n\s*\n", makefile.strip())
    variables = [line for line in blocks[0].splitlines() if line and not line.startswith("#")]
    kept, found = [], set()
    for block in blocks[1:]:
        targets = set(re.findall(r"^([^\s#:=]+|\$\(STAMP\)):(?!=)", block, flags=re.M))
        if targets and targets <= set(STUDENT_TARGETS):
            kept.append(block)
            found |= targets
    missing = [t for t in STUDENT_TARGETS if t not in found]
    if missing:
        raise RuntimeError(f"the Makefile has no block for {', '.join(missing)}, which the student copy keeps")
    header = ("# The course, student copy (written by `make student-copy`):\n"
              "#   make install   the course environment in .venv\n"
              "#   make lab       install what is missing, open JupyterLab at notebook 00\n"
              "#   make book      the website of the notebooks, in results/book\n"
              "#   make clean     remove .venv")
    return "\n\n".join([header + "\n" + "\n".join(variables), ".PHONY: install lab book clean", *kept]) + "\n"


# --------------------------------------------------------------------------- what must not be in it

def _cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _marked_cells(path: pathlib.Path):
    """(otter block such as "SOLUTION" or None, cell, text) for the cells of an instructor notebook."""
    block = None
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        text = _cell_text(cell)
        first = text.strip().splitlines()[0] if text.strip() else ""
        if cell["cell_type"] == "raw" and first.startswith(("# BEGIN ", "# END ")):
            block = first.split()[2] if first.startswith("# BEGIN ") else None
        else:
            yield block, cell, text


def _instructor_secrets(source_dir: pathlib.Path) -> list[tuple[str, str]]:
    """(where, text) for the solution lines and hidden tests of the instructor notebooks not shown outside them."""
    secrets = []
    for path in sorted(source_dir.glob("*.ipynb")):
        shown, found = [], []
        for block, cell, text in _marked_cells(path):
            if block is None or cell["cell_type"] != "code":
                shown.append(text)
                continue
            if block == "TESTS" and text.lstrip().startswith("# HIDDEN"):
                found.append((f"{path.name}: hidden test", text.split("\n", 1)[1].strip() if "\n" in text else ""))
            elif block == "SOLUTION":
                inside = False
                for line in text.splitlines():
                    stripped = line.strip()
                    if stripped in ("# BEGIN SOLUTION", "# END SOLUTION"):
                        inside = stripped == "# BEGIN SOLUTION"
                        continue
                    answer = re.sub(r"\s*# SOLUTION\s*$", "", stripped)
                    # lines long enough to be an answer rather than a common idiom (np.asarray(x, float))
                    if (inside or stripped.endswith("# SOLUTION")) and len(answer) >= 30:
                        found.append((f"{path.name}: solution line", answer))
        public = "\n".join(shown)
        secrets += [(where, text) for where, text in found if text not in public]
    return secrets


def _key_lines(keys_dir: pathlib.Path) -> list[tuple[str, str]]:
    """(file, line) for every line of the instructors' keys long enough to be an answer (``instructors/*.md``)."""
    lines = [(path.name, line.strip().lstrip("0123456789. ").strip()) for path in sorted(keys_dir.glob("*.md"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    return [(name, line) for name, line in lines if len(line) >= 50 and not line.startswith("#")]


def check_student_copy(copy: pathlib.Path, source_dir: pathlib.Path) -> list[str]:
    """What in ``copy`` gives a solution or hidden test of ``source_dir`` away (empty when nothing does)."""
    copy, problems, secrets = pathlib.Path(copy), [], _instructor_secrets(pathlib.Path(source_dir))
    keys = _key_lines(pathlib.Path(source_dir).resolve().parent.parent / INSTRUCTORS)
    for path in sorted(copy.rglob("*")):
        rel = path.relative_to(copy).as_posix()
        if path.is_dir():
            if (path.name in ("source", "autograder") and rel.startswith("assignments/")) or rel == INSTRUCTORS:
                problems.append(f"{rel}/: instructor folder")
            continue
        if path.name == "otter_config.json" or path.suffix == ".zip":
            problems.append(f"{rel}: grader file")
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if path.suffix == ".ipynb" and rel.startswith("assignments/"):
            nb = json.loads(text)
            sources = "\n".join(_cell_text(c) for c in nb["cells"]) + json.dumps(nb.get("metadata", {}))
            problems += [f"{rel}: otter marker {m!r}" for m in FORBIDDEN_MARKERS if m in sources]
        problems += [f"{rel}: contains a line of the exercise keys {name} ({line[:60]!r})"
                     for name, line in keys if line in text]
        problems += [f"{rel}: contains a {where.split(': ')[1]} of {where.split(': ')[0]} "
                     f"({secret.splitlines()[0][:60]!r})" for where, secret in secrets if secret and secret in text]
    return problems


def without_left_out_links(text: str) -> str:
    """A page of the book less its paragraphs that link to a left-out page (so that the copy's book builds)."""
    link = re.compile(r"\{doc\}`(?:[^`<]*<)?(?:" + "|".join(map(re.escape, LEFT_OUT_PAGES)) + r")>?`")
    parts = re.split(r"(\n\s*\n)", text)
    kept = [part for part in parts if not link.search(part)]
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", "".join(kept)).rstrip() + "\n"


def write_student_copy(out, root=None, repository_url: str | None = None) -> dict:
    """Write the student copy of the course at ``root`` (default: found from here) to ``out`` (new, empty or an
    earlier copy) with ``repository_url`` in its book; :class:`LeakError`, ``out`` untouched, on a leak."""
    if repository_url is not None and not re.fullmatch(r"https://[^\s/]+/\S+", repository_url):
        raise ValueError(f"--repository-url must be the https:// address of the class's repository, "
                         f"got {repository_url!r}")
    url = repository_url.rstrip("/") if repository_url is not None else None
    root = find_course_root(root)
    out = pathlib.Path(out).absolute()
    resolved = out.resolve()   # neither the repository (but results/) nor a folder this command did not write
    if resolved == root or resolved in root.parents or (root in resolved.parents and
                                                        (root / "results") not in resolved.parents):
        raise ValueError(f"--out {resolved} would write into the course repository itself; choose a folder under "
                         "results/ (the default is results/student-copy) or outside the repository")
    if resolved.exists() and (not resolved.is_dir() or (any(resolved.iterdir()) and not (resolved / MARKER).exists())):
        raise ValueError(f"--out {resolved} exists and is not a student copy written by this command: "
                         "remove it or choose another folder")
    student_notebooks = sorted((root / "assignments" / "student").glob("[0-9][0-9]*_*.ipynb"))
    if not student_notebooks:
        raise FileNotFoundError(f"no student notebooks in {root / 'assignments' / 'student'}: "
                                "run `make assignments` first")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for name in _files_to_copy(root):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, target)
        for page in sorted((staging / "book").glob("*.md")):   # no link to a page left out
            page.write_text(without_left_out_links(page.read_text(encoding="utf-8")), encoding="utf-8")
        if url is not None:
            for name in URL_FILES:
                text = (staging / name).read_text(encoding="utf-8")
                if PUBLIC_URL not in text:
                    raise RuntimeError(f"{name} no longer holds {PUBLIC_URL}, which --repository-url replaces: "
                                       "update course/tgreedy_course/student_copy.py")
                (staging / name).write_text(text.replace(PUBLIC_URL, url), encoding="utf-8")
        (staging / "assignments" / "student").mkdir(parents=True)
        for path in student_notebooks:
            shutil.copy2(path, staging / "assignments" / "student" / path.name)
        table = _assignments_table((root / "assignments" / "README.md").read_text(encoding="utf-8"))
        (staging / "assignments" / "README.md").write_text(student_assignments_readme(table), encoding="utf-8")
        (staging / "README.md").write_text(student_readme((root / "README.md").read_text("utf-8"), table), "utf-8")
        (staging / "Makefile").write_text(student_makefile((root / "Makefile").read_text("utf-8")), "utf-8")
        (staging / ".gitignore").write_text(".venv/\n__pycache__/\n*.egg-info/\n.ipynb_checkpoints/\n.OTTER_LOG\n"
                                            "results/*\n!results/verify.json\n", encoding="utf-8")
        (staging / MARKER).write_text("written by `make student-copy`; a later run replaces this folder\n", "utf-8")
        problems = check_student_copy(staging, root / "assignments" / "source")
        if problems:
            raise LeakError("the student copy would give answers away:\n  " + "\n  ".join(problems[:20]))
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return {"out": out, "files": sum(1 for p in out.rglob("*") if p.is_file()), "assignments": len(student_notebooks),
            "repository_url": url or PUBLIC_URL}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n")[0]
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/student-copy"),
                        help="folder to write (default: results/student-copy; an earlier copy there is replaced)")
    parser.add_argument("--root", type=pathlib.Path, default=None,
                        help="the course repository (default: found from the current directory)")
    parser.add_argument("--repository-url", default=None, metavar="URL",
                        help="https:// address of the class's repository, which the copy's book buttons and the "
                             f"Colab cell of its run page open (default: the public {PUBLIC_URL}, which holds "
                             "the solutions)")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        summary = write_student_copy(args.out, args.root, args.repository_url)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:   # LeakError is a RuntimeError
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote the student copy to {summary['out']}: {summary['files']} files, {summary['assignments']} "
          "assignments; no solutions, hidden tests or grader files")
    if args.repository_url is None:
        print(f"its book and run page open {PUBLIC_URL}, the public repository with the solutions: for a class, "
              "write the copy again with --repository-url (make student-copy REPOSITORY_URL=...) once its "
              "repository exists")
    else:
        print(f"its book and run page open {summary['repository_url']}")
    return 0


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course student-copy") -> int:
    """``python -m tgreedy_course student-copy`` from Python (or ``python student_copy.py``); returns the exit code."""
    parser = argparse.ArgumentParser(prog=prog)
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


if __name__ == "__main__":
    sys.exit(main(prog="student_copy.py"))
