"""Sentences and tables rendered from results, so that no number in a notebook's text is typed in.

A notebook states a computed fact in a code cell::

    say("Gaussian coverage falls below {target} from |F| = {first} features on.", target=0.95, first=61)

which shows as Markdown in the executed notebook (and in a static view). ``tests/test_notebook_prose.py``
checks the other direction: every number in a *markdown* cell appears in the notebook's outputs or code,
or is on that notebook's allowlist with a reason.

Examples
--------
>>> fmt(0.17968750000000006)
'0.180'
>>> fmt(-0.0001, digits=2)
'0.00'
>>> fmt(114503)
'114,503'
>>> fmt(0.25, percent=True)
'25%'
>>> markdown_table(["a", "b|c"], [[1, -0.0001]], digits=3)
'| a | b\\\\|c |\\n|---|---|\\n| 1 | 0.000 |'
>>> plural(1.0, "feature"), plural(39.94, "feature"), plural(20, "seed")
('1 feature', '39.9 features', '20 seeds')
>>> percent(0.32777, n=180)
'33%'
"""
from __future__ import annotations

import math
import numbers
import re

__all__ = ["fmt", "plural", "percent", "counts_as_written", "render", "say", "markdown_table", "show_table", "show_markdown", "numbers_in"]


def fmt(value, digits: int | None = None, percent: bool = False, sig: int = 3) -> str:
    """Format one number the same way everywhere in the course (the text of every notebook).

    Whole numbers get thousands separators; other floats ``digits`` decimals, or ``sig``
    significant digits (at least 3 decimals for values below 1); ``percent`` multiplies by 100
    and appends ``%``. A value that rounds to zero never shows a minus sign. Strings and
    booleans pass through unchanged (None gives ``""``); infinities and NaN give ``inf``,
    ``-inf``, ``nan``.

    This module reads neither paper: it renders the numbers the notebooks compute from them
    (Foster, Kakade & Salakhutdinov, AISTATS 2012; Sabato & Shalev-Shwartz, JMLR 2008), so
    that no number in a notebook's text is typed in.

    Parameters
    ----------
    value : number, str, bool or None
    digits : int, optional
        Decimals (default: ``sig`` significant digits).
    percent : bool, default=False
    sig : int, default=3

    Returns
    -------
    str

    Raises
    ------
    ValueError
        When ``value`` is neither a number nor a string.

    See Also
    --------
    say : Puts formatted values into a sentence.
    markdown_table : Formats a table's numbers with it.

    References
    ----------
    .. [1] E. Smith, "PEP 378 -- Format Specifier for Thousands Separator", Python, 2009.

    Examples
    --------
    >>> from tgreedy_course.prose import fmt
    >>> fmt(3.14159, digits=2), fmt(12345.678), fmt(0.000012345)
    ('3.14', '12,346', '1.23e-05')
    >>> fmt(0.25, percent=True), fmt(-0.0001, digits=2), fmt(True)
    ('25%', '0.00', 'True')
    """
    if isinstance(value, str) or value is None:
        return "" if value is None else value
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return str(bool(value))
    if not isinstance(value, numbers.Number):
        raise ValueError(f"fmt() formats numbers; got {type(value).__name__} {value!r}. Pass a number or a string.")
    value = float(value) if not isinstance(value, numbers.Integral) else int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if percent:
        d = 0 if digits is None else digits
        text = f"{100 * value:,.{d}f}"
        return _no_negative_zero(text) + "%"
    if isinstance(value, int) or (digits is None and float(value).is_integer() and abs(value) < 1e15):
        return f"{int(value):,d}"
    if digits is None:
        magnitude = math.floor(math.log10(abs(value))) if value != 0 else 0
        if abs(value) >= 1e6 or abs(value) < 1e-4:
            return _no_negative_zero(f"{value:.{sig - 1}e}")
        digits = max(sig - 1 - magnitude, 0) if abs(value) >= 1 else max(sig - 1 - magnitude, 3)
    return _no_negative_zero(f"{value:,.{digits}f}")


def _no_negative_zero(text: str) -> str:
    if text.startswith("-") and not re.search(r"[1-9]", text.split("e")[0]):
        return text[1:]
    return text


