"""The verify registry and command: selection by id or prefix, seeding, the JSON shape."""
import json

import numpy as np
import pytest

from tgreedy_lib import verify


@verify.register_check("test.dummy", "a dummy claim used by the tests")
def _dummy(quick, rng):
    draws = rng.standard_normal(10 if quick else 100)
    return verify.CheckResult(
        id="test.dummy",
        claim="a dummy claim used by the tests",
        holds_as_printed=bool(draws.max() < 10),
        trials=draws.size,
        worst_case={"parameters": {"n": draws.size}, "observed": float(draws.max()), "bound": np.float64(10)},
    )


def test_selection_by_id_and_prefix_and_unknown_ids():
    assert [r.id for r in verify.run_checks(["test.dummy"], quick=True)] == ["test.dummy"]
    assert [r.id for r in verify.run_checks(["test."], quick=True)] == ["test.dummy"]
    with pytest.raises(ValueError, match="unknown check id"):
        verify.run_checks(["no.such.check"])


def test_seeded_by_id_and_json_shape(tmp_path, capsys):
    a = verify.run_checks(["test.dummy"], quick=True)[0].to_json()
    b = verify.run_checks(["test.dummy"], quick=True)[0].to_json()
    assert a == b
    out = tmp_path / "v.json"
    assert verify.main(["test.dummy", "--quick", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (record,) = data["checks"]
    assert set(record) == {"id", "claim", "holds_as_printed", "trials", "worst_case", "corrected_claim"}
    assert set(record["worst_case"]) == {"parameters", "observed", "bound"}
    assert record["corrected_claim"] is None and record["trials"] == 10
    assert "test.dummy" in capsys.readouterr().out


def test_every_registered_check_has_the_documented_ids():
    ids = verify.available_checks()
    for expected in ("domains.theorem1", "domains.theorem2", "domains.corollary3",
                     "categorical.theorem1", "categorical.theorem2", "categorical.theorem3", "categorical.theorem4"):
        assert expected in ids
