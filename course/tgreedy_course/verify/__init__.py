"""Numerical checks of the papers' theorems (``python -m tgreedy_course verify``): :mod:`.registry` runs them by id,
:mod:`.domains_checks` (``domains.*``) and :mod:`.categorical_checks` (``categorical.*``) hold them."""
from __future__ import annotations

from .registry import BUILTIN_CHECKS, available_checks, register_check, run_checks  # noqa: F401
from .result import CheckResult, exact  # noqa: F401
