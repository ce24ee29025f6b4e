"""Numerical checks of the papers' theorems: ``python -m tgreedy_lib verify``.

:mod:`.registry` holds the check registry (:func:`register_check`, :func:`run_checks`,
:class:`CheckResult`) and the command line; :mod:`.domain_adaptation` the checks of Foster,
Kakade & Salakhutdinov (AISTATS 2012; ids ``domains.*``) and :mod:`.categorical` those of
Sabato & Shalev-Shwartz (2008; ids ``categorical.*``). The checks call the library; the
notebooks call the library too, never these modules' internals.
"""
from __future__ import annotations

from .registry import (README_BEGIN, README_END, CheckResult, available_checks, exact, main, markdown_table,
                       register_check, run_checks, update_readme)

__all__ = ["CheckResult", "register_check", "available_checks", "run_checks", "main", "exact",
           "markdown_table", "update_readme", "README_BEGIN", "README_END"]
