"""How selectors are drawn: the built-in colours and line styles, register_selector_style's checks, and the
fallback colour of a selector registered without a style (deterministic, never a built-in's)."""
from __future__ import annotations

import zlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tgreedy_lib.plotting  # noqa: E402
from tgreedy_lib.domain_adaptation.selectors import (  # noqa: E402
    BUILTIN_SELECTORS, register_selector, tgreedy_path, unregister_selector)
from tgreedy_lib.domain_adaptation.theorems.simulate import make_problem  # noqa: E402
from tgreedy_lib.domain_adaptation.theorems.simulated_selection import compare_selectors  # noqa: E402
from tgreedy_lib.plotting import theory_figures as theory  # noqa: E402
from tgreedy_lib.plotting.style import (  # noqa: E402
    BUILTIN_SELECTOR_STYLES, FALLBACK_COLORS, SelectorStyle, color_name, register_selector_style, selector_key,
    selector_style, unregister_selector_style)

#: The colours and line styles every figure of the collection has drawn the built-in selectors in.
DRAWN_SO_FAR = {
    "greedy": ("tab:red", "-"),
    "tgreedy": ("tab:blue", "-"),
    "tgreedy-signed": ("#6baed6", "-"),   # a second blue (it was purple): the paper draws T-greedy blue
    "greedy-stepwise": ("tab:orange", "-."),
    "omp": ("tab:brown", "-."),
    "t_filter": ("tab:olive", ":"),
    "icp": ("tab:green", "--"),
}


@pytest.fixture
def unstyled():
    """Register selectors (T-greedy's path under new names) without styles; remove them and any style after."""
    names = []

    def register(*new):
        for name in new:
            register_selector(name, label=name, path=tgreedy_path)
            names.append(name)

    yield register
    for name in names:
        unregister_selector(name)
        try:
            unregister_selector_style(name)
        except ValueError:
            pass


def test_the_built_in_selectors_are_drawn_as_before():
    assert {name: (s.color, s.linestyle) for name, s in BUILTIN_SELECTOR_STYLES.items()} == DRAWN_SO_FAR
    assert list(BUILTIN_SELECTOR_STYLES) == [selector.name for selector in BUILTIN_SELECTORS]  # one style each
    for name, (color, linestyle) in DRAWN_SO_FAR.items():
        assert selector_style(name) == SelectorStyle(color, linestyle)
    assert (selector_key(["greedy", "tgreedy", "tgreedy-signed"])
            == "red: greedy, blue: T-greedy (largest |T|), light blue: T-greedy (arg max T)")
    with pytest.raises(TypeError):
        BUILTIN_SELECTOR_STYLES["greedy"] = SelectorStyle("k")  # the table is read-only


def test_a_style_is_frozen_and_exported_from_plotting():
    with pytest.raises(AttributeError):
        selector_style("greedy").color = "k"
    for name in ("SelectorStyle", "register_selector_style", "unregister_selector_style", "selector_style"):
        assert getattr(tgreedy_lib.plotting, name) is getattr(tgreedy_lib.plotting.style, name)
        assert name in tgreedy_lib.plotting.__all__


