"""What a reader can read in a figure: the size of its smallest text, and texts drawn over each other.

A figure stays legible where it is shown when its smallest text, legends included, scaled from the
pixels it was drawn in to the pixels it is displayed in, is still a readable size (:data:`READABLE_TEXT_PT`,
9 points as displayed), and when no two of its texts are drawn over each other. A figure wider than the
book's column (:data:`BOOK_WIDTH_PX`) is shown shrunk to the column, its text with it:
:func:`displayed_text_pt` applies that scale and :func:`legibility_problems` says what fails. :func:`text_report` measures both on the texts Matplotlib actually
draws (tick labels, legends, titles, annotations: every call of the renderer's ``draw_text``);
:func:`png_with_report` writes a PNG that carries that report in a PNG text chunk [1]_, so that whoever
shows the image later (the book of ``make book`` and its browser tests) can check it at the size it is
displayed; :func:`read_png_report` reads it back.

In a notebook, ``%load_ext tgreedy_course.legibility`` makes every inline figure such a PNG (the
picture is the same; only the metadata is added). ``python -m tgreedy_course execute-notebooks`` loads it,
so the committed notebooks' figures carry their report.

References
----------
.. [1] Portable Network Graphics (PNG) Specification, third edition, W3C, 2025, section 11.3.3
   "Textual information" (tEXt, zTXt, iTXt).

Examples
--------
>>> import matplotlib.pyplot as plt
>>> from tgreedy_course.legibility import png_with_report, read_png_report, text_report
>>> fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
>>> _ = ax.set_title("a title"); _ = ax.plot([0, 1], label="a line"); _ = ax.legend(fontsize=8)
>>> report = text_report(fig)
>>> report["smallest_text_pt"], round(report["smallest_text_px"], 2), report["overlapping_texts"]
(8.0, 11.11, [])
>>> read_png_report(png_with_report(fig))["smallest_text_pt"]
8.0
>>> plt.close(fig)
"""
from __future__ import annotations

import dataclasses
import io
import json
import struct
import zlib

import numpy as np

from tgreedy_lib.plotting.style import BOOK_COLUMN_PX, SMALLEST_TEXT_PT

__all__ = ["DrawnText", "drawn_texts", "text_report", "png_with_report", "read_png_report",
           "displayed_text_pt", "legibility_problems", "png_width_px",
           "READABLE_TEXT_PX", "READABLE_TEXT_PT", "BOOK_WIDTH_PX", "CSS_PX_PER_PT", "PNG_KEY",
           "load_ipython_extension"]

#: The PNG text chunk's keyword under which :func:`png_with_report` stores the report (JSON).
PNG_KEY = "tgreedy:legibility"
#: The smallest text size, in CSS pixels as displayed, that the collection counts as readable
#: (browsers' default minimum font-size setting is 0, their smallest named size "x-small" 10 px;
#: 8 px is where letters of a sans-serif face stop being told apart at ordinary viewing distance).
READABLE_TEXT_PX = 8.0
#: The smallest text size, in points as displayed (CSS points: 1 pt = 4/3 CSS px, so 12 CSS px), that a
#: figure of the course may show, legends, tick labels and annotations included: the collection's smallest
#: text (:data:`~tgreedy_lib.plotting.style.SMALLEST_TEXT_PT`).
READABLE_TEXT_PT = float(SMALLEST_TEXT_PT)
#: CSS pixels per point (CSS fixes 96 px to the inch and 72 pt to the inch).
CSS_PX_PER_PT = 96.0 / 72.0
#: The width, in CSS pixels, of the book's column (:data:`~tgreedy_lib.plotting.style.BOOK_COLUMN_PX`): a PNG
#: wider than this is shown scaled down to it (one pixel of the PNG is one CSS pixel, as the notebooks' inline
#: figures are written without a HiDPI flag).
BOOK_WIDTH_PX = float(BOOK_COLUMN_PX)


