"""Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical Approach* (AISTATS 2012).

==================================  ================================================================
:mod:`.statistics`                  section 2: per-domain moments E[XY|d], E[XX^T|d]
                                    (:class:`DomainStatistics`) and the T-statistic
:mod:`._gram_rows`                  the Gram rows E[X_i X^T|d] on demand: sources, memory budget
:mod:`.selection`                   section 3.3: greedy and T-greedy paths (:func:`tgreedy_path`,
                                    :func:`greedy_path`), one driver over two kernels
                                    (:mod:`._stagewise`, :mod:`._stepwise`)
:mod:`.estimators`                  the scikit-learn selectors :class:`TGreedy`, :class:`Greedy`
:mod:`.stopping`                    section 5: when to stop adding features
:mod:`.lodo`                        section 5: the paths refitted without each domain
:mod:`.selectors`                   the selector registry (name, label, path function, options),
                                    the built-in selectors in one table
:mod:`.baselines`                   other selection methods on the same statistics
:mod:`.evaluation`                  exact AUROC and scores along a path
:mod:`.theorems`                    Theorems 1-2, Corollary 3 and the simulated domains
==================================  ================================================================

The subpackages are imported by name; this package imports none of them, so that
``import tgreedy_lib.domain_adaptation.theorems.simulate`` does not pay for scikit-learn.
"""
