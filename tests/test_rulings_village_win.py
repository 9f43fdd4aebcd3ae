"""R171's village win by the ``village_win`` switch: 000 wants every wolf and bad identity dead, 004 §C only every
wolf (「好人阵营胜利条件：所有狼人死亡」); the seed wins over RULES.md. The scenarios
tests/scenarios/ruling171-0*.json play the same corners through whole games."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.config import ConfigError, resolve_rules
from arena.events import GameEnded
from arena.scenario import load, parse, play
from arena.types import WinReason, Winner

SCENARIOS = Path(__file__).parent / "scenarios"


def _ending(stem: str, **rules: object) -> GameEnded:
    scenario = parse(load(SCENARIOS / f"{stem}.json"))
    scenario.rules.update(rules)
    game = play(scenario)
    (ended,) = [e for e in game.log if isinstance(e, GameEnded)]
    return ended


def test_R171_profiles_read_the_village_win_from_their_seed() -> None:
    """004 §C alone says 「所有狼人死亡」 with a Cupid on the board; every other profile keeps 000's reading."""
    assert resolve_rules("cupid-thief-12", {"profile": "last_words_004c"}).switches.village_win == "all_wolves_dead"
    for profile in ("face_to_face_000", "classic_001", "advanced_003", "competition_004a", "lyingman_004b"):
        rules = resolve_rules("cupid-thief-12", {"profile": profile})
        assert rules.switches.village_win == "wolves_and_bad_identities_dead", profile


def test_R171_004c_wolves_camp_cupid_alive_the_village_wins_with_its_own_reason() -> None:
    """R171, 004 §C-win: every wolf dead on D1 while Cupid (who linked two wolves) lives: the reason says why."""
    ended = _ending("ruling171-01-004c-village-wins-when-every-wolf-is-dead-though-their-cupid-lives")
    assert (ended.phase, ended.winner, ended.reason) == ("D1", Winner.VILLAGE, WinReason.ALL_WOLVES_DEAD)


def test_R171_the_000_reading_on_the_004c_profile_keeps_the_cupid_blocking() -> None:
    """The switch alone decides: the 004 §C game with 000's value goes on past D1 although every wolf is dead."""
    ended = _ending("ruling171-01-004c-village-wins-when-every-wolf-is-dead-though-their-cupid-lives",
                    village_win="wolves_and_bad_identities_dead")
    assert ended.phase != "D1" and ended.reason is not WinReason.ALL_WOLVES_DEAD


def test_R171_004c_a_living_wolf_lover_still_keeps_the_game_open() -> None:
    """R171 (004 §C): the wolf in human-wolf lovers is a wolf, so the other wolves' deaths do not end the game."""
    scenario = parse(load(SCENARIOS / "ruling171-02-004c-village-wins-when-the-wolf-lover-dies-though-the-"
                                      "third-party-cupid-lives.json"))
    scenario.stop_after = "D1"
    game = play(scenario)
    assert not game.over and game.state.players[1].alive and not game.state.players[2].alive


def test_R171_a_village_win_value_not_in_the_catalogue_is_named() -> None:
    with pytest.raises(ConfigError, match="village_win") as error:
        resolve_rules("cupid-thief-12", {"village_win": "all_wolves"})
    assert "'all_wolves_dead'" in str(error.value) and "'all_wolves'" in str(error.value)  # the values it may take


def test_R171_rules_show_states_the_village_win_in_force() -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner()
    plain = runner.invoke(app, ["rules", "show", "cupid-thief-12"]).output
    seed_c = runner.invoke(app, ["rules", "show", "cupid-thief-12", "-r", "profile=last_words_004c"]).output
    assert "the village when every wolf and third party is dead" in plain and "好人放逐或杀光所有狼人与第三方获胜" in plain
    assert "profile face_to_face_000" in plain and "profile last_words_004c" in seed_c  # the profile in force
    assert "the village when every wolf is dead, whatever camp Cupid plays for" in seed_c
    assert "好人放逐或杀光所有狼人获胜，不论丘比特帮哪一方" in seed_c
