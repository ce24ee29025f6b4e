"""The sentences that end notebook 11 say what the values say, and name every claim once."""
from __future__ import annotations

import numpy as np
import pytest

from tgreedy_course.summary import claim_data, claim_rows, verdict_headline
from tgreedy_course.claims import CLAIMS
from tgreedy_course.seeds import load_reference


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
    headline = verdict_headline(reference["claims"]["claims"])
    assert headline.startswith(f"Of {len(reference['claims']['claims'])} experimental claims")
    counts = {v: sum(c["verdict"] == v for c in reference["claims"]["claims"]) for v in ("reproduced", "unsettled")}
    verb = "is" if counts["reproduced"] == 1 else "are"
    assert f"{counts['reproduced']} {verb} reproduced" in headline and f"{counts['unsettled']} unsettled" in headline
    rows = claim_rows(reference["claims"]["claims"])
    assert len({(r[1], r[2]) for r in rows}) == len(rows)


def test_rule_picks_skip_chosen_features_and_refuse_an_empty_step():
    from tgreedy_lib.plotting.candidates import rule_picks

    t = np.array([[np.nan, 2.0, -3.0], [np.nan, np.nan, -0.5]])
    scores = np.array([[np.nan, 1.0, 4.0], [np.nan, np.nan, 0.1]])
    picks = rule_picks(t, scores)
    assert picks["tgreedy-signed"].tolist() == [1, 2] and picks["tgreedy"].tolist() == [2, 2]
    assert picks["greedy"].tolist() == [2, 2]
    with pytest.raises(ValueError, match="no candidate"):
        rule_picks(np.full((1, 2), np.nan))
