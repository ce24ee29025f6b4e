"""The comparison of stopping rules and baselines (python -m tgreedy_course compare) on tiny settings."""
import json

import numpy as np
import pytest

from tgreedy_course import compare_tables
from tgreedy_lib.experiments import compare


def _split(oracle, rules):
    return {"oracle_auroc": oracle, "rules": {name: {"target_auroc": a, "k": k} for name, (a, k) in rules.items()},
            "baselines": {"omp": {"chosen_auroc": oracle - 0.02, "best_auroc": oracle, "chosen_n_selected": 3}}}


def test_summary_counts_the_splits_within_tolerance_of_the_oracle():
    splits = [_split(0.80, {"a": (0.795, 2), "b": (0.70, 1)}),
              _split(0.90, {"a": (0.85, 4), "b": (0.899, 1)}),
              _split(0.70, {"a": (0.70, 3), "b": (0.60, 1)})]
    s = compare.summarize(splits)
    assert s["rules"]["a"]["share_within"] == pytest.approx(2 / 3)
    assert s["rules"]["b"]["share_within"] == pytest.approx(1 / 3)
    assert s["rules"]["a"]["mean_gap"] == pytest.approx(np.mean([0.005, 0.05, 0.0]))
    assert s["rules"]["a"]["mean_k"] == pytest.approx(3.0)
    assert s["best_rule"] == "a" and not s["goal_met"]
    assert s["baselines"]["omp"]["mean_gap_to_tgreedy_oracle"] == pytest.approx(0.02)


def test_nested_choice_differs_from_the_hindsight_best_where_that_rule_shines():
    # Rule "a" reaches the oracle on splits 0 and 1 only, "b" on splits 2 and 3 only; in hindsight "a" wins
    # (same share, smaller mean gap). A choice that saw the scored split would pick "a" on splits 0 and 1.
    splits = [_split(0.80, {"a": (0.80, 2), "b": (0.60, 1)}),
              _split(0.80, {"a": (0.80, 2), "b": (0.75, 1)}),
              _split(0.80, {"a": (0.70, 2), "b": (0.80, 1)}),
              _split(0.80, {"a": (0.70, 2), "b": (0.80, 1)})]
    s = compare.summarize(splits)
    assert s["best_rule"] == "a" and s["hindsight"]["chosen_rules"] == ["a"] * 4
    assert s["nested"]["chosen_rules"] == ["b", "b", "a", "a"]
    assert s["nested"]["share_within"] == 0.0 and s["hindsight"]["share_within"] == pytest.approx(0.5)
    assert s["nested"]["mean_auroc"] == pytest.approx(np.mean([0.60, 0.75, 0.70, 0.70]))
    assert s["nested"]["times_chosen"] == {"b": 2, "a": 2}


def test_nested_choice_for_a_split_never_reads_that_split():
    rng = np.random.default_rng(0)
    names = ["r0", "r1", "r2", "r3"]
    for _ in range(20):
        n = int(rng.integers(2, 9))
        oracle = rng.uniform(0.6, 0.9, n)
        auroc = {name: list(oracle - rng.choice([0.0, 0.005, 0.02, 0.1], n)) for name in names}
        chosen = compare.choose_rule_on_other_splits(auroc, oracle)
        for i in range(n):
            for favourite in names:  # make split i as favourable as possible to one rule, and to no other
                changed = {name: list(v) for name, v in auroc.items()}
                new_oracle = oracle.copy()
                new_oracle[i] = 0.99
                for name in names:
                    changed[name][i] = 0.99 if name == favourite else 0.01
                assert compare.choose_rule_on_other_splits(changed, new_oracle)[i] == chosen[i]


def test_nested_choice_needs_two_splits_and_matching_scores():
    with pytest.raises(ValueError, match="at least 2 splits"):
        compare.choose_rule_on_other_splits({"a": [0.7]}, [0.8])
    with pytest.raises(ValueError, match="same splits|oracle's 2 splits"):
        compare.choose_rule_on_other_splits({"a": [0.7, 0.6], "b": [0.7]}, [0.8, 0.8])
    with pytest.raises(ValueError, match="no rules"):
        compare.choose_rule_on_other_splits({}, [0.8, 0.8])
    with pytest.raises(ValueError, match="finite"):
        compare.choose_rule_on_other_splits({"a": [0.7, float("nan")]}, [0.8, 0.8])
    one = compare.summarize([_split(0.8, {"a": (0.8, 1)})])
    assert one["nested"] is None and one["hindsight"]["chosen_rules"] == ["a"]


