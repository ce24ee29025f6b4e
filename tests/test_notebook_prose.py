"""Every number a notebook's prose states must be computed: a test that fails when it is not.

For each markdown cell of every numbered notebook (00-11, 02b, 08b) every number is extracted
(tgreedy_course.prose.numbers_in) and must either

* appear among the notebook's computed outputs or the parameters its code cells set (a stated
  decimal matches an output that rounds to it at the stated precision; a percentage matches its
  fraction), or
* be a reference, not a result: an equation, section, theorem, lemma, figure or notebook number,
  a citation year, a list marker, or a constant *inside a formula* (an integer in LaTeX that is
  not the right-hand side of ``=``, ``\\approx``, ``<`` or ``>``), or
* be on that notebook's allowlist below, with the reason.

Numbers that depend on a result belong in a code cell that renders them (``prose.say``), which
makes them outputs: when a result moves, the text moves with it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tgreedy_course.prose import _NUMBER as NUMBER, fmt, markdown_table, numbers_in

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHECKED = ["00_", "01_", "02_", "02b_", "02a_", "03_", "04_", "04c_", "05_", "06_", "07_", "08_", "08b_", "09_", "10_", "11_"]

YEARS = {"1951", "1986", "1993", "2006", "2008", "2009", "2012"}
REFERENCE = re.compile(
    r"(?:Eqs?\.|Equations?|[Ss]ections?|Theorems?|Thms?\.|Lemmas?|Corollar(?:y|ies)|Figures?|Figs?\.|Tables?|"
    r"[Nn]otebooks?|[Aa]ppendix|[Ee]xercises?|JMLR|AISTATS|[Ss]tep|[Pp]art|Cor\.|Thm\.|Discussion|paper)"
    r"\s*\(?\s*\d+(?:\.\d+)*(?:\s*(?:-|–|\.\.|,|and|or|to|\+)\s*\d+(?:\.\d+)*)*\)?")
MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
COMPARISON = re.compile(r"(?:=|\\approx|\\le|\\ge|<|>|\\geq|\\leq|≈)\s*$")

# Reasons for numbers that are stated but not outputs: paper quotes, definitions, the problem's set-up.
ALLOWED: dict[str, dict[str, str]] = {
    "09_": {
        "3.1": "paper section 3.1 (Theorems 1 and 2)",
        "3.3": "paper section 3.3 (T-greedy)",
        "500": "the simulated world's samples per domain (set in code)",
        "40": "the simulated world's null features (set in code)",
        "30": "the number of splits python -m tgreedy_course compare runs (its default)",
        "1996": "citation year (Tibshirani, the lasso)",
        "2004": "citation year (Efron et al., least angle regression)",
        "2016": "citation year (Peters, Buehlmann & Meinshausen, ICP)",
        "2021": "citation year (Krueger et al., V-REx, ICML)",
        "78": "citation: the volume of JRSS B that holds ICP, 78(5)",
        "49": "feature indices 5-49 are the spurious and null features of the world set in code",
    },
    "10_": {
        "0.2": "about 0.2 %: the generator's stated density: 10 common words in 5 % of documents and the rest in 4 of 2,000 (settings in code)",
    },
    "00_": {
        "0": "w = 0, the null predictor",
        "8": "the paper's 8 training domains (section 4), also set in code",
        "30": "exercise: a setting for the student to try",
        "2,000": "the map: notebook 06 builds the paper's 2,000 DBN features (section 4)",
        "06": "notebook numbers 06-08",
        "08": "notebook numbers 06-08",
        "3": "exercise: a setting for the student to try",
    },
    "01_": {
        "0": "the SSN's Bayes error, a definition",
        "1": "Kendall tau scale and 1/2 worst error (definitions)",
        "2": "1/2, the paper's charge for a value seen once (Eq. 11)",
        "4": "the worked example's c_v = 4, set in code",
        "10": "the worked example's m = 10, set in code",
        "12": "10^-12 tolerance, set in code",
        "50,000": "exercise: a setting for the student to try",
        "20,000": "exercise: a setting for the student to try",
        "1000": "exercise: a setting for the student to try",
    },
    "02_": {
        "1": "m = 1, the worst case, a derivation",
        "0": "q in {0, 1}, a definition",
        "2": "1/2 etc., paper constants",
        "8": "1/8, the paper's printed constant (Theorem 3)",
        "12": "the constant 12 printed in the proof of Lemma 3",
        "6": "6/m printed in the proof of Lemma 3; |V| = 6 sample of the brute force",
        "3": "three values of the brute force, k >= 3 (paper's printed sum)",
        "4": "'at most 4' printed in the proof of Lemma 6",
        "5": "5/(2m), the derived bounded difference; delta/5 of the proof",
        "0.85": "the dominant value's p_v (chk.distribution_family('dominant'))",
        "10^4": "m = 10,000 set in code",
        "95": "the 95% quantile level, 1 - delta with delta = 0.05 (set in code)",
    },
    "03_": {
        "1": "n = 1, the smallest case (t < 1, R = 1 identically)",
        "2": "two variables, factor 2 (the proof's bound)",
        "0": "R = 0 and zeros, definitions",
        "4": "n = 4 magnitudes, set in code",
        "2.15": "de la Peña, Lai & Shao (2009), Theorem 2.15 (a citation)",
        "5": "the section number of '5. The bound the proof supports' (the contents and the heading)",
        "7": "the section number of '7. Explore' (the contents and the heading)",
        "0.001": "epsilon = 1e-3, set in code",
        "10^{-4}": "epsilon = 1e-4/n, what verify uses (verify.json)",
        "0.99": "t = 0.99 (definition of the dominant-term example)",
        "0.495": "0.99 / 2, exponent of the example",
        "0.61": "e^-0.495 = 0.6096",
        "0.8": "exercise: reading the n = 20 panel",
        "8": "the paper's 8 or 9 domains (section 4)",
        "0.22": "e^-3/2 = 0.2231, computed in cell 3's output as 0.2346 for t = 2.9; a formula value",
    },
    "04_": {
        "8": "the paper's 8 or 9 domains (section 4)",
        "9": "the paper's 8 or 9 domains (section 4)",
        "2000": "2,000 DBN features of the paper's section 4",
        "2,000": "2,000 DBN features of the paper's section 4",
        "4": "the paper's constant 4 (Theorem 1)",
        "2": "the paper's 'constant of 4 would become a 2'",
        "3": "8/3, the constant the proof supports (derivation)",
        "0.05": "delta = 0.05, set in code",
        "1": "a single feature; 1 - delta",
        "3.2": "section 3.2 of the paper (Corollary 3)",
    },
    "05_": {
        "0.3": "make_problem's robust/spurious effect (library default)",
        "0.1": "make_problem's robust/null spread (library default)",
        "1.5": "make_problem's spurious spread (library default)",
        "0": "w = 0 and null effect 0, definitions",
        "2": "Student t with 2 degrees of freedom, set in code (df=2.0)",
        "0.28": "1.5^2/8 = 0.281, arithmetic on the stated defaults",
        "0.09": "0.3^2, arithmetic on the stated defaults",
        "2,000": "n_new_domains=2000, set in code",
    },
    "02b_": {},
    "06_": {
        "2002": "Hinton (2002), a citation year",
        "50,000": "CIFAR-10's 50,000 training images, a property of the data set",
    },
    "07_": {
        "3.3": "the paper's section 3.3, cited after a quote",
        "0.5": "'about 0.5%', quoted from the paper's section 1",
        "35": "'35% error rate', quoted from the paper's section 1",
        "7000": "'a startling 7000% increase', quoted from the paper's section 1",
        "-1": "the label y = -1, a definition",
    },
    "08_": {
        "125": "1,000 negatives over the 8 other source classes, arithmetic on the paper's design",
        "-1": "the label y = -1, a definition",
        "50": "'pick up to 50 robust features', quoted from the paper's section 4.2",
        "95": "the 95 % t interval of the seed bands, a definition (seeds.band)",
        "0.975": "the t quantile's level in the band's half-width t_{0.975,N-1} s / sqrt(N), a definition",
    },
    "08b_": {
        "95": "the 95 % t interval of the seed bands, a definition (seeds.band)",
    },
    "11_": {
        "4": "Corollary 3's missing factor 4 (verify's corrected claim, printed above)",
        "8": "the paper's 8 or 9 domains (section 4)",
        "9": "the paper's 8 or 9 domains (section 4)",
    },
}


ALLOWED["02a_"] = ALLOWED["02_"]   # the second half of the categorical theorems (Theorems 3-4), split from 02
ALLOWED["04c_"] = ALLOWED.get("04_", {})   # Corollary 3, split from 04


def test_every_numbered_notebook_is_checked():
    numbered = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]*_*.ipynb"))
    checked = sorted(p.name for prefix in CHECKED for p in NOTEBOOKS.glob(prefix + "*.ipynb"))
    assert numbered == checked, f"add the new notebooks' prefixes to CHECKED: {sorted(set(numbered) - set(checked))}"


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _known_numbers(cells) -> list[float]:
    known = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        known += [v for _, v in numbers_in("".join(cell["source"]))]
        for out in cell.get("outputs", []):
            texts = [out.get("text", "")]
            for key in ("text/plain", "text/markdown", "text/html"):
                texts.append(out.get("data", {}).get(key, ""))
            for text in texts:
                text = "".join(text) if isinstance(text, list) else text
                known += [v for _, v in numbers_in(text)]
    return known


def stated_numbers(markdown: str) -> list[tuple[str, float, bool]]:
    """(as written, value, is a percentage) for every number of a markdown cell that must be checked."""
    text = re.sub(r"`[^`]*`", " ", markdown)                  # code and file names
    text = re.sub(r"^\s*(?:\d+\.|[*-])\s", " ", text, flags=re.M)  # list markers
    text = re.sub(r"^#+ *\d+(?:\.\d+)*\.?", " ", text, flags=re.M)  # section numbers in headings
    text = REFERENCE.sub(" ", text)
    out = []
    position = 0
    for match in MATH.finditer(text):
        out += _plain(text[position:match.start()])
        out += _formula(match.group(0))
        position = match.end()
    out += _plain(text[position:])
    return out


def _plain(text):
    found = []
    for match in NUMBER.finditer(text):
        raw = match.group(0)
        percent = text[match.end(): match.end() + 2].strip().startswith("%")
        found.append((raw, float(raw.replace(",", "").replace("−", "-")), percent))
    return found


def _formula(math_text):
    found = []
    for match in re.finditer(r"\d+(?:,\d{3})*(?:\.\d+)?", math_text):
        raw = match.group(0)
        before = math_text[:match.start()]
        if "." in raw or COMPARISON.search(before):
            if re.search(r"10\^\{?-?$", before[-5:]):
                continue
            percent = math_text[match.end():match.end() + 2].strip().startswith("\\%")
            found.append((raw, float(raw.replace(",", "")), percent))
    return found


def _matches(raw, value, percent, known):
    if percent:
        value = value / 100
        decimals = (len(raw.split(".")[1]) if "." in raw else 0) + 2
    else:
        decimals = len(raw.split(".")[1]) if "." in raw else 0
    if decimals == 0 and not percent:
        return any(k == value for k in known)
    tolerance = 0.5 * 10 ** -decimals + 1e-12
    return any(abs(k - value) <= tolerance for k in known)


def unexplained_numbers(path) -> list[str]:
    prefix = next(p for p in CHECKED if path.name.startswith(p))
    cells = _cells(path)
    known = _known_numbers(cells)
    allowed = ALLOWED.get(prefix, {})
    problems = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for raw, value, percent in stated_numbers("".join(cell["source"])):
            if raw in YEARS or raw in allowed or raw.lstrip("-") in allowed:
                continue
            if not _matches(raw, value, percent, known):
                problems.append(f"cell {index}: {raw}{'%' if percent else ''}")
    return problems


@pytest.mark.parametrize("path", [p for prefix in CHECKED for p in sorted(NOTEBOOKS.glob(prefix + "*.ipynb"))
                                  if not (prefix == "02_" and p.name.startswith("02b"))], ids=lambda p: p.stem)
def test_every_number_in_the_prose_is_computed_or_explained(path):
    problems = unexplained_numbers(path)
    assert not problems, (f"{path.name}: numbers in markdown that are neither outputs nor on the allowlist of "
                          f"tests/test_notebook_prose.py (render them with tgreedy_course.prose.say): {problems}")


def test_the_check_catches_a_wrong_number(tmp_path):
    notebook = {"cells": [
        {"cell_type": "code", "source": ["print(0.933)"], "outputs": [{"output_type": "stream", "text": "0.933\n"}]},
        {"cell_type": "markdown", "source": ["coverage is 0.933 here, 93% of it, and 0.95 there"]}]}
    path = tmp_path / "00_fake.ipynb"
    path.write_text(json.dumps(notebook))
    assert unexplained_numbers(path) == ["cell 1: 0.95"]


def test_references_and_formula_constants_are_not_claims():
    text = "Theorem 2 and Eqs. 4-7 of section 3.1; $e^{-t/2} = 0.22$ and $\\frac12 p(1-p)^{m-1}$"
    assert [raw for raw, _, _ in stated_numbers(text)] == ["0.22"]


def test_formatting_has_no_negative_zero_and_escapes_pipes():
    assert fmt(-0.0001, digits=3) == "0.000"
    assert fmt(-0.0) == "0"
    assert fmt(0.17968750000000006) == "0.180"
    assert "\\|T\\|" in markdown_table(["|T|"], [[1.0]])
    with pytest.raises(ValueError, match="one cell per column"):
        markdown_table(["a", "b"], [[1]])


def test_summary_rows_come_from_the_verify_record():
    from tgreedy_course.summary import THEOREMS, load_verify_records, theorem_rows, verify_table
    records = load_verify_records()
    rows = theorem_rows(records)
    assert [row[1] for row in rows] == [location for _, location, _ in THEOREMS.values()]
    by_location = {row[1]: row[2] for row in rows}
    for check_id, (_, location, _) in THEOREMS.items():
        assert by_location[location].startswith("holds") == bool(records[check_id]["holds_as_printed"])
    assert "vacuous at the paper's n = 8, 9" in by_location["Theorem 1, section 3.1; appendix"]
    table = verify_table([records["domains.theorem1"]])
    assert table.splitlines()[2].startswith("| domains.theorem1 | yes |")
    assert "-0.000" not in table and "0.17968750000000006" not in table


def test_coinciding_curves_are_drawn_once_with_a_joint_label():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tgreedy_lib.plotting.curves import plot_labelled_curves
    _, ax = plt.subplots()
    plot_labelled_curves(ax, [1, 2], {"gini": [1, 1], "misclassification": [1, 1], "estimate": [0, 1]})
    assert [line.get_label() for line in ax.get_lines()] == ["gini = misclassification (identical)", "estimate"]
    plt.close(ax.figure)


@pytest.mark.parametrize("path", [p for prefix in CHECKED for p in sorted(NOTEBOOKS.glob(prefix + "*.ipynb"))
                                  if not (prefix == "02_" and p.name.startswith("02b"))], ids=lambda p: p.stem)
def test_the_committed_notebook_ran_to_the_end(path):
    """A computed sentence is only as good as the run behind it: every code cell executed, none failed."""
    cells = [c for c in _cells(path) if c["cell_type"] == "code"]
    assert all(c.get("execution_count") is not None for c in cells), f"{path.name}: re-execute it in place"
    assert not [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"], path.name


# --------------------------------------------------------------------------- one number per quantity (00, 05)

def _markdown_outputs(name: str) -> list[str]:
    import nbformat

    path = NOTEBOOKS / f"{name}.ipynb"
    return ["".join(o["data"]["text/markdown"]) for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
            for o in c.get("outputs", []) if "text/markdown" in o.get("data", {})]


def test_00_says_where_greedys_regret_is_above_that_of_w0_as_its_figure_draws_it():
    """The tour's sentence lists the steps at which greedy's regret on a new domain is above that of w = 0: the
    same training set (seed 2012), recomputed here, must give the same steps."""
    import numpy as np

    from tgreedy_lib import DomainStatistics, greedy_path
    from tgreedy_lib.domain_adaptation.theorems.simulate import make_problem

    rng = np.random.default_rng(2012)
    problem = make_problem(n_robust=5, n_spurious=5, n_null=40)
    stats = DomainStatistics.from_domains(problem.draw_samples(rng, n_domains=8, n_samples=500))
    regret = problem.regret(greedy_path(stats, n_steps=15).coef)
    above = [int(k) + 1 for k in np.flatnonzero(regret > problem.regret(np.zeros(problem.n_features)))]
    sentence = next(t for t in _markdown_outputs("00_start_here") if t.startswith("On this training set greedy's regret"))
    said = sentence.split("above that of $w = 0$ ", 1)[1].split(";", 1)[0]
    runs, start = [], above[0]
    for a, b in zip(above, above[1:] + [None]):
        if b != a + 1:
            runs.append(str(a) if a == start else f"{start}-{a}")
            start = b
    assert all(run in said for run in runs), (said, above)
    assert ("from feature" in said) == (above == list(range(above[0], 16))), (said, above)


def _printed(name: str) -> str:
    import nbformat

    cells = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4).cells
    return "".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.get("outputs", []))


def test_00_and_05_give_one_number_for_the_mean_regret_after_five_features():
    """00's tour and 05's section 3 run one experiment (the same draws), so each selector's mean regret after 5 features
    is one number on both pages, and 05's "What we saw" states it too."""
    tour = re.search(r"mean regret after 5 features: \{'greedy': (\d+\.\d+), 'T-greedy': (\d+\.\d+)\}",
                     _printed("00_start_here"))
    here = _printed("05_tgreedy_simulated_domains")
    greedy = re.search(r"greedy\s+mean regret after 5 features: (\d+\.\d+)", here.split("tgreedy ", 1)[1]).group(1)
    tgreedy = re.search(r"tgreedy\s+mean regret after 5 features: (\d+\.\d+)", here).group(1)
    assert (f"{float(tour.group(1)):.2f}", f"{float(tour.group(2)):.2f}") == (greedy, tgreedy), (tour.groups(), greedy, tgreedy)
    summary = next(t for t in _markdown_outputs("05_tgreedy_simulated_domains") if "greedy picks spurious features first" in t)
    assert re.search(r"its mean regret after five features is (\d+\.\d+)", summary).group(1) == greedy
    assert "standard error" in here, "section 3 prints its standard errors"


