"""Sentences and tables rendered from results, so that no number in a notebook's text is typed in.

A notebook states a computed fact in a code cell::

    say("Gaussian coverage falls below {target} from |F| = {first} features on.", target=0.95, first=61)

which shows as Markdown in the executed notebook (and in a static view). ``tests/test_notebook_prose.py``
checks the other direction: every number in a *markdown* cell appears in the notebook's outputs or code,
or is on that notebook's allowlist with a reason.

The formatters' exact output is pinned in ``tests/test_renderer_examples.py``.
"""
from __future__ import annotations

import math
import numbers
import re

def fmt(value, digits: int | None = None, percent: bool = False, sig: int = 3) -> str:
    """One number written the same way everywhere: whole numbers with thousands separators, other floats with
    ``digits`` decimals or ``sig`` significant digits (at least 3 decimals below 1), ``percent`` x 100 with ``%``;
    never a minus sign on zero; strings and booleans pass through (None gives ``""``)."""
    if isinstance(value, str) or value is None:
        return "" if value is None else value
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return str(bool(value))
    if not isinstance(value, numbers.Number):
        raise ValueError(f"fmt() formats numbers; got {type(value).__name__} {value!r}. Pass a number or a string.")
    value = float(value) if not isinstance(value, numbers.Integral) else int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if percent:
        d = 0 if digits is None else digits
        return _no_negative_zero(f"{100 * value:,.{d}f}") + "%"
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


def markdown_table(header, rows, digits: int | None = None, spaced: bool = False) -> str:
    """A Markdown pipe table; numbers through :func:`fmt` with ``digits``, pipes escaped; ``spaced``: ``| --- |``."""
    header = [_escape(h) for h in header]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " --- |" * (len(header) - 1) if spaced else "|" + "---|" * len(header)]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells, the header {len(header)}; give every row one cell per column")
        lines.append("| " + " | ".join(_escape(c if isinstance(c, str) else fmt(c, digits)) for c in row) + " |")
    return "\n".join(lines)


def show_markdown(text: str) -> None:
    """Display ``text`` as Markdown (a text/markdown output, read by JupyterLab and the book)."""
    from IPython.display import Markdown, display
    display(Markdown(text))


def say(template: str, digits: int | None = None, **values) -> None:
    """Show :func:`render` of ``template`` as Markdown."""
    show_markdown(render(template, digits, **values))


def show_table(header, rows, digits: int | None = None, note: str | None = None) -> None:
    """Show :func:`markdown_table`, with ``note`` in small print below it."""
    show_markdown(markdown_table(header, rows, digits) + (f"\n\n<sub>{note}</sub>" if note else ""))


def render(template: str, digits: int | None = None, **values) -> str:
    """``template`` with every ``{name}`` replaced by ``fmt(values[name], digits)`` (``{name:%}``, ``{name:.2f}``,
    ``.2e``, ``.2g`` too; ``{{ }}`` literal braces), counts then as written (:func:`counts_as_written`)."""
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
    """``1.0 features`` -> ``1 feature``, ``32.0 steps`` -> ``32 steps``, ``1 seed(s)`` -> ``1 seed``."""
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


def plural(value, noun: str, digits: int = 1, plural_form: str | None = None) -> str:
    """A count with its noun: ``1 feature``, ``2 features``, ``39.9 features`` (a mean, ``digits`` decimals)."""
    many = plural_form or _plural_of(noun)
    number = float(value)
    if math.isfinite(number) and round(number, digits) == round(number):
        whole = int(round(number))
        return f"{fmt(whole)} {noun if whole == 1 else many}"
    return f"{fmt(number, digits=digits)} {many}"


def and_list(words) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def percent(share: float, n: int | None = None) -> str:
    """A share as a percentage, to the precision its sampling error over ``n`` trials (about ``1/sqrt(n)``) supports."""
    digits = 0
    if n:
        width = 100 / math.sqrt(max(int(n), 1))           # percentage points, the order of the 95 % half-width
        digits = min(max(0, math.ceil(-math.log10(width))) if width < 1 else 0, 2)
    return fmt(share, digits=digits, percent=True)


_NUMBER = re.compile(r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\w.])[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d])")


def numbers_in(text: str) -> list[tuple[str, float]]:
    """Every number written in ``text`` as ``(as written, value)`` (what ``tests/test_notebook_prose.py`` checks)."""
    out = []
    for match in _NUMBER.finditer(text):
        raw = match.group(0)
        try:
            out.append((raw, float(raw.replace(",", "").replace("−", "-"))))
        except ValueError:
            continue
    return out


#: The README's block of reference verdicts lies between these two lines.
README_MARKERS = ("<!-- reference-verdicts:begin -->", "<!-- reference-verdicts:end -->")


def replace_readme_block(readme_text: str, block: str, markers: tuple = README_MARKERS) -> str:
    """``readme_text`` with the lines between ``markers`` (default :data:`README_MARKERS`) replaced by ``block``."""
    begin, end = markers
    if readme_text.count(begin) != 1 or readme_text.count(end) != 1 or readme_text.index(begin) > readme_text.index(end):
        raise ValueError(f"no {begin} ... {end} block to fill: the README must hold both lines once each, in that order")
    head, rest = readme_text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{block.strip()}\n{end}{tail}"