def test_a_registered_style_is_used_and_can_be_replaced_or_removed(unstyled):
    unstyled("mine")
    assert register_selector_style("mine", color="#e377c2", linestyle=(0, (5, 2))) == SelectorStyle("#e377c2", (0, (5, 2)))
    assert selector_style("mine") == SelectorStyle("#e377c2", (0, (5, 2)))
    assert register_selector_style("mine", color=np.array([0.2, 0.2, 0.2]), replace=True) == SelectorStyle((0.2, 0.2, 0.2))
    hash(selector_style("mine"))  # a style is a value, whatever sequence the colour came as
    unregister_selector_style("mine")
    assert selector_style("mine").color in FALLBACK_COLORS
    with pytest.raises(ValueError, match="'mine' has no style to remove"):
        unregister_selector_style("mine")


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "nope", "color": "tab:pink"}, r"unknown selector 'nope'; register it with register_selector .*registered: greedy"),
    ({"name": "", "color": "tab:pink"}, r"non-empty string, got ''"),
    ({"name": None, "color": "tab:pink"}, r"non-empty string, got None"),
    ({"name": "mine", "color": "pinkish"}, r"color='pinkish' is not a Matplotlib colour; give a name"),
    ({"name": "mine", "color": ""}, r"color='' is not a Matplotlib colour"),
    ({"name": "mine", "color": None}, r"color=None is not a Matplotlib colour"),
    ({"name": "mine", "color": (1.0, 0.0)}, r"color=\(1.0, 0.0\) is not a Matplotlib colour"),
    ({"name": "mine", "color": "tab:pink", "linestyle": "wavy"}, r"linestyle='wavy' is not a Matplotlib line style"),
    ({"name": "mine", "color": "tab:pink", "linestyle": 3}, r"linestyle=3 is not a Matplotlib line style"),
    ({"name": "mine", "color": "tab:pink", "linestyle": "None"}, r"linestyle='None' would hide the selector's curves"),
    ({"name": "mine", "color": "tab:pink", "linestyle": ""}, r"linestyle='' would hide"),
])
def test_a_bad_style_is_a_clear_error_and_registers_nothing(unstyled, kwargs, message):
    unstyled("mine")
    name = kwargs.pop("name")
    with pytest.raises(ValueError, match=message):
        register_selector_style(name, **kwargs)
    assert selector_style("mine") == SelectorStyle(FALLBACK_COLORS[zlib.crc32(b"mine") % len(FALLBACK_COLORS)])


def test_a_second_style_for_a_name_needs_replace(unstyled):
    unstyled("mine")
    register_selector_style("mine", color="tab:pink")
    with pytest.raises(ValueError, match=r"'mine' already has a style .*tab:pink.*; pass replace=True"):
        register_selector_style("mine", color="tab:cyan")
    with pytest.raises(ValueError, match="'greedy' already has a style"):  # a built-in's too
        register_selector_style("greedy", color="black")
    assert selector_style("mine").color == "tab:pink" and selector_style("greedy").color == "tab:red"


def test_looking_up_an_unregistered_selector_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown selector 'nope'.*register_selector"):
        selector_style("nope")


def test_the_fallback_colour_depends_on_the_name_alone(unstyled):
    # the documented rule, pinned: the same colours in every session and on every machine
    expected = {"first-features": "maroon", "my-selector": "navy", "copy": "magenta", "tgreedy-positive": "tab:cyan"}
    for name, colour in expected.items():
        assert FALLBACK_COLORS[zlib.crc32(name.encode()) % len(FALLBACK_COLORS)] == colour
    unstyled(*expected)
    assert {name: selector_style(name) for name in expected} == {name: SelectorStyle(c) for name, c in expected.items()}
    # registering others, before or after, in another order, changes nothing
    for name in expected:
        unregister_selector(name)
    unstyled("zeta", "alpha")
    for name in reversed(list(expected)):
        register_selector(name, label=name, path=tgreedy_path)
        assert selector_style(name).color == expected[name]
    # the fallback rule spreads names over every fallback colour
    unstyled(*(f"selector-{i}" for i in range(60)))
    assert {selector_style(f"selector-{i}").color for i in range(60)} == set(FALLBACK_COLORS)


def _rgb_distance(a, b) -> float:
    return float(np.linalg.norm(np.subtract(mcolors.to_rgb(a), mcolors.to_rgb(b))))


def test_no_fallback_colour_is_or_resembles_a_built_in_colour():
    builtin = {s.color for s in BUILTIN_SELECTOR_STYLES.values()}
    assert len(set(FALLBACK_COLORS)) == len(FALLBACK_COLORS) and not builtin & set(FALLBACK_COLORS)
    # no closer to a built-in's colour than the two closest colours of Matplotlib's own default cycle are
    tableau = list(mcolors.TABLEAU_COLORS)
    closest = min(_rgb_distance(a, b) for i, a in enumerate(tableau) for b in tableau[i + 1:])
    for fallback in FALLBACK_COLORS:
        for colour in builtin:
            assert _rgb_distance(fallback, colour) >= closest, (fallback, colour, _rgb_distance(fallback, colour))
    # a title names every colour differently ("maroon: my selector, red: greedy")
    names = [color_name(c) for c in FALLBACK_COLORS] + [color_name(c) for c in builtin]
    assert len(set(names)) == len(names), names


