"""Numerical checks of the papers' theorems: ``python -m tgreedy_lib verify``.

:mod:`.registry` holds the check registry (:func:`register_check`, :func:`run_checks`,
:class:`CheckResult`) and the command line; :mod:`.domain_adaptation` the checks of Foster,
Kakade & Salakhutdinov (AISTATS 2012; ids ``domains.*``) and :mod:`.categorical` those of
Sabato & Shalev-Shwartz (2008; ids ``categorical.*``). The checks call the library; the
notebooks call the library too, never these modules' internals.
"""
from __future__ import annotations

from .registry import CheckResult, available_checks, main, register_check, run_checks

__all__ = ["CheckResult", "register_check", "available_checks", "run_checks", "main"]
