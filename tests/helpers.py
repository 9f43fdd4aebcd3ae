"""Shared helpers for the referee's tests."""

from __future__ import annotations

import io
import typing
from typing import Any

from agents.bots import RandomBot
from arena.config import Switches, presets
from arena.engine import GameSetup
from arena.referee import GameResult, play_sync
from arena.rules.setup import supported_roles
from arena.transcript import TranscriptWriter

# Switches whose every value the property tests mix into random games (core referee scope).
CORE_SWITCHES = [
    "sheriff", "sheriff_election_time", "campaign_start", "sheriff_voters", "sheriff_tie", "sheriff_pk_voters",
    "sheriff_second_tie", "election_self_destruct", "sheriff_vote_weight", "badge_on_death", "speech_order",
    "day1_speech_rounds", "self_destruct", "self_destruct_last_words", "self_destruct_silences_day", "last_words",
    "lover_suicide_last_words", "shot_victim_last_words", "reveal_role_on_death", "dawn_announcement",
    "ballot_visibility", "exile_tie", "witch_self_save", "witch_potions_per_night", "witch_self_poison",
    "witch_informed_after_antidote", "witch_informed_guarded_kill", "guard_repeat", "seer_result",
    "hunter_blocked_by", "hunter_status_signal", "idiot_after_reveal", "win_mode", "knife_first",
    "two_player_sheriff_win", "draw_rule", "night_order", "speech_seconds", "wolf_conferral_veto",
    "wolf_conferral_messages",
]


def switch_values(name: str) -> list[Any]:
    annotation = Switches.model_fields[name].annotation
    if annotation is bool:
        return [False, True]
    return list(typing.get_args(annotation))


def playable_presets() -> list[str]:
    supported = {r.value for r in supported_roles()}
    return sorted(p.id for p in presets().values() if {c.value for c in p.cards} <= supported)


def random_game(preset: str, seed: int, rules: dict[str, Any] | None = None, *, transcript: bool = False,
                agents: list[Any] | None = None) -> tuple[GameResult, str]:
    setup = GameSetup(preset=preset, seed=seed, rules=dict(rules or {}))
    n = setup.resolve().players
    stream = io.StringIO()
    writer = TranscriptWriter(stream=stream) if transcript else None
    result = play_sync(setup, agents or [RandomBot(s, seed) for s in range(1, n + 1)], writer=writer)
    return result, stream.getvalue()
