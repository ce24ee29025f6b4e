"""The book (``make book``) in Chromium: every page as a reader sees it, served from 127.0.0.1 only.

Each page is opened once, at a 1,280-pixel window, and what a person can read there is measured
(:mod:`.reading`): no raw Markdown table or TeX left in the typeset text, every figure's smallest text at
least 9 pt (12 CSS pixels) as displayed and none of its texts drawn over another, no text of the page over
another, no code or table cut off at the column's edge. The tests below check those facts one by one.
"""
from __future__ import annotations

import html
import json
import pathlib
import re
import urllib.parse

import pytest

from .conftest import ROOT, save_screenshot
from .reading import RAW_TABLE, RAW_TEX, figure_problems, read_page

NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
# The pages written by hand (book/*.md: the syllabus, the instructor guide, the guides).
HAND_PAGES = sorted(p.stem for p in (ROOT / "book").glob("*.md"))
BOOK_PAGES = NOTEBOOKS + HAND_PAGES + ["index", "claims", "papers", "search", "genindex"]
# The notebooks with interactive cells (saved widget state).
INTERACTIVE = [n for n in NOTEBOOKS if "application/vnd.jupyter.widget-state+json" in json.loads(
    (ROOT / "notebooks" / f"{n}.ipynb").read_text(encoding="utf-8"))["metadata"].get("widgets", {})]


