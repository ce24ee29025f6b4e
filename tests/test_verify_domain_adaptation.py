"""Tests of the domains.* verify checks and the JSON written by ``python -m tgreedy_course verify``."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tgreedy_course import __main__ as entry
from tgreedy_course import verify

ROOT = Path(__file__).resolve().parent.parent
IDS = ["domains.corollary3", "domains.theorem1", "domains.theorem2"]


@pytest.fixture(scope="module")
def quick_json(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "domains.json"
    result = subprocess.run(
        [sys.executable, "-m", "tgreedy_course", "verify", "domains.", "--quick", "--json", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(path.read_text()), result.stdout


def test_checks_are_registered():
    assert set(IDS) <= set(verify.available_checks())


def test_json_shape(quick_json):
    data, stdout = quick_json
    assert [c["id"] for c in data["checks"]] == IDS
    for check in data["checks"]:
        assert set(check) == {"id", "claim", "holds_as_printed", "trials", "worst_case", "cases", "summary",
                                "corrected_claim"}
        assert set(check["worst_case"]) == {"parameters", "observed", "bound", "ratio"}
        assert isinstance(check["holds_as_printed"], bool)
        assert isinstance(check["trials"], int) and check["trials"] > 0
        assert isinstance(check["worst_case"]["parameters"], dict)
        assert (check["corrected_claim"] is None) == check["holds_as_printed"]
    for check_id in IDS:
        assert check_id in stdout


def test_verdicts(quick_json):
    data, _ = quick_json
    by_id = {c["id"]: c for c in data["checks"]}
    t2 = by_id["domains.theorem2"]
    assert not t2["holds_as_printed"]
    assert t2["worst_case"]["observed"] > t2["worst_case"]["bound"]
    assert t2["worst_case"]["parameters"]["n"] == 1
    assert "2 exp(-t/2)" in t2["corrected_claim"]
    t1 = by_id["domains.theorem1"]
    assert t1["holds_as_printed"] and t1["worst_case"]["observed"] <= t1["worst_case"]["bound"]
    c3 = by_id["domains.corollary3"]
    assert not c3["holds_as_printed"]
    assert c3["worst_case"]["observed"] > c3["worst_case"]["bound"]
    assert c3["worst_case"]["parameters"]["p"] == 1


def test_deterministic_json(quick_json, tmp_path):
    data, _ = quick_json
    path = tmp_path / "again.json"
    assert entry.main(["verify", "domains.theorem2", "domains.theorem1", "domains.corollary3", "--quick", "--json", str(path)]) == 0
    again = json.loads(path.read_text())
    assert sorted(again["checks"], key=lambda c: c["id"]) == data["checks"]
