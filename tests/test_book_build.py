"""What the book makes of a notebook's cells (book/build.py and book/conf.py), on a small notebook built with the
book's own configuration: hidden inputs behind a toggle, whether JupyterLab collapses the cell (metadata
``jupyter.source_hidden``) or a tag asks for it (``hide-input``); removed inputs gone; every figure with a numbered
caption and alt text that says what it shows (the convention of ``build.caption_cells``)."""
from __future__ import annotations

import base64
import io
import pathlib
import re
import shutil
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book"))
import build  # noqa: E402


def _png() -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.plot([0, 1], [0, 1])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def _code(source, outputs=(), **metadata):
    cell = nbformat.v4.new_code_cell(source, metadata=metadata)
    cell.outputs = list(outputs)
    return cell


def _tiny_notebook():
    figure = nbformat.v4.new_output("display_data", data={"image/png": _png(), "text/plain": "<Figure>"})
    said = nbformat.v4.new_output("display_data", data={"text/markdown": "A computed sentence.",
                                                        "text/plain": "A computed sentence."})
    return nbformat.v4.new_notebook(metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python", "pygments_lexer": "ipython3"}}, cells=[
        nbformat.v4.new_markdown_cell("# A tiny page\n\nSome text."),
        _code("say('collapsed in JupyterLab')", [said], jupyter={"source_hidden": True}),
        _code("say('tagged')", [said], tags=["hide-input"]),
        _code("say('removed')", [said], tags=["remove-input"]),
        _code("plt.plot(x, y)", [figure], caption="Regret against the number of features, two selectors."),
        _code("# Figure: the |T| of every pick\nplt.plot(t)", [figure]),
        _code("ax.set(title='training loss over 8 domains')", [figure]),
        _code("plt.plot(z)", [figure]),
        nbformat.v4.new_markdown_cell("Greedy's regret rises from its first pick: it picks spurious features. More."),
        nbformat.v4.new_markdown_cell("## Last section"),
        _code("plt.plot(w)", [figure]),
    ])


def test_cells_are_staged_for_the_book():
    nb = _tiny_notebook()
    build.hide_collapsed_inputs(nb)
    assert nb.cells[1].metadata["tags"] == ["hide-input"] and nb.cells[2].metadata["tags"] == ["hide-input"]
    assert nb.cells[3].metadata["tags"] == ["remove-input"]       # removed stays removed
    assert build.caption_cells(nb) == 5
    captions = [c.source for c in nb.cells if c.metadata.get("tgreedy", {}).get("figure_caption")]
    assert [re.search(r"\*\*Figure (\d)\.\*\*", c).group(1) for c in captions] == ["1", "2", "3", "4", "5"]
    assert "Regret against the number of features, two selectors." in captions[0]
    assert "the |T| of every pick" in captions[1]
    alts = [c.metadata["mystnb"]["image"]["alt"] for c in nb.cells if "mystnb" in c.metadata]
    assert alts == ["Figure 1: Regret against the number of features, two selectors.",
                    "Figure 2: the |T| of every pick", "Figure 3: training loss over 8 domains",
                    "Figure 4: Greedy's regret rises from its first pick: it picks spurious features.",
                    "Figure 5: a figure of the section 'Last section'"]


def test_links_to_book_pages_work_in_jupyterlab_and_in_the_book():
    pages = {"syllabus", "run"}
    assert build.link_pages("see [the syllabus](../book/syllabus.md) and [how](run.html#on-colab).", pages) == \
        "see [the syllabus](syllabus.md) and [how](run.md#on-colab)."
    assert build.link_pages("[data](../data/README.md)", pages) == "[data](../data/README.md)"


def test_html_anchors_become_spans():
    assert build.html_anchors('## Idea <a id="idea"></a>\n[go](#idea)') == '## Idea <span id="idea"></span>\n[go](#idea)'


def test_plain_text_has_no_markup():
    assert build.plain_text(r"the **bound** $\hat\ell \le 2e^{-t/2}$, see {doc}`04 <04_t_statistic_bounds>`") == \
        "the bound ell le 2e^-t/2, see 04"


@pytest.mark.skipif(shutil.which("npm") is None and not build.cache_dir().exists(), reason="no MathJax for the book")
def test_a_built_page_hides_inputs_and_captions_figures(tmp_path):
    from sphinx.cmd.build import build_main

    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "book" / "conf.py", src / "conf.py")
    shutil.copytree(ROOT / "book" / "_static", src / "_static")
    nb = _tiny_notebook()
    build.hide_collapsed_inputs(nb)
    build.caption_cells(nb)
    nbformat.write(nb, src / "tiny.ipynb")
    (src / "index.md").write_text("# Home\n\n```{toctree}\ntiny\n```\n")
    out = tmp_path / "html"
    assert build_main(["-b", "html", "-q", "-W", "-d", str(tmp_path / "doctrees"), str(src), str(out)]) == 0
    page = (out / "tiny.html").read_text(encoding="utf-8")
    # both hidden inputs sit in a closed toggle, with their outputs shown; the removed input is gone
    for source in ("collapsed in JupyterLab", "tagged"):
        block = page[:page.index(source)]
        assert block.rfind("<details") > block.rfind("</details>"), source
        assert block.rfind("<details") > block.rfind('<div class="cell '), source
        assert "open" not in block[block.rfind("<details"):].split(">")[0]
    assert "removed" not in page and page.count("A computed sentence.") == 3
    assert "Show the code" in page
    # numbered captions, and alt text that says what each figure shows (never the image's file name)
    assert [int(n) for n in re.findall(r"<strong>Figure (\d)\.</strong>", page)] == [1, 2, 3, 4, 5]
    article = page[page.index('<article class="bd-article"'):]
    alts = re.findall(r'<img[^>]*alt="([^"]*)"', article)
    assert len(alts) == 5 and all(a.startswith("Figure ") and not re.search(r"[0-9a-f]{16}", a) for a in alts)
    assert "Figure 1: Regret against the number of features, two selectors." in alts
    # the page's buttons: download as a notebook, launch on Binder and Colab
    assert 'href="_sources/tiny.ipynb"' in page
    assert "mybinder.org/v2/gh/" in page and "colab.research.google.com/github/" in page


