"""Ranking categorical features by the generalization error of a predictor.

Sabato & Shalev-Shwartz, "Ranking Categorical Features Using Generalization Properties",
Journal of Machine Learning Research 9 (2008), the paper with the SSN example. A feature ``X``
takes values in a finite set ``V`` with ``p_v = Pr[X = v]`` and ``q_v = Pr[Y = 1 | X = v]``; a
training set of ``m`` examples gives the counts ``c_v`` (examples with ``X = v``) and ``c_v^+``
(those of them labelled 1). Training-set filters such as the Gini index score a feature by how
well it fits the sample, and an identifier fits any sample perfectly; the paper's estimator
(Eqs. 9-11) scores it by the generalization error of the Gini hypothesis instead.

Values are coded ``0 .. |V|-1`` and count arrays hold one entry per value along the last axis,
so that one call handles a 2-D array of counts (features or samples x values); zero-padded
values change no filter. Labels are 0/1 (booleans accepted). ``m = 1`` is allowed (the estimate
is then 1/2); ``m = 0`` is a ValueError.

==========================  ===============================================================
:mod:`.counts`              the count tables and the checks of every input (section 2)
:mod:`.gini_estimator`      the estimator, h_Gini, h_Bayes and their errors (Eqs. 4-11)
:mod:`.filters`             the training-set filters, all features at once (Eqs. 2-3)
:mod:`.expectations`        exact expectations over training sets; Theorems 1 and 3
:mod:`.theorem_bounds`      the explicit bounds of Theorems 2 and 4; Lemma 11 exactly
:mod:`.populations`         the SSN example and the families that test Theorems 2 and 4
==========================  ===============================================================

Every public name below is importable from this package and loads its module on first use, so
that ``from tgreedy_lib.categorical import gini_error_estimate`` reads only the estimator.
"""
from .. import lazy_attributes

_MODULES = {
    "counts": "count_table count_tables sample_counts estimated_probabilities",
    "gini_estimator": "gini_error_estimate gini_error_estimate_leave_one_out gini_error_estimate_pairs "
                      "gini_hypothesis bayes_hypothesis generalization_error bayes_optimal_error missing_mass",
    "filters": "misclassification_error gini_index information_gain gain_ratio filter_scores feature_ranking "
               "FILTERS LARGER_IS_BETTER",
    "expectations": "count_probabilities expected_missing_mass expected_gini_estimate expected_gini_estimate_eq14 "
                    "expected_gini_error gini_estimate_bias symmetric_rule_table bayes_rule_table gini_rule_table "
                    "smoothed_rule_table random_symmetric_table expected_symmetric_error expected_bayes_error "
                    "bayes_regret_per_count per_count_regret_maximum bias_bound_coefficients bayes_bias_bound "
                    "bayes_error_decomposition",
    "theorem_bounds": "lemma3_bound lemma7_bound theorem2_bound lemma8_bound lemma9_bound lemma12_bound lemma13_bound "
                      "theorem4_bound lemma11_bound lemma11_exceedance lemma11_deviation_quantile first_m_below "
                      "estimator_bounded_difference",
    "populations": "CategoricalPopulation ssn_population flag_versus_code_population ranking_study FAMILIES "
                   "distribution_family simulate_deviations",
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names.split()}

__all__ = list(_EXPORTS)


__getattr__, __dir__ = lazy_attributes(__name__, _EXPORTS, globals())