def test_pooled_nested_choice_is_made_within_each_experiment():
    # Experiment 1 prefers "a", experiment 2 (three times as many splits) prefers "b": choosing across the pooled
    # splits would give "b" everywhere; within experiments, experiment 1 keeps "a".
    one = [_split(0.8, {"a": (0.8, 1), "b": (0.7, 2)}) for _ in range(3)]
    two = [_split(0.8, {"a": (0.7, 1), "b": (0.8, 2)}) for _ in range(9)]
    experiments = {"one": {"splits": one}, "two": {"splits": two}}
    pooled = compare.pooled_summary(experiments)
    assert pooled["nested"]["chosen_rules"] == ["a"] * 3 + ["b"] * 9
    assert compare.summarize(one + two)["nested"]["chosen_rules"] == ["b"] * 12
    assert pooled["hindsight"]["times_chosen"] == {"a": 3, "b": 9} and pooled["best_rule"] == "b"
    assert pooled["nested"]["share_within"] == 1.0


def test_method_table_stops_every_method_by_the_same_procedure():
    splits = [_split(0.80, {"lodo": (0.78, 2), "all_steps": (0.80, 5)}),
              _split(0.90, {"lodo": (0.86, 3), "all_steps": (0.90, 5)})]
    experiments = {"toy": {"splits": splits, "summary": compare.summarize(splits)}}
    table = compare_tables.method_table_markdown(experiments)
    rows = [line for line in table.splitlines() if line.startswith("| toy |")]
    assert rows[0].startswith(f"| toy | {compare_tables.METHOD_NAMES['tgreedy'].row} | 0.820 ± 0.057 | 2.5 |")  # lodo, not the best
    assert len(rows) == 2 and "best rule" not in table and "all_steps" not in table
    rules = compare_tables.rule_table_markdown(experiments)
    assert "(descriptive)" not in rules and "read in hindsight" in rules and "not a method" in rules and f"**{compare_tables.NESTED_LABEL}**" in rules


def test_every_method_of_the_comparison_has_one_name_for_sentences_and_one_for_the_table():
    """One table names the methods: the method table's rows and notebook 09's sentences read the same entry."""
    assert list(compare_tables.METHOD_NAMES) == ["tgreedy", *compare.BASELINES]
    assert all(n.prose and n.row.endswith("by LODO") for n in compare_tables.METHOD_NAMES.values())
    splits = [_split(0.80, {"lodo": (0.78, 2)}), _split(0.90, {"lodo": (0.86, 3)})]
    summary = compare.summarize(splits)
    summary["baselines"] = {b: {"mean_auroc": 0.5, "sd_auroc": 0.1, "mean_n_selected": 3.0, "mean_best_auroc": 0.6,
                                "mean_gap_to_tgreedy_oracle": 0.3} for b in compare.BASELINES}
    table = compare_tables.method_table_markdown({"toy": {"splits": splits, "summary": summary}})
    assert [line.split(" | ")[1] for line in table.splitlines()[2:]] == [n.row for n in compare_tables.METHOD_NAMES.values()]


def test_score_split_oracle_is_the_best_target_auroc_and_rules_read_the_same_curve():
    split = next(compare.simulated_splits(n_domains=5, n_splits=1, seed=3))
    result = compare.score_split(split, 6, baselines=("omp", "t_filter"))
    curve = np.array(result["tgreedy_target_auroc"])
    assert result["oracle_auroc"] == pytest.approx(curve.max())
    assert result["oracle_k"] == 1 + int(np.argmax(curve))
    for name, r in result["rules"].items():
        expected = 0.5 if r["k"] == 0 else curve[r["k"] - 1]
        assert r["target_auroc"] == pytest.approx(expected), name
        assert r["gap"] >= -1e-12
    assert result["rules"]["all_steps"]["k"] == 6


