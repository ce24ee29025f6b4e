"""The paper's figures drawn without a "Figure N" in their titles (the book numbers its own figures), and
notebook 09's sentences naming the stopping rules in words, not by their option strings."""
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tgreedy_course import compare_tables, when_to_stop  # noqa: E402
from tgreedy_lib.experiments.readings import PAPER_READINGS  # noqa: E402
from tgreedy_lib.plotting import paper_figures  # noqa: E402

# the option strings of the rules (lower case, as in stopping="lodo"), which a sentence should not show
RULE_IDS = re.compile(r"\b(lodo\w*|bonferroni|theorem1|chance_gaussian|all_steps)\b|\*\*chance\*\*")


@pytest.fixture(scope="module")
def results(toy_section4):
    return toy_section4(4)


@pytest.mark.parametrize("draw", [
    lambda r: paper_figures.figure1(r["two"]),
    lambda r: paper_figures.figure2(r["two"], methods=PAPER_READINGS),
    lambda r: paper_figures.figure3([r["similarity"]]),
    lambda r: paper_figures.figure4([r["two"], r["similarity"]]),
], ids=["figure1", "figure2", "figure3", "figure4"])
def test_drawn_titles_carry_no_figure_number(results, draw):
    fig = draw(results)
    try:
        titles = [fig.get_suptitle()] + [ax.get_title() for ax in fig.axes]
        assert fig.get_suptitle()
        assert not [t for t in titles if re.search(r"\bFig(?:ure|\.)\s*\d", t)], titles
    finally:
        plt.close(fig)


class _Path:
    features = np.array([0, 1, 2, 3, 7, 9, 11, 13, 20, 30])


class _Choice:
    def __init__(self, k):
        self.k = k


def test_one_path_sentence_names_rules_in_words_and_groups_equal_choices():
    target = np.linspace(0.5, 0.6, 16)
    chosen = {"lodo": _Choice(10), "bonferroni": _Choice(1), "theorem1": _Choice(1), "chance": _Choice(1)}
    text = when_to_stop.one_path_sentence(_Path(), target, chosen, 4)
    assert not RULE_IDS.search(text), text
    assert "Leave-one-domain-out keeps 10 steps" in text
    assert "Bonferroni, Theorem 1's width and the sign-flip chance rule all keep 1 step" in text
    assert "all of those picks are robust" in text


def test_findings_write_no_rule_ids_and_no_zero_steps_on_average():
    text = when_to_stop.findings_from_reference(compare_tables.load_reference())
    assert "0 steps on average" not in text and "with 1 feature on average" not in text
    assert not RULE_IDS.search(text), text
    run = {"nested": {"n_splits": 8, "share_within": 0.25, "times_chosen": {"all_steps": 7, "lodo_auroc": 1}},
           "hindsight": {"share_within": 0.375}}
    sentence = when_to_stop.nested_sentence(run, "all_steps")
    assert "all_steps" not in sentence and "lodo_auroc" not in sentence
    assert "no stopping 7 times and leave-one-domain-out scored by AUROC once" in sentence


@pytest.mark.parametrize("stem", ["06_dbn_features", "07_mnist_2_vs_other", "08b_claims_over_seeds",
                                  "09_when_to_stop", "11_what_holds"])
def test_every_figure_has_a_caption_in_its_metadata(stem):
    import pathlib

    import nbformat
    nb = nbformat.read(pathlib.Path(__file__).parents[1] / "notebooks" / f"{stem}.ipynb", as_version=4)
    figures = [c for c in nb.cells if c.cell_type == "code"
               and any("image/png" in o.get("data", {}) for o in c.get("outputs", []))]
    assert figures
    bare = [c.source.splitlines()[0] for c in figures if len(c.metadata.get("caption", "").split()) < 12]
    assert not bare, f"{stem}: figures without a caption sentence: {bare}"