def _escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(header, rows, digits: int | None = None) -> str:
    """A Markdown table from a header and rows of cells; numbers through :func:`fmt`, pipes escaped.

    This module reads neither paper: it renders the numbers the notebooks compute from them
    (Foster, Kakade & Salakhutdinov, AISTATS 2012; Sabato & Shalev-Shwartz, JMLR 2008), so
    that no number in a notebook's text is typed in.

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequences
        One cell per column; strings stay as they are, numbers go through ``fmt(cell, digits)``.
    digits : int, optional

    Returns
    -------
    str
        A GitHub-flavoured Markdown pipe table [1]_.

    Raises
    ------
    ValueError
        When a row has a different number of cells than the header.

    See Also
    --------
    show_table : Displays it in a notebook.
    fmt : Formats each number.

    References
    ----------
    .. [1] GitHub Flavored Markdown Spec, version 0.29-gfm, section 4.10 "Tables (extension)", 2019.

    Examples
    --------
    >>> from tgreedy_course.prose import markdown_table
    >>> print(markdown_table(["method", "AUROC"], [["T-greedy", 0.91234], ["greedy", 0.8]]))
    | method | AUROC |
    |---|---|
    | T-greedy | 0.912 |
    | greedy | 0.800 |
    """
    header = [_escape(h) for h in header]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells, the header {len(header)}; give every row one cell per column")
        cells = [_escape(c if isinstance(c, str) else fmt(c, digits)) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def show_markdown(text: str) -> None:
    """Display ``text`` as Markdown (an executed notebook keeps it as a text/markdown output).

    JupyterLab and the book (``make book``: MyST-NB with ``nb_render_markdown_format = "myst"``) read it
    as they read the notebook's own Markdown cells: pipe tables become tables, ``$...$`` is typeset
    (``tests/browser`` checks both).

    This module reads neither paper: it renders the numbers the notebooks compute from them
    (Foster, Kakade & Salakhutdinov, AISTATS 2012; Sabato & Shalev-Shwartz, JMLR 2008), so
    that no number in a notebook's text is typed in.

    Parameters
    ----------
    text : str

    Returns
    -------
    None

    See Also
    --------
    say : A sentence with computed values.
    show_table : A table.

    References
    ----------
    .. [1] IPython documentation, ``IPython.display.Markdown`` and ``IPython.display.display``.

    Examples
    --------
    Outside a notebook, ``display`` prints the object's representation:

    >>> from tgreedy_course.prose import show_markdown
    >>> show_markdown("**T-greedy** keeps 3 features.")
    <IPython.core.display.Markdown object>
    """
    from IPython.display import Markdown, display
    display(Markdown(text))
    return None


_markdown = show_markdown


def say(template: str, digits: int | None = None, **values) -> None:
    """Show ``template`` as Markdown with every ``{name}`` replaced by ``fmt(values[name], digits)``.

    ``{name:%}`` formats as a percentage, ``{name:.2f}``-style specs give the decimals (``.2e``, ``.2g`` too); ``{{`` and
    ``}}`` are literal braces (for LaTeX such as ``$m^{{-1/6}}$``).

    This module reads neither paper: it renders the numbers the notebooks compute from them
    (Foster, Kakade & Salakhutdinov, AISTATS 2012; Sabato & Shalev-Shwartz, JMLR 2008), so
    that no number in a notebook's text is typed in.

    Parameters
    ----------
    template : str
    digits : int, optional
        Decimals for values without a format spec.
    **values
        The numbers the template names.

    Returns
    -------
    None
        The sentence is displayed (see :func:`show_markdown`).

    Raises
    ------
    ValueError
        When the template names a value not given, or a format spec it does not understand.

    See Also
    --------
    fmt : Formats each value.
    show_table : The same for a table.
    show_markdown : Displays the text.

    References
    ----------
    .. [1] Python documentation, "Format Specification Mini-Language" (``string`` module).

    Examples
    --------
    Outside a notebook, ``display`` prints the object's representation:

    >>> from tgreedy_course.prose import say
    >>> say("Coverage falls below {target:%} from {first} features on.", target=0.95, first=61)
    <IPython.core.display.Markdown object>
    """
    return _markdown(render(template, digits, **values))


def render(template: str, digits: int | None = None, **values) -> str:
    """The text :func:`say` shows: ``template`` with every ``{name}`` replaced by ``fmt(values[name], digits)``.

    Parameters
    ----------
    template : str
        As for :func:`say`.
    digits : int, optional
        Decimals for values without a format spec.
    **values
        The numbers the template names.

    Returns
    -------
    str
        The Markdown text.

    Raises
    ------
    ValueError
        When the template names a value not given, or a format spec it does not understand.

    See Also
    --------
    say : Renders and displays.

    Examples
    --------
    >>> from tgreedy_course.prose import render
    >>> render("Coverage falls below {target:%} from {first} features on.", target=0.95, first=61)
    'Coverage falls below 95% from 61 features on.'
    """
    def replace(match):
        if match.group(0) in ("{{", "}}"):
            return match.group(0)[0]
        name, spec = match.group(1), match.group(2)
        if name not in values:
            raise ValueError(f"say(): the template names {{{name}}} but no value {name}= was given")
        value = values[name]
        if spec == "%":
            return fmt(value, percent=True)
        if spec:
            decimals = re.fullmatch(r"\.(\d+)f", spec)
            if decimals:
                return fmt(value, int(decimals.group(1)))
            if re.fullmatch(r"\.\d+[eg]", spec):
                return _no_negative_zero(format(float(value), spec))
            raise ValueError(f"say(): format spec {spec!r} not understood; use '%', '.Nf', '.Ne' or '.Ng'")
        return fmt(value, digits)
    return counts_as_written(re.sub(r"\{\{|\}\}|\{(\w+)(?::([^}]*))?\}", replace, template))


#: Nouns the course counts; a whole count of them is written without decimals, in the right number.
COUNT_NOUNS = ("feature", "step", "seed", "split", "run", "domain", "network", "claim", "class", "image", "digit",
               "training set", "replicate", "sample", "build")
_WHOLE_COUNT = re.compile(r"(?<![\w.])(\d[\d,]*)\.0+ (" + "|".join(COUNT_NOUNS) + r")(?:e?s)?\b")
_MAYBE_PLURAL = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?) ((?:\w+ )?\w+?)\((e?s)\)")


