"""The book (``make book``) in Chromium: every page as a reader sees it, served from 127.0.0.1 only."""
from __future__ import annotations

import html
import json
import pathlib
import re
import urllib.parse

import pytest

from .conftest import ROOT, save_screenshot

BOOK_PAGES = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")) + [
    "index", "claims", "papers", "search", "genindex"]
INTERACTIVE = ["03_self_normalized_sums", "04_t_statistic_bounds", "05_tgreedy_simulated_domains"]

# Text a reader sees outside code: no TeX left unrendered.
RAW_MATH = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[|\\begin\{")
VISIBLE_PROSE = """() => {
    const clone = document.querySelector('div.body').cloneNode(true);
    clone.querySelectorAll('pre, code, .highlight, .output, .cell_output, script, style, mjx-container')
         .forEach(e => e.remove());
    return clone.innerText;
}"""


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
    page.goto(url, wait_until="load")
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    page.wait_for_timeout(300)   # widgets render after load
    return page, problems


@pytest.mark.parametrize("name", BOOK_PAGES)
def test_page_loads_clean_with_math_images_and_no_errors(browser, book_url, book_dir, name):
    if not (book_dir / f"{name}.html").exists():
        pytest.fail(f"the book has no page {name}.html")
    page, problems = open_page(browser, f"{book_url}/{name}.html")
    try:
        page.wait_for_function("() => Array.from(document.images).every(i => i.complete)", timeout=15000)
        # Math typeset: MathJax's elements are there wherever the page has math, and no raw TeX is left.
        n_math = page.locator("span.math, div.math").count()
        if n_math:
            assert page.locator("mjx-container").count() >= n_math, f"{name}: math left untypeset"
        leftover = RAW_MATH.findall(page.evaluate(VISIBLE_PROSE))
        assert not leftover, f"{name}: raw TeX in the text: {leftover[:5]}"
        # Every figure is an image that loaded.
        broken = page.evaluate("() => Array.from(document.images).filter(i => !(i.naturalWidth > 0))"
                               ".map(i => i.src.slice(0, 80))")
        assert not broken, f"{name}: images that did not load: {broken}"
        # No error output is shown.
        assert page.locator(".output.traceback, .output.error, [data-mime-type$='error']").count() == 0
        assert "Traceback (most recent call last)" not in page.inner_text("body")
        # No console error, no failed request, nothing fetched from outside the book.
        assert problems == [], f"{name}: " + "; ".join(problems)
    finally:
        page.close()


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
        views.first.scroll_into_view_if_needed()
        save_screenshot(views.first, screenshot_dir / f"book-{name}-widget.png")
        assert problems == [], "; ".join(problems)
    finally:
        page.close()


def test_screenshots_of_the_first_page_and_a_notebook(browser, book_url, screenshot_dir):
    for name in ("index", "05_tgreedy_simulated_domains"):
        page, _ = open_page(browser, f"{book_url}/{name}.html")
        try:
            path = save_screenshot(page, screenshot_dir / f"book-{name}.png")
            assert path.stat().st_size > 10_000
        finally:
            page.close()