def open_page(browser, url):
    """A new page at ``url`` after MathJax has typeset it; the console errors and off-site requests seen."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    origin = url.split("/", 3)[:3]
    page.on("request", lambda r: problems.append(f"request outside the book: {r.url}")
            if not (r.url.startswith("/".join(origin)) or r.url.startswith(("data:", "blob:"))) else None)
    page.goto(url, wait_until="load", timeout=90000)   # a loaded CI machine is slow
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    if page.locator("script[type='application/vnd.jupyter.widget-view+json']").count():
        page.locator(".widget-vbox").first.wait_for(timeout=15000)
    page.wait_for_timeout(300)   # widgets render after load
    page.evaluate("() => window.MathJax && MathJax.typesetPromise ? MathJax.typesetPromise() : null")
    return page, problems


_VISITS: dict[str, dict] = {}


def visit(browser, book_url, book_dir, name, screenshot_dir) -> dict:
    """Open page ``name`` once per session; return what was measured there (see :mod:`.reading`), and
    keep a screenshot of the whole page (``book-<name>.png``)."""
    if name not in _VISITS:
        if not (book_dir / f"{name}.html").exists():
            pytest.fail(f"the book has no page {name}.html")
        page, problems = open_page(browser, f"{book_url}/{name}.html")
        try:
            page.wait_for_function("() => Array.from(document.images).every(i => i.complete)", timeout=15000)
            facts = read_page(page)
            facts["problems"] = problems
            facts["broken_images"] = page.evaluate(
                "() => Array.from(document.images).filter(i => !(i.naturalWidth > 0)).map(i => i.src.slice(0, 80))")
            facts["errors_shown"] = (page.locator(".output.traceback, .output.error, [data-mime-type$='error']").count()
                                     + ("Traceback (most recent call last)" in page.inner_text("body")))
            save_screenshot(page, screenshot_dir / f"book-{name}.png", full_page=True)
        finally:
            page.close()
        _VISITS[name] = facts
    return _VISITS[name]


@pytest.mark.parametrize("name", BOOK_PAGES)
def test_page_loads_clean_with_images_and_no_errors(browser, book_url, book_dir, screenshot_dir, name):
    facts = visit(browser, book_url, book_dir, name, screenshot_dir)
    # Every figure is an image that loaded.
    assert not facts["broken_images"], f"{name}: images that did not load: {facts['broken_images']}"
    # No error output is shown.
    assert facts["errors_shown"] == 0, f"{name}: an error output is shown"
    # No console error, no failed request, nothing fetched from outside the book.
    assert facts["problems"] == [], f"{name}: " + "; ".join(facts["problems"])


@pytest.mark.parametrize("name", BOOK_PAGES)
def test_text_is_typeset_no_raw_tables_or_tex(browser, book_url, book_dir, screenshot_dir, name):
    """Computed sentences and tables (Markdown that code cells display) read as the notebook's own text:
    tables as tables, math typeset; nothing a reader sees is Markdown or TeX as typed."""
    facts = visit(browser, book_url, book_dir, name, screenshot_dir)
    tables = [m.group(0) for m in RAW_TABLE.finditer(facts["prose"])]
    tex = RAW_TEX.findall(facts["prose"])
    assert not tables, f"{name}: {len(tables)} raw pipe table(s) in the text, e.g. {tables[:2]}"
    assert not tex, f"{name}: raw TeX in the text: {tex[:6]}"
    assert facts["n_typeset"] >= facts["n_math"], f"{name}: math left untypeset"


@pytest.mark.parametrize("name", BOOK_PAGES)
def test_figures_are_legible_as_displayed(browser, book_url, book_dir, screenshot_dir, name):
    """Every figure's smallest text, scaled to the size the page shows the figure at, is at least 9 pt
    (12 CSS pixels), and none of its texts is drawn over another (each figure's own report, written when its
    notebook ran)."""
    facts = visit(browser, book_url, book_dir, name, screenshot_dir)
    problems = [p for image in facts["images"] for p in figure_problems(image, book_dir)]
    assert not problems, f"{name}: " + "\n".join(problems)


@pytest.mark.parametrize("name", BOOK_PAGES)
def test_no_text_over_other_text_and_nothing_cut_off(browser, book_url, book_dir, screenshot_dir, name):
    """No two text boxes of the page overlap; no code, output or table is wider than its box (cut off or
    behind a scroll bar), and the page is no wider than the window."""
    facts = visit(browser, book_url, book_dir, name, screenshot_dir)
    assert not facts["overlaps"], f"{name}: {len(facts['overlaps'])} overlapping texts, e.g. {facts['overlaps'][:4]}"
    assert not facts["cut"], f"{name}: {len(facts['cut'])} elements cut off, e.g. {facts['cut'][:3]}"
    assert facts["page_width"] <= facts["window_width"], f"{name}: the page is wider than the window"


def _anchors(path: pathlib.Path) -> set[str]:
    return {html.unescape(a) for a in re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8"))}


def test_every_internal_link_resolves(book_dir):
    """Every link from one page of the book to another (or to a section of one) leads somewhere."""
    broken, checked = [], 0
    for page in sorted(book_dir.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        for href in re.findall(r'<a [^>]*href="([^"]+)"', text):
            href = html.unescape(href)
            if re.match(r"^[a-z]+:", href):      # http(s):, mailto: ... (the book itself links none)
                continue
            target, _, fragment = href.partition("#")
            target_path = (page.parent / urllib.parse.unquote(target)).resolve() if target else page
            checked += 1
            if not target_path.exists():
                broken.append(f"{page.name}: {href}")
            elif fragment and target_path.suffix == ".html" and urllib.parse.unquote(fragment) not in _anchors(target_path):
                broken.append(f"{page.name}: {href} (no such anchor)")
    assert checked > 50
    assert broken == [], broken


def test_book_links_notebooks_to_each_other_and_to_the_papers(book_dir):
    names = [p.stem for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))]
    for i, name in enumerate(names):
        text = (book_dir / f"{name}.html").read_text(encoding="utf-8")
        assert 'href="papers.html#paper-' in text or name not in _readme_rows(), f"{name}: no link to its paper"
        if i + 1 < len(names):
            assert f'href="{names[i + 1]}.html"' in text, f"{name}: no link to the next notebook"
    index = (book_dir / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{n}.html"' in index for n in names), "the contents miss a notebook"
    claims = (book_dir / "claims.html").read_text(encoding="utf-8")
    assert "domains.theorem2" in claims and "verdict" in claims


def _readme_rows() -> set[str]:
    return set(re.findall(r"^\|\s*`(\d\d\w*?_\w+)`", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.M))


@pytest.mark.parametrize("name", INTERACTIVE)
def test_interactive_cells_show_their_saved_view(browser, book_url, screenshot_dir, name):
    """Sliders and the output they produced, from the widget state saved in the notebook."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    state = nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    outputs = [o for m in state.values() if m["model_name"] == "OutputModel" for o in m["state"].get("outputs", [])]
    pictures = sum("image/png" in o.get("data", {}) for o in outputs)
    page, problems = open_page(browser, f"{book_url}/{name}.html")
    try:
        views = page.locator(".widget-vbox")
        views.first.wait_for(timeout=15000)
        assert page.locator(".widget-slider").count() >= 1, f"{name}: no slider drawn"
        shown = views.first.locator(".widget-output")
        assert shown.count() >= 1 and shown.first.inner_text().strip() or shown.locator("img").count(), \
            f"{name}: the interactive cell shows nothing"
        images = page.locator(".widget-output img")
        assert images.count() >= pictures, f"{name}: {pictures} saved plots, {images.count()} drawn"
        for i in range(images.count()):
            assert images.nth(i).evaluate("i => i.naturalWidth") > 0
        # An interactive cell draws its plot once: in the widget, not a second time beside it.
        twice = page.evaluate("""() => Array.from(document.querySelectorAll('div.cell')).filter(cell =>
            cell.querySelector('.widget-vbox')).map(cell => Array.from(cell.querySelectorAll('img'))
            .filter(img => !img.closest('.jupyter-widgets, .widget-output')).length)""")
        assert twice and not any(twice), f"{name}: interactive cells also draw a static plot: {twice}"
        views.first.scroll_into_view_if_needed()
        save_screenshot(views.first, screenshot_dir / f"book-{name}-widget.png")
        assert problems == [], "; ".join(problems)
    finally:
        page.close()


