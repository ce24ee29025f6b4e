"""The registry of feature selectors: name -> label, path function, default options.

The paper compares greedy and T-greedy (section 3.3). Everything that runs selectors by name (the
experiments of section 4, the simulations, the figures, the notebooks) reads this registry, so a new
selector is one call::

    register_selector("first-features", label="first features", path=my_path_function)

A path function is called as ``path(stats, n_steps, **options)`` with a
:class:`~tgreedy_lib.domain_adaptation.statistics.DomainStatistics` and returns a
:class:`~tgreedy_lib.domain_adaptation.selection.SelectionPath`. The built-in baselines are named by
module and loaded on first use. How a selector is drawn is :mod:`tgreedy_lib.plotting.style`'s business.
"""
from __future__ import annotations

import dataclasses
import importlib
import types
from typing import Any, Callable, Mapping

from .selection import SelectionPath, greedy_path, tgreedy_path
from .statistics import DomainStatistics

__all__ = ["Selector", "BUILTIN_SELECTORS", "register_selector", "unregister_selector", "get_selector",
           "available_selectors"]


@dataclasses.dataclass(frozen=True)
class Selector:
    """One registered selector: ``name`` (results, JSON, arguments), ``label`` (figures, tables), ``path``
    (``path(stats, n_steps, **options) -> SelectionPath``) and its default ``options``.

    Examples
    --------
    >>> import numpy as np
    >>> from tgreedy_lib import DomainStatistics, get_selector
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
        """``path(stats, n_steps, **{**self.options, **options})``."""
        return self.path(stats, n_steps, **{**self.options, **options})


def _builtin(name, label, path, **options) -> Selector:
    return Selector(name, label, path, types.MappingProxyType(options))


def _loaded_on_first_use(module: str, function: str) -> Callable[..., SelectionPath]:
    """``module.function`` (relative to this package), imported when first called."""
    def path(stats, n_steps, **options):
        return getattr(importlib.import_module(module, __package__), function)(stats, n_steps, **options)

    path.__name__ = path.__qualname__ = function
    return path


#: The built-in selectors, in the order :func:`available_selectors` lists them: the paper's two; the two
#: other readings of section 3.3 the reproduction runs (:mod:`tgreedy_lib.experiments.readings`); then the
#: baselines that are paths (:mod:`.baselines`).
BUILTIN_SELECTORS = (
    _builtin("greedy", "greedy", greedy_path),
    _builtin("tgreedy", "T-greedy", tgreedy_path),
    _builtin("tgreedy-signed", "T-greedy (signed T)", tgreedy_path, sign="positive"),
    _builtin("greedy-stepwise", "greedy (stepwise refit)", greedy_path, refit="stepwise"),
    _builtin("omp", "OMP (pooled)", _loaded_on_first_use(".baselines", "omp_selection_path")),
    _builtin("t_filter", "univariate T filter", _loaded_on_first_use(".baselines", "t_filter_selection_path")),
    _builtin("icp", "ICP-style filter", _loaded_on_first_use(".baselines", "icp_selection_path")),
)

_REGISTRY: dict[str, Selector] = {selector.name: selector for selector in BUILTIN_SELECTORS}


def register_selector(name: str, *, label: str, path: Callable[..., SelectionPath],
                      options: Mapping[str, Any] | None = None, replace: bool = False) -> Selector:
    """Register a selector under ``name`` and return it; a name already registered needs ``replace=True``.

    Examples
    --------
    T-greedy with the paper's literal ``argmax T_i`` as a selector of its own, registered, run and removed:

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
    """Remove a selector registered with :func:`register_selector`."""
    get_selector(name)
    del _REGISTRY[name]


def get_selector(name: str) -> Selector:
    """The selector registered under ``name``; ValueError listing the registered names otherwise."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown selector {name!r}; registered: {', '.join(available_selectors())} "
            "(add one with register_selector)"
        ) from None


def available_selectors() -> tuple[str, ...]:
    """Names of the registered selectors, in order of registration (:data:`BUILTIN_SELECTORS` first)."""
    return tuple(_REGISTRY)