def test_navigation_titles_carry_no_tex():
    """Link words, the sidebar and the contents table show a notebook's title without TeX markup."""
    title = r"02a · Theorems 3-4 of the categorical paper: the majority vote $h^{\rm Bayes}_S$, checked numerically"
    assert build.plain_title(title) == \
        "02a · Theorems 3-4 of the categorical paper: the majority vote h_S^Bayes, checked numerically"
    assert build.plain_title(r"the $\lvert T\rvert$ of $\hat\mu_i$ and \(\delta\)") == "the |T| of mu_i and delta"
    titles = {"02a_bayes": "02a · the majority vote h_S^Bayes"}
    assert build.plain_doc_links("see {doc}`02a_bayes` and {doc}`x <02a_bayes>`", titles) == \
        "see {doc}`02a · the majority vote h_S^Bayes <02a_bayes>` and {doc}`x <02a_bayes>`"


def test_landing_box_says_what_held_in_three_plain_sentences():
    box = "\n".join(build.held_box(ROOT / "results" / "verify.json"))
    items = [line for line in box.splitlines() if line.startswith("- **")]
    assert [re.match(r"- \*\*([^*]+)\.\*\*", line).group(1) for line in items] == ["The theorems", "MNIST", "CIFAR-10"]
    assert "\u2026" not in box and "such as" not in box and "{doc}`claims`" in box
    assert not re.search(r"\b1 (?:claims|are|stay)\b", box) and not re.search(r"\b(?:[2-9]|\d\d) claim\b", box)
    theorems = items[0]
    # both framings: how many hold as printed, and notebook 11's false / vacuous / hold
    assert re.search(r"\d of the \d theorems and lemmas .* hold as printed", theorems)
    assert "vacuous" in theorems and "false as printed" in theorems and "Lemma 11 of the categorical paper" in theorems
    import json
    checks = json.loads((ROOT / "results" / "verify.json").read_text())["checks"]
    held, total = map(int, re.search(r"(\d+) of the (\d+) theorems", theorems).groups())
    assert (held, total) == (sum(bool(c["holds_as_printed"]) for c in checks), len(checks))
    useful = int(re.search(r"(\d+) holds? with a bound", theorems).group(1))
    vacuous = int(re.search(r"(\d+) holds? but (?:is|are) vacuous", theorems).group(1))
    false = int(re.search(r"the other (\d+),", theorems).group(1))
    assert useful + vacuous == held and false == total - held


def test_verdict_counts_agree_in_number():
    assert build._verdict_counts([{"verdict": "unsettled"}, {"verdict": "reproduced"}, {"verdict": "reproduced"}]) == \
        "2 are reproduced and 1 is unsettled (the seeds do not agree)"
    assert build._count(1, "claim") == "1 claim" and build._count(3, "claim") == "3 claims"


def test_claims_page_lists_each_evidence_notebook_once_and_typesets_the_theorems(tmp_path):
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    text = build.verify_section(ROOT / "results" / "verify.json", tmp_path, notebooks)
    listed = re.findall(r"\{doc\}`(\d\d[a-z]?) <", text.split("\n")[0])
    assert listed == ["02", "02a", "03", "04", "04c"]
    shown = re.sub(r"<details>.*?</details>", "", text)          # what the page shows before a toggle is opened
    assert "sqrt(2 ln" not in shown and r"\sqrt{\frac{2 \ln(1/\delta)}{e k}}" in shown
    rows = [line for line in text.splitlines() if line.startswith("  *Worst case found:* ")]
    assert len(rows) == 8 and text.count("\n- **") == 8
    for row in rows:
        worst = row[len("  *Worst case found:* "):]
        assert worst.count("<details>") <= 1 and "999999999" not in worst
        shown = worst.split("<details>")[0]
        assert "; " not in shown, shown


def test_worst_case_cell_shows_one_case_and_collapses_the_rest():
    cell = build.worst_case_cell("n = 1, t = 999999999/1000000000: Pr = 1; n = 2: Pr = 0.9; n = 3: Pr = 0.8")
    assert cell.startswith("n = 1, t = 1 \u2212 10\u207b\u2079: Pr = 1 <details><summary>2 more cases</summary>")
    assert build.worst_case_cell("k = 5, delta = 0.1") == "k = 5, \u03b4 = 0.1"


def test_claims_page_verdicts_match_the_landing_count_and_lemmas_follow_theorems(tmp_path):
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    text = build.verify_section(ROOT / "results" / "verify.json", tmp_path, notebooks)
    entries = [line for line in text.splitlines() if line.startswith("- **")]
    vacuous = [e for e in entries if "holds, vacuous at the papers' sample sizes" in e]
    sentence = build.theorem_sentence(ROOT / "results" / "verify.json")
    count = re.search(r"and (\d+) holds? but (?:is|are) vacuous", sentence)
    assert count and len(vacuous) == int(count.group(1)) > 0
    names = [e[len("- **"):].split("**")[0] for e in entries]
    lemmas = [i for i, n in enumerate(names) if n.startswith("Lemma")]
    assert lemmas and min(lemmas) > max(i for i, n in enumerate(names) if not n.startswith("Lemma"))
