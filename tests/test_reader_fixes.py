"""What a fresh reader of the book found, kept fixed: notebook 09's appendix names each rule once per
experiment, and notebook 10 says so when a chosen k is the largest of diagnose's grid."""
import json
import pathlib
import re

from tgreedy_lib.collection import when_to_stop

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
    top = re.search(r"largest \$k\$ on `diagnose`'s grid (?:is )?\(?(\d+)", shown)
    assert top, shown
    assert ("edge of the grid" in shown) or ("inside the grid" in shown)