def test_a_selector_without_a_style_is_drawn_in_its_fallback_colour(unstyled):
    unstyled("my-selector")
    problem = make_problem(n_robust=2, n_spurious=2, n_null=4)
    result = compare_selectors(problem, np.random.default_rng(0), n_domains=4, n_steps=3, n_repeats=3,
                               selectors=("tgreedy", "my-selector"))
    axes = theory.plot_selector_paths(result)
    try:
        drawn = {line.get_label(): (line.get_color(), line.get_linestyle()) for line in axes[0].get_lines()}
        assert drawn["my-selector"] == ("navy", "-") and drawn["T-greedy (largest |T|)"] == ("tab:blue", "-")  # style.legend_label names the rule
    finally:
        plt.close(axes[0].figure)
    assert selector_key(["tgreedy", "my-selector"]) == "blue: T-greedy (largest |T|), navy: my-selector"


def test_a_figure_draws_its_one_t_greedy_in_the_papers_blue_and_two_in_two_blues():
    from tgreedy_lib.plotting.style import SECOND_BLUE, legend_label

    blue = BUILTIN_SELECTOR_STYLES["tgreedy"].color
    for reading in ("tgreedy", "tgreedy-signed"):   # whichever reading a page shows alone is the paper's blue
        assert selector_style(reading, among=["greedy", reading]).color == blue
        assert color_name(selector_style(reading, among=["greedy", reading]).color) == "blue"
    both = ["greedy", "tgreedy", "tgreedy-signed"]
    colours = {name: selector_style(name, among=both).color for name in both}
    assert colours == {"greedy": "tab:red", "tgreedy": blue, "tgreedy-signed": SECOND_BLUE}
    assert [color_name(c) for c in colours.values()] == ["red", "blue", "light blue"]
    assert mcolors.rgb_to_hsv(mcolors.to_rgb(SECOND_BLUE))[0] * 360 == pytest.approx(205, abs=15)  # a blue hue
    assert _rgb_distance(SECOND_BLUE, blue) > 0.3                                 # told apart at a glance
    # every legend names the rule, so two T-greedys are never both "T-greedy"
    assert legend_label("tgreedy") == "T-greedy (largest |T|)" and legend_label("tgreedy-signed") == "T-greedy (arg max T)"
    assert selector_key(["greedy", "tgreedy-signed"]) == "red: greedy, blue: T-greedy (arg max T)"


def test_a_replaced_style_is_kept_whatever_the_figure_shows():
    register_selector_style("tgreedy-signed", color="tab:purple", replace=True)
    try:
        assert selector_style("tgreedy-signed", among=["greedy", "tgreedy-signed"]).color == "tab:purple"
    finally:
        register_selector_style("tgreedy-signed", color=BUILTIN_SELECTOR_STYLES["tgreedy-signed"].color, replace=True)


def test_displayed_size_shrinks_with_a_figure_wider_than_the_column():
    from tgreedy_lib.plotting.style import BOOK_COLUMN_PX, FIGURE_WIDTH, SMALLEST_TEXT_PT, displayed_points

    assert FIGURE_WIDTH * 100 <= BOOK_COLUMN_PX and SMALLEST_TEXT_PT >= 9
    assert displayed_points(SMALLEST_TEXT_PT, FIGURE_WIDTH) == SMALLEST_TEXT_PT
    assert displayed_points(8, 11) < 6 and displayed_points(15, 12) == pytest.approx(9)


def test_colours_and_keys_as_titles_name_them():
    from tgreedy_lib.plotting.style import color_name, selector_key, selector_style

    assert (color_name("tab:purple"), color_name("#d62728"), color_name("0.45")) == ("purple", "red", "gray")
    assert repr(selector_style("greedy-stepwise")) == "SelectorStyle(color='tab:orange', linestyle='-.')"
    assert selector_key(["greedy", "tgreedy-signed"]) == "red: greedy, blue: T-greedy (arg max T)"
    assert (selector_key(["greedy", "tgreedy", "tgreedy-signed"])
            == "red: greedy, blue: T-greedy (largest |T|), light blue: T-greedy (arg max T)")
