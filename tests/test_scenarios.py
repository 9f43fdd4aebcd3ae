"""Every conformance scenario in tests/scenarios/ passes (CONFORMANCE.md); malformed files are clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.scenario import collect, run_data, run_file

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = [p for p in collect([SCENARIOS]) if "pending" not in p.parts]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    outcome = run_file(path)
    assert outcome.passed, outcome.error


def test_every_shared_example_is_in_the_project() -> None:
    shared = Path(__file__).resolve().parents[2] / "shared" / "scenarios"
    if not shared.exists():
        pytest.skip("../shared/scenarios is not beside this checkout")
    ours = {p.name for p in SCENARIOS.rglob("*.json")}
    for example in shared.glob("*.json"):
        assert example.name in ours, f"{example.name} not copied into tests/scenarios"


BASE = json.loads((SCENARIOS / "core-01-guard-and-antidote-same-target.json").read_text())


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d.pop("deal"), "field deal"),
    (lambda d: d.update(preset="std-99"), "unknown preset 'std-99'"),
    (lambda d: d["rules"].update(witch_self_save="sometimes"), "witch_self_save"),
    (lambda d: d["rules"].update(no_such_switch=True), "unknown switch(es): no_such_switch"),
    (lambda d: d["script"].update({"x": {}}), "not a seat number"),
    (lambda d: d["script"]["1"].update({"Q1.wolf_kill": 3}), "not a phase"),
    (lambda d: d.update(deal=d["deal"][:-1]), "deal has 11 cards"),
    (lambda d: d.update(deal=["werewolf"] * 12), "does not match the deck"),
    (lambda d: d["expect"].update(bogus=1), "unknown key(s) bogus"),
])
def test_malformed_scenarios_name_the_problem(mutate, fragment) -> None:
    data = json.loads(json.dumps(BASE))
    mutate(data)
    outcome = run_data(data, "bad.json", "bad")
    assert not outcome.passed
    assert fragment in (outcome.error or ""), outcome.error


def test_expected_error_scenario_passes_when_rejected() -> None:
    data = json.loads(json.dumps(BASE))
    data["deal"] = ["werewolf"] * 12
    data["expect"] = {"error": "does not match the deck"}
    assert run_data(data, "err.json", "err").passed


def test_not_json_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    outcome = run_file(bad)
    assert not outcome.passed and "not valid JSON" in (outcome.error or "")