def test_every_page_has_a_screenshot(browser, book_url, book_dir, screenshot_dir):
    """A whole-page screenshot of every page (``results/browser-screenshots/book-<page>.png``), to look at."""
    for name in BOOK_PAGES:
        visit(browser, book_url, book_dir, name, screenshot_dir)
        path = screenshot_dir / f"book-{name}.png"
        assert path.is_file() and path.stat().st_size > 10_000, path


# ----------------------------------------------------------------------------- the theme's reading aids

def _hidden_input_cells(name: str) -> int:
    """How many code cells of notebook ``name`` the book must show with their input hidden behind a toggle:
    tagged ``hide-input``, or collapsed in JupyterLab (metadata ``jupyter.source_hidden``)."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    return sum(1 for c in nb["cells"] if c["cell_type"] == "code" and (
        "hide-input" in c["metadata"].get("tags", []) or c["metadata"].get("jupyter", {}).get("source_hidden"))
        and "remove-input" not in c["metadata"].get("tags", []))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_hidden_inputs_stay_hidden_until_asked(browser, book_url, name):
    """Cells that write prose from computed numbers keep their code out of sight (a closed "Show the code"
    toggle) and show their output, unless it too is collapsed (``hide-output``); the toggle opens the code."""
    expected = _hidden_input_cells(name)
    page, problems = open_page(browser, f"{book_url}/{name}.html")
    try:
        cells = page.locator("article.bd-article div.cell.tag_hide-input")
        assert cells.count() == expected, f"{name}: {cells.count()} cells with a hidden input, {expected} expected"
        for i in range(expected):
            cell = cells.nth(i)
            assert not cell.locator(".cell_input").first.is_visible(), f"{name}: hidden input {i} is shown"
            collapsed = "tag_hide-output" in (cell.get_attribute("class") or "")   # output behind a toggle by choice
            if cell.locator(".cell_output").count() and not collapsed:
                assert cell.locator(".cell_output").first.is_visible(), f"{name}: the output of hidden cell {i} is hidden"
        if expected:
            cells.first.locator("summary").first.click()
            assert cells.first.locator(".cell_input").first.is_visible(), f"{name}: the toggle does not open the code"
        assert problems == [], "; ".join(problems)
    finally:
        page.close()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_figures_have_numbered_captions_and_alt_text(book_dir, name):
    """Every figure of a notebook page has alt text that says what it shows (never an image's file name) and a
    numbered caption "Figure N." under it, N counting the page's figures."""
    text = (book_dir / f"{name}.html").read_text(encoding="utf-8")
    article = text[text.index('<article class="bd-article"'):]
    alts = re.findall(r'<img[^>]*\balt="([^"]*)"[^>]*src="_images/', article) + \
        re.findall(r'<img[^>]*src="_images/[^"]*"[^>]*\balt="([^"]*)"', article)
    captions = [int(n) for n in re.findall(r'class="figure-caption[^"]*"[^>]*>\s*<p><strong>Figure (\d+)\.</strong>', article)]
    assert captions == list(range(1, len(captions) + 1)), f"{name}: captions numbered {captions}"
    assert len(alts) >= len(captions) and (captions or not alts), f"{name}: {len(alts)} images, {len(captions)} captions"
    for alt in alts:
        assert re.match(r"Figure \d+: \S", html.unescape(alt)), f"{name}: alt text {alt!r}"
        assert not re.search(r"[0-9a-f]{20}", alt), f"{name}: alt text is a file name: {alt!r}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_pages_offer_contents_download_and_launch(book_dir, name):
    """The page's contents in the right column, a button that downloads the notebook as it is in the repository,
    and buttons that launch it on Binder and Colab from the repository's notebooks/ folder."""
    text = (book_dir / f"{name}.html").read_text(encoding="utf-8")
    assert 'class="bd-sidebar-secondary' in text and "page-toc" in text and text.count("toc-entry") >= 2, \
        f"{name}: no in-page contents"
    assert f'href="_sources/{name}.ipynb"' in text, f"{name}: no download button"
    assert (book_dir / "_sources" / f"{name}.ipynb").read_bytes() == (ROOT / "notebooks" / f"{name}.ipynb").read_bytes()
    binder = re.search(r'href="(https://mybinder\.org/v2/gh/[^"]+)"', text)
    colab = re.search(r'href="(https://colab\.research\.google\.com/github/[^"]+)"', text)
    assert binder and urllib.parse.unquote(binder.group(1)).endswith(f"notebooks/{name}.ipynb"), f"{name}: Binder"
    assert colab and colab.group(1).endswith(f"/notebooks/{name}.ipynb"), f"{name}: Colab"


def test_landing_page_lists_the_course_once_and_says_what_held(book_dir):
    text = (book_dir / "index.html").read_text(encoding="utf-8")
    article = text[text.index('<article class="bd-article"'):text.index("</article>")]
    for name in NOTEBOOKS:
        assert article.count(f'href="{name}.html"') == 1, f"the landing page lists {name} {article.count(name)} times"
    assert "What held and what did not" in article and 'href="syllabus.html"' in article
    box = article[article.index("What held and what did not"):]
    box = box[:box.index("</div>\n</div>") if "</div>\n</div>" in box else len(box)]
    assert "hold as printed" in box and "reproduce" in box
    assert not re.search(r"`?\b(?:intro|fig[12]|mnist_sim|cifar_sim|disc|domains|categorical)\.[a-z_]+\d*\b", box), \
        "claim ids on the landing page"
    # three plain sentences and a link: no quotes cut mid-sentence, no "1 claim, such as", the claims page linked
    assert "\u2026" not in box and "such as" not in box and 'href="claims.html"' in box
    assert all(f"<strong>{name}.</strong>" in box for name in ("The theorems", "MNIST", "CIFAR-10"))
    assert "false as printed" in box and "vacuous" in box


def test_navigation_shows_titles_without_tex(book_dir):
    """The sidebar, the contents table and the syllabus's links give every notebook's title in plain letters."""
    for page in ("index", "claims", "syllabus"):
        text = (book_dir / f"{page}.html").read_text(encoding="utf-8")
        links = re.findall(r'<a class="reference internal" href="\d\d[a-z]?_[^"]*"[^>]*>(.*?)</a>', text, flags=re.S)
        assert links and not [t for t in links if re.search(r"\\\(|\\rm|\^\{|\$", t)], page


def test_claims_page_names_each_evidence_notebook_once(book_dir):
    text = (book_dir / "claims.html").read_text(encoding="utf-8")
    sentence = text[text.index("show the evidence") - 2000:text.index("show the evidence")]
    listed = re.findall(r'href="(\d\d[a-z]?)_[^"]*\.html"', sentence.split("Computed by")[-1])
    assert listed == sorted(set(listed)) and {"02", "02a", "04c"} <= set(listed), listed
    assert "sqrt(2 ln(1/delta) / (e k))" not in re.sub(r"<details>.*?</details>", "", text, flags=re.S)
    assert "three readings" not in text and "first k seeds" not in text


def test_search_finds_the_course(browser, book_url):
    page, problems = open_page(browser, f"{book_url}/search.html?q=regret")
    try:
        page.locator("#search-results li").first.wait_for(timeout=30000)
        hits = page.locator("#search-results li a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        assert any(h and h.startswith("05_tgreedy_simulated_domains.html") for h in hits), hits[:10]
        assert problems == [], "; ".join(problems)
    finally:
        page.close()
