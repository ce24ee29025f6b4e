"""The collection's figure conventions: the width figures are drawn for, the smallest text, colour names,
and how each selector is drawn.

The book (``make book``) shows a figure across a column of about 930 CSS pixels at a 1,280-pixel
window; Matplotlib draws at 100 dpi, so a figure :data:`FIGURE_WIDTH` inches wide is shown at its
natural size and its smallest text, :data:`SMALLEST_TEXT_PT` points, stays about 11 pixels high. A
wider figure is scaled down, its text with it (:mod:`.legibility` measures that).

Each selector of the registry (:mod:`tgreedy_lib.domain_adaptation.selectors`, which knows nothing of
figures) is drawn in one colour and line style in every figure of the collection: the built-in ones as
:data:`BUILTIN_SELECTOR_STYLES` says (greedy red and T-greedy blue, as in the figures of Foster, Kakade &
Salakhutdinov [1]_), a new one as :func:`register_selector_style` says, and one registered without a
style in a fallback colour (:func:`selector_style` gives the rule). Titles that name a curve's colour
take it from :func:`selector_style` through :func:`selector_key`, so that a title never says "blue"
over purple curves.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.

Examples
--------
>>> from tgreedy_lib.plotting.style import color_name, selector_key, selector_style
>>> color_name("tab:purple"), color_name("#d62728"), color_name("0.45")
('purple', 'red', 'gray')
>>> selector_style("greedy-stepwise")
SelectorStyle(color='tab:orange', linestyle='-.')
>>> selector_key(["greedy", "tgreedy-signed"])
'red: greedy, purple: T-greedy (signed T)'
"""
from __future__ import annotations

import dataclasses
import types
import zlib
from typing import Mapping

from ..domain_adaptation.selectors import available_selectors, get_selector

__all__ = ["FIGURE_WIDTH", "SMALLEST_TEXT_PT", "SelectorStyle", "BUILTIN_SELECTOR_STYLES", "FALLBACK_COLORS",
           "register_selector_style", "unregister_selector_style", "selector_style", "color_name", "selector_key"]

#: Width in inches of a figure that spans the book's column at Matplotlib's 100 dpi without being scaled.
FIGURE_WIDTH = 9.0
#: The smallest font size, in points, that the collection's figures use (legends, annotations).
SMALLEST_TEXT_PT = 8.0

# Matplotlib's Tableau palette (its default colour cycle) by name.
_TABLEAU = {"blue": "#1f77b4", "orange": "#ff7f0e", "green": "#2ca02c", "red": "#d62728", "purple": "#9467bd",
            "brown": "#8c564b", "pink": "#e377c2", "gray": "#7f7f7f", "olive": "#bcbd22", "cyan": "#17becf"}


@dataclasses.dataclass(frozen=True)
class SelectorStyle:
    """How one selector is drawn: its colour and line style, the same in every figure.

    Attributes
    ----------
    color : str or tuple
        A Matplotlib colour (``"tab:blue"``, ``"#1f77b4"``, an RGB tuple).
    linestyle : str or tuple, default "-"
        A Matplotlib line style (``"-"``, ``"--"``, ``"-."``, ``":"``, or a dash tuple). The figures of
        section 4 draw source data dashed and the target solid whatever it says; the simulation
        figures (:func:`tgreedy_lib.plotting.theory.plot_selector_paths`) use it.

    See Also
    --------
    selector_style : A selector's style.
    register_selector_style : Give a selector one.
    BUILTIN_SELECTOR_STYLES : The built-in selectors' styles.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), Figures 1-4 (greedy red, T-greedy blue).

    Examples
    --------
    >>> from tgreedy_lib.plotting.style import selector_style
    >>> style = selector_style("tgreedy")
    >>> style.color, style.linestyle
    ('tab:blue', '-')
    """

    color: str | tuple
    linestyle: str | tuple = "-"


