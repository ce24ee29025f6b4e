"""Course assignments (otter-grader, offline, no Docker).

* every instructor version passes all its public and hidden tests (``otter assign`` runs them on the
  solutions while regenerating);
* the committed student and grader files are up to date with the sources (regenerated into a
  temporary folder and compared, volatile metadata ignored);
* every student version executes without errors and scores 0 until answered, with at least one
  public check failing per question;
* every student version, answered with the reference solutions, scores full marks;
* every student version answered with values of the right type and shape that are wrong (``DUMMY_ANSWERS``)
  passes every public check and scores 0: the public checks carry no points, and a choice the student could
  guess counts only together with the value it follows from;
* a question that forbids the library scores 0 when its answer calls it, with a note that says so (a function
  that calls ``sn`` in 03, a cell that calls a path function in 05, ``worst_excess`` read off ``sn``), and its
  prompt's rule paragraph names exactly the answers the rule reads and what it forbids; an enumeration written
  without the library (NumPy bit shifts) is allowed, as the prompt says;
* the scores' notes count scored tests only, name a broken rule, and name a setup name the student rebound;
* a Canvas batch with resubmissions (``-1``) is filed by the README's one line, and two notebooks for one
  student and assignment are refused with both named;
* the companion notebook's outputs do not show a reference answer (numbers with three or more
  significant digits, integers from 10 up, strings of three or more characters that the assignment
  itself does not offer as a choice);
* the points of each question agree everywhere: the question's block, the grader files, the
  question's prompt, the assignment's introduction, the README table and a companion notebook that
  states points;
* the grade command writes the expected CSV for a correct (flat layout, no note), a partly answered and a broken
  submission (tests/test_grading_isolation.py plays hostile ones), and refuses a flat file named after its
  assignment alone (no student name).

The notebooks run in fresh kernels, two at a time (the CI machine has 2 cores).
"""
from __future__ import annotations

import ast
import concurrent.futures
import csv
import hashlib
import json
import math
import pathlib
import re
import shutil
import tempfile

import pytest

from tgreedy_course import assignments as A

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
    return [code for q in A.read_questions(source) for code in q.solutions]


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
    assert not problems, "run `python -m tgreedy_course assignments generate`:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def student_results():
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {n: pool.submit(A.grade_one, STUDENT_DIR / f"{n}.ipynb", GRADER_DIR / n, 300) for n in NAMES}
        return {n: f.result() for n, f in futures.items()}


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


# --------------------------------------------------------------------------- reference answers

#: Appended to a reference submission: records the answers' values (plain JSON) for the tests below.
RECORD_ANSWERS = """
import json as _json, numpy as _np
def _plain(value):
    if isinstance(value, (bool, _np.bool_)):
        return bool(value)
    if isinstance(value, (int, _np.integer)):
        return int(value)
    if isinstance(value, (float, _np.floating)):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, _np.ndarray)) and len(value) <= 200:
        return [_plain(v) for v in value]
    return None
with open(%r, "w") as _f:
    _json.dump({_n: _plain(globals()[_n]) for _n in %r if _n in globals()}, _f)
"""


def _answer_names(q: A.Question) -> list[str]:
    """Names the solution assigns at top level that the tests take as arguments: the answers."""
    assigned = []
    for code in q.solutions:
        for node in ast.parse(code).body:
            targets = []
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                assigned.append(node.name)
            for target in targets:
                assigned += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    arguments = {a.arg for code in q.tests for node in ast.walk(ast.parse(code))
                 if isinstance(node, ast.FunctionDef) for a in node.args.args}
    return [n for n in dict.fromkeys(assigned) if n in arguments]


