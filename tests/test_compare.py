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
    payload = compare.run_compare(["simulated-n4"], quick=True, baselines=("omp",))
    block = compare.readme_tables(payload)
    assert block.startswith("Quick settings, seed 0") and "| simulated-n4 |" in block
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{compare.README_BEGIN}\nold\n{compare.README_END}\nafter\n")
    assert compare.update_readme(readme, payload)
    assert readme.read_text() == f"intro\n{compare.README_BEGIN}\n{block}\n{compare.README_END}\nafter\n"
    assert not compare.update_readme(readme, payload)
    (tmp_path / "plain.md").write_text("no block")
    with pytest.raises(ValueError, match="no <!-- compare-tables:begin -->"):
        compare.update_readme(tmp_path / "plain.md", payload)


def test_committed_paper_scale_tables_are_complete_and_quoted_in_the_readme():
    import pathlib

    reference = compare.load_reference()
    if reference is None:
        pytest.skip("no paper-scale compare results committed")
    assert not any(e["quick"] for e in reference["experiments"].values())
    for name, e in reference["experiments"].items():
        assert e["n_steps"] == compare.PAPER[name]["n_steps"]
        assert e["summary"] == compare.summarize(e["splits"])
        if not name.startswith("simulated"):
            assert e["data"]["feature_map"] == {"mnist": "dbn", "cifar10": "conv"}[e["data"]["dataset"]]
    assert reference["pooled"] == compare.pooled_summary(reference["experiments"])
    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert compare.readme_tables(reference) in readme, "run compare.update_readme('README.md', compare.load_reference())"