#: How the built-in selectors (:data:`tgreedy_lib.domain_adaptation.selectors.BUILTIN_SELECTORS`) are drawn:
#: the paper's two as in its figures (greedy red, T-greedy blue), its signed-T reading purple, the stepwise
#: greedy orange, and the baselines that are paths in colours and line styles of their own.
BUILTIN_SELECTOR_STYLES: Mapping[str, SelectorStyle] = types.MappingProxyType({
    "greedy": SelectorStyle("tab:red"),
    "tgreedy": SelectorStyle("tab:blue"),
    "tgreedy-signed": SelectorStyle("tab:purple"),
    "greedy-stepwise": SelectorStyle("tab:orange", "-."),
    "omp": SelectorStyle("tab:brown", "-."),
    "t_filter": SelectorStyle("tab:olive", ":"),
    "icp": SelectorStyle("tab:green", "--"),
})

#: Colours of selectors registered without a style (the rule is :func:`selector_style`'s): none is a built-in
#: selector's colour, and each has a name of its own in a title (:func:`color_name`).
FALLBACK_COLORS = ("tab:pink", "tab:cyan", "black", "navy", "magenta", "maroon")

_STYLES: dict[str, SelectorStyle] = dict(BUILTIN_SELECTOR_STYLES)


def register_selector_style(name: str, *, color, linestyle="-", replace: bool = False) -> SelectorStyle:
    """Draw the registered selector ``name`` in ``color`` and ``linestyle`` in every figure, and return its style.

    The selector must be registered first (:func:`~tgreedy_lib.domain_adaptation.selectors.register_selector`),
    and a name that already has a style is a ValueError unless ``replace=True``, as the registry does with
    names. A style is optional: a selector without one is drawn in a fallback colour (:func:`selector_style`).

    Parameters
    ----------
    name : str
        A registered selector name.
    color : str or tuple
        Any Matplotlib colour (``"tab:pink"``, ``"#e377c2"``, ``(0.9, 0.5, 0.8)``).
    linestyle : str or tuple, default "-"
        A visible Matplotlib line style (``"-"``, ``"--"``, ``"-."``, ``":"``, or a dash tuple such as
        ``(0, (5, 2))``); ``"None"`` and ``""`` would hide the curve and are refused.
    replace : bool, default False
        Redefine the style of a selector that has one (a built-in's too).

    Returns
    -------
    SelectorStyle

    Raises
    ------
    ValueError
        When ``name`` is not a registered selector, already has a style (and ``replace`` is False), or
        ``color`` or ``linestyle`` is not something Matplotlib can draw; the message names the value.

    See Also
    --------
    selector_style : A selector's style, with the fallback rule.
    unregister_selector_style : Remove a style.
    tgreedy_lib.domain_adaptation.selectors.register_selector : Register the selector itself.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3 (greedy and T-greedy).

    Examples
    --------
    T-greedy with the paper's literal ``argmax T_i`` as a selector of its own, drawn pink and dashed:

    >>> from tgreedy_lib.domain_adaptation.selectors import register_selector, tgreedy_path, unregister_selector
    >>> from tgreedy_lib.plotting.style import register_selector_style, unregister_selector_style
    >>> _ = register_selector("tgreedy-positive", label="T-greedy (T > 0)", path=tgreedy_path,
    ...                       options={"sign": "positive"})
    >>> register_selector_style("tgreedy-positive", color="pinkish")
    Traceback (most recent call last):
    ...
    ValueError: color='pinkish' is not a Matplotlib colour; give a name ('tab:pink'), a hex code ('#e377c2') or an RGB tuple
    >>> register_selector_style("tgreedy-positive", color="tab:pink", linestyle="--")
    SelectorStyle(color='tab:pink', linestyle='--')
    >>> unregister_selector_style("tgreedy-positive"); unregister_selector("tgreedy-positive")
    """
    import matplotlib.colors as mcolors
    from matplotlib.lines import Line2D

    if not isinstance(name, str) or not name:
        raise ValueError(f"a selector name must be a non-empty string, got {name!r}")
    if name not in available_selectors():
        raise ValueError(f"unknown selector {name!r}; register it with register_selector before its style "
                         f"(registered: {', '.join(available_selectors())})")
    if name in _STYLES and not replace:
        raise ValueError(f"selector {name!r} already has a style ({_STYLES[name]}); pass replace=True to redefine it")
    if isinstance(color, str) and not color.strip() or not mcolors.is_color_like(color):
        raise ValueError(f"color={color!r} is not a Matplotlib colour; give a name ('tab:pink'), a hex code "
                         "('#e377c2') or an RGB tuple")
    if isinstance(linestyle, str) and linestyle.strip().lower() in ("", "none"):
        raise ValueError(f"linestyle={linestyle!r} would hide the selector's curves; give '-', '--', '-.' or ':'")
    try:
        Line2D([], [], linestyle=linestyle)
    except (ValueError, TypeError):
        raise ValueError(f"linestyle={linestyle!r} is not a Matplotlib line style; give '-', '--', '-.', ':' "
                         "or a dash tuple such as (0, (5, 2))") from None
    style = SelectorStyle(color if isinstance(color, str) else tuple(float(c) for c in color), linestyle)
    _STYLES[name] = style
    return style