def test_05_says_what_differs_where_its_sweep_gives_a_second_number():
    """Section 5's sweep draws other training sets; where it gives greedy's mean regret at n = 8 with population moments,
    a computed sentence names both numbers, their standard errors and how far apart they are."""
    here = _printed("05_tgreedy_simulated_domains")
    section3 = re.search(r"greedy\s+mean regret after 5 features: (\d+\.\d+) \(standard error (\d+\.\d+)\)",
                         here.split("tgreedy ", 1)[1])
    sentence = next(t for t in _markdown_outputs("05_tgreedy_simulated_domains") if t.startswith("At $n = 8$ with population"))
    assert f"give {section3.group(1)} ({section3.group(2)})" in sentence, (section3.groups(), sentence)
    assert "different draws" in sentence and re.search(r"\d+\.\d standard errors of their difference apart", sentence)


def test_03_leaves_the_bound_of_assignment_03_q3a_to_the_student():
    """Notebook 03 teaches the dominant-term example but does not print the smallest ratio the assignment asks for."""
    import nbformat

    cells = nbformat.read(NOTEBOOKS / "03_self_normalized_sums.ipynb", as_version=4).cells
    text = re.sub(r"[\s{}\\]|\\left|\\right", "", "\n".join(c.source for c in cells if c.cell_type == "markdown"))
    assert "(1-(n-1)" not in text and "1-(n-1)varepsilon)^2" not in text
    assert "Question 3(a) of assignment 03" in "\n".join(c.source for c in cells)


def test_nearly_coinciding_curves_are_drawn_once_with_their_largest_gap():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tgreedy_lib.plotting.curves import plot_labelled_curves
    _, ax = plt.subplots()
    plot_labelled_curves(ax, [1, 2], {"gini": [1, 1], "misclassification": [1.01, 1], "estimate": [0, 1]}, near=0.02)
    assert [line.get_label() for line in ax.get_lines()] == ["gini ≈ misclassification (within 0.01)", "estimate"]
    plt.close(ax.figure)