@dataclasses.dataclass(frozen=True)
class DrawnText:
    """One text the renderer drew.

    Attributes
    ----------
    text : str
        What it says (one entry per Text artist, all its lines).
    size_pt : float
        Font size in points.
    bbox : tuple of float or None
        ``(x0, y0, x1, y1)`` in pixels at the figure's dpi (None for text drawn without an artist).
    """

    text: str
    size_pt: float
    bbox: tuple | None
    artist: object = dataclasses.field(default=None, repr=False, compare=False)


def drawn_texts(fig) -> list[DrawnText]:
    """Every non-empty text Matplotlib draws for ``fig``, with its size and box.

    The figure is drawn once on an Agg renderer at its own dpi whose ``draw_text`` and ``draw_tex``
    are recorded; nothing is rasterized twice and the figure is left as it was (its layout engine
    runs as for any draw).

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    list of DrawnText
        In drawing order; tick labels outside the axes' view (which Matplotlib does not draw) are absent.

    See Also
    --------
    text_report : The smallest text and the overlapping pairs.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_course.legibility import drawn_texts
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set(xlim=(0, 1), xticks=[0, 1], yticks=[], title="two ticks")
    >>> sorted(t.text for t in drawn_texts(fig))
    ['0', '1', 'two ticks']
    >>> plt.close(fig)
    """
    return _record(fig)[0]


