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
html_theme_options = {
    "show_relbars": True,           # previous / next links at the top and bottom of every page
    "page_width": "1180px",
    "sidebar_width": "250px",
    "fixed_sidebar": False,
}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
