"""The sentences that end notebooks 07, 08, 08b and 11 say what the values say, and name every claim once."""
from __future__ import annotations

import numpy as np
import pytest

from tgreedy_course import reference as committed
from tgreedy_course.summary import claim_data, claim_rows, verdict_headline
from tgreedy_course.claims import CLAIMS
from tgreedy_course.seeds import load_reference


def _two_vs_other(share_won, share_gap=0.2, t_median=0.1, g_median=3.0, lowest=0.95):
    return [
        {"id": "fig2.target_better", "verdict": "x", "values": {"splits_won": round(9 * share_won), "splits": 9,
                                                                 "share_won": share_won}},
        {"id": "fig2.overfits_less", "verdict": "x", "values": {"splits_won": round(9 * share_gap), "splits": 9,
                                                                 "share_won": share_gap}},
        {"id": "fig2.t_higher", "verdict": "x", "values": {"share_higher": 0.1, "median_tgreedy": t_median,
                                                            "median_greedy": g_median}},
        {"id": "fig2.greedy_random", "verdict": "x", "values": {"after_1": 0.9, "after_4": 0.9, "lowest_3_to_5": lowest}},
    ]


@pytest.mark.parametrize("share, words", [(1 / 9, "worse than greedy in most splits"),
                                          (7 / 9, "better than greedy in most splits")])
def test_the_transfer_sentence_follows_the_share_of_splits_won(share, words):
    text = "\n".join(committed.two_vs_other_findings(_two_vs_other(share)))
    assert words in text
    assert f"in {round(9 * share)} of 9 splits" in text


def test_the_t_sentence_and_the_collapse_sentence_follow_the_values():
    small = "\n".join(committed.two_vs_other_findings(_two_vs_other(0.2), runs_out_at=7))
    assert "smaller |T| than greedy's" in small and "from step 7" in small and "does not collapse" in small
    large = "\n".join(committed.two_vs_other_findings(_two_vs_other(0.2, t_median=4.0, lowest=0.52)))
    assert "larger |T| than greedy's" in large and "as the paper says" in large and "collapses" in large


def test_a_claim_that_did_not_run_gives_no_sentence():
    claims = [{"id": "fig2.target_better", "verdict": "not run", "values": {}}]
    assert committed.two_vs_other_findings(claims) == []


def test_every_claim_has_a_data_label_and_repeated_quotes_are_told_apart():
    labels = {c.id: claim_data(c.id) for c in CLAIMS}
    assert all(labels.values())
    by_quote = {}
    for c in CLAIMS:
        by_quote.setdefault(c.quote, []).append(labels[c.id])
    repeated = [v for v in by_quote.values() if len(v) > 1]
    assert repeated and all(len(set(v)) == len(v) for v in repeated)


def test_the_committed_reference_is_summarised_claim_by_claim():
    reference = load_reference()
    if reference is None:
        pytest.skip("no committed reference results")
    claims = reference["claims"]["comparisons"]["paper"]
    text = "\n".join(committed.seed_findings(reference))
    for claim in claims:
        assert text.count(f"`{claim['id']}`") == 1, claim["id"]
    headline = verdict_headline(reference["claims"]["claims"])
    assert headline.startswith(f"Of {len(reference['claims']['claims'])} experimental claims")
    counts = {v: sum(c["verdict"] == v for c in reference["claims"]["claims"]) for v in ("reproduced", "unsettled")}
    verb = "is" if counts["reproduced"] == 1 else "are"
    assert f"{counts['reproduced']} {verb} reproduced" in headline and f"{counts['unsettled']} unsettled" in headline
    rows = claim_rows(reference["claims"]["claims"])
    assert len({(r[1], r[2]) for r in rows}) == len(rows)


def test_reading_findings_name_only_claims_whose_verdict_moves():
    reference = load_reference()
    if reference is None:
        pytest.skip("no committed reference results")
    comparisons = reference["claims"]["comparisons"]
    moved = committed.reading_findings(reference)
    for claim in comparisons["paper"]:
        verdicts = {name: {c["id"]: c for c in table}[claim["id"]]["verdict"] for name, table in comparisons.items()}
        assert (any(f"`{claim['id']}`" in line for line in moved)) == (len(set(verdicts.values())) > 1), claim["id"]


def test_rule_picks_skip_chosen_features_and_refuse_an_empty_step():
    from tgreedy_lib.plotting.candidates import rule_picks

    t = np.array([[np.nan, 2.0, -3.0], [np.nan, np.nan, -0.5]])
    scores = np.array([[np.nan, 1.0, 4.0], [np.nan, np.nan, 0.1]])
    picks = rule_picks(t, scores)
    assert picks["tgreedy-signed"].tolist() == [1, 2] and picks["tgreedy"].tolist() == [2, 2]
    assert picks["greedy"].tolist() == [2, 2]
    with pytest.raises(ValueError, match="no candidate"):
        rule_picks(np.full((1, 2), np.nan))