def _record(fig):
    """(the texts drawn, the renderer they were drawn with)."""
    from matplotlib.backends.backend_agg import RendererAgg

    width, height = fig.get_size_inches() * fig.dpi
    renderer = RendererAgg(max(int(width), 1), max(int(height), 1), fig.dpi)
    seen: dict[int, tuple] = {}
    loose: list[DrawnText] = []

    def record(s, prop, mtext):
        if not str(s).strip():
            return
        if mtext is None:
            loose.append(DrawnText(str(s), float(prop.get_size_in_points()), None))
        elif id(mtext) not in seen:
            seen[id(mtext)] = (mtext, float(prop.get_size_in_points()))

    def draw_text(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        record(s, prop, mtext)

    def draw_tex(gc, x, y, s, prop, angle, *, mtext=None):
        record(s, prop, mtext)

    renderer.draw_text, renderer.draw_tex = draw_text, draw_tex
    fig.draw(renderer)
    out = []
    for mtext, size in seen.values():
        box = mtext.get_window_extent(renderer)
        out.append(DrawnText(mtext.get_text(), size, (box.x0, box.y0, box.x1, box.y1), mtext))
    return out + loose, renderer


def _blocks(fig, texts: list[DrawnText], renderer) -> list[tuple[str, tuple]]:
    """What may not overlap: each legend as one block (its entries, handles included: a legend's line
    drawn over another legend's words hides them too), and every other drawn text on its own."""
    from matplotlib.legend import Legend

    blocks, in_legend = [], set()
    for legend in fig.findobj(Legend):
        if not legend.get_visible():
            continue
        members = [*legend.get_texts(), legend.get_title()]
        in_legend.update(id(t) for t in members)
        words = [t.get_text() for t in members if t.get_text().strip()]
        box = getattr(legend, "_legend_box", None) or legend     # its entries, without the frame's padding
        extent = box.get_window_extent(renderer)
        blocks.append((f"legend: {', '.join(words)[:60]}", (extent.x0, extent.y0, extent.x1, extent.y1)))
    return blocks + [(t.text, t.bbox) for t in texts if t.bbox is not None and id(t.artist) not in in_legend]


def _legend_texts(fig, texts: list[DrawnText]) -> list[DrawnText]:
    """The drawn texts that belong to a visible legend of ``fig`` (its entries and its title)."""
    from matplotlib.legend import Legend

    members = {id(t) for legend in fig.findobj(Legend) if legend.get_visible()
               for t in (*legend.get_texts(), legend.get_title())}
    return [t for t in texts if t.artist is not None and id(t.artist) in members]


def _overlaps(blocks: list[tuple[str, tuple]], overlap_px: float) -> list[tuple[str, str]]:
    """Pairs of ``blocks`` whose boxes share more than ``overlap_px`` pixels in both directions."""
    if len(blocks) < 2:
        return []
    b = np.array([box for _, box in blocks], dtype=float)
    wide = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
    tall = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    i, j = np.nonzero(np.triu((wide > overlap_px) & (tall > overlap_px), k=1))
    return [(blocks[a][0], blocks[c][0]) for a, c in zip(i.tolist(), j.tolist())]


def text_report(fig, dpi: float | None = None, overlap_px: float = 1.0) -> dict:
    """The smallest text of ``fig`` and the pairs of texts drawn over each other.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : float, optional
        The dpi the picture is written at (default: the figure's); sizes in pixels are at this dpi.
    overlap_px : float, default=1.0
        Two texts overlap when their boxes share more than this many pixels in both directions
        (at the figure's dpi); boxes that only touch do not count. A legend counts as one box, its
        entries with their lines and markers (a line of one legend over the words of another hides
        them as much as a word would).

    Returns
    -------
    dict
        ``dpi``, ``smallest_text_pt``, ``smallest_text_px`` (at ``dpi``), ``smallest_text`` (what it
        says), ``smallest_legend_text_pt`` and ``smallest_legend_text`` (the same over the texts of its
        legends; None without a legend), ``n_texts``, and ``overlapping_texts``: a list of ``[text, text]``
        pairs. :func:`png_with_report` adds ``width_px``, the PNG's width.

    See Also
    --------
    drawn_texts : The texts measured.
    png_with_report : A PNG that carries this report.

    Examples
    --------
    Two texts placed on top of each other are reported:

    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_course.legibility import text_report
    >>> fig, ax = plt.subplots(figsize=(3, 2), dpi=100)
    >>> _ = ax.set(xticks=[], yticks=[]); _ = ax.text(0.5, 0.5, "one", fontsize=7); _ = ax.text(0.5, 0.5, "two")
    >>> report = text_report(fig)
    >>> report["overlapping_texts"], report["smallest_text"], round(report["smallest_text_px"], 1)
    ([['one', 'two']], 'one', 9.7)
    >>> plt.close(fig)
    """
    dpi = float(fig.dpi if dpi is None else dpi)
    texts, renderer = _record(fig)
    report = {"dpi": dpi, "n_texts": len(texts), "smallest_text_pt": None, "smallest_text_px": None,
              "smallest_text": None, "smallest_legend_text_pt": None, "smallest_legend_text": None,
              "overlapping_texts": []}
    if not texts:
        return report
    legend_texts = _legend_texts(fig, texts)
    if legend_texts:
        small = min(legend_texts, key=lambda t: t.size_pt)
        report.update(smallest_legend_text_pt=small.size_pt, smallest_legend_text=small.text)
    smallest = min(texts, key=lambda t: t.size_pt)
    report.update(smallest_text_pt=smallest.size_pt, smallest_text_px=smallest.size_pt * dpi / 72.0,
                  smallest_text=smallest.text)
    report["overlapping_texts"] = [[a, b] for a, b in _overlaps(_blocks(fig, texts, renderer), overlap_px)]
    return report


def png_with_report(fig, dpi: float | None = None, bbox_inches="tight", **kwargs) -> bytes:
    """``fig`` as PNG bytes (as the notebook's inline backend writes it) with :func:`text_report` in a
    text chunk under :data:`PNG_KEY`.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : float, optional
        Default: the figure's dpi.
    bbox_inches : str or None, default="tight"
    **kwargs
        Passed to ``fig.savefig``.

    Returns
    -------
    bytes

    See Also
    --------
    read_png_report : Reads the report back.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_course.legibility import png_with_report, read_png_report
    >>> fig, ax = plt.subplots(dpi=50)
    >>> read_png_report(png_with_report(fig))["dpi"]
    50.0
    >>> plt.close(fig)
    """
    dpi = float(fig.dpi if dpi is None else dpi)
    report = text_report(fig, dpi=dpi)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches=bbox_inches, **kwargs)
    data = buffer.getvalue()
    report["width_px"] = png_width_px(data)
    return _with_text_chunk(data, PNG_KEY, json.dumps(report, ensure_ascii=True))