def test_compare_writes_json_and_markdown(tmp_path):
    payload = compare_tables.run_compare(["simulated-n4"], quick=True, baselines=("omp",))
    assert len(payload["experiments"]["simulated-n4"]["splits"]) == compare.QUICK["simulated-n4"]["n_splits"]
    json_path, md_path = compare_tables.write_results(payload, tmp_path)
    back = json.loads(json_path.read_text())
    summary = back["experiments"]["simulated-n4"]["summary"]
    assert summary["best_rule"] in compare.RULES and set(summary["nested"]["chosen_rules"]) <= set(compare.RULES)
    text = md_path.read_text()
    assert "| simulated, 4 domains |" in text and "share within 0.01" in text and compare_tables.NESTED_LABEL in text
    assert "issue" not in text.lower() and "goal" not in text.lower()


def test_unknown_experiment_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown experiment"):
        compare.run_compare_experiment("imagenet")


def test_cached_subsets_are_taken_once_and_leave_the_results_unchanged():
    split = next(compare.simulated_splits(n_domains=4, n_splits=1, seed=5))
    cached = compare._with_cached_subsets(split.stats)
    assert cached.subset([0, 1, 2]) is cached.subset(np.array([0, 1, 2]))
    np.testing.assert_array_equal(cached.subset([0, 2, 3]).xx, split.stats.subset([0, 2, 3]).xx)
    assert not hasattr(split.stats.__dict__, "subset") and "subset" not in vars(split.stats)


def test_default_feature_maps_are_each_data_sets_learned_features(monkeypatch):
    from tgreedy_lib import features

    monkeypatch.setattr(features, "load_features", lambda dataset, **kw: object())
    assert compare.default_feature_map("mnist") == "dbn"
    assert compare.default_feature_map("cifar10") == "conv"

    def missing(dataset, **kw):
        raise LookupError("not cached")

    monkeypatch.setattr(features, "load_features", missing)
    assert compare.default_feature_map("mnist") == "random"


def test_readme_block_is_rendered_from_the_payload_and_replaced_in_place(tmp_path):
    payload = compare_tables.run_compare(["simulated-n4"], quick=True, baselines=("omp",))
    block = compare_tables.readme_tables(payload)
    assert block.startswith("Quick settings, seed 0") and "| simulated, 4 domains |" in block
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{compare_tables.README_BEGIN}\nold\n{compare_tables.README_END}\nafter\n")
    assert compare_tables.update_readme(readme, payload)
    assert readme.read_text() == f"intro\n{compare_tables.README_BEGIN}\n{block}\n{compare_tables.README_END}\nafter\n"
    assert not compare_tables.update_readme(readme, payload)
    (tmp_path / "plain.md").write_text("no block")
    with pytest.raises(ValueError, match="no <!-- compare-tables:begin -->"):
        compare_tables.update_readme(tmp_path / "plain.md", payload)


def test_committed_paper_scale_tables_are_complete_and_quoted_in_the_readme():
    import pathlib

    reference = compare_tables.load_reference()
    if reference is None:
        pytest.skip("no paper-scale compare results committed")
    assert not any(e["quick"] for e in reference["experiments"].values())
    for name, e in reference["experiments"].items():
        assert e["n_steps"] == compare.PAPER[name]["n_steps"]
        assert e["summary"] == compare.summarize(e["splits"])
        if not name.startswith("simulated"):
            assert e["data"]["feature_map"] == {"mnist": "dbn", "cifar10": "conv"}[e["data"]["dataset"]]
    assert reference["pooled"] == compare.pooled_summary(reference["experiments"])
    page = (pathlib.Path(__file__).resolve().parent.parent / "book" / "_generated" / "compare-tables.md").read_text()
    assert compare_tables.readme_tables(reference) in page, \
        "run compare_tables.update_readme('book/_generated/compare-tables.md', compare_tables.load_reference())"


# ------------------------------------------------------------------ options checked, memory bounded, progress