@pytest.fixture(scope="module")
def reference_results():
    """Every student version answered with the reference solutions, graded; and its answers' values."""
    with tempfile.TemporaryDirectory(prefix="assignments-reference-") as tmp:
        tmp = pathlib.Path(tmp)
        # the submissions run as an unprivileged user where the tests run as root: let them write their answers
        (tmp / "answers").mkdir()
        tmp.chmod(0o711)
        (tmp / "answers").chmod(0o777)
        jobs = {}
        for name in NAMES:
            student_nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
            names = [n for q in A.read_questions(SOURCE_DIR / f"{name}.ipynb") for n in _answer_names(q)]
            record = tmp / "answers" / f"{name}.json"
            _write_submission(student_nb, reference_answers(SOURCE_DIR / f"{name}.ipynb"), tmp / "subs" / f"{name}.ipynb",
                              extra_code=RECORD_ANSWERS % (str(record), names))
            jobs[name] = (tmp / "subs" / f"{name}.ipynb", GRADER_DIR / name, record)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futures = {n: pool.submit(A.grade_one, nb, grader, 300) for n, (nb, grader, _) in jobs.items()}
            results = {n: f.result() for n, f in futures.items()}
        yield {n: (results[n], json.loads(jobs[n][2].read_text()) if jobs[n][2].exists() else None) for n in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_reference_answers_score_full_marks(reference_results, name):
    result, answers = reference_results[name]
    assert result["catastrophic"] is None and result["errors"] == [], (result["catastrophic"], result["errors"])
    points = A._question_points(GRADER_DIR / name)
    assert set(result["questions"]) == set(points)
    for q, r in result["questions"].items():
        assert r["failed"] == 0 and r["score"] == r["possible"] == points[q], f"{name} {q}: {r}"
        assert r["setup_changed"] == [] and A.question_note(r) == "", f"{name} {q}: {r}"  # no setup name rebound
    assert answers is not None and set(answers) == {n for q in A.read_questions(SOURCE_DIR / f"{name}.ipynb")
                                                    for n in _answer_names(q)}


#: Every answer cell of every assignment filled with values of the right type and shape, all wrong (choices too):
#: what a student who only reads the public checks would hand in.
DUMMY_ANSWERS = {
    "00_start_here": [
        'regret = {"greedy": np.zeros(15), "T-greedy": np.zeros(15)}',
        "greedy_worse_after = 15\nloss_going_down = False",
        'avg30 = {"greedy": np.zeros(15), "T-greedy": np.zeros(15)}\nbenefits_more = "T-greedy"',
        "positive_path = tgreedy_path(stats, n_steps=15)\nsame_first_five = False\nrobust_first = True",
    ],
    "01_ssn_overfitting": [
        'first_by = {name: "birthday" for name in cat.FILTERS}',
        "def l_hat(x, y):\n    return 0.25",
        "def expected_singleton_share(p, m):\n    return 0.1\n\n\ndef expected_missing_mass(p, m):\n    return 0.1\n\n\n"
        "ssn_expected_l_hat = 0.1\nssn_expected_error = 0.1",
        "estimate_drops_code_at = 3\ngini_ever_drops = True",
    ],
    "02_gini_estimator_theorems": [
        "def expected_l_hat(p, q, m):\n    return 0.3\n\n\ndef expected_gini_error(p, q, m):\n    return 0.3\n\n\nbias_30 = 0.01",
        "largest_change = 0.7\nlargest_change_gini = 0.7\nbelow_remark = True",
        "worst_q = 0.9\nlemma11_fails = False",
        "first_useful_m = 20.0\nbound_is_false = True",
    ],
    "02b_domains_and_regret": [
        "regret_estimate = np.zeros(50)\nworse_than_zero = np.arange(50)",
        't_abs = np.ones(50)\ngreedy_first = "null"\ntgreedy_first = "null"',
        "def expected_regret(mu, s, n):\n    return 0.0\n\n\ndef expected_greedy_score(mu, s, n):\n    return 0.0\n\n\n"
        "break_even_n = 1",
    ],
    "03_self_normalized_sums": [
        "def equal_magnitude_tail(n, t):\n    return 0.5\n\n\nworst_excess = {n: 0.0 for n in range(1, 13)}",
        "def best_lambda(z, t):\n    return 1.0\n\n\ndef chernoff_bound(z, t):\n    return 1.0",
        'def smallest_ratio(n, eps):\n    return 1.0\n\n\nreason = "A"',
    ],
    "04_t_statistic_bounds": [
        "def tilde_from_t(T, n):\n    return np.asarray(T, float)\n\n\ndef t_tail_bound(c, n):\n    return 1.0\n\n\n"
        "def min_domains(n_features, delta):\n    return 10\n\n\nn_min = 10",
        "largest_failing_delta = float(deltas[0])",
        "def all_signs_agree(n):\n    return 0.5\n\n\ndef one_sign_off_abs_t(n):\n    return 1.0\n\n\n"
        "rademacher_first_below = 10000",
    ],
    "05_tgreedy_simulated_domains": [
        'greedy_first = 49\ntgreedy_first = 49\nfirst_kinds = ("null", "null")',
        "c = 2.5\nthresholded_regret = 0.0\nbest_fixed_regret = 0.0",
        "def residuals_after_step(xy, gram_row, i):\n    return np.zeros(np.shape(xy))\n\n\nsecond_pick = 49",
        'spurious_alone_helps_from = 4\ngreedy_beats_null_from = 4\nwhy = "A"',
    ],
    "06_dbn_features": [
        "def hidden_probabilities(V, W, c):\n    return np.full((np.shape(V)[0], np.shape(W)[1]), 0.5)\n\n\n"
        "H = hidden_probabilities(V, W, c)",
        "def whiten(X, k):\n    return np.zeros((np.shape(X)[0], k))\n\n\nZ = whiten(V, 30)",
        "k90 = 784\nweights_2000 = 1",
    ],
    "07_mnist_2_vs_other": [
        'paths8 = {"greedy": tgreedy_path(stats8, n_steps=20), "T-greedy": greedy_path(stats8, n_steps=20)}\n'
        'target_auroc = {"greedy": np.full(20, 0.5), "T-greedy": np.full(20, 0.5)}',
        'mean_auroc_10 = {"greedy": 0.5, "T-greedy": 0.5}\nbetter_on_new_digits = "greedy"',
        'gap_greedy_10 = 0.9\nlarger_gap = "T-greedy"',
        'stepwise_auroc10 = {"greedy": 0.5, "T-greedy": 0.5}\nstepwise_changes_winner = True',
    ],
    "08_similarity_learning": [
        "def pair_features(A, B):\n    return np.asarray(A, float) + np.asarray(B, float)",
        'target_auroc3 = {"greedy": np.full(20, 0.5), "T-greedy": np.full(20, 0.5)}\n'
        'best_auroc3 = {"greedy": 0.5, "T-greedy": 0.5}',
        "first_step_below = 21\nstopped_auroc = 0.5\nany_above_bonferroni = True",
        "auroc10_uncentred = 0.5\nauroc10_centred = 0.5\ncentring_helps = False",
    ],
    "09_when_to_stop": [
        "threshold = 2.5\nk_bonferroni = 15",
        "k_lodo = 15\nlodo_gap = 0.0",
        "draws = np.ones(3)\nn_distinct = 3\nsmallest_p_value = 0.5",
        "bonferroni_widths = {4: 3.0, 8: 3.0, 16: 3.0}\ntheorem1_width = 3.0\ncrossover_n = 2\ntable_agrees = True",
    ],
    "10_your_own_data": [
        'chosen_names = genes[:10]\ncounts_by_kind = {"robust": 10, "study-specific": 0, "noise": 0}',
        'first_noise_step = 1\nsmallest_robust_abs_t = 1.0\nc = 3.5\nkept_kinds = ["noise"]',
        'message = "this is not what the error says"\nn_kept = 600\nfixed_first = "gene_000"',
        "same_features = False\nlargest_coef_difference = 1.0\ndense_gram_gib = 1.0",
    ],
}


def test_dummy_answers_cover_every_answer_cell():
    assert list(DUMMY_ANSWERS) == NAMES
    for name in NAMES:
        nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
        assert len(DUMMY_ANSWERS[name]) == len(answer_cells(nb)), name


def test_public_checks_carry_no_points_and_every_question_has_a_hidden_one():
    for name in NAMES:
        for path in sorted((GRADER_DIR / name / "tests").glob("*.py")):
            cases = re.findall(r"^@test_case\(points=([^,]+), hidden=(True|False)\)", path.read_text(), flags=re.M)
            assert cases, path
            assert all(points == "0" for points, hidden in cases if hidden == "False"), f"{path}: a public check has points"
            assert any(hidden == "True" and points != "0" for points, hidden in cases), f"{path}: no hidden check has points"


@pytest.fixture(scope="module")
def dummy_results():
    with tempfile.TemporaryDirectory(prefix="assignments-dummy-") as tmp:
        jobs = {}
        for name in NAMES:
            student_nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
            _write_submission(student_nb, DUMMY_ANSWERS[name], pathlib.Path(tmp) / f"{name}.ipynb")
            jobs[name] = pathlib.Path(tmp) / f"{name}.ipynb"
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futures = {n: pool.submit(A.grade_one, nb, GRADER_DIR / n, 300) for n, nb in jobs.items()}
            yield {n: f.result() for n, f in futures.items()}


@pytest.mark.parametrize("name", NAMES)
def test_answers_of_the_right_type_alone_score_zero(dummy_results, name):
    result = dummy_results[name]
    assert result["catastrophic"] is None and result["errors"] == [], (result["catastrophic"], result["errors"])
    assert set(result["questions"]) == set(A._question_points(GRADER_DIR / name))
    for q, r in result["questions"].items():
        assert r["failed_public"] == 0, f"{name} {q}: the dummy answers fail a public check: fix DUMMY_ANSWERS"
        assert r["score"] == 0, f"{name} {q}: values of the right type, all wrong, score {r['score']}"
        assert r["scored_tests"] >= 1 and A.question_note(r) == f"{r['scored_tests']} of {r['scored_tests']} scored tests failed"


def notebook_output_text(path: pathlib.Path) -> str:
    """Everything a reader sees in a notebook's outputs (text, Markdown, HTML without tags; no images)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            texts = [output.get("text", "")]
            data = output.get("data", {})
            texts += [data.get(kind, "") for kind in ("text/plain", "text/markdown", "text/latex")]
            texts.append(re.sub(r"<[^>]+>", " ", "".join(data.get("text/html", ""))))
            parts += ["".join(t) if isinstance(t, list) else t for t in texts]
    return "\n".join(parts)


def _significant_digits(form: str) -> int:
    """Significant digits of a printed number, trailing zeros after the point not counted."""
    mantissa = re.split(r"[eE%]", form)[0].strip()
    if "." in mantissa:
        mantissa = mantissa.rstrip("0")
    return len(re.sub(r"^[-+]?[0.]*", "", mantissa).replace(".", ""))


def shown_forms(value, digits: int = 3) -> set[str]:
    """The ways a notebook would print ``value`` that are distinctive enough to count as showing it.

    Integers from 10 up (also with thousands separators); floats to ``digits`` or more significant
    digits (fixed and general; in scientific notation when tiny or huge; as percentages); strings of
    three or more characters. The elements of a sequence of more than three numbers (a curve) count
    from 4 significant digits, since some of many 3-digit values turn up in any notebook by chance;
    so do smaller values (a digit, ``0.5``, a letter, ``True``).
    """
    if value is None or isinstance(value, bool):
        return set()
    if isinstance(value, (list, tuple)):
        forms = set().union(*(shown_forms(v, 4 if len(value) > 3 else digits) for v in value)) if value else set()
        if 1 < len(value) <= 20 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            forms.add("[" + ", ".join(f"{v:g}" for v in value) + "]")
        return forms
    if isinstance(value, dict):
        return set().union(*(shown_forms(v, digits) for v in value.values())) if value else set()
    if isinstance(value, str):
        return {value.strip()} if len(value.strip()) >= 3 else set()
    if not math.isfinite(value):
        return set()
    if float(value).is_integer():
        n = int(value)
        return {str(n), f"{n:,}"} if abs(n) >= (10 if digits <= 3 else 1000) else set()
    forms = {f"{value:.3g}", f"{value:.4g}", f"{value:.3f}", f"{value:.4f}"}
    if 0.1 <= abs(value) < 1:
        forms |= {f"{100 * value:.1f}%", f"{100 * value:.1f} %"}
    forms = {f for f in forms if "e" not in f and _significant_digits(f) >= digits}
    if (abs(value) < 1e-3 or abs(value) >= 1e5) and _significant_digits(f"{value:.1e}") >= 2:
        forms |= {f"{value:.1e}", f"{value:.2e}"}
    return forms


def shows(text: str, form: str) -> bool:
    """Whether ``form`` occurs in ``text`` as a whole token (not inside a longer number or word)."""
    return re.search(r"(?<![\w.])" + re.escape(form) + r"(?![\w]|\.\d)", text, flags=re.IGNORECASE) is not None


def test_shown_forms_and_shows():
    assert shown_forms(0.6050) >= {"0.605", "0.6050"} and shown_forms(2000) == {"2000", "2,000"}
    assert shown_forms(4) == set() and shown_forms(0.5) == set() and shown_forms(True) == set()
    assert "6.4e-04" in shown_forms(0.000641) and "41.7%" in shown_forms(0.4167)
    assert shown_forms([2, 4]) == {"[2, 4]"} and shown_forms({"a": "pareto", "b": 0.25}) == {"pareto"}
    assert shown_forms([0.1234, 0.5, 0.25, 0.75]) == {"0.1234", "[0.1234, 0.5, 0.25, 0.75]"}  # a curve: 4 digits
    assert shows("q = 0.605, delta = 0.01", "0.605") and not shows("10.6051", "0.605")
    assert shows("needs n >= 91 domains", "91") and not shows("n = 910", "91") and not shows("12,000", "2,000")
    assert shows("Laws: Pareto (index 1/4)", "pareto") and not shows("paretos", "pareto")


@pytest.mark.parametrize("name", NAMES)
def test_companion_notebook_outputs_do_not_show_the_answers(reference_results, name):
    _, answers = reference_results[name]
    companion = ASSIGNMENTS_DIR.parent / "notebooks" / f"{name}.ipynb"
    assert companion.exists(), f"{name}: no companion notebook"
    outputs = notebook_output_text(companion)
    # what the student version itself says (prompts, setup code, choices offered) cannot give an answer away
    student_text = "\n".join("".join(c["source"]) for c in
                             json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"])
    shown = []
    for variable, value in (answers or {}).items():
        values = value.values() if isinstance(value, dict) else [value]
        for one in values:
            forms = shown_forms(one)
            if not any(shows(student_text, form) for form in forms):  # a choice the assignment offers
                shown += [f"{variable} = {form!r}" for form in sorted(forms) if shows(outputs, form)]
    assert not shown, f"notebooks/{name}.ipynb's outputs show reference answers: " + "; ".join(shown)


# --------------------------------------------------------------------------- points

README = (ASSIGNMENTS_DIR / "README.md").read_text(encoding="utf-8")
QUESTION_POINTS = re.compile(r"\*\*Question (\d+) \(([^)]*?), (\d+) points?\)\.\*\*")


def test_readme_lists_every_assignment_once():
    rows = re.findall(r"^\| `([0-9][0-9][a-z]?_\w+)` \|", README, flags=re.M)
    assert rows == NAMES, "assignments/README.md's table must list every assignment, in order"


@pytest.mark.parametrize("name", NAMES)
def test_points_agree_everywhere(name):
    source = SOURCE_DIR / f"{name}.ipynb"
    questions = A.read_questions(source)
    points = [q.points for q in questions]
    assert all(isinstance(p, int) and p > 0 for p in points), "whole points"
    assert list(A._question_points(GRADER_DIR / name).values()) == points, "grader files"
    for i, q in enumerate(questions, start=1):
        stated = QUESTION_POINTS.search(q.prompt)
        assert stated, f"{q.name}: the prompt opens with **Question {i} (kind, N points).**"
        assert (int(stated.group(1)), int(stated.group(3))) == (i, q.points), f"{q.name}: prompt says {stated.group(0)}"
    cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
    opening = next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")   # title and introduction
    intro = re.search(r"(\d+) questions, (\d+) points", opening)
    assert intro and (int(intro.group(1)), int(intro.group(2))) == (len(points), sum(points)), "introduction"
    row = re.search(rf"^\| `{re.escape(name)}` \|.*\| (\d+) \((\d+)\) \|$", README, flags=re.M)
    assert row and (int(row.group(1)), int(row.group(2))) == (len(points), sum(points)), "assignments/README.md"
    companion = json.loads((ASSIGNMENTS_DIR.parent / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    exercises = [c for c in companion["cells"] if c["cell_type"] == "markdown" and "## Exercises" in "".join(c["source"])]
    stated = [int(p) for c in exercises for p in re.findall(r"\((\d+) points?\b", "".join(c["source"]))]
    assert not stated or stated == points, f"notebooks/{name}.ipynb states points {stated}, the assignment {points}"


def test_no_tracker_words_in_assignments():
    for path in sorted(ASSIGNMENTS_DIR.rglob("*")):
        if path.is_file() and path.suffix in (".ipynb", ".md", ".py", ".json"):
            text = path.read_text(encoding="utf-8")
            found = re.findall(r"\b(?:issue\s*#?\d+|the goal|ticket)\b", text, flags=re.IGNORECASE)
            assert not found, f"{path.relative_to(ASSIGNMENTS_DIR)}: {found}"


# --------------------------------------------------------------------------- grading


def _write_submission(student_nb: dict, answers: list, path: pathlib.Path, extra_code: str | None = None) -> None:
    nb = json.loads(json.dumps(student_nb))
    for cell, answer in zip(answer_cells(nb), answers):
        if answer is not None:
            cell["source"] = answer
    if extra_code:
        nb["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                            "source": extra_code})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_grade_command_writes_scores_per_student_and_question(tmp_path):
    name = "00_start_here"
    student_nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
    solutions = reference_answers(SOURCE_DIR / f"{name}.ipynb")
    assert len(solutions) >= 3
    subs = tmp_path / "submissions"
    _write_submission(student_nb, solutions, subs / f"alice_{name}.ipynb")                          # correct, flat layout
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
    # correct: full marks, and no note (it runs under the name that otter.Notebook(...) in it opens)
    assert all(float(table["alice", q]["score"]) == points[q] for q in points)
    assert float(table["alice", "TOTAL"]["score"]) == possible == float(table["alice", "TOTAL"]["possible"])
    assert table["alice", "TOTAL"]["note"] == ""
    assert table["alice", "TOTAL"]["sha256"] == hashlib.sha256((subs / f"alice_{name}.ipynb").read_bytes()).hexdigest()
    # partly answered: the first question only
    assert float(table["bob", first]["score"]) == points[first]
    assert all(float(table["bob", q]["score"]) == 0 for q in [second, *rest])
    assert float(table["bob", "TOTAL"]["score"]) == points[first]
    # broken: the raising cell costs its question; grading goes on after it
    assert float(table["carol", second]["score"]) == 0
    assert all(float(table["carol", q]["score"]) == points[q] for q in [first, *rest])
    assert re.fullmatch(r"code cell \d+ raised RuntimeError", table["carol", "TOTAL"]["note"])
    assert table["carol", "TOTAL"]["file"] == f"carol_{name}.ipynb"

    wide = tmp_path / "wide.csv"
    A._write_csv(long_rows, wide, wide=True)
    wide_rows = {r["student"]: r for r in csv.DictReader(wide.open())}
    assert float(wide_rows["alice"]["percent"]) == 100.0
    assert float(wide_rows["bob"][first]) == points[first]


def test_a_question_that_forbids_the_library_scores_zero_when_the_answer_calls_it(tmp_path):
    subs = tmp_path / "submissions"
    name = "03_self_normalized_sums"   # a function that calls sn
    answers = reference_answers(SOURCE_DIR / f"{name}.ipynb")
    answers[0] = answers[0].replace("return float(sum(math.comb(n, k) for k in range(n + 1) if (2 * k - n) ** 2 / n > t) / 2 ** n)",
                                    "return float(sn.rademacher_tail(n, t))")
    assert "sn.rademacher_tail" in answers[0]
    _write_submission(json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8")), answers,
                      subs / "alice" / f"{name}.ipynb")
    name5 = "05_tgreedy_simulated_domains"   # a cell that reads the answer off a path
    answers5 = reference_answers(SOURCE_DIR / f"{name5}.ipynb")
    answers5[0] = ("t, mu, sigma = t_statistic(stats.xy, moments=True)\n"
                   "greedy_first = int(greedy_path(stats, n_steps=1).features[0])\n"
                   "tgreedy_first = int(tgreedy_path(stats, n_steps=1).features[0])\n"
                   "first_kinds = (str(problem.kind[greedy_first]), str(problem.kind[tgreedy_first]))")
    _write_submission(json.loads((STUDENT_DIR / f"{name5}.ipynb").read_text(encoding="utf-8")), answers5,
                      subs / "bob" / f"{name5}.ipynb")
    A.grade(subs, tmp_path / "scores.csv", jobs=2, quiet=True)
    table = {(r["student"], r["question"]): r for r in csv.DictReader((tmp_path / "scores.csv").open())}
    for student, question, name_ in (("alice", "q1_equal_magnitudes", name), ("bob", "q1_first_picks", name5)):
        row = table[student, question]
        assert float(row["score"]) == 0, row   # its other tests pass: the values are right
        assert "without" in row["note"] or "by hand" in row["note"], row["note"]
        others = {q: p for q, p in A._question_points(GRADER_DIR / name_).items() if q != question}
        assert all(float(table[student, q]["score"]) == p for q, p in others.items()), others
    assert "tgreedy_lib.domain_adaptation.theorems.self_normalized.rademacher_tail" in table["alice", "q1_equal_magnitudes"]["note"]
    assert "tgreedy_lib.domain_adaptation.selection.greedy_path" in table["bob", "q1_first_picks"]["note"]


def _rule_of(q: A.Question) -> tuple[list[str], list[str], list[str]]:
    """The answers a question's rule test reads, and what it forbids and allows (as written in the test)."""
    calls = [node for t in q.tests if "def test_rule_" in t for node in ast.walk(ast.parse(t))
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "library_uses"]
    assert len(calls) == 1, q.name
    call = calls[0]
    allowed = next((kw.value for kw in call.keywords if kw.arg == "allowed"), ast.List(elts=[]))
    as_text = lambda node: [e.value if isinstance(e, ast.Constant) else ast.unparse(e) for e in node.elts]  # noqa: E731
    return as_text(call.args[1]), as_text(call.args[2]), as_text(allowed)


RULE = "**Rule, checked by the grader:**"


@pytest.mark.parametrize("name", NAMES)
def test_rule_prompts_say_exactly_what_the_grader_checks(name):
    for q in A.read_questions(SOURCE_DIR / f"{name}.ipynb"):
        has_rule = any("def test_rule_" in t for t in q.tests)
        assert (RULE in q.prompt) == has_rule, f"{name} {q.name}: a rule test needs a rule paragraph, and no other"
        if not has_rule:
            assert "the grader reads" not in q.prompt and "scores 0 on this" not in q.prompt, f"{name} {q.name}"
            continue
        paragraph = q.prompt.split(RULE, 1)[1].split("\n\n")[0]
        read = paragraph.split(" (a function's own code", 1)[0]
        names, forbidden, allowed = _rule_of(q)
        assert re.findall(r"`([^`]+)`", read) == names, f"{name} {q.name}: the paragraph names other answers than the rule reads"
        quoted = set(re.findall(r"`([^`]+)`", paragraph))
        assert set(forbidden) | set(allowed) <= quoted, f"{name} {q.name}: {sorted(set(forbidden) | set(allowed) - quoted)}"
        # the rule covers every answer the question asks for, save those the paragraph says it leaves out
        left_out = set(_answer_names(q)) - set(names)
        assert all(n in {"reason", "rademacher_first_below"} for n in left_out), f"{name} {q.name}: {left_out}"
        assert not re.search(r"\bdo not\b[^.]*\benumerat", q.prompt), f"{name} {q.name}: forbids what no test checks"


BIT_SHIFT_TAIL = """def equal_magnitude_tail(n, t):
    codes = np.arange(2 ** n)[:, None]
    signs = 2 * ((codes >> np.arange(n)) & 1) - 1
    return float(np.mean(signs.sum(axis=1) ** 2 / n > t))"""


def test_grading_notes_name_scored_tests_rules_and_rebound_setup_names(tmp_path):
    name = "03_self_normalized_sums"
    student_nb = json.loads((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))
    answers = reference_answers(SOURCE_DIR / f"{name}.ipynb")
    own_tail = answers[0].split("\n\n\nworst_excess")[0]
    assert own_tail.startswith("def equal_magnitude_tail") and "math.comb" in own_tail
    subs = tmp_path / "subs"
    # an enumeration of the sign vectors with NumPy bit shifts: allowed, and right
    _write_submission(student_nb, [answers[0].replace(own_tail, BIT_SHIFT_TAIL), *answers[1:]], subs / "alice" / f"{name}.ipynb")
    # worst_excess read off the library: the rule covers it
    taken = own_tail + "\n\n\nworst_excess = {n: sn.worst_excess_discrete(*sn.rademacher_atoms(n))[0] for n in range(1, 13)}"
    _write_submission(student_nb, [taken, *answers[1:]], subs / "bob" / f"{name}.ipynb")
    # right answers, but a setup name rebound in a cell of the student's own
    _write_submission(student_nb, answers, subs / "carol" / f"{name}.ipynb", extra_code="sn = 0.5  # my step size")
    # right types, wrong values
    _write_submission(student_nb, DUMMY_ANSWERS[name], subs / "dave" / f"{name}.ipynb")
    A.grade(subs, tmp_path / "scores.csv", jobs=2, quiet=True)
    table = {(r["student"], r["question"]): r for r in csv.DictReader((tmp_path / "scores.csv").open())}
    points = A._question_points(GRADER_DIR / name)
    assert [float(table["alice", q]["score"]) for q in points] == list(points.values()), table["alice", "TOTAL"]
    assert all(table["alice", q]["note"] == "" for q in [*points, "TOTAL"])
    bob = table["bob", "q1_equal_magnitudes"]
    assert float(bob["score"]) == 0
    assert bob["note"] == ("rule broken, 0 points: question 1 asks for your own formula, without the library; your answer "
                           "uses tgreedy_lib.domain_adaptation.theorems.self_normalized.rademacher_atoms, "
                           "tgreedy_lib.domain_adaptation.theorems.self_normalized.worst_excess_discrete"), bob["note"]
    for q in points:  # every question's hidden tests read sn
        assert float(table["carol", q]["score"]) < points[q]
        assert table["carol", q]["note"].endswith("scored tests failed; setup name `sn` was redefined or removed"), \
            (table["carol", q]["note"], table["carol", "TOTAL"]["note"])
    assert table["dave", "q1_equal_magnitudes"]["note"] == "2 of 2 scored tests failed"


def _canvas_line() -> str:
    text = (ASSIGNMENTS_DIR / "README.md").read_text(encoding="utf-8")
    return re.search(r"```bash\n(for f in \*_03_self_normalized_sums[^\n]*)\n```", text).group(1)


def test_canvas_batch_with_resubmissions_is_filed_and_two_files_for_one_student_refused(tmp_path):
    import subprocess

    name = "03_self_normalized_sums"
    student = (STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8")
    download = tmp_path / "download"
    download.mkdir()
    for f in (f"smithalice_12_34_{name}.ipynb", f"jonesbob_LATE_56_78_{name}-1.ipynb", f"leecarol_9_10_{name}.ipynb",
              f"leecarol_9_11_{name}-1.ipynb", "smithalice_12_35_04_t_statistic_bounds.ipynb"):
        (download / f).write_text(student, encoding="utf-8")
    subprocess.run(["bash", "-c", _canvas_line()], cwd=download, check=True)
    subs = tmp_path / "submissions"
    found = {(s["student"], s["path"].name) for s in A.discover_submissions(subs, NAMES)}
    assert found == {("smithalice", f"smithalice_12_34_{name}.ipynb"), ("jonesbob", f"jonesbob_LATE_56_78_{name}-1.ipynb"),
                     ("leecarol", f"leecarol_9_10_{name}.ipynb"), ("leecarol", f"leecarol_9_11_{name}-1.ipynb")}
    with pytest.raises(SystemExit, match=rf"several notebooks: leecarol/leecarol_9_10_{name}\.ipynb and "
                                         rf"leecarol/leecarol_9_11_{name}-1\.ipynb \(nothing graded\)"):
        A.grade(subs, tmp_path / "scores.csv", quiet=True)
    assert not (tmp_path / "scores.csv").exists()
    # flat files: a resubmission's -1 is no part of the student's name
    flat = tmp_path / "flat"
    flat.mkdir()
    for f in (f"alice_{name}.ipynb", f"alice_{name}-1.ipynb"):
        (flat / f).write_text(student, encoding="utf-8")
    assert {s["student"] for s in A.discover_submissions(flat, NAMES)} == {"alice"}
    with pytest.raises(SystemExit, match=rf"alice_{name}-1\.ipynb and alice_{name}\.ipynb"):
        A.grade(flat, tmp_path / "scores.csv", quiet=True)


def test_grade_refuses_a_file_named_after_its_assignment_alone(tmp_path, capsys):
    name = "03_self_normalized_sums"
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / f"{name}.ipynb").write_text((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"), encoding="utf-8")
    (subs / f"alice_{name}.ipynb").write_text((STUDENT_DIR / f"{name}.ipynb").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(SystemExit, match=rf"no student name in {name}\.ipynb \(nothing graded\): put each notebook in a "
                                         r"folder named after its student .*<student>_<assignment>\.ipynb"):
        A.grade(subs, tmp_path / "scores.csv", quiet=True)
    assert not (tmp_path / "scores.csv").exists()
    (subs / name).mkdir()   # a folder named after the assignment is no student either
    (subs / f"{name}.ipynb").rename(subs / name / "notebook.ipynb")
    with pytest.raises(SystemExit, match=rf"no student name in {name}/notebook\.ipynb"):
        A.grade(subs, tmp_path / "scores.csv", quiet=True)


def test_grade_reports_unreadable_and_unknown_notebooks(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "dave_00_start_here.ipynb").write_text("{ not json", encoding="utf-8")
    (subs / "erin_homework.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                          "nbformat_minor": 5}), encoding="utf-8")
    out = tmp_path / "scores.csv"
    assert A.grade_main([str(subs), "--out", str(out)]) == 0
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
    from tgreedy_course import notebooks
    from tgreedy_course.__main__ import main as course_main

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
    assert course_main(["execute-notebooks"]) == 2