def _with_text_chunk(data: bytes, key: str, value: str) -> bytes:
    """``data`` (a PNG) with a tEXt chunk ``key``/``value`` inserted right after its header chunk."""
    body = key.encode("latin-1") + b"\0" + value.encode("latin-1")
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    end_of_header = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    return data[:end_of_header] + chunk + data[end_of_header:]


def png_width_px(data: bytes) -> int:
    """The width in pixels of the PNG ``data`` (from its header chunk).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_course.legibility import png_width_px, png_with_report
    >>> fig = plt.figure(figsize=(3, 2), dpi=100); _ = fig.add_subplot().plot([0, 1])
    >>> png_width_px(png_with_report(fig, bbox_inches=None))
    300
    >>> plt.close(fig)
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"not a PNG file (it starts with {data[:8]!r}); pass the bytes of a .png image")
    return int(struct.unpack(">I", data[16:20])[0])


def displayed_text_pt(size_pt: float, dpi: float, width_px: float, book_width_px: float = BOOK_WIDTH_PX) -> float:
    """The size, in points as displayed, of ``size_pt``-point text in a PNG written at ``dpi`` and
    ``width_px`` pixels wide, shown in a column ``book_width_px`` CSS pixels wide.

    The PNG is shown one pixel to one CSS pixel, scaled by ``min(1, book_width_px / width_px)`` when
    it is wider than the column: ``size_pt * dpi / 72`` pixels, times that scale, over
    :data:`CSS_PX_PER_PT`. :func:`~tgreedy_lib.plotting.style.displayed_points` is the same scale for a figure
    given in inches at 100 dpi, before it is drawn; this one reads a written PNG.

    Examples
    --------
    A 1,000-px figure at 100 dpi is shrunk to the 720-px column; its 8-pt legend shows at 6 pt:

    >>> from tgreedy_course.legibility import displayed_text_pt
    >>> round(displayed_text_pt(8, 100, 1000), 2), round(displayed_text_pt(10, 100, 700), 2)
    (6.0, 10.42)
    """
    scale = min(1.0, book_width_px / width_px) if width_px else 1.0
    return size_pt * dpi / 72.0 * scale / CSS_PX_PER_PT


def legibility_problems(report: dict, width_px: float | None = None, name: str = "figure",
                        book_width_px: float = BOOK_WIDTH_PX, readable_pt: float = READABLE_TEXT_PT) -> list[str]:
    """What keeps a reader from reading a figure shown at the book's width, from its :func:`text_report`.

    The rule: every text (the smallest text, and the smallest text of its legends) shows at least
    ``readable_pt`` points once the PNG, ``width_px`` pixels wide (default: the report's ``width_px``),
    is scaled to fit a ``book_width_px`` column; and no two texts are drawn over each other.

    Parameters
    ----------
    report : dict
        From :func:`text_report` or :func:`read_png_report`.
    width_px : float, optional
        The PNG's width; needed when the report has no ``width_px``.
    name : str, default="figure"
        How the messages name the figure.
    book_width_px, readable_pt : float
        The column's width in CSS pixels and the smallest readable size in points as displayed.

    Returns
    -------
    list of str
        Empty when the figure is legible.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from tgreedy_course.legibility import legibility_problems, png_with_report, read_png_report
    >>> fig, ax = plt.subplots(figsize=(10, 3), dpi=100)
    >>> _ = ax.plot([0, 1], label="greedy"); _ = ax.legend(fontsize=8)
    >>> for problem in legibility_problems(read_png_report(png_with_report(fig))):
    ...     print(problem.split(" (", 2)[:2])
    ["figure: smallest text 'greedy'", "8 pt) shows at 7.3 pt at the book's width"]
    >>> plt.close(fig)
    """
    width_px = report.get("width_px") if width_px is None else width_px
    if width_px is None:
        raise ValueError(f"{name}: the report has no width_px; pass width_px= (the PNG's width, png_width_px(data))")
    problems = []
    if report.get("smallest_text_pt") is None:
        return problems
    shown = min(float(width_px), book_width_px)
    for what, size, text in (("smallest text", report["smallest_text_pt"], report["smallest_text"]),
                             ("legend text", report.get("smallest_legend_text_pt"), report.get("smallest_legend_text"))):
        if size is None or (what == "legend text" and problems and text == report["smallest_text"]):
            continue
        displayed = displayed_text_pt(size, report["dpi"], width_px, book_width_px)
        if displayed < readable_pt - 0.005:
            problems.append(f"{name}: {what} {text!r} ({size:g} pt) shows at {displayed:.1f} pt at the book's width "
                            f"({width_px:.0f} px wide shown at {shown:.0f}); it needs {readable_pt:g} pt: "
                            "a narrower figure, a larger font or fewer panels per row")
    if report.get("overlapping_texts"):
        problems.append(f"{name}: texts drawn over each other: {report['overlapping_texts'][:4]}")
    return problems


def read_png_report(data: bytes) -> dict | None:
    """The report :func:`png_with_report` stored in a PNG, or None when the PNG has none.

    Reads the PNG's tEXt, zTXt and iTXt chunks with the standard library only.

    Parameters
    ----------
    data : bytes
        A whole PNG file.

    Returns
    -------
    dict or None

    Raises
    ------
    ValueError
        When ``data`` is not a PNG file.

    See Also
    --------
    png_with_report : Writes it.

    Examples
    --------
    >>> from tgreedy_course.legibility import read_png_report
    >>> read_png_report(b"GIF89a")
    Traceback (most recent call last):
    ...
    ValueError: not a PNG file (it starts with b'GIF89a'); pass the bytes of a .png image
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"not a PNG file (it starts with {data[:8]!r}); pass the bytes of a .png image")
    position = 8
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        text = None
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            text = (key, value.decode("latin-1"))
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            text = (key, zlib.decompress(rest[1:]).decode("latin-1"))
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _, _, rest = rest.partition(b"\0")       # language tag
            _, _, rest = rest.partition(b"\0")       # translated keyword
            text = (key, (zlib.decompress(rest) if compressed else rest).decode("utf-8"))
        elif kind == b"IEND":
            break
        if text is not None and text[0] == PNG_KEY.encode("latin-1"):
            return json.loads(text[1])
    return None


