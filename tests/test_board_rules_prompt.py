"""Every seat knows the rules of every card on the board (#25 item 5), not only its own: each card
dealt has its line (``cards`` in prompts/*/llm_system.yaml) in the table's rules of every seat, under
both memories and in both languages; a Cupid board states the lovers' camp, heartbreak and the
partner-vote rule (R85) to all; a thief board the centre cards and the forced wolf (R149); the
seed-003 board the witch's third potion (原药, R112), the special wolves' powers, the hunter's second
gun and the auxiliary police (R95); the summary card carries the last-words and self-destruct rules."""

from __future__ import annotations

from collections import Counter

import pytest

from agents.llm_prompts import PromptBuilder, prompt_book
from arena.config import get_preset, resolve_rules
from arena.events import GameStarted, PhaseStarted, RoleAssigned, only
from arena.observation import Observation
from arena.types import Role
from tests.helpers import playable_presets

LANGS = ("en", "zh")
MEMORIES = ("full", "summary")


def rules_block(preset: str, lang: str, memory: str, seat: int = 1, role: str = "villager") -> str:
    """The system message a seat holding ``role`` gets on ``preset`` (rules and its briefing)."""
    board = get_preset(preset)
    counts = Counter(card.value for card in board.cards)
    events = [GameStarted(phase="N1", players=board.players, preset=preset, role_counts=dict(counts)),
              PhaseStarted(phase="N1"), RoleAssigned(phase="N1", seat=seat, role=Role(role), visibility=only(seat))]
    obs = Observation(seat=seat, players=board.players, preset=preset, events=events, lang=lang,
                      switches=resolve_rules(preset).switches.model_dump(mode="json"))
    builder = PromptBuilder(lang, seat, memory=memory)
    return builder.system_text(obs)


def card_line(lang: str, role: str, switches: dict) -> str:
    entry = prompt_book(lang).system["cards"][role]
    if isinstance(entry, str):
        return entry
    for switch, by_value in entry.items():
        if switch != "_" and switches.get(switch) in by_value:
            return by_value[switches[switch]]
    return entry["_"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("memory", MEMORIES)
def test_every_card_dealt_is_explained_to_a_seat_that_does_not_hold_it(lang, memory):
    for preset in playable_presets():
        switches = resolve_rules(preset).switches.model_dump(mode="json")
        text = rules_block(preset, lang, memory)
        for role in {card.value for card in get_preset(preset).cards}:
            assert card_line(lang, role, switches) in text, (preset, role)


CUPID = {"en": ["heartbreak", "third camp", "may never vote for the other lover"],
         "zh": ["殉情", "第三方", "不能投另一名情侣"]}
CUPID_SUMMARY = {"en": ["heartbreak", "third camp", "may not vote for the other lover"],
                 "zh": ["殉情", "第三方", "不能投另一名情侣"]}
THIEF = {"en": ["two centre cards", "must take a wolf card"], "zh": ["两张底牌", "必须拿狼人牌"]}
THIEF_SUMMARY = {"en": ["two centre cards", "a wolf card if there is one"], "zh": ["两张底牌", "有狼人牌时必须拿狼人牌"]}
SEED003 = {"en": ["original potion (原药)", "hunting gun", "auxiliary police", "White wolf king", "Wild wolf",
                  "Little wolf brother", "Fire wolf", "War wolf", "witness"],
           "zh": ["原药", "狩猎枪", "辅警", "白狼王", "野狼", "狼弟", "火狼", "战狼", "证婚人"]}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("memory", MEMORIES)
def test_the_lovers_the_thief_and_the_seed_003_cards_are_told_to_every_seat(lang, memory):
    cupid = rules_block("cupid-thief-12", lang, memory, role="werewolf")
    for phrase in (CUPID if memory == "full" else CUPID_SUMMARY)[lang] + (THIEF if memory == "full" else THIEF_SUMMARY)[lang]:
        assert phrase in cupid, phrase
    seed003 = rules_block("advanced-seed003", lang, memory, role="villager")
    for phrase in SEED003[lang]:
        assert phrase in seed003, phrase
    # Not "one antidote and one poison" on the three-potion board (「另外擁有一瓶原藥」).
    assert ("one antidote and one poison" if lang == "en" else "一瓶解药和一瓶毒药") not in seed003


@pytest.mark.parametrize("lang", LANGS)
def test_the_summary_card_carries_last_words_and_self_destruct(lang):
    card = rules_block("std-12-guard", lang, "summary")
    rules = prompt_book(lang).system["card_rules"]
    switches = resolve_rules("std-12-guard").switches.model_dump(mode="json")
    assert switches["self_destruct"] is True
    assert rules["last_words"][switches["last_words"]] in card
    assert rules["self_destruct"][True] in card


def test_a_board_without_the_three_potion_witch_keeps_its_two_potions():
    for lang in LANGS:
        text = rules_block("cupid-thief-12", lang, "full")
        assert "原药" not in text
