"""Numerical checks of the papers' theorems (``python -m tgreedy_course verify`` runs them).

:mod:`.registry` holds the checks by id and runs them, :mod:`.result` their outcome; :mod:`.domains_checks` checks
Foster, Kakade & Salakhutdinov (ids ``domains.*``), :mod:`.categorical_checks` Sabato & Shalev-Shwartz (ids
``categorical.*``); :mod:`.command` is the command line and the README's table.
"""
from __future__ import annotations

from .registry import BUILTIN_CHECKS, available_checks, register_check, run_checks  # noqa: F401
from .result import CheckResult, exact  # noqa: F401
