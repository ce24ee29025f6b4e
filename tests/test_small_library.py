"""The library stays small enough for a newcomer to read its methods in one sitting.

Sizes are physical lines (``wc -l``) of the tracked Python files. The course's tools (``course/``) sit beside
the library and build on it; the import contract in ``pyproject.toml`` holds that direction.
"""
from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = {"tgreedy_lib": ROOT / "tgreedy_lib", "tgreedy_course": ROOT / "course" / "tgreedy_course"}


def _lines(path: pathlib.Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _tracked_python() -> list[pathlib.Path]:
    try:
        out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / f for f in out.split() if (ROOT / f).is_file()]


def _modules():
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join((package, *parts[:-1])) if parts[-1] == "__init__" else ".".join((package, *parts))
            yield name, path


def test_the_installed_library_and_the_whole_project_stay_small():
    library = sum(_lines(p) for p in (ROOT / "tgreedy_lib").rglob("*.py"))
    outside = [p for p in _tracked_python() if p.relative_to(ROOT).parts[0] not in ("tests", "benchmarks")]
    everything = sum(_lines(p) for p in outside)
    assert library <= 16_000, f"tgreedy_lib holds {library:,} lines of Python (at most 16,000)"
    assert everything <= 20_000, f"the project's Python outside tests and benchmarks is {everything:,} lines (at most 20,000)"


def _loaded_lines(statement: str) -> dict[str, int]:
    code = (f"import json, sys\n{statement}\n"
            "print(json.dumps({n: getattr(m, '__file__', None) for n, m in list(sys.modules.items())"
            " if n.split('.')[0] == 'tgreedy_lib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return {name: _lines(pathlib.Path(f)) for name, f in json.loads(out).items() if f}


@pytest.mark.parametrize("statement, budget", [
    ("from tgreedy_lib import TGreedy", 3_500),
    ("from tgreedy_lib.categorical import gini_error_estimate", 1_200),
])
def test_a_method_loads_only_what_it_needs(statement, budget):
    loaded = _loaded_lines(statement)
    assert sum(loaded.values()) <= budget, (
        f"`{statement}` loads {sum(loaded.values()):,} lines of the package (at most {budget:,}): {sorted(loaded)}")


def _private_imports():
    for name, path in _modules():
        package = name.split(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                private_name = alias.name.startswith("_") and not alias.name.startswith("__")
                reach_in = source.split(".")[0] != package and any(
                    part.startswith("_") and not part.startswith("__") for part in source.split("."))
                if private_name or reach_in:
                    yield f"{name}: from {source} import {alias.name}"


def test_modules_use_each_others_public_names():
    found = list(_private_imports())
    assert len(found) <= 3, f"{len(found)} imports of a private name across modules (at most 3): {found}"


def test_one_name_a_concept():
    """No two modules or packages of the library and the course share a name (three ``theory``, two ``compare``)."""
    seen: dict[str, list[str]] = {}
    for name, path in _modules():
        stem = name.split(".")[-1]
        if stem not in ("tgreedy_lib", "tgreedy_course", "__main__"):
            seen.setdefault(stem, []).append(name)
    clashes = {stem: names for stem, names in seen.items() if len(names) > 1}
    assert not clashes, clashes


CITATIONS = ("AISTATS 2012", "JMLR 2008", "Journal of Machine Learning Research")


def test_each_module_cites_its_paper_once_and_functions_refer_to_it():
    problems = []
    for name, path in _modules():
        text = path.read_text(encoding="utf-8")
        problems += [f"{name}: {c!r} {text.count(c)} times" for c in CITATIONS if text.count(c) > 1]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node) or ""
                if "References\n---" in doc:
                    problems.append(f"{name}.{node.name}: a References section of its own")
    assert not problems, problems
