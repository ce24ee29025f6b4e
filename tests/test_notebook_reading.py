"""What a student meets reading the notebooks: a complete map, a readable length, no trap in an exercise, no wait.

* notebook 00's map and the README's notebook table list every numbered notebook;
* every notebook reads in at most 30 minutes (prose at 200 words a minute, tables and code slower, figures by their panels);
* every name an exercise tells the student to call exists (a module attribute, or a name the notebook or the
  exercise itself imports or defines), so "run `x.y(...)`" never ends in an AttributeError or a NameError;
* a flag that opts into a long computation (``BUILD_DBN = False`` at the top of a cell) is off as committed;
* notebook 11 never shows the same quote twice without a data-set label that tells the rows apart.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
MAX_MINUTES = 30


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _source(cell) -> str:
    return "".join(cell["source"])


# --------------------------------------------------------------------------- the map

def test_notebook_00_maps_every_numbered_notebook():
    map_text = "\n".join(_source(c) for c in _cells(ROOT / "notebooks" / "00_start_here.ipynb") if c["cell_type"] == "markdown")
    missing = [p.stem for p in NOTEBOOKS if f"`{p.stem}`" not in map_text]
    assert not missing, f"notebooks/00_start_here.ipynb: the map lacks a row for {missing}"


def test_the_readme_table_lists_every_numbered_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.stem for p in NOTEBOOKS if f"| `{p.stem}` |" not in readme]
    assert not missing, f"README.md: the notebook table lacks a row for {missing}"


# --------------------------------------------------------------------------- reading time

def reading_minutes(path) -> tuple[float, dict]:
    """Minutes to read a notebook with its outputs: prose at 200 words a minute, table rows at 100, code at 15 lines a
    minute, a figure 1.5 minutes plus 0.25 a further panel (at most 4). Collapsed ``<details>`` blocks are optional
    reading and not counted."""
    words = {"prose": 0, "table": 0}
    code_lines, figures = 0, 0.0

    def read(text):
        text = re.sub(r"<details>.*?</details>", " ", text, flags=re.S)
        for line in text.splitlines():   # a word has a letter or digit: table pipes and bullets are not words
            words["table" if line.lstrip().startswith("|") else "prose"] += sum(1 for t in line.split() if re.search(r"\w", t))

    for cell in _cells(path):
        if cell["cell_type"] == "markdown":
            read(_source(cell))
            continue
        if not cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):   # a hidden input is not read
            code_lines += sum(1 for line in _source(cell).splitlines() if line.strip())
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/markdown" in data:
                read("".join(data["text/markdown"]))
            elif "text" in out:
                read("".join(out["text"]))
            if "image/png" in data:
                panels = re.search(r"with (\d+) Axes", "".join(data.get("text/plain", "")))
                figures += min(1.5 + 0.25 * ((int(panels.group(1)) if panels else 1) - 1), 4.0)
    parts = {"prose": words["prose"] / 200, "tables": words["table"] / 100, "code": code_lines / 15, "figures": figures}
    return sum(parts.values()), parts


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_reads_in_at_most_30_minutes(path):
    minutes, parts = reading_minutes(path)
    assert minutes <= MAX_MINUTES, (f"{path.name} takes about {minutes:.0f} minutes to read "
                                   f"({', '.join(f'{k} {v:.0f}' for k, v in parts.items())}): shorten it or split it "
                                   "into two numbered notebooks")


def test_the_reading_time_counts_figures_and_tables(tmp_path):
    notebook = {"cells": [
        {"cell_type": "markdown", "source": ["word " * 400]},
        {"cell_type": "code", "source": ["x = 1\n" * 15], "outputs": [
            {"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": "<Figure size 10x3 with 5 Axes>"}},
            {"output_type": "display_data", "data": {"text/markdown": "| a | b | c | d |\n" * 25}}]}]}
    path = tmp_path / "00_x.ipynb"
    path.write_text(json.dumps(notebook))
    minutes, parts = reading_minutes(path)
    assert parts == {"prose": 2.0, "tables": 1.0, "code": 1.0, "figures": 2.5} and minutes == 6.5
    notebook["cells"].append({"cell_type": "code", "source": ["say('x')\n" * 30], "outputs": [],
                              "metadata": {"jupyter": {"source_hidden": True}, "tags": ["hide-input"]}})
    path.write_text(json.dumps(notebook))
    assert reading_minutes(path)[1]["code"] == 1.0          # the hidden input of a sentence cell is not read


# --------------------------------------------------------------------------- opt-in flags

FLAG = re.compile(r"^([A-Z][A-Z0-9_]+)\s*=\s*(True|False)\b", re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_long_computations_are_opt_in_and_off(path):
    on = [f"cell {i}: {m.group(0)}" for i, cell in enumerate(_cells(path)) if cell["cell_type"] == "code"
          for m in FLAG.finditer(_source(cell)) if m.group(2) == "True"]
    assert not on, f"{path.name}: an opt-in flag is on as committed (a student would wait on it): {on}"


# --------------------------------------------------------------------------- exercises

def _exercise_text(cells) -> str:
    """The markdown of the notebook's exercises: from a heading 'Exercises' to the next heading of that level."""
    text, inside = [], False
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for line in _source(cell).splitlines():
            heading = re.match(r"^(#+)\s*(.*)", line)
            if heading:
                inside = "exercise" in heading.group(2).lower()
            if inside:
                text.append(line)
    return "\n".join(text)


