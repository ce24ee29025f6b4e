"""The verify registry and command: selection by id or prefix, seeding, the JSON shape."""
import json

import numpy as np
import pytest

from tgreedy_course import __main__ as entry
from tgreedy_course import verify
from tgreedy_course.verify import command


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
    assert entry.main(["verify", "test.dummy", "--quick", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (record,) = data["checks"]
    assert set(record) == {"id", "claim", "holds_as_printed", "trials", "worst_case", "cases", "summary",
                                "corrected_claim"}
    assert set(record["worst_case"]) == {"parameters", "observed", "bound", "ratio"}
    assert record["corrected_claim"] is None and record["trials"] == 10
    assert "test.dummy" in capsys.readouterr().out


def test_every_registered_check_has_the_documented_ids():
    ids = verify.available_checks()
    for expected in ("domains.theorem1", "domains.theorem2", "domains.corollary3",
                     "categorical.theorem1", "categorical.theorem2", "categorical.theorem3", "categorical.theorem4"):
        assert expected in ids


def test_ratio_is_observed_over_bound_and_parameters_are_exact():
    from fractions import Fraction

    (record,) = [r.to_json() for r in verify.run_checks(["test.dummy"], quick=True)]
    worst = record["worst_case"]
    assert worst["ratio"] == worst["observed"] / worst["bound"]
    assert verify.exact(Fraction(349, 600)) == "349/600" and verify.exact(Fraction(6, 3)) == 2
    assert verify.exact(0.0001) == 0.0001
    result = verify.CheckResult("x", "c", True, 1, {"parameters": {"q": Fraction(1, 3)}, "observed": 1.0, "bound": 0.0})
    assert result.to_json()["worst_case"] == {"parameters": {"q": "1/3"}, "observed": 1.0, "bound": 0.0, "ratio": None}


def test_readme_table_is_rewritten_between_the_markers(tmp_path):
    records = [r.to_json() for r in verify.run_checks(["test.dummy"], quick=True)]
    readme = tmp_path / "README.md"
    readme.write_text("no markers here\n")
    with pytest.raises(ValueError, match="verify-table markers"):
        command.update_readme(readme, records)
    readme.write_text(f"before\n{command.README_BEGIN}\nold table\n{command.README_END}\nafter\n")
    assert command.update_readme(readme, records) is True
    text = readme.read_text()
    assert "old table" not in text and text.startswith("before\n") and text.endswith("after\n")
    assert command.markdown_table(records) in text and "`test.dummy`" in text
    assert command.update_readme(readme, records) is False  # already up to date
    out = tmp_path / "v.json"
    assert entry.main(["verify", "test.dummy", "--quick", "--json", str(out)]) == 0
    readme.write_text(f"{command.README_BEGIN}\n{command.README_END}\n")
    assert entry.main(["verify", "--from-json", str(out), "--readme", str(readme)]) == 0
    assert command.markdown_table(records) in readme.read_text()
