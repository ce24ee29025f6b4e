"""Sphinx + MyST-NB configuration of the course's book (``book/build.py``, ``make book``).

The notebooks are rendered as committed, never executed; MathJax and the ipywidgets HTML manager are served
from the book's own ``_static`` (build.py copies them there), so the site makes no request outside itself.
"""
import html as _html
import os as _os
import re as _re

from pygments.formatters import HtmlFormatter

project = "tgreedy"
author = "the tgreedy authors"
copyright = "the tgreedy authors, BSD-3-Clause"

extensions = ["myst_nb", "sphinx.ext.mathjax"]
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_generated"]

nb_execution_mode = "off"
nb_merge_streams = True
# Markdown that code cells display (tgreedy_course.prose) is read as JupyterLab reads it: pipe tables, $...$ math.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True
myst_heading_anchors = 3               # [text](page.md#a-heading) reaches that heading
suppress_warnings = ["myst.header"]    # notebooks use bold run-in headings after an h1
nb_code_prompt_show = "Show the code"  # cells tagged hide-input (build.py tags those JupyterLab shows collapsed)
nb_code_prompt_hide = "Hide the code"

# A local MathJax 3 with every TeX extension; tgreedy-mathjax.js, loaded first, lets the widget manager's
# MathJax 2 call (MathJax.Hub.Queue) reach it. The HTML manager's bundle has the controls and Output widgets.
mathjax_path = "mathjax/tex-chtml-full.js"
html_js_files = [("tgreedy-mathjax.js", {"priority": 200})]
nb_ipywidgets_js = {"html-manager/embed.js": {}}

# sphinx-book-theme (its fonts, icons and scripts ship with it): the course on the left, the page's contents on
# the right, search, and buttons to download a notebook (build.py puts the committed one there) or run it.
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_title = "tgreedy: overfitting when the samples are domains"
html_favicon = "_static/favicon.svg"
html_show_sourcelink = False
html_copy_source = True
html_sourcelink_suffix = ""
html_theme_options = {
    "repository_url": _os.environ.get("TGREEDY_REPOSITORY_URL", "https://github.com/tgreedy/tgreedy"),  # a fork's own
    "repository_branch": "main", "path_to_docs": "notebooks",
    "use_download_button": True, "use_repository_button": False, "use_fullscreen_button": False,
    "launch_buttons": {"binderhub_url": "https://mybinder.org", "colab_url": "https://colab.research.google.com",
                       "notebook_interface": "jupyterlab"},
    "show_toc_level": 2, "home_page_in_toc": False, "navigation_with_keys": False,
    "article_header_end": ["article-header-buttons.html"],
}
html_context = {"default_mode": "light"}   # the figures are drawn on white
html_sidebars = {"**": ["navbar-logo.html", "sbt-sidebar-nav.html"]}


class _LineSpans(HtmlFormatter):
    """Pygments' HTML with each line in ``<span class="line">`` and a hanging indent ``--hang`` four characters
    past its own: custom.css wraps a long line so that it still reads as one."""

    def wrap(self, source):
        def spans():
            for kind, line in source:
                if kind == 1:
                    text = _html.unescape(_re.sub(r"<[^>]*>", "", line))
                    line = f'<span class="line" style="--hang: {len(text) - len(text.lstrip(" ")) + 4}ch">{line}</span>'
                yield kind, line
        return super().wrap(spans())


def _wrap_code_lines(app):
    if getattr(app.builder, "highlighter", None) is not None and app.builder.highlighter.dest == "html":
        app.builder.highlighter.formatter = _LineSpans


def setup(app):
    app.connect("builder-inited", _wrap_code_lines)
