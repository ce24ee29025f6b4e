"""What a person can read on a page of the book, measured in Chromium (used by test_book.py).

One visit per page gathers every fact the tests check (:func:`read_page`):

- the visible text outside code, after MathJax has typeset the page: a raw pipe table (its ``|---|``
  row) or raw TeX (``$...$``, ``\\(``, ``\\begin{``, a ``\\command``) left in it is markup a reader sees
  as typed;
- every image in the page's body with its natural and displayed size, and the figure's own report of its
  smallest text and overlapping texts (:mod:`tgreedy_course.legibility`, a PNG text chunk written
  when the notebook ran): the smallest text *as displayed* is its size in the PNG times displayed width /
  natural width;
- text boxes of the page that overlap (every text node's line boxes, a typeset formula as one box);
- elements whose content is wider than their box (code or a table cut off at the column's edge), and a
  page wider than the window.
"""
from __future__ import annotations

import base64
import pathlib
import re
import struct
import urllib.parse

from tgreedy_course.legibility import CSS_PX_PER_PT, READABLE_TEXT_PT, read_png_report

#: The smallest text a figure may show, in CSS pixels as displayed: the collection's 9 pt.
READABLE_TEXT_PX = READABLE_TEXT_PT * CSS_PX_PER_PT

# A pipe table's delimiter row (|---|---| or | :--- |): any raw Markdown table has one. Rendered as
# plain CommonMark with typographic dashes, "---" reads as an em dash (|—|—|).
RAW_TABLE = re.compile(r"\|\s*:?(?:-{3,}|[\u2013\u2014][-\u2013\u2014]*):?\s*\|")
# TeX a reader would see as typed: $...$, \( \[ \begin{, or a TeX command such as \delta or \mathcal.
RAW_TEX = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[|\\begin\{|\\[A-Za-z]{2,}")
# Two text boxes overlap when they share more than this many CSS pixels in both directions.
OVERLAP_PX = 2.0
# Matplotlib's default text size (10 pt): what a figure without a report is assumed to use at best.
DEFAULT_TEXT_PT = 10.0

_FACTS = r"""() => {
    // sphinx-book-theme's article: the page's own content, without the side columns and the header
    const body = document.querySelector('article.bd-article') || document.querySelector('div.body') || document.body;
    // a closed toggle's content is not seen (Chromium still reports boxes for it, at the toggle's place)
    const visible = el => el && el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
                          && !(el.closest('details:not([open])') && !el.closest('summary'));

    // 1. The visible text outside code and outside typeset math.
    const clone = body.cloneNode(true);
    clone.querySelectorAll('pre, code, .highlight, script, style, mjx-container, .headerlink')
         .forEach(e => e.remove());
    const prose = clone.textContent;

    // 2. Images of the body (cell outputs and widget outputs alike).
    const images = Array.from(body.querySelectorAll('img')).filter(visible).map(img => {
        const r = img.getBoundingClientRect();
        const cell = img.closest('div.cell');
        return {src: img.src, natural: [img.naturalWidth, img.naturalHeight], shown: [r.width, r.height],
                in_widget: !!img.closest('.jupyter-widgets, .widget-output'),
                cell: cell ? Array.from(document.querySelectorAll('div.cell')).indexOf(cell) : -1};
    });

    // 3. Text boxes of the whole page: each text node's line boxes; a typeset formula is one box.
    const boxes = [];
    const range = document.createRange();
    // A box scrolled out of its scroll container (the contents columns scroll on their own) is not seen there.
    const clips = el => {
        const out = [];
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX)) out.push(a.getBoundingClientRect());
        }
        return out;
    };
    const inside = (r, cs) => cs.every(c => r.bottom > c.top + 1 && r.top < c.bottom - 1 && r.right > c.left + 1 && r.left < c.right - 1);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let id = 0;
    while (walker.nextNode()) {
        const node = walker.currentNode, el = node.parentElement;
        if (!node.textContent.trim() || !el || el.closest('mjx-container, script, style, noscript') || !visible(el)) continue;
        range.selectNodeContents(node);
        const cs = clips(el);
        for (const r of range.getClientRects()) {
            if (r.width > 0.5 && r.height > 0.5 && inside(r, cs)) boxes.push({id, l: r.left, t: r.top, r: r.right, b: r.bottom,
                                                             text: node.textContent.trim().slice(0, 60)});
        }
        id++;
    }
    document.querySelectorAll('mjx-container').forEach(m => {
        if (!visible(m)) return;
        for (const r of m.getClientRects()) boxes.push({id, l: r.left, t: r.top, r: r.right, b: r.bottom,
                                                        text: 'math: ' + (m.textContent || '').slice(0, 50)});
        id++;
    });
    boxes.sort((a, b) => a.t - b.t);
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length && boxes[j].t < boxes[i].b - %(tol)s; j++) {
            const a = boxes[i], c = boxes[j];
            if (a.id === c.id) continue;
            const wide = Math.min(a.r, c.r) - Math.max(a.l, c.l), tall = Math.min(a.b, c.b) - Math.max(a.t, c.t);
            if (wide > %(tol)s && tall > %(tol)s) overlaps.push([a.text, c.text]);
        }
    }

    // 4. Content wider than its box: cut off (overflow hidden) or behind a horizontal scroll.
    const cut = Array.from(body.querySelectorAll('*')).filter(e => {
        if (!visible(e) || e.clientWidth === 0 || !e.textContent.trim()) return false;
        if (e.closest('mjx-assistive-mml')) return false;   // MathJax's copy for screen readers, clipped to 1 px
        const style = getComputedStyle(e);
        return style.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1;
    }).map(e => e.tagName.toLowerCase() + '.' + (e.className || '') + ': ' + e.textContent.trim().slice(0, 80));

    return {prose, images, overlaps, cut, n_math: document.querySelectorAll('span.math, div.math').length,
            n_typeset: document.querySelectorAll('mjx-container').length,
            page_width: document.documentElement.scrollWidth, window_width: window.innerWidth};
}""" % {"tol": OVERLAP_PX}


def read_page(page) -> dict:
    """The facts :mod:`test_book` checks, from a page that has loaded and been typeset."""
    return page.evaluate(_FACTS)


def image_bytes(src: str, book_dir: pathlib.Path) -> bytes:
    """The bytes of an image of the book: a data: URI, or a file of the book served at ``src``."""
    if src.startswith("data:"):
        header, _, data = src.partition(",")
        return base64.b64decode(data) if header.endswith(";base64") else urllib.parse.unquote_to_bytes(data)
    path = urllib.parse.unquote(urllib.parse.urlsplit(src).path).lstrip("/")
    return (book_dir / path).read_bytes()


def png_dpi(data: bytes) -> float | None:
    """The dpi a PNG records in its pHYs chunk (Matplotlib writes it), or None."""
    position = 8
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"pHYs":
            per_x, _, unit = struct.unpack(">IIB", data[position + 8:position + 17])
            return per_x * 0.0254 if unit == 1 else None
        if kind == b"IDAT":
            return None
        position += 12 + length
    return None


def figure_problems(image: dict, book_dir: pathlib.Path) -> list[str]:
    """What keeps a reader from reading a figure as displayed: its smallest text below
    :data:`READABLE_TEXT_PX` CSS pixels, texts drawn over each other, or no report to tell."""
    data = image_bytes(image["src"], book_dir)
    name = image["src"][:60] if image["src"].startswith("data:") else image["src"].rsplit("/", 1)[-1]
    if not data.startswith(b"\x89PNG"):
        return [f"{name}: not a PNG figure; its text size cannot be told"]
    natural, shown = image["natural"][0], image["shown"][0]
    scale = shown / natural if natural else 0.0
    report = read_png_report(data)
    problems = []
    if report is None or report.get("smallest_text_px") is None:
        # No report: at best its smallest text is Matplotlib's default size at the PNG's dpi.
        dpi = png_dpi(data) or 100.0
        best = DEFAULT_TEXT_PT * dpi / 72 * scale
        problems.append(f"{name}: carries no text report (executed without tgreedy_course.legibility); "
                        f"even {DEFAULT_TEXT_PT:g}-pt text would show at {best:.1f} px "
                        f"({natural} px wide shown at {shown:.0f})")
        if best < READABLE_TEXT_PX:
            problems.append(f"{name}: illegible: {DEFAULT_TEXT_PT:g}-pt text at {best:.1f} CSS px < {READABLE_TEXT_PX:g}")
        return problems
    displayed = report["smallest_text_px"] * scale
    if displayed < READABLE_TEXT_PX - 0.05:
        problems.append(f"{name}: smallest text {report['smallest_text']!r} ({report['smallest_text_pt']:g} pt) shows at "
                        f"{displayed:.1f} CSS px < {READABLE_TEXT_PX:g} ({natural} px wide shown at {shown:.0f})")
    if report["overlapping_texts"]:
        problems.append(f"{name}: texts drawn over each other: {report['overlapping_texts'][:4]}")
    return problems
