"""THE registry of feature selectors: name -> label, path function, options.

Foster, Kakade & Salakhutdinov (AISTATS 2012) compare two selectors, greedy and T-greedy
(section 3.3). Everything that runs selectors by name -- the experiments of section 4
(:mod:`tgreedy_lib.experiments`), the simulations (:mod:`.theorems.simulated_selection`), the figures
(:mod:`tgreedy_lib.plotting`) and the notebooks -- reads this registry, so a new selector is one
call::

    register_selector("first-features", label="first features", path=my_path_function)

A path function is called as ``path(stats, n_steps, **options)`` with a
:class:`~tgreedy_lib.domain_adaptation.statistics.DomainStatistics` and returns a
:class:`~tgreedy_lib.domain_adaptation.selection.SelectionPath`.

The registry holds what the algorithm needs and nothing a figure needs: how a selector is drawn
(colour, line style) is :mod:`tgreedy_lib.plotting.style`'s business
(:func:`~tgreedy_lib.plotting.style.register_selector_style`; a selector without a style is drawn in
a fallback colour), so this package never imports Matplotlib.
"""
from __future__ import annotations

import dataclasses
import types
from typing import Any, Callable, Mapping

from .baselines import icp_selection_path, omp_selection_path, t_filter_selection_path
from .selection import SelectionPath, greedy_path, tgreedy_path
from .statistics import DomainStatistics

__all__ = ["Selector", "BUILTIN_SELECTORS", "register_selector", "unregister_selector", "get_selector",
           "available_selectors"]


@dataclasses.dataclass(frozen=True)
class Selector:
    """One registered selector.

    Attributes
    ----------
    name : str
        The key used in results, JSON and function arguments (``"tgreedy"``).
    label : str
        The name shown in figures and tables (``"T-greedy"``).
    path : callable
        ``path(stats, n_steps, **options) -> SelectionPath``.
    options : mapping
        Default keyword options of ``path``.

    See Also
    --------
    register_selector : Add a selector.
    unregister_selector : Remove one.
    get_selector : Look one up by name.
    available_selectors : The registered names.
    tgreedy_lib.plotting.style.selector_style : How a selector is drawn (colour, line style).

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3 (greedy and T-greedy).

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics
    >>> from tgreedy_lib.domain_adaptation.selectors import get_selector
    >>> tgreedy = get_selector("tgreedy")
    >>> tgreedy.label, tgreedy.path.__name__
    ('T-greedy', 'tgreedy_path')
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = X[:, 3] + 0.1 * rng.standard_normal(300)
    >>> tgreedy.run(DomainStatistics.from_samples(X, y, np.arange(300) % 3), 1).features
    array([3])
    """

    name: str
    label: str
    path: Callable[..., SelectionPath]
    options: Mapping[str, Any]

    def run(self, stats: DomainStatistics, n_steps: int, **options) -> SelectionPath:
        """The selector's path on ``stats``: ``path(stats, n_steps, **{**self.options, **options})``."""
        return self.path(stats, n_steps, **{**self.options, **options})


def _builtin(name, label, path, **options) -> Selector:
    return Selector(name, label, path, types.MappingProxyType(options))


#: The built-in selectors, in the order :func:`available_selectors` lists them: the paper's two (section 3.3);
#: the two other readings of section 3.3 the reproduction runs (:mod:`tgreedy_lib.experiments.readings` says
#: which sentence each reads): the literal arg max of the signed T, and the stepwise (refit) greedy; then the
#: baselines that are paths (:mod:`.baselines`). Their colours and line styles are
#: :data:`tgreedy_lib.plotting.style.BUILTIN_SELECTOR_STYLES`.
BUILTIN_SELECTORS = (
    _builtin("greedy", "greedy", greedy_path),
    _builtin("tgreedy", "T-greedy", tgreedy_path),
    _builtin("tgreedy-signed", "T-greedy (signed T)", tgreedy_path, sign="positive"),
    _builtin("greedy-stepwise", "greedy (stepwise refit)", greedy_path, refit="stepwise"),
    _builtin("omp", "OMP (pooled)", omp_selection_path),
    _builtin("t_filter", "univariate T filter", t_filter_selection_path),
    _builtin("icp", "ICP-style filter", icp_selection_path),
)