@pytest.mark.parametrize("overrides,match", [
    ({"n_stpes": 5}, r"unknown setting 'n_stpes' for simulated-n4; its settings are n_domains, n_splits, n_steps"),
    ({"n_splits": 0}, r"n_splits must be an integer in \[1, inf\), got 0"),
    ({"n_domains": 2}, r"n_domains must be an integer in \[3, inf\)"),
    ({"n_steps": 10**6}, r"n_steps=1000000 exceeds the 50 features of simulated-n4"),
    ({"n_steps": 0}, r"n_steps must be an integer in \[1, inf\)"),
    ({"n_steps": 2.5}, r"n_steps must be an integer"),
    ({"targets": (3,)}, r"unknown setting 'targets' for simulated-n4"),
    ({"baselines": ("omp", "lassso")}, r"unknown baseline 'lassso'; choose from greedy, omp, lasso"),
    ({"baselines": ("omp", "omp")}, r"baseline 'omp' is named twice"),
    ({"baselines": "omp"}, r"baselines must be a sequence of names"),
    ({"seed": -1}, r"seed must be an integer in \[0, inf\)"),
])
def test_every_option_of_the_comparison_is_checked_before_it_runs(overrides, match):
    with pytest.raises(ValueError, match=match):
        compare.run_compare_experiment("simulated-n4", quick=True, **overrides)


def test_the_settings_recorded_are_the_settings_that_ran():
    result = compare.run_compare_experiment("simulated-n4", quick=True, n_splits=1, n_steps=4,
                                            baselines=("t_filter",), progress=False)
    assert result["n_steps"] == 4 and len(result["splits"]) == 1
    assert all(len(s["tgreedy_target_auroc"]) == 4 for s in result["splits"])


def test_score_split_refuses_more_steps_than_features():
    split = next(compare.simulated_splits(n_domains=4, n_splits=1, seed=1))
    with pytest.raises(ValueError, match="n_steps=51 exceeds the 50 features"):
        compare.score_split(split, 51, baselines=())


def test_cached_subsets_stay_within_their_budget():
    split = next(compare.simulated_splits(n_domains=6, n_splits=1, seed=5))
    one = compare._subset_bytes(split.stats, 5)
    cached = compare._with_cached_subsets(split.stats, budget=2 * one)
    labels = split.stats.domain_labels.tolist()
    subsets = [cached.subset([lab for lab in labels if lab != k]) for k in labels]
    again = [cached.subset([lab for lab in labels if lab != k]) for k in labels]
    assert sum(a is b for a, b in zip(subsets, again)) == 2          # two kept, the other four taken afresh
    np.testing.assert_array_equal(again[5].xx, split.stats.subset(labels[:5]).xx)


def test_the_comparison_reports_progress_to_a_callable_and_by_default_on_long_runs(capsys, monkeypatch):
    lines = []
    compare.run_compare_experiment("simulated-n4", quick=True, n_splits=2, n_steps=3, baselines=("t_filter",),
                                   progress=lines.append)
    assert [line.strip().split(":")[1].split(" done")[0].strip() for line in lines] == ["repeat 0", "repeat 1"]
    monkeypatch.setattr(compare, "QUIET_SECONDS", 0.0)
    compare.run_compare_experiment("simulated-n4", quick=True, n_splits=1, n_steps=3, baselines=("t_filter",))
    assert "simulated-n4: repeat 0 done" in capsys.readouterr().err


def test_a_simulated_split_scores_every_rule_at_or_below_the_oracle():
    from tgreedy_lib.experiments import compare as scoring

    split = next(scoring.simulated_splits(n_domains=6, n_splits=1, seed=0))
    result = scoring.score_split(split, 5, baselines=("t_filter",))
    assert sorted(result["rules"]) == sorted(scoring.RULES)
    assert result["oracle_auroc"] >= max(r["target_auroc"] for r in result["rules"].values())
    assert scoring.choose_rule_on_other_splits({"a": [0.9, 0.5, 0.5], "b": [0.5, 0.6, 0.6]},
                                               [0.9, 0.6, 0.6]) == ["b", "a", "a"]