def counts_as_written(text: str) -> str:
    """Counts in ``text`` as people write them: ``1.0 features`` -> ``1 feature``, ``32.0 steps`` -> ``32 steps``,
    ``1 seed(s)`` -> ``1 seed``, ``20 seed(s)`` -> ``20 seeds`` (:func:`render` applies it to every sentence).

    Examples
    --------
    >>> counts_as_written("with 1.0 features; peaks after 32.0 features; over 1 seed(s) and 20 seed(s)")
    'with 1 feature; peaks after 32 features; over 1 seed and 20 seeds'
    >>> counts_as_written("AUROC 1.0 at 3 classes; 2.5 features")
    'AUROC 1.0 at 3 classes; 2.5 features'
    """
    def whole(match):
        count = int(match.group(1).replace(",", ""))
        noun = match.group(2)
        return f"{fmt(count)} {noun if count == 1 else _plural_of(noun)}"

    def maybe(match):
        number = float(match.group(1).replace(",", ""))
        return f"{match.group(1)} {match.group(2)}" + ("" if number == 1 else match.group(3))

    return _MAYBE_PLURAL.sub(maybe, _WHOLE_COUNT.sub(whole, text))


def _plural_of(noun: str) -> str:
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


def show_table(header, rows, digits: int | None = None, note: str | None = None) -> None:
    """Show :func:`markdown_table` as Markdown, with an optional footnote below it.

    This module reads neither paper: it renders the numbers the notebooks compute from them
    (Foster, Kakade & Salakhutdinov, AISTATS 2012; Sabato & Shalev-Shwartz, JMLR 2008), so
    that no number in a notebook's text is typed in.

    Parameters
    ----------
    header : sequence of str
    rows : sequence of sequences
    digits : int, optional
    note : str, optional
        Shown in small print below the table.

    Returns
    -------
    None

    See Also
    --------
    markdown_table : The table as a string.
    say : A sentence instead.

    References
    ----------
    .. [1] GitHub Flavored Markdown Spec, version 0.29-gfm, section 4.10 "Tables (extension)", 2019.

    Examples
    --------
    Outside a notebook, ``display`` prints the object's representation:

    >>> from tgreedy_course.prose import show_table
    >>> show_table(["n", "width"], [[8, 5.3249], [9, 5.1]], digits=2, note="computed")
    <IPython.core.display.Markdown object>
    """
    return _markdown(markdown_table(header, rows, digits) + (f"\n\n<sub>{note}</sub>" if note else ""))


