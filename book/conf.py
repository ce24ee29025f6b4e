"""Sphinx + MyST-NB configuration of the collection's book (built by ``book/build.py``, ``make book``).

The notebooks are rendered as committed (never executed here). MathJax and the ipywidgets HTML
manager are served from the book's own ``_static`` folder (copied there by ``build.py`` from the npm
packages ``mathjax`` and ``@jupyter-widgets/html-manager``), so the site makes no request outside itself.
"""
project = "tgreedy"
author = "the tgreedy authors"
copyright = "the tgreedy authors, BSD-3-Clause"

extensions = ["myst_nb", "sphinx.ext.mathjax"]
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

# Notebooks: rendered with their committed outputs, never executed by the book.
nb_execution_mode = "off"
nb_merge_streams = True
# Markdown that code cells display (tgreedy_lib.collection.prose: computed sentences and tables) is read as the
# notebooks' own Markdown cells are, as JupyterLab reads it: pipe tables and $...$ math. MyST-NB's default,
# "commonmark", would leave both as typed text.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True
suppress_warnings = ["myst.header"]   # notebooks use bold run-in headings after an h1; not an error

# Math from a local MathJax 3 (npm ``mathjax``; "tex-chtml-full" has every TeX extension built in,
# and its fonts are found beside it). A relative path is relative to the built _static folder.
# _static/tgreedy-mathjax.js (loaded first: priority 200 < MathJax's 500) lets the widget manager's
# MathJax 2 call (MathJax.Hub.Queue) reach MathJax 3.
mathjax_path = "mathjax/tex-chtml-full.js"
html_js_files = [("tgreedy-mathjax.js", {"priority": 200})]

# Widgets: the HTML manager's self-contained bundle (controls and Output widgets built in; it would ask
# a CDN only for third-party widget modules, which the collection does not use). No require.js needed.
nb_ipywidgets_js = {"html-manager/embed.js": {}}

html_theme = "alabaster"
html_static_path = ["_static"]
html_title = "tgreedy: overfitting when the samples are domains"
html_favicon = "_static/favicon.svg"
html_show_sourcelink = False
html_copy_source = False
# The page takes the window's width up to a limit; prose keeps a comfortable line length (custom.css)
# while figures, code and tables use the whole column (about 950 px at a 1,280 px window), the width the
# collection's figures are drawn for (tgreedy_lib.plotting.style).
html_theme_options = {
    "show_relbars": True,           # previous / next links at the top and bottom of every page
    "page_width": "min(96vw, 1400px)",
    "sidebar_width": "220px",
    "body_max_width": "none",
    "fixed_sidebar": False,
}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}


# Code is wrapped, not cut off, at the column's edge (custom.css). Each line of a code cell or of printed
# output is its own span, and a wrapped line continues four characters to the right of where it starts
# (a hanging indent), so that it still reads as one line of code.
import html as _html  # noqa: E402
import re as _re  # noqa: E402

from pygments.formatters import HtmlFormatter  # noqa: E402


class _LineSpans(HtmlFormatter):
    """Pygments' HTML with every source line in ``<span class="line">`` and its indentation in ``--hang``
    (Pygments' own ``linespans`` option would give each line an id, repeated in every block of a page)."""

    def wrap(self, source):
        def spans():
            for kind, line in source:
                if kind == 1:
                    text = _html.unescape(_re.sub(r"<[^>]*>", "", line))
                    hang = len(text) - len(text.lstrip(" ")) + 4
                    line = f'<span class="line" style="--hang: {hang}ch">{line}</span>'
                yield kind, line
        return super().wrap(spans())


def _wrap_code_lines(app):
    highlighter = getattr(app.builder, "highlighter", None)
    if highlighter is not None and highlighter.dest == "html":
        highlighter.formatter = _LineSpans


def setup(app):
    app.connect("builder-inited", _wrap_code_lines)
