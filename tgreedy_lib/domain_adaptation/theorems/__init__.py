"""The theory of Foster, Kakade & Salakhutdinov (AISTATS 2012): Theorems 1-2, Corollary 3, simulations.

==================================  ================================================================
:mod:`.simulate`                    symmetric laws of the domain effects, :class:`DomainProblem`,
                                    :func:`make_problem` (the simulated worlds of the notebooks)
:mod:`.self_normalized`             Theorem 2 (appendix): exact tails of (sum Z)^2 / sum Z^2
:mod:`.t_bounds`                    Theorem 1 and Corollary 3: the uniform T-statistic bound
:mod:`.simulated_selection`         greedy and T-greedy on simulated domains (section 3.3)
==================================  ================================================================
"""
