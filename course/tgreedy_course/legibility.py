"""What a reader can read in a figure: the size of its smallest text, and texts drawn over each other.

A figure is legible when its smallest text, legends included, still shows at :data:`READABLE_TEXT_PT` points
once the PNG is scaled to the book's column (:data:`BOOK_WIDTH_PX` CSS pixels; a wider PNG is shrunk to it), and
no two of its texts overlap. :func:`text_report` measures both on the texts Matplotlib draws (every call of the
renderer's ``draw_text``); :func:`png_with_report` writes a PNG that carries the report in a tEXt chunk (PNG
Specification, third edition, W3C 2025, section 11.3.3), so that whoever shows the image later (the book and its
browser tests) can check it at its displayed size; :func:`read_png_report` reads it back and
:func:`legibility_problems` says what fails. ``%load_ext tgreedy_course.legibility`` makes every inline figure
of a notebook such a PNG; ``python -m tgreedy_course execute-notebooks`` loads it.

Examples
--------
>>> import matplotlib.pyplot as plt
>>> from tgreedy_course.legibility import legibility_problems, png_with_report, read_png_report, text_report
>>> fig, ax = plt.subplots(figsize=(10, 3), dpi=100)
>>> _ = ax.plot([0, 1], label="greedy"); _ = ax.legend(fontsize=8)
>>> report = text_report(fig)
>>> report["smallest_text_pt"], round(report["smallest_text_px"], 2), report["overlapping_texts"]
(8.0, 11.11, [])
>>> for problem in legibility_problems(read_png_report(png_with_report(fig))):
...     print(problem.split(" (", 2)[:2])
["figure: smallest text 'greedy'", "8 pt) shows at 7.3 pt at the book's width"]
>>> plt.close(fig)
>>> read_png_report(b"GIF89a")
Traceback (most recent call last):
...
ValueError: not a PNG file (it starts with b'GIF89a'); pass the bytes of a .png image
"""
from __future__ import annotations

import base64
import io
import json
import struct
import zlib

import numpy as np

from tgreedy_lib.plotting.style import BOOK_COLUMN_PX, SMALLEST_TEXT_PT

__all__ = ["text_report", "png_with_report", "read_png_report", "png_width_px", "legibility_problems",
           "READABLE_TEXT_PT", "BOOK_WIDTH_PX", "CSS_PX_PER_PT", "PNG_KEY", "load_ipython_extension"]

#: The PNG text chunk's keyword under which :func:`png_with_report` stores the report (JSON).
PNG_KEY = "tgreedy:legibility"
#: The smallest text, in points as displayed, that a figure of the course may show (legends included).
READABLE_TEXT_PT = float(SMALLEST_TEXT_PT)
#: CSS pixels per point (96 px and 72 pt to the inch).
CSS_PX_PER_PT = 96.0 / 72.0
#: The book's column in CSS pixels; a PNG (one pixel a CSS pixel) wider than this is shown shrunk to it.
BOOK_WIDTH_PX = float(BOOK_COLUMN_PX)


def text_report(fig, dpi: float | None = None) -> dict:
    """The smallest text of ``fig`` at ``dpi`` (default: the figure's) and the pairs of texts drawn over each other
    (boxes that share more than a pixel both ways; a legend is one box, its lines and markers included).

    Returns a dict: ``dpi``, ``n_texts``, ``smallest_text_pt``, ``smallest_text_px``, ``smallest_text`` (its
    words), ``smallest_legend_text_pt`` and ``smallest_legend_text`` (None without a legend), ``overlapping_texts``.
    """
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.legend import Legend

    dpi = float(fig.dpi if dpi is None else dpi)
    width, height = fig.get_size_inches() * fig.dpi
    renderer = RendererAgg(max(int(width), 1), max(int(height), 1), fig.dpi)
    seen, texts = {}, []        # (text, size in points, box in pixels or None, artist or None)

    def record(s, prop, mtext):
        if not str(s).strip():
            return
        if mtext is None:
            texts.append((str(s), float(prop.get_size_in_points()), None, None))
        else:
            seen.setdefault(id(mtext), (mtext, float(prop.get_size_in_points())))

    renderer.draw_text = lambda gc, x, y, s, prop, angle, ismath=False, mtext=None: record(s, prop, mtext)
    renderer.draw_tex = lambda gc, x, y, s, prop, angle, *, mtext=None: record(s, prop, mtext)
    fig.draw(renderer)
    texts[:0] = [(mtext.get_text(), size, tuple(mtext.get_window_extent(renderer).extents), mtext)
                 for mtext, size in seen.values()]
    report = {"dpi": dpi, "n_texts": len(texts), **dict.fromkeys(("smallest_text_pt", "smallest_text_px",
              "smallest_text", "smallest_legend_text_pt", "smallest_legend_text")), "overlapping_texts": []}
    if not texts:
        return report
    blocks, in_legend = [], set()
    for legend in fig.findobj(Legend):
        if legend.get_visible():
            members = [*legend.get_texts(), legend.get_title()]
            in_legend.update(id(t) for t in members)
            words = ", ".join(t.get_text() for t in members if t.get_text().strip())
            box = (getattr(legend, "_legend_box", None) or legend).get_window_extent(renderer)  # without the frame
            blocks.append((f"legend: {words[:60]}", (box.x0, box.y0, box.x1, box.y1)))
    legend_texts = [t for t in texts if t[3] is not None and id(t[3]) in in_legend]
    if legend_texts:
        text, size, *_ = min(legend_texts, key=lambda t: t[1])
        report.update(smallest_legend_text_pt=size, smallest_legend_text=text)
    text, size, *_ = min(texts, key=lambda t: t[1])
    report.update(smallest_text_pt=size, smallest_text_px=size * dpi / 72.0, smallest_text=text)
    blocks += [(t[0], t[2]) for t in texts if t[2] is not None and id(t[3]) not in in_legend]
    if len(blocks) >= 2:
        b = np.array([box for _, box in blocks], dtype=float)
        wide = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
        tall = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
        i, j = np.nonzero(np.triu((wide > 1.0) & (tall > 1.0), k=1))
        report["overlapping_texts"] = [[blocks[a][0], blocks[c][0]] for a, c in zip(i.tolist(), j.tolist())]
    return report


