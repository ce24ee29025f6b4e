"""What a fresh reader of the book found, kept fixed: notebook 09's appendix names each rule once per
experiment, and notebook 10 says so when a chosen k is the largest of diagnose's grid."""
import json
import pathlib
import re

from tgreedy_course import when_to_stop

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_choices_appendix_counts_each_rule_once():
    text = when_to_stop._runs_of(["lodo", "lodo", "lodo_auroc", "lodo", "all_steps", "lodo"])
    assert text == ("leave one domain out (squared loss) on 4 splits, leave one domain out (AUROC) on 1 split, "
                    "no stopping (every step) on 1 split")


def test_notebook_10_says_when_the_chosen_k_is_the_edge_of_the_grid():
    nb = json.loads((ROOT / "notebooks" / "10_your_own_data.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == "k-grid-edge")
    assert cell["metadata"]["jupyter"]["source_hidden"] and "hide-input" in cell["metadata"]["tags"]
    shown = "".join(cell["outputs"][0]["data"]["text/markdown"])
    top = re.search(r"largest \$k\$ on (?:`diagnose`'s |the )grid (?:is )?\(?(\d+)", shown)
    assert top, shown
    assert ("edge of the grid" in shown) or ("inside the grid" in shown)


ASCII_MATH = ("w.p. >=", "sqrt(2 ln", "E[l_hat]", "e^(-t/2)", "exp(-t/2)", "mu_hat_S")


def _shown(text: str) -> str:
    """What a reader sees before opening a toggle."""
    return re.sub(r"<details>.*?</details>", "", text, flags=re.S)


def test_corrected_statements_are_typeset_with_the_evidence_collapsed():
    from tgreedy_course import summary

    records = summary.load_verify_records(ROOT / "results" / "verify.json")
    text = summary.corrected_statements(records)
    assert text.count("<details>") == text.count("\n* ") + 1
    shown = _shown(text)
    assert r"\sqrt{\frac{2 \ln(1/\delta)}{k}}" in shown and not any(a in shown for a in ASCII_MATH), shown
    assert "Pareto (index 1/4) n=2" not in text and "Pareto (index 1/4) at n = 1, 2" in text


def test_claims_page_shows_no_ascii_math(tmp_path):
    import sys
    sys.path.insert(0, str(ROOT / "book"))
    import build

    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    text = build.verify_section(ROOT / "results" / "verify.json", tmp_path, notebooks)
    entries = "\n".join(line for line in text.splitlines() if line.startswith(("  *Worst case found:*",
                                                                               "  *What holds instead:*")))
    shown = _shown(entries)
    assert entries and not any(a in shown for a in ASCII_MATH), shown
