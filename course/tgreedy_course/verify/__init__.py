"""Numerical checks of the papers' theorems (``python -m tgreedy_course verify`` runs them).

:mod:`.registry` holds the checks by id (:data:`~.registry.BUILTIN_CHECKS`, :func:`register_check`,
:func:`run_checks`), :mod:`.result` their outcome (:class:`CheckResult`); :mod:`.domain_adaptation` holds
the checks of Foster, Kakade & Salakhutdinov (AISTATS 2012; ids ``domains.*``) and :mod:`.categorical`
those of Sabato & Shalev-Shwartz (2008; ids ``categorical.*``). The checks call the library; the
notebooks call the library too, never these modules' internals. The command line and the README's
table are the collection's (:mod:`tgreedy_course.verify.command`).
"""
from __future__ import annotations

from .registry import BUILTIN_CHECKS, CheckResult, available_checks, exact, register_check, run_checks

__all__ = ["CheckResult", "BUILTIN_CHECKS", "register_check", "available_checks", "run_checks", "exact"]