def unregister_selector_style(name: str) -> None:
    """Remove the style of ``name``, which is then drawn in its fallback colour (:func:`selector_style`).

    A name without a style is a ValueError. Unregistering a selector
    (:func:`~tgreedy_lib.domain_adaptation.selectors.unregister_selector`) leaves its style here: a selector
    registered again under the name is drawn as before.

    See Also
    --------
    register_selector_style : Give a selector a style.
    selector_style : A selector's style.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3 (greedy and T-greedy).

    Examples
    --------
    >>> from tgreedy_lib.domain_adaptation.selectors import register_selector, tgreedy_path, unregister_selector
    >>> from tgreedy_lib.plotting.style import register_selector_style, selector_style, unregister_selector_style
    >>> _ = register_selector("copy", label="copy", path=tgreedy_path)
    >>> register_selector_style("copy", color="black").color
    'black'
    >>> unregister_selector_style("copy")
    >>> selector_style("copy").color  # the fallback for the name "copy"
    'magenta'
    >>> unregister_selector("copy")
    """
    if name not in _STYLES:
        raise ValueError(f"selector {name!r} has no style to remove; styled: {', '.join(_STYLES)}")
    del _STYLES[name]


def selector_style(name: str) -> SelectorStyle:
    """How the registered selector ``name`` is drawn: its registered style, or the fallback.

    A selector registered without a style (:func:`register_selector_style`) is drawn solid in
    ``FALLBACK_COLORS[zlib.crc32(name.encode()) % len(FALLBACK_COLORS)]``: a colour that depends on the
    name alone -- the same in every session and on every machine, whatever else is registered or in what
    order -- and is never a built-in selector's. Two selectors without a style may share a colour; give
    one of them a style.

    Parameters
    ----------
    name : str
        A registered selector name.

    Returns
    -------
    SelectorStyle

    Raises
    ------
    ValueError
        When ``name`` is not registered (from :func:`~tgreedy_lib.domain_adaptation.selectors.get_selector`).

    See Also
    --------
    register_selector_style : Give a selector a style.
    BUILTIN_SELECTOR_STYLES : The built-in selectors' styles.
    FALLBACK_COLORS : The colours of selectors without one.
    selector_key : Names the colours in a title.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), Figures 1-4 (greedy red, T-greedy blue).

    Examples
    --------
    >>> from tgreedy_lib.domain_adaptation.selectors import register_selector, tgreedy_path, unregister_selector
    >>> from tgreedy_lib.plotting.style import selector_style
    >>> selector_style("greedy"), selector_style("tgreedy").color
    (SelectorStyle(color='tab:red', linestyle='-'), 'tab:blue')
    >>> _ = register_selector("my-selector", label="my selector", path=tgreedy_path)
    >>> selector_style("my-selector")  # no style registered: the name's fallback colour
    SelectorStyle(color='navy', linestyle='-')
    >>> unregister_selector("my-selector")
    """
    get_selector(name)
    style = _STYLES.get(name)
    if style is None:
        style = SelectorStyle(FALLBACK_COLORS[zlib.crc32(name.encode("utf-8")) % len(FALLBACK_COLORS)])
    return style


