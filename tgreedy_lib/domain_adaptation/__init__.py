"""Foster, Kakade & Salakhutdinov's domain adaptation (each module cites the paper): :mod:`.statistics` (section 2,
the per-domain moments and the T-statistic; the Gram-row engine :mod:`._gram_rows` behind them), :mod:`.selection`
(section 3.3, the greedy and T-greedy loop), :mod:`.estimators` (the scikit-learn selectors), :mod:`.stopping`
(section 5), :mod:`.selectors` (the registry), :mod:`.baselines`, :mod:`.evaluation` and :mod:`.theory`
(Theorems 1-2, Corollary 3, simulations). This package imports none of them.
"""
