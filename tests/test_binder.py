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


def test_colab_cell_installs_what_postbuild_installs():
    """The Colab cell of the book's run page installs the same folders as Binder's postBuild (the library and the
    course's tools, which every notebook imports) and puts both on the path of the running kernel."""
    post = re.search(r"pip install --no-deps -e (.+)$", (BINDER / "postBuild").read_text(), re.M).group(1)
    postbuild_folders = {f.strip() for f in post.split("-e")}
    cell = re.search(r"```ipython\n(.*?)```", (ROOT / "book" / "run.md").read_text(), re.S).group(1)
    clone = re.search(r"git clone .* (\S+)\n", cell).group(1)
    installed = re.search(r"!pip install --quiet (.+)\n", cell).group(1).split()
    colab_folders = {str(pathlib.PurePosixPath(f).relative_to(clone)) for f in installed if f != "-e"}
    assert colab_folders == postbuild_folders == {".", "course"}
    on_path = set(re.findall(r'"([^"]+)"', re.search(r"sys\.path.*", cell).group(0)))
    assert on_path == {clone, f"{clone}/course"}
    notebooks_import = {m for p in FIRST_NOTEBOOKS for m in re.findall(r"from (tgreedy_\w+)", p.read_text())}
    assert notebooks_import == {"tgreedy_lib", "tgreedy_course"}
