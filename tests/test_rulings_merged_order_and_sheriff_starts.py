"""Rulings of issue #31 that a scenario cannot state alone: R18's merged night order as the configured game
says it (transcript header, ``arena rules show``), R62's legal first speakers in words at every seat that
asks the sheriff, and R12's deal guard of the ``last_words_004c`` profile over seeded deals."""

from __future__ import annotations

import io
import json

import pytest
import yaml
from typer.testing import CliRunner

from agents.bots import RandomBot
from arena.actions import SpeechOrderChoice
from arena.cli.main import app
from arena.config import resolve_rules
from arena.engine import Game, GameSetup
from arena.referee import play_sync
from arena.rules.night import called_steps, merged_steps, stated_night_order
from arena.rules.setup import center_allowed
from arena.transcript import TranscriptWriter

PROMPTS = __import__("pathlib").Path(__file__).resolve().parents[1] / "prompts"
MERGED = ["little_wolf_brother", "wild_wolf", "fire_wolf", "hunting_gun"]


# ---- R18: the merged night order ------------------------------------------------------------------

def test_R18_order_004c_on_the_003_board_merges_each_missing_step_at_its_order_003_place() -> None:
    rules = resolve_rules("advanced-seed003", {"night_order": "order_004c"})
    assert merged_steps(rules) == MERGED
    assert called_steps(rules, first_night=True) == [
        "thief", "cupid", "lovers", "hunter", "elder", "guard", "little_wolf_brother", "wolves", "wild_wolf",
        "fire_wolf", "hunting_gun", "seer", "witch"]
    assert called_steps(rules, first_night=False) == [
        "guard", "little_wolf_brother", "wolves", "wild_wolf", "fire_wolf", "hunting_gun", "seer", "witch"]


def test_R18_a_step_whose_card_does_not_act_under_the_switches_is_not_merged() -> None:
    # Without the hunting_gun switch the hunter has no night gun: order_004c is merged without it.
    rules = resolve_rules("advanced-seed003", {"night_order": "order_004c", "hunting_gun": False})
    assert merged_steps(rules) == MERGED[:3]


def test_R18_every_shipped_board_uses_its_order_as_written() -> None:
    from arena.config import presets

    assert {p: merged_steps(resolve_rules(p, {})) for p in presets()} == {p: [] for p in presets()}


def _header(preset: str, rules: dict[str, str]) -> dict[str, object]:
    setup = GameSetup(preset=preset, seed=3, rules=rules)
    buffer = io.StringIO()
    n = setup.resolve().players
    play_sync(setup, [RandomBot(s, 3) for s in range(1, n + 1)], writer=TranscriptWriter(stream=buffer))
    return json.loads(buffer.getvalue().splitlines()[0])


def test_R18_the_transcript_header_states_a_merged_order_and_only_then() -> None:
    header = _header("advanced-seed003", {"night_order": "order_004c"})
    assert header["night_order"] == stated_night_order(resolve_rules("advanced-seed003", {"night_order": "order_004c"}))
    assert header["night_order"]["later"][:3] == ["guard", "little_wolf_brother", "wolves"]
    assert "night_order" not in _header("std-12-guard", {})  # as written: the switch says it, old bytes stay


def test_R18_rules_show_prints_the_merged_order_in_text_and_json() -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["rules", "show", "advanced-seed003", "-r", "night_order=order_004c"])
    assert shown.exit_code == 0, shown.output
    assert "with little_wolf_brother, wild_wolf, fire_wolf, hunting_gun merged at their place in order_003" in shown.output
    assert "  later nights: guard → little_wolf_brother → wolves → wild_wolf → fire_wolf → hunting_gun → seer → witch" \
        in shown.output
    data = json.loads(runner.invoke(app, ["rules", "show", "advanced-seed003", "-r", "night_order=order_004c",
                                          "--json"]).output)
    assert data["night_order"]["merged_from_order_003"] == MERGED
    plain = runner.invoke(app, ["rules", "show", "std-12-guard"]).output
    assert "night order (order_000):\n  night 1: guard → wolves → witch → seer → hunter" in plain


# ---- R62: the sheriff's legal starts, in words -------------------------------------------------------

def _sheriff_choice(value: str) -> SpeechOrderChoice:
    from arena.rules.speech import sheriff_order_choice

    game = Game(GameSetup(preset="std-12-guard", seed=0, rules={"speech_order": value}))
    return sheriff_order_choice(game, 6)


def test_R62_sheriff_free_offers_every_other_living_player_and_sheriff_chooses_the_neighbours() -> None:
    free = _sheriff_choice("sheriff_free")
    assert free.starts == (1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12) and free.starts_from == "anyone"
    limited = _sheriff_choice("sheriff_chooses")
    assert limited.starts == (5, 7) and limited.starts_from == "neighbours"  # nobody has died yet
    assert free.to_json()["starts_from"] == "anyone"  # the browser reads it from the legal set


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_R62_the_terminal_seat_says_which_starts_are_legal(lang: str) -> None:
    from agents.human import HumanAgent

    texts = yaml.safe_load((PROMPTS / lang / "human.yaml").read_text(encoding="utf-8"))
    words = texts["order_starts"]
    agent = HumanAgent(seat=6, lang=lang)
    request = Game(GameSetup(preset="std-12-guard")).request(6, "speech_order_pick", _sheriff_choice("sheriff_free"),
                                                            {"start": 7, "direction": "ascending"})
    free_text = agent._choices_text(request)
    assert words["anyone"] in free_text and words["neighbours"] not in free_text
    request = request._replace(legal=_sheriff_choice("sheriff_chooses"))
    assert words["neighbours"] in agent._choices_text(request)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_R62_the_model_prompt_says_which_starts_are_legal(lang: str) -> None:
    from agents.llm_prompts import PromptBuilder

    words = yaml.safe_load((PROMPTS / lang / "llm_decisions.yaml").read_text(encoding="utf-8"))
    words = words["legal"]["speech_order_starts"]
    builder = PromptBuilder(lang, 6)
    assert words["anyone"] in builder.legal_text(_sheriff_choice("sheriff_free"))
    assert words["neighbours"] in builder.legal_text(_sheriff_choice("sheriff_chooses"))
    system = yaml.safe_load((PROMPTS / lang / "llm_system.yaml").read_text(encoding="utf-8"))
    assert "sheriff_free" in system["rules"]["speech_order"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_R62_the_browser_labels_the_first_speaker_by_the_rule(lang: str) -> None:
    words = yaml.safe_load((PROMPTS / lang / "web.yaml").read_text(encoding="utf-8"))
    assert words["first_speaker_anyone"] != words["first_speaker_neighbours"]
    script = (PROMPTS.parent / "arena" / "web" / "assets" / "table.js").read_text(encoding="utf-8")
    assert 'w["first_speaker_" + legal.starts_from]' in script


# ---- R12 / §6.2: the last_words_004c profile re-deals a center of two wolves ---------------------------

def test_R12_last_words_004c_profile_never_deals_two_center_wolves() -> None:
    rules = {"profile": "last_words_004c"}
    assert resolve_rules("cupid-thief-12", rules).switches.thief_deal_guard == "no_two_wolves_no_thief_wolf"
    for seed in range(200):
        game = Game(GameSetup(preset="cupid-thief-12", seed=seed, rules=rules))
        assert center_allowed(game.rules, list(game.state.center)), f"seed {seed}: center {game.state.center}"
