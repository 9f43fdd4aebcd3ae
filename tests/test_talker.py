"""mock:talker, the talking stand-in (#25 item 1, #32): seeded, offline, legal, and it says what its
seat knows in the phrasings and shapes chat models use."""

from __future__ import annotations

import asyncio

import pytest

from agents.providers.talker import spoken
from agents.registry import make_agent
from arena.config import get_preset
from arena.engine import GameSetup
from arena.referee import run_game


def play(preset: str, lang: str, seed: int, **options):
    agents = [make_agent("mock:talker", seat=s, seed=seed, **options) for s in range(1, get_preset(preset).players + 1)]
    events: list = []
    result = asyncio.run(run_game(GameSetup(preset=preset, seed=seed), agents, lang=lang, on_event=events.append))
    return agents, events, result


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_talker_game_plays_to_its_end_the_same_way_twice(lang):
    first = play("std-12-guard", lang, 5)
    second = play("std-12-guard", lang, 5)
    texts = [e.text for e in first[1] if e.type == "speech"]
    assert first[2].winner is not None and texts == [e.text for e in second[1] if e.type == "speech"]
    assert not any(a.provider.provider.faults_injected[k] for a in first[0] for k in ("prose", "malformed_json"))


@pytest.mark.parametrize("lang,low,high", [("en", 300, 600), ("zh", 180, 420)])
def test_speeches_are_long_and_the_true_seer_claims_its_own_checks(lang, low, high):
    agents, events, _ = play("std-12-guard", lang, 7)
    labels = agents[0].provider.provider.labels
    speeches = [e for e in events if e.type == "speech"]
    assert speeches and all(spoken(labels, e.text) for e in speeches)
    lengths = sorted(len(e.text) for e in speeches)
    assert low <= lengths[len(lengths) // 2] <= high
    seer = next(e.seat for e in events if e.type == "role_assigned" and e.role == "seer")
    truth = {(int(e.phase[1:]), e.target) for e in events if e.type == "seer_result" and e.seat == seer}
    claimed = {(c.night, c.target) for e in speeches if e.seat == seer for c in spoken(labels, e.text).own if c.what == "check"}
    assert truth and claimed and claimed <= truth


def test_the_phrasings_of_the_issues_are_spoken():
    said = ""
    for lang, seed in (("en", 1), ("en", 2), ("zh", 1), ("zh", 2), ("zh", 4)):
        said += "\n".join(e.text for e in play("std-12-guard", lang, seed)[1] if e.type == "speech")
    for phrase in ("Let me jump: seer.", "Kill on #", "好人不要分票", "银水", "警徽流", "opened with", "→"):
        assert phrase in said, phrase


def test_the_share_of_a_shape_is_a_setting():
    agents, events, _ = play("std-12-guard", "zh", 3, shapes={"bullets": 0.0, "table": 0.0, "arrows": 0.0,
                                                              "emoji": 0.0, "traditional": 1.0})
    labels = agents[0].provider.provider.labels
    shapes = {spoken(labels, e.text).shape for e in events if e.type == "speech"}
    assert shapes == {"traditional"}
    assert any("號" in e.text for e in events if e.type == "speech")
