"""The library and the course's tools depend one way, the library's layers hold, nothing imports in a circle.

The contracts are in ``pyproject.toml`` (``[tool.importlinter]``): the library never imports the course's
tools (:mod:`tgreedy_course`, in ``course/``); the algorithms never import Matplotlib (how a selector is drawn lives in
:mod:`tgreedy_lib.plotting.style`, not in its registry); the packages form layers; inside
``domain_adaptation`` the kernels, the path functions and the estimators are layered as in scikit-learn's
``_omp.py``; inside ``features`` the builder sits above the probe, and the probe above the cache's entry
format and the learners. Each check is also shown to fail on a copy of the package with one bad import
planted in it.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LINT_IMPORTS = pathlib.Path(sys.executable).with_name("lint-imports")

#: Strongly connected components of the import graph (every import, those inside functions too), by grimp.
FIND_CYCLES = textwrap.dedent("""
    import sys
    import grimp

    graph = grimp.build_graph("tgreedy_lib", "tgreedy_course", cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for module in edges:
        if module not in index:
            visit(module)
    for cycle in cycles:
        print("import cycle: " + " <-> ".join(cycle))
    sys.exit(1 if cycles else 0)
""")


def _run(args, root: pathlib.Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)


def _copy_package(tmp_path: pathlib.Path) -> pathlib.Path:
    """The two packages' Python files and pyproject.toml in ``tmp_path`` (no data, no notebooks)."""
    for source in (ROOT / "tgreedy_lib", ROOT / "course" / "tgreedy_course"):
        shutil.copytree(source, tmp_path / source.name,
                        ignore=lambda folder, names: [n for n in names if not (n.endswith(".py")
                                                                                or (pathlib.Path(folder) / n).is_dir())])
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _plant(root: pathlib.Path, module: str, line: str) -> None:
    """Add ``line`` inside a new function at the end of ``module`` (an import no one calls still counts)."""
    path = root / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + f"\n\ndef _planted():\n    {line}\n")


def _lint_imports(root: pathlib.Path) -> subprocess.CompletedProcess:
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} is missing: import-linter is a dev dependency; run `make install`")
    return _run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], root)


def test_the_import_contracts_are_kept():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout, result.stdout


@pytest.mark.parametrize("module, line, contract", [
    # the library reaching up to the course's claims
    ("tgreedy_lib.domain_adaptation.evaluation", "from tgreedy_course import claims",
     "the library never imports the course's tools"),
    # features running an experiment
    ("tgreedy_lib.features.build", "from ..experiments.runs import run_similarity",
     "layers, top to bottom"),
    # the selector registry reaching for Matplotlib (how a selector is drawn is plotting.style's business)
    ("tgreedy_lib.domain_adaptation.selectors", "import matplotlib.colors",
     "the algorithms draw nothing"),
    # the path functions reaching up to the estimators' stopping rules
    ("tgreedy_lib.domain_adaptation.selection", "from .stopping import choose_k",
     "kernels, then functions, then estimators"),
    # the probe reaching up to the builder
    ("tgreedy_lib.features.probe", "from .build import dbn_inputs",
     "the builder, then the probe"),
])
def test_a_planted_upward_import_breaks_a_contract(tmp_path, module, line, contract):
    root = _copy_package(tmp_path)
    assert _lint_imports(root).returncode == 0  # the copy itself is clean
    _plant(root, module, line)
    result = _lint_imports(root)
    assert result.returncode != 0, result.stdout
    broken = result.stdout.split("Broken contracts")[-1]
    assert contract in broken and module in broken, result.stdout


def test_no_import_cycles():
    result = _run([sys.executable, "-c", FIND_CYCLES], ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_cycle_check_finds_a_planted_cycle(tmp_path):
    root = _copy_package(tmp_path)
    _plant(root, "tgreedy_lib.domain_adaptation.statistics", "from . import selection")
    result = _run([sys.executable, "-c", FIND_CYCLES], root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "tgreedy_lib.domain_adaptation.selection" in result.stdout
    assert "tgreedy_lib.domain_adaptation.statistics" in result.stdout


@pytest.mark.parametrize("page", ["README.md", "book/library.md"])
def test_the_house_is_drawn_in_ten_lines_in_the_contracts_order(page):
    """The drawing of the house (the README's and the library guide's) is at most ten lines, names the course on
    top and every layer of pyproject's contract, top to bottom, in its order."""
    import re
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["id"] == "layers")["layers"]
    text = (ROOT / page).read_text()
    drawing = re.search(r"```text\n(course/tgreedy_course .*?)```", text, re.S)
    assert drawing, f"{page} has lost its drawing of the house (a ```text block starting 'course/tgreedy_course')"
    lines = drawing.group(1).splitlines()
    assert len(lines) <= 10, f"{page}: the house takes {len(lines)} lines"
    drawn = [re.findall(r"[\w.]+", re.split(r"\s{2,}", line)[0].replace("tgreedy_lib.", ""))
             for line in lines if line.startswith("tgreedy_lib.")]
    names = [re.findall(r"[\w.]+", layer.replace("tgreedy_lib.", "")) for layer in layers]
    assert drawn == names, f"{page}'s layers {drawn} differ from pyproject's {names}"
