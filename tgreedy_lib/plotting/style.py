"""The collection's figure conventions: the width figures are drawn for, the smallest text, colour names.

The book (``make book``) shows a figure across a column of about 930 CSS pixels at a 1,280-pixel
window; Matplotlib draws at 100 dpi, so a figure :data:`FIGURE_WIDTH` inches wide is shown at its
natural size and its smallest text, :data:`SMALLEST_TEXT_PT` points, stays about 11 pixels high. A
wider figure is scaled down, its text with it (:mod:`.legibility` measures that). Titles that name a
curve's colour take the colour from the selector registry
(:mod:`tgreedy_lib.domain_adaptation.selectors`) through :func:`selector_key`, so that a title never
says "blue" over purple curves.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.

Examples
--------
>>> from tgreedy_lib.plotting.style import color_name, selector_key
>>> color_name("tab:purple"), color_name("#d62728"), color_name("0.45")
('purple', 'red', 'gray')
>>> selector_key(["greedy", "tgreedy-signed"])
'red: greedy, purple: T-greedy (signed T)'
"""
from __future__ import annotations

__all__ = ["FIGURE_WIDTH", "SMALLEST_TEXT_PT", "color_name", "selector_key"]

#: Width in inches of a figure that spans the book's column at Matplotlib's 100 dpi without being scaled.
FIGURE_WIDTH = 9.0
#: The smallest font size, in points, that the collection's figures use (legends, annotations).
SMALLEST_TEXT_PT = 8.0

# Matplotlib's Tableau palette (its default colour cycle) by name.
_TABLEAU = {"blue": "#1f77b4", "orange": "#ff7f0e", "green": "#2ca02c", "red": "#d62728", "purple": "#9467bd",
            "brown": "#8c564b", "pink": "#e377c2", "gray": "#7f7f7f", "olive": "#bcbd22", "cyan": "#17becf"}


def color_name(color) -> str:
    """The plain English name of a Matplotlib colour, as a title would say it ("purple").

    Tableau colours (``"tab:purple"``, or their hex codes) give their name; named CSS colours their
    name; grey levels (``"0.45"``) "gray"; any other colour the name of its hue ("blue" for a pale
    or a dark blue alike, "pale blue" when it is nearly white), "gray" when it has almost none.

    This module reads no paper; it draws the colours the registry gives the selectors of Foster, Kakade &
    Salakhutdinov (AISTATS 2012), section 3.3.

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
    """"red: greedy, purple: T-greedy (signed T)": the colour and label of each named selector, from
    the registry, for a title or caption.

    This module reads no paper; it draws the colours the registry gives the selectors of Foster, Kakade &
    Salakhutdinov (AISTATS 2012), section 3.3.

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
    from ..domain_adaptation.selectors import get_selector

    return ", ".join(f"{color_name(get_selector(name).color)}: {get_selector(name).label}" for name in names)
