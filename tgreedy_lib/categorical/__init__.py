"""Ranking categorical features by the generalization error of a predictor.

Sabato & Shalev-Shwartz, *Ranking Categorical Features Using Generalization Properties*,
JMLR 9 (2008), the paper with the SSN example: a feature ``X`` takes values in
a finite set ``V`` with ``p_v = Pr[X = v]`` and ``q_v = Pr[Y = 1 | X = v]``. A
training set ``S`` of ``m`` examples gives the counts ``c_v`` (examples with
``X = v``) and ``c_v^+`` (those of them labelled 1).

Conventions used throughout
---------------------------
* A feature's values are coded ``0 .. |V|-1``; count arrays hold one entry per
  value, along the **last axis**, so that a 2-D array of counts (features x
  values, or samples x values) is handled in one call. Zero-padded values
  (``c_v = 0``) contribute nothing to any training-set filter.
* Labels are 0/1 (booleans accepted); anything else is a ``ValueError``.
* ``m = 1`` is allowed: the estimator of Eq. (9) is then the constant 1/2 (the
  only example is a value seen once), which is degenerate but defined. An empty
  sample (``m = 0``) is a ``ValueError``.

What is here
------------
* :mod:`.counts`: the count tables ``c_v, c_v^+`` of one or many features, sampled counts, the
  empirical ``p_hat_v, q_hat_v`` (section 2).
* :mod:`.filters`: training-set filters: misclassification error (Eq. 2), Gini index (Eq. 3),
  information gain and Quinlan's gain ratio, all features at once (:func:`filter_scores`).
* :mod:`.gini_estimator`: the hypotheses h_Gini (Eq. 5) and h_Bayes (Eq. 7), the generalization
  error of any hypothesis (Eq. 4), the missing masses ``M_k`` (Eq. 8) and the paper's estimator of
  the Gini hypothesis' generalization error (Eqs. 9-11), with the leave-one-out / pairwise reading
  of Eq. (10) computed independently (section 3).
* :mod:`.theory`: exact expectations over training sets (binomial sums with
  :data:`scipy.stats.binom`): E[l_hat] (Lemma 1, Eq. 14), E[l(h_Gini)] (Lemma 2), E[l(h_Bayes)]
  and of any symmetric hypothesis (Thm. 3), E[M_k]; the explicit constants of the proofs of
  Theorems 2 and 4 (Lemmas 3, 7-9, 11-13), so that they can be compared with simulations
  (section 4).
* :mod:`.populations`: simulated populations, the SSN example (section 1, notebook 01), and the
  families of distributions whose simulated training sets test Theorems 2 and 4 (notebook 02).
* :mod:`.theory` also holds the numerical searches of Theorem 3 (the per-count maximum of the
  majority vote's excess error) and Lemma 3 (the estimator's bounded difference).

Every public name is importable from this package (``from tgreedy_lib import categorical as cat``).
"""
from __future__ import annotations

from .counts import (
    count_table,
    count_tables,
    sample_counts,
    estimated_probabilities,
)
from .filters import (
    misclassification_error,
    gini_index,
    information_gain,
    gain_ratio,
    filter_scores,
    feature_ranking,
    FILTERS,
    LARGER_IS_BETTER,
)
from .gini_estimator import (
    gini_error_estimate,
    gini_error_estimate_leave_one_out,
    gini_error_estimate_pairs,
    gini_hypothesis,
    bayes_hypothesis,
    generalization_error,
    bayes_optimal_error,
    missing_mass,
)
from .theory import (
    count_probabilities,
    expected_missing_mass,
    expected_gini_estimate,
    expected_gini_estimate_eq14,
    expected_gini_error,
    gini_estimate_bias,
    expected_bayes_error,
    expected_symmetric_error,
    symmetric_rule_table,
    bayes_rule_table,
    gini_rule_table,
    smoothed_rule_table,
    bayes_regret_per_count,
    bayes_bias_bound,
    lemma3_bound,
    lemma7_bound,
    theorem2_bound,
    lemma8_bound,
    lemma9_bound,
    lemma11_bound,
    lemma11_exceedance,
    lemma11_deviation_quantile,
    lemma12_bound,
    lemma13_bound,
    theorem4_bound,
    bayes_error_decomposition,
    first_m_below,
    per_count_regret_maximum,
    bias_bound_coefficients,
    random_symmetric_table,
    estimator_bounded_difference,
)
from .populations import (
    CategoricalPopulation,
    ssn_population,
    flag_versus_code_population,
    ranking_study,
    FAMILIES,
    distribution_family,
    simulate_deviations,
)

__all__ = [
    "count_table",
    "count_tables",
    "sample_counts",
    "estimated_probabilities",
    "misclassification_error",
    "gini_index",
    "information_gain",
    "gain_ratio",
    "gini_error_estimate",
    "gini_error_estimate_leave_one_out",
    "gini_error_estimate_pairs",
    "filter_scores",
    "feature_ranking",
    "FILTERS",
    "LARGER_IS_BETTER",
    "gini_hypothesis",
    "bayes_hypothesis",
    "generalization_error",
    "bayes_optimal_error",
    "missing_mass",
    "count_probabilities",
    "expected_missing_mass",
    "expected_gini_estimate",
    "expected_gini_estimate_eq14",
    "expected_gini_error",
    "gini_estimate_bias",
    "expected_bayes_error",
    "expected_symmetric_error",
    "symmetric_rule_table",
    "bayes_rule_table",
    "gini_rule_table",
    "smoothed_rule_table",
    "bayes_regret_per_count",
    "bayes_bias_bound",
    "lemma3_bound",
    "lemma7_bound",
    "theorem2_bound",
    "lemma8_bound",
    "lemma9_bound",
    "lemma11_bound",
    "lemma11_exceedance",
    "lemma11_deviation_quantile",
    "lemma12_bound",
    "lemma13_bound",
    "theorem4_bound",
    "CategoricalPopulation",
    "ssn_population",
    "flag_versus_code_population",
    "ranking_study",
    "bayes_error_decomposition",
    "first_m_below",
    "per_count_regret_maximum",
    "bias_bound_coefficients",
    "random_symmetric_table",
    "estimator_bounded_difference",
    "FAMILIES",
    "distribution_family",
    "simulate_deviations",
]