def color_name(color) -> str:
    """The plain English name of a Matplotlib colour, as a title would say it ("purple").

    Tableau colours (``"tab:purple"``, or their hex codes) give their name; named CSS colours their
    name; grey levels (``"0.45"``) "gray"; any other colour the name of its hue ("blue" for a pale
    or a dark blue alike, "pale blue" when it is nearly white), "gray" when it has almost none.

    This module reads no paper; it names the colours :func:`selector_style` gives the selectors of
    Foster, Kakade & Salakhutdinov (AISTATS 2012), section 3.3.

    Parameters
    ----------
    color : str or tuple
        Anything :func:`matplotlib.colors.to_rgb` reads.

    Returns
    -------
    str

    See Also
    --------
    selector_key : Names the colours of several selectors.

    References
    ----------
    .. [1] Matplotlib documentation, "Specifying colors" (the Tableau palette, ``tab:``).

    Examples
    --------
    >>> from tgreedy_lib.plotting.style import color_name
    >>> color_name("tab:blue"), color_name("darkorange"), color_name((0.1, 0.45, 0.7)), color_name((1.0, 0.8, 0.8))
    ('blue', 'darkorange', 'blue', 'pale red')
    """
    import matplotlib.colors as mcolors

    if isinstance(color, str):
        name = color.lower()
        if name.startswith("tab:") and name[4:] in _TABLEAU:
            return name[4:]
        if name.startswith("tab:grey"):
            return "gray"
        if name in mcolors.CSS4_COLORS:
            return name
        for key, code in _TABLEAU.items():
            if name == code:
                return key
        try:
            float(name)
            return "gray"                     # a grey level
        except ValueError:
            pass
    return _hue_name(mcolors.rgb_to_hsv(mcolors.to_rgb(color)))


# Hue ranges in degrees (upper ends) and their names, for colours outside the Tableau palette.
_HUES = ((15, "red"), (45, "orange"), (70, "yellow"), (165, "green"), (195, "cyan"), (255, "blue"),
         (290, "purple"), (340, "pink"), (360, "red"))


def _hue_name(hsv) -> str:
    hue, saturation, value = float(hsv[0]) * 360, float(hsv[1]), float(hsv[2])
    if saturation < 0.15 or value < 0.12:
        return "gray" if value >= 0.12 else "black"
    if 15 <= hue < 45 and value < 0.65:
        return "brown"
    name = next(name for upper, name in _HUES if hue < upper)
    return f"pale {name}" if saturation < 0.4 and value > 0.8 else name


def selector_key(names) -> str:
    """"red: greedy, purple: T-greedy (signed T)": the colour (:func:`selector_style`) and label (the
    registry) of each named selector, for a title or caption.

    This module reads no paper; it names the colours :func:`selector_style` gives the selectors of
    Foster, Kakade & Salakhutdinov (AISTATS 2012), section 3.3.

    Parameters
    ----------
    names : sequence of str
        Registered selector names.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        When a name is not registered (from :func:`~tgreedy_lib.domain_adaptation.selectors.get_selector`).

    See Also
    --------
    color_name : Names one colour.
    selector_style : The colour named.
    tgreedy_lib.domain_adaptation.selectors.get_selector : The registry.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3 (greedy and T-greedy).

    Examples
    --------
    >>> from tgreedy_lib.plotting.style import selector_key
    >>> selector_key(["greedy", "tgreedy"])
    'red: greedy, blue: T-greedy'
    """
    return ", ".join(f"{color_name(selector_style(name).color)}: {get_selector(name).label}" for name in names)
