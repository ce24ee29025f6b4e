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
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_generated"]

# Notebooks: rendered with their committed outputs, never executed by the book.
nb_execution_mode = "off"
nb_merge_streams = True
# Markdown that code cells display (tgreedy_course.prose: computed sentences and tables) is read as the
# notebooks' own Markdown cells are, as JupyterLab reads it: pipe tables and $...$ math. MyST-NB's default,
# "commonmark", would leave both as typed text.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True
# [text](page.md#a-heading) from a notebook or a page reaches that heading in the book
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]
# Cells whose input is hidden (the "hide-input" tag; build.py adds it to every cell JupyterLab shows
# collapsed, metadata jupyter.source_hidden) show their output with a toggle for the code.
nb_code_prompt_show = "Show the code"
nb_code_prompt_hide = "Hide the code"   # notebooks use bold run-in headings after an h1; not an error

# Math from a local MathJax 3 (npm ``mathjax``; "tex-chtml-full" has every TeX extension built in,
# and its fonts are found beside it). A relative path is relative to the built _static folder.
# _static/tgreedy-mathjax.js (loaded first: priority 200 < MathJax's 500) lets the widget manager's
# MathJax 2 call (MathJax.Hub.Queue) reach MathJax 3.
mathjax_path = "mathjax/tex-chtml-full.js"
html_js_files = [("tgreedy-mathjax.js", {"priority": 200})]

# Widgets: the HTML manager's self-contained bundle (controls and Output widgets built in; it would ask
# a CDN only for third-party widget modules, which the collection does not use). No require.js needed.
nb_ipywidgets_js = {"html-manager/embed.js": {}}

# The theme made for books (sphinx-book-theme, the Jupyter Book look; its fonts, icons and scripts ship
# in the PyPI package, so the book builds and reads offline): the course in a left column, the page's
# contents in a right one, search, a toggle for every hidden cell input, and on each notebook page a
# button to download the notebook and buttons to run it on Binder (the repository's .binder/ environment)
# or Colab (book page "Run the notebooks").
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_title = "tgreedy: overfitting when the samples are domains"
html_favicon = "_static/favicon.svg"
html_show_sourcelink = False
# The download button offers the page's source: a notebook page gives the notebook (build.py puts the
# notebook as committed there, not the book's copy of it).
html_copy_source = True
html_sourcelink_suffix = ""
# Where the launch buttons point: the public repository (TGREEDY_REPOSITORY_URL overrides it for a fork).
import os as _os  # noqa: E402

REPOSITORY_URL = _os.environ.get("TGREEDY_REPOSITORY_URL", "https://github.com/tgreedy/tgreedy")
html_theme_options = {
    "repository_url": REPOSITORY_URL,
    "repository_branch": "main",
    "path_to_docs": "notebooks",        # a notebook page's source is notebooks/<page>.ipynb in the repository
    "use_download_button": True,
    "use_repository_button": False,
    "use_fullscreen_button": False,
    "launch_buttons": {
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
        "notebook_interface": "jupyterlab",
    },
    "show_toc_level": 2,                # the page's own contents, in the right column
    "home_page_in_toc": False,      # the title at the top of the left column leads home
    "navigation_with_keys": False,
    "article_header_end": ["article-header-buttons.html"],
}
# Light by default (the figures are drawn on white); the reader may switch with the button at the top.
html_context = {"default_mode": "light"}
html_sidebars = {"**": ["navbar-logo.html", "sbt-sidebar-nav.html"]}


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
