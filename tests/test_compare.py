"""The comparison of stopping rules and baselines (python -m tgreedy_lib compare) on tiny settings."""
import json

import numpy as np
import pytest

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
    payload = compare.run_compare(["simulated-n4"], quick=True, baselines=("omp",))
    assert len(payload["experiments"]["simulated-n4"]["splits"]) == compare.QUICK["simulated-n4"]["n_splits"]
    json_path, md_path = compare.write_results(payload, tmp_path)
    back = json.loads(json_path.read_text())
    assert back["experiments"]["simulated-n4"]["summary"]["best_rule"] in compare.RULES
    text = md_path.read_text()
    assert "| simulated-n4 |" in text and "share within 0.01" in text


def test_unknown_experiment_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown experiment"):
        compare.run_compare_experiment("imagenet")
