"""The book (``make book``) in Chromium: every page as a reader sees it, served from 127.0.0.1 only.

Each page is opened once, at a 1,280-pixel window, and what a person can read there is measured
(:mod:`.reading`): no raw Markdown table or TeX left in the typeset text, every figure's smallest text at
least 8 CSS pixels as displayed and none of its texts drawn over another, no text of the page over
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
BOOK_PAGES = NOTEBOOKS + ["index", "claims", "papers", "search", "genindex"]
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
    """Every figure's smallest text, scaled to the size the page shows the figure at, is at least 8 CSS
    pixels, and none of its texts is drawn over another (each figure's own report, written when its
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