def _inline_png(fig):
    """The inline backend's PNG of ``fig`` (same keyword arguments), with the report added."""
    if not fig.axes and not fig.lines:          # as IPython: an empty figure shows nothing
        return None
    import base64

    try:
        from matplotlib_inline.backend_inline import InlineBackend
        kwargs = dict(InlineBackend.instance().print_figure_kwargs)
    except ImportError:
        kwargs = {"bbox_inches": "tight"}
    kwargs.setdefault("facecolor", fig.get_facecolor())
    kwargs.setdefault("edgecolor", fig.get_edgecolor())
    return base64.b64encode(png_with_report(fig, **kwargs)).decode("ascii")


def load_ipython_extension(ipython) -> None:
    """``%load_ext tgreedy_course.legibility``: inline figures become PNGs with a text report.

    Matplotlib's inline backend is loaded first (it registers its own PNG formatter when loaded, and
    only then), so that this formatter replaces it for the rest of the session.

    Parameters
    ----------
    ipython : IPython.core.interactiveshell.InteractiveShell

    See Also
    --------
    png_with_report : What each figure becomes.
    """
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    plt.switch_backend(matplotlib.get_backend())       # load the backend (and its formatter) now
    ipython.display_formatter.formatters["image/png"].for_type(Figure, _inline_png)