def png_with_report(fig, dpi: float | None = None, bbox_inches="tight", **kwargs) -> bytes:
    """``fig`` as PNG bytes (``fig.savefig(..., **kwargs)``, as the inline backend writes it) with its
    :func:`text_report`, plus ``width_px``, in a tEXt chunk under :data:`PNG_KEY`."""
    dpi = float(fig.dpi if dpi is None else dpi)
    report = text_report(fig, dpi=dpi)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches=bbox_inches, **kwargs)
    data = buffer.getvalue()
    report["width_px"] = png_width_px(data)
    body = PNG_KEY.encode("latin-1") + b"\0" + json.dumps(report, ensure_ascii=True).encode("latin-1")
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    end_of_header = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    return data[:end_of_header] + chunk + data[end_of_header:]


def _check_png(data: bytes) -> None:
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"not a PNG file (it starts with {data[:8]!r}); pass the bytes of a .png image")


def png_width_px(data: bytes) -> int:
    """The width in pixels of the PNG ``data`` (from its header chunk)."""
    _check_png(data)
    return int(struct.unpack(">I", data[16:20])[0])


def read_png_report(data: bytes) -> dict | None:
    """The report :func:`png_with_report` stored in the PNG ``data``, or None when it has none."""
    _check_png(data)
    position, key = 8, PNG_KEY.encode("latin-1") + b"\0"
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IEND":
            break
        if kind == b"tEXt" and body.startswith(key):
            return json.loads(body[len(key):].decode("latin-1"))
    return None


def legibility_problems(report: dict, width_px: float | None = None, name: str = "figure") -> list[str]:
    """What keeps a reader from reading a figure at the book's width, from its :func:`text_report`.

    The smallest text and the smallest legend text must show at :data:`READABLE_TEXT_PT` or more once the PNG,
    ``width_px`` wide (default: the report's), is shrunk to :data:`BOOK_WIDTH_PX`; no two texts may overlap.
    Returns the problems, each naming the figure ``name``; empty when it is legible.
    """
    width_px = report.get("width_px") if width_px is None else width_px
    if width_px is None:
        raise ValueError(f"{name}: the report has no width_px; pass width_px= (the PNG's width, png_width_px(data))")
    problems = []
    if report.get("smallest_text_pt") is None:
        return problems
    scale = min(1.0, BOOK_WIDTH_PX / width_px) if width_px else 1.0
    for what, size, text in (("smallest text", report["smallest_text_pt"], report["smallest_text"]),
                             ("legend text", report.get("smallest_legend_text_pt"), report.get("smallest_legend_text"))):
        if size is None or (what == "legend text" and problems and text == report["smallest_text"]):
            continue
        displayed = size * report["dpi"] / 72.0 * scale / CSS_PX_PER_PT
        if displayed < READABLE_TEXT_PT - 0.005:
            problems.append(f"{name}: {what} {text!r} ({size:g} pt) shows at {displayed:.1f} pt at the book's width "
                            f"({width_px:.0f} px wide shown at {min(float(width_px), BOOK_WIDTH_PX):.0f}); it needs "
                            f"{READABLE_TEXT_PT:g} pt: a narrower figure, a larger font or fewer panels per row")
    if report.get("overlapping_texts"):
        problems.append(f"{name}: texts drawn over each other: {report['overlapping_texts'][:4]}")
    return problems


def _inline_png(fig):
    """The inline backend's PNG of ``fig`` (with its keyword arguments), the report added."""
    from matplotlib_inline.backend_inline import InlineBackend   # IPython's own dependency

    if not fig.axes and not fig.lines:          # as IPython: an empty figure shows nothing
        return None
    kwargs = dict(InlineBackend.instance().print_figure_kwargs)
    kwargs.setdefault("facecolor", fig.get_facecolor())
    kwargs.setdefault("edgecolor", fig.get_edgecolor())
    return base64.b64encode(png_with_report(fig, **kwargs)).decode("ascii")


def load_ipython_extension(ipython) -> None:
    """``%load_ext tgreedy_course.legibility``: inline figures become PNGs with a text report. The inline
    backend is loaded first (it registers its own PNG formatter then), so that this formatter replaces it."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    plt.switch_backend(matplotlib.get_backend())
    ipython.display_formatter.formatters["image/png"].for_type(Figure, _inline_png)