def plural(value, noun: str, digits: int = 1, plural_form: str | None = None) -> str:
    """A count with its noun as people write it: ``1 feature``, ``2 features``, ``39.9 features`` (a mean).

    A whole number (``1.0`` included) is written without decimals and takes the singular only when it is 1;
    any other value gets ``digits`` decimals and the plural. ``plural_form`` defaults to ``noun + "s"``.

    Parameters
    ----------
    value : number
    noun : str
        The singular.
    digits : int, default=1
        Decimals for a value that is not whole (a mean over splits).
    plural_form : str, optional

    Returns
    -------
    str

    See Also
    --------
    fmt : Writes the number.

    Examples
    --------
    >>> from tgreedy_course.prose import plural
    >>> plural(1.0, "feature"), plural(0, "step"), plural(7.25, "step"), plural(1, "analysis", plural_form="analyses")
    ('1 feature', '0 steps', '7.2 steps', '1 analysis')
    """
    many = plural_form or _plural_of(noun)
    number = float(value)
    if math.isfinite(number) and round(number, digits) == round(number):
        whole = int(round(number))
        return f"{fmt(whole)} {noun if whole == 1 else many}"
    return f"{fmt(number, digits=digits)} {many}"


def percent(share: float, n: int | None = None) -> str:
    """A share as a percentage, to the precision its sampling error supports.

    With ``n`` trials the 95 % interval of a share is at least about ``1/sqrt(n)`` wide, so decimals beyond
    that are noise: whole percents up to tens of thousands of trials, one decimal from about 40,000 on.
    Without ``n``, whole percents.

    Parameters
    ----------
    share : float
        Between 0 and 1.
    n : int, optional
        The number of trials the share is counted over (splits, runs, test images).

    Returns
    -------
    str

    Examples
    --------
    >>> from tgreedy_course.prose import percent
    >>> percent(0.3277777, n=180), percent(0.3277777), percent(0.3277777, n=1_000_000)
    ('33%', '33%', '32.8%')
    """
    digits = 0
    if n:
        width = 100 / math.sqrt(max(int(n), 1))           # percentage points, the order of the 95 % half-width
        digits = max(0, math.ceil(-math.log10(width))) if width < 1 else 0
        digits = min(digits, 2)
    return fmt(share, digits=digits, percent=True)


_NUMBER = re.compile(r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\w.])[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d])")


def numbers_in(text: str) -> list[tuple[str, float]]:
    """Every number written in ``text`` as ``(as written, value)`` (what ``tests/test_notebook_prose.py`` checks).

    Thousands separators and scientific notation are understood, ``1e-12`` and ``10^{-12}``
    read as numbers, a Unicode minus as a minus.

    This module reads neither paper: it renders the numbers the notebooks compute from them
    (Foster, Kakade & Salakhutdinov, AISTATS 2012; Sabato & Shalev-Shwartz, JMLR 2008), so
    that no number in a notebook's text is typed in.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of (str, float)

    See Also
    --------
    fmt : Writes numbers in the forms this reads.

    References
    ----------
    .. [1] Python documentation, ``re`` -- Regular expression operations.

    Examples
    --------
    >>> from tgreedy_course.prose import numbers_in
    >>> numbers_in("n = 8 domains, 1,000 samples, delta 1e-12 and -0.5")
    [('8', 8.0), ('1,000', 1000.0), ('1e-12', 1e-12), ('-0.5', -0.5)]
    """
    out = []
    for match in _NUMBER.finditer(text):
        raw = match.group(0)
        try:
            out.append((raw, float(raw.replace(",", "").replace("−", "-"))))
        except ValueError:
            continue
    return out
