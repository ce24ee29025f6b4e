"""The figures' conventions: the width they are drawn for, the smallest text, colour names, and how each
selector is drawn.

A figure :data:`FIGURE_WIDTH` inches wide at 100 dpi fills the book's column of :data:`BOOK_COLUMN_PX`
pixels at its natural size; a wider one is scaled down, its text with it (:func:`displayed_points`).
Each selector has one colour and line style in every figure: greedy red and T-greedy blue as in Foster,
Kakade & Salakhutdinov, "Domain Adaptation: A Small Sample Statistical Approach" (AISTATS 2012), a new
one's registered (:func:`register_selector_style`) or a fallback. Where a figure shows both readings of
T-greedy (section 3.3's signed arg max T, section 4's largest |T|), the signed one is a lighter blue.
"""
from __future__ import annotations

import dataclasses
import types
import zlib
from typing import Mapping

from ..domain_adaptation.selectors import available_selectors, get_selector

__all__ = ["BOOK_COLUMN_PX", "FIGURE_WIDTH", "SMALLEST_TEXT_PT", "SelectorStyle", "BUILTIN_SELECTOR_STYLES",
           "FALLBACK_COLORS", "T_GREEDY_READINGS", "SECOND_BLUE", "RULE_LABELS", "register_selector_style",
           "unregister_selector_style", "selector_style", "legend_label", "color_name", "selector_key",
           "displayed_points"]

#: Width in CSS pixels of the book's text column, where figures are shown: a wider figure is scaled down.
BOOK_COLUMN_PX = 720
#: Width in inches of a figure that spans the book's column at Matplotlib's 100 dpi without being scaled.
FIGURE_WIDTH = 7.0
#: The smallest font size, in points, of the figures (legends, annotations), as seen at the book's width.
SMALLEST_TEXT_PT = 9.0

# Matplotlib's Tableau palette (its default colour cycle) by name.
_TABLEAU = {"blue": "#1f77b4", "orange": "#ff7f0e", "green": "#2ca02c", "red": "#d62728", "purple": "#9467bd",
            "brown": "#8c564b", "pink": "#e377c2", "gray": "#7f7f7f", "olive": "#bcbd22", "cyan": "#17becf"}


@dataclasses.dataclass(frozen=True)
class SelectorStyle:
    """How one selector is drawn: a Matplotlib colour and line style."""

    color: str | tuple
    linestyle: str | tuple = "-"


#: The two readings of the paper's T-greedy; a figure that shows only one draws it in the paper's blue.
T_GREEDY_READINGS = ("tgreedy", "tgreedy-signed")
#: The second shade of blue: the signed reading's colour in a figure that shows both readings.
SECOND_BLUE = "#6baed6"
#: What a legend calls each of the paper's selectors: the rule it follows.
RULE_LABELS: Mapping[str, str] = types.MappingProxyType({"greedy": "greedy", "tgreedy": "T-greedy (largest |T|)",
                                                          "tgreedy-signed": "T-greedy (arg max T)"})

#: How the built-in selectors are drawn.
BUILTIN_SELECTOR_STYLES: Mapping[str, SelectorStyle] = types.MappingProxyType({
    "greedy": SelectorStyle("tab:red"),
    "tgreedy": SelectorStyle("tab:blue"),
    "tgreedy-signed": SelectorStyle(SECOND_BLUE),
    "greedy-stepwise": SelectorStyle("tab:orange", "-."),
    "omp": SelectorStyle("tab:brown", "-."),
    "t_filter": SelectorStyle("tab:olive", ":"),
    "icp": SelectorStyle("tab:green", "--"),
})

#: Colours of selectors registered without a style: none a built-in's, each with a name (:func:`color_name`).
FALLBACK_COLORS = ("tab:pink", "tab:cyan", "black", "navy", "magenta", "maroon")

_STYLES: dict[str, SelectorStyle] = dict(BUILTIN_SELECTOR_STYLES)


def register_selector_style(name: str, *, color, linestyle="-", replace: bool = False) -> SelectorStyle:
    """Draw the registered selector ``name`` in ``color`` and ``linestyle`` in every figure; return its style.
    A name that has a style already needs ``replace=True``."""
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
    """Remove the style of ``name``; it is drawn in its fallback colour."""
    if name not in _STYLES:
        raise ValueError(f"selector {name!r} has no style to remove; styled: {', '.join(_STYLES)}")
    del _STYLES[name]


def selector_style(name: str, among=None) -> SelectorStyle:
    """How the registered selector ``name`` is drawn: its style, or a fallback colour chosen by a hash of the
    name. ``among``, the selectors of the same figure: a T-greedy reading shown alone is the paper's blue.
    """
    get_selector(name)
    style = _STYLES.get(name)
    if style is None:
        style = SelectorStyle(FALLBACK_COLORS[zlib.crc32(name.encode("utf-8")) % len(FALLBACK_COLORS)])
    if (among is not None and name in T_GREEDY_READINGS and style == BUILTIN_SELECTOR_STYLES[name]
            and not any(other in T_GREEDY_READINGS and other != name for other in among)):
        style = dataclasses.replace(style, color=BUILTIN_SELECTOR_STYLES["tgreedy"].color)
    return style


def legend_label(name: str) -> str:
    """What a legend calls the registered selector ``name``: its rule (:data:`RULE_LABELS`), else its label."""
    return RULE_LABELS.get(name, get_selector(name).label)


def displayed_points(size_pt: float, figure_width_in: float, dpi: float = 100.0) -> float:
    """The size in points at which ``size_pt`` is seen in the book (a wider figure is scaled down)."""
    return size_pt * min(1.0, BOOK_COLUMN_PX / (figure_width_in * dpi))


_HUES = ((15, "red"), (45, "orange"), (70, "yellow"), (165, "green"), (195, "cyan"), (255, "blue"),
         (290, "purple"), (340, "pink"), (360, "red"))


def color_name(color) -> str:
    """The plain English name of a Matplotlib colour, as a title would say it ("purple")."""
    import matplotlib.colors as mcolors

    if isinstance(color, str):
        name = color.lower()
        if name == SECOND_BLUE:
            return "light blue"
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
    hsv = mcolors.rgb_to_hsv(mcolors.to_rgb(color))
    hue, saturation, value = float(hsv[0]) * 360, float(hsv[1]), float(hsv[2])
    if saturation < 0.15 or value < 0.12:
        return "gray" if value >= 0.12 else "black"
    if 15 <= hue < 45 and value < 0.65:
        return "brown"
    name = next(name for upper, name in _HUES if hue < upper)
    return f"pale {name}" if saturation < 0.4 and value > 0.8 else name


def selector_key(names) -> str:
    """"red: greedy, blue: T-greedy (arg max T)": each selector's colour (among ``names``) and legend label."""
    names = list(names)
    return ", ".join(f"{color_name(selector_style(name, among=names).color)}: {legend_label(name)}" for name in names)