_REGISTRY: dict[str, Selector] = {selector.name: selector for selector in BUILTIN_SELECTORS}


def register_selector(name: str, *, label: str, path: Callable[..., SelectionPath],
                      options: Mapping[str, Any] | None = None, replace: bool = False) -> Selector:
    """Register a selector under ``name`` and return it (see the module docstring).

    A name already registered is a ValueError unless ``replace=True``. The figures draw a new
    selector in a fallback colour until
    :func:`tgreedy_lib.plotting.style.register_selector_style` gives it one.

    See Also
    --------
    unregister_selector : Remove one.
    get_selector : Look one up by name.
    available_selectors : The registered names.
    Selector : What is registered.
    tgreedy_lib.plotting.style.register_selector_style : Its colour and line style in figures.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module's References), section 3.3 (greedy and T-greedy).

    Examples
    --------
    T-greedy with the paper's literal ``argmax T_i`` (``sign="positive"``) as a selector of its own,
    registered, run and removed again:

    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics, tgreedy_path
    >>> from tgreedy_lib.domain_adaptation.selectors import (
    ...     available_selectors, register_selector, unregister_selector)
    >>> positive = register_selector("tgreedy-positive", label="T-greedy (T > 0)", path=tgreedy_path,
    ...                              options={"sign": "positive"})
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 3)); y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.standard_normal(300)
    >>> stats = DomainStatistics.from_samples(X, y, np.arange(300) % 3)
    >>> positive.run(stats, 1).features, tgreedy_path(stats, 1).features  # |T| would take feature 1
    (array([0]), array([1]))
    >>> unregister_selector("tgreedy-positive")
    >>> "tgreedy-positive" in available_selectors()
    False
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a selector name must be a non-empty string, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"selector {name!r} is already registered; pass replace=True to redefine it")
    if not callable(path):
        raise ValueError(f"path must be callable as path(stats, n_steps, **options), got {path!r}")
    selector = Selector(name, label, path, types.MappingProxyType(dict(options or {})))
    _REGISTRY[name] = selector
    return selector


def unregister_selector(name: str) -> None:
    """Remove a selector registered with :func:`register_selector`.

    See Also
    --------
    register_selector : Add a selector.
    get_selector : Look one up by name.
    available_selectors : The registered names.
    Selector : What is registered.

    Examples
    --------
    >>> from tgreedy_lib.domain_adaptation.selectors import (
    ...     available_selectors, register_selector, tgreedy_path, unregister_selector)
    >>> _ = register_selector("copy", label="copy", path=tgreedy_path)
    >>> unregister_selector("copy")
    >>> "copy" in available_selectors()
    False
    """
    get_selector(name)
    del _REGISTRY[name]


def get_selector(name: str) -> Selector:
    """The selector registered under ``name``; ValueError listing the registered names otherwise.

    See Also
    --------
    register_selector : Add a selector.
    unregister_selector : Remove one.
    available_selectors : The registered names.
    Selector : What is registered.

    Examples
    --------
    >>> from tgreedy_lib.domain_adaptation.selectors import get_selector
    >>> get_selector("greedy").label
    'greedy'
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown selector {name!r}; registered: {', '.join(available_selectors())} "
            "(add one with register_selector)"
        ) from None


def available_selectors() -> tuple[str, ...]:
    """Names of the registered selectors, in order of registration.

    See Also
    --------
    register_selector : Add a selector.
    unregister_selector : Remove one.
    get_selector : Look one up by name.
    Selector : What is registered.

    Examples
    --------
    The paper's two come first, then its other two readings and the baselines that are paths
    (:mod:`tgreedy_lib.domain_adaptation.baselines`), as :data:`BUILTIN_SELECTORS` lists them:

    >>> from tgreedy_lib.domain_adaptation.selectors import available_selectors
    >>> available_selectors()[:7]
    ('greedy', 'tgreedy', 'tgreedy-signed', 'greedy-stepwise', 'omp', 't_filter', 'icp')
    """
    return tuple(_REGISTRY)
