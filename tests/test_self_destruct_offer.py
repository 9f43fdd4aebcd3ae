"""The self-destruct offer and the prompt say the same thing: the rules (R66-R67) allow a wolf to
self-destruct before any day speech; the seat's briefing says when this seat is asked (its policy),
and the agent asks the model exactly then."""

from __future__ import annotations

import asyncio

import pytest

from agents.llm import LLMAgent, LLMAgentOptions
from agents.llm_prompts import PromptBuilder
from agents.providers.mock import MockConfig, MockProvider
from agents.providers.wrapper import CallPolicy, ManagedProvider
from arena.actions import YES_OR_NO, DecisionRequest
from arena.config import resolve_rules
from arena.events import GameStarted, PhaseStarted, RoleAssigned, WolfTeam, only
from arena.observation import Observation
from arena.types import Role

SWITCHES = resolve_rules("std-12-guard").switches.model_dump(mode="json")
WOLF = 3


def observation(lang: str, role: Role = Role.WEREWOLF, switches: dict | None = None) -> Observation:
    log = [GameStarted(phase="N1", players=12, preset="std-12-guard",
                       role_counts={"hunter": 1, "witch": 1, "seer": 1, "guard": 1, "villager": 4, "werewolf": 4}),
           PhaseStarted(phase="N1"), RoleAssigned(phase="N1", seat=WOLF, role=role, visibility=only(WOLF))]
    if role == Role.WEREWOLF:
        log.append(WolfTeam(phase="N1", wolves=[1, 3, 6, 9], visibility=only(1, 3, 6, 9, team="wolves")))
    log.append(PhaseStarted(phase="D1"))
    return Observation(seat=WOLF, players=12, preset="std-12-guard", switches=switches or SWITCHES, events=log, lang=lang)


def offer(before: int, rid: int = 1) -> DecisionRequest:
    return DecisionRequest(id=rid, seat=WOLF, kind="self_destruct", phase="D1", asked_in="D1", legal=YES_OR_NO,
                           default=False, context={"before_speaker": before})


def briefing(builder: PromptBuilder, obs: Observation) -> str:
    return builder.build(obs, offer(WOLF)).messages[0].parts[1].text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("policy, asked_before_other, asked_before_own", [
    ("own_turn", False, True), ("always", True, True), ("never", False, False)])
def test_the_briefing_says_when_the_agent_asks_the_model(lang, policy, asked_before_other, asked_before_own):
    from agents.llm_prompts import prompt_book

    said = prompt_book(lang).roles["self_destruct_offer"][policy]
    builder = PromptBuilder(lang, WOLF, self_destruct=policy)
    assert said in briefing(builder, observation(lang))
    # every policy's sentence is distinct, so the briefing names exactly the policy in force
    others = [t for p, t in prompt_book(lang).roles["self_destruct_offer"].items() if p != policy]
    assert not any(t in briefing(builder, observation(lang)) for t in others)

    provider = MockProvider("scripted", MockConfig(script=['{"reasoning": "", "action": false, "notes": ""}'] * 4))
    agent = LLMAgent("mock:scripted", WOLF, ManagedProvider(provider, CallPolicy(timeout=2, max_retries=1)),
                     options=LLMAgentOptions(self_destruct=policy, lang=lang))
    calls = provider.calls
    asyncio.run(agent.decide(observation(lang), offer(before=7)))
    assert provider.calls - calls == int(asked_before_other)
    calls = provider.calls
    asyncio.run(agent.decide(observation(lang), offer(before=WOLF, rid=2)))
    assert provider.calls - calls == int(asked_before_own)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_offer_sentence_for_a_seat_that_cannot_self_destruct(lang):
    from agents.llm_prompts import prompt_book

    sentences = prompt_book(lang).roles["self_destruct_offer"].values()
    villager = briefing(PromptBuilder(lang, WOLF), observation(lang, Role.VILLAGER))
    assert not any(s in villager for s in sentences)
    off = dict(SWITCHES, self_destruct=False)
    wolf_no_rule = briefing(PromptBuilder(lang, WOLF), observation(lang, switches=off))
    assert not any(s in wolf_no_rule for s in sentences)