def _notebook_namespace(cells) -> tuple[dict, set]:
    """Objects the notebook imports (to check attributes on) and every name it binds."""
    objects, bound = {}, set()
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse(_source(cell))
        except SyntaxError:
            continue
        _bind(tree, objects, bound)
    return objects, bound


def _bind(tree, objects, bound):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                bound.add(name)
                try:
                    if isinstance(node, ast.Import):
                        module = importlib.import_module(alias.name)
                        objects[name] = module if alias.asname else importlib.import_module(alias.name.split(".")[0])
                    else:
                        module = importlib.import_module(node.module)
                        objects[name] = getattr(module, alias.name) if hasattr(module, alias.name) else \
                            importlib.import_module(f"{node.module}.{alias.name}")
                except ImportError as error:
                    raise AssertionError(f"cannot import {alias.name!r}: {error}") from None
                except AttributeError:
                    raise AssertionError(f"{node.module} has no {alias.name!r}") from None
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)


def _chain(node):
    """``a.b.c`` -> ("a", ["b", "c"]) for an attribute chain rooted at a name; None otherwise."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return (node.id, names[::-1]) if isinstance(node, ast.Name) else None


def exercise_problems(path) -> list[str]:
    """Calls in the exercises' inline code that would fail: unknown attributes of imported modules, names never bound."""
    cells = _cells(path)
    objects, bound = _notebook_namespace(cells)
    problems = []
    for span in re.findall(r"`([^`]+)`", _exercise_text(cells)):   # inline code may wrap onto the next line
        span = re.sub(r"\s*\n\s*", " ", span).strip()
        try:
            tree = ast.parse(span)
        except SyntaxError:
            continue  # a shell command, a file name, a fragment of prose
        local_objects, local_bound = dict(objects), set(bound)
        try:
            _bind(tree, local_objects, local_bound)
        except AssertionError as error:
            problems.append(f"`{span}`: {error}")
            continue
        objects.update(local_objects)   # an import in one exercise serves the ones after it
        bound |= local_bound
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            chain = _chain(node.func)
            if chain is None:
                continue
            root, attributes = chain
            if root not in local_bound and not hasattr(builtins, root):
                problems.append(f"`{span}`: {root!r} is neither imported nor defined in the notebook or the exercise")
                continue
            target = local_objects.get(root)
            if target is None:
                continue  # a variable of the notebook: its type is not known here
            for attribute in attributes:
                if not hasattr(target, attribute):
                    problems.append(f"`{span}`: {getattr(target, '__name__', root)} has no attribute {attribute!r}")
                    break
                target = getattr(target, attribute)
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_exercises_call_only_names_that_exist(path):
    problems = exercise_problems(path)
    assert not problems, f"{path.name}: an exercise tells the student to call something that fails:\n" + "\n".join(problems)


def test_the_exercise_check_catches_a_wrong_module_and_a_missing_import(tmp_path):
    notebook = {"cells": [
        {"cell_type": "code", "source": ["from tgreedy_lib.domain_adaptation.theorems import t_bounds as tb\n"]},
        {"cell_type": "markdown", "source": [
            "## Exercises\n1. Use `tstat_bounds.bonferroni_t_factor(8, 50, 0.05)` and `tgreedy_path(stats,\n   15)`;\n"
            "   then `tb.bonferroni_t_factor(8, 50, 0.05)` and `tb.no_such_factor(8)`.\n"
            "2. `from tgreedy_lib import greedy_path` then `greedy_path(stats, 3)`; `python -m tgreedy_course verify`.\n"]}]}
    path = tmp_path / "05_x.ipynb"
    path.write_text(json.dumps(notebook))
    problems = exercise_problems(path)
    assert len(problems) == 3, problems
    assert "'tstat_bounds' is neither imported" in problems[0] and "'tgreedy_path'" in problems[1]
    assert "no attribute 'no_such_factor'" in problems[2]


# --------------------------------------------------------------------------- notebook 11

def test_what_holds_never_shows_one_quote_twice_without_its_data():
    from tgreedy_course.summary import claim_rows, find_claims

    claims, _ = find_claims()
    rows = claim_rows(claims)
    quote_column = 2
    seen = {}
    for row in rows:
        key = (row[quote_column], row[1])
        assert row[1], f"no data-set label for {row[quote_column]}"
        assert key not in seen, f"notebook 11 shows {row[quote_column]} twice with the same label {row[1]!r}"
        seen[key] = row
    quotes = [row[quote_column] for row in rows]
    assert len(set(quotes)) < len(quotes), "the paper repeats some sentences for two data sets: the check would be vacuous"
    # the committed notebook shows the same table, data column included
    shown = "\n".join("".join(o.get("data", {}).get("text/markdown", "")) for c in _cells(ROOT / "notebooks" / "11_what_holds.ipynb")
                      if c["cell_type"] == "code" for o in c.get("outputs", []))
    assert "| data and task |" in shown or "data and task" in shown
    for quote in {q for q in quotes if quotes.count(q) > 1}:
        lines = [line for line in shown.splitlines() if quote.replace("|", "\\|") in line]
        labels = [line.split("|")[2].strip() for line in lines]
        assert len(labels) == len(set(labels)) > 1, f"notebook 11: {quote} shown {len(lines)} times with labels {labels}"
