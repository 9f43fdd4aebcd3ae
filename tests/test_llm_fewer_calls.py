"""Decisions the LLM seat answers without a model call because the answer is already settled: the
wolves' final show when the conferral agrees (R24), and a question whose legal set leaves one answer."""

from __future__ import annotations

import asyncio

import pytest

from agents.llm import LLMAgent, LLMAgentOptions
from agents.providers.mock import MockConfig, MockProvider
from agents.providers.wrapper import CallPolicy, ManagedProvider
from arena.actions import ChooseSeats, DecisionRequest, SpeechOrderChoice, choose_seat
from arena.config import resolve_rules
from arena.events import GameStarted, PhaseStarted, RoleAssigned, WolfProposal, WolfTeam, only
from arena.observation import Observation
from arena.types import Role

SWITCHES = resolve_rules("std-12-guard").switches.model_dump(mode="json")
WOLF, TEAM = 3, [1, 3, 6]
ASKED = {"reasoning": "", "action": 9, "notes": ""}


def night(*proposals: tuple[str, int, int | None, int]) -> Observation:
    """Night 2 of wolf 3 with the proposals (phase, seat, target, round) its team has seen."""
    team = only(*TEAM, team="wolves")
    log = [GameStarted(phase="N1", players=12, preset="std-12-guard",
                       role_counts={"hunter": 1, "witch": 1, "seer": 1, "guard": 1, "villager": 4, "werewolf": 4}),
           PhaseStarted(phase="N1"), RoleAssigned(phase="N1", seat=WOLF, role=Role.WEREWOLF, visibility=only(WOLF)),
           WolfTeam(phase="N1", wolves=TEAM, visibility=team), PhaseStarted(phase="N2")]
    log += [WolfProposal(phase=p, seat=s, target=t, round=r, visibility=team) for p, s, t, r in proposals]
    return Observation(seat=WOLF, players=12, preset="std-12-guard", switches=SWITCHES, events=log, lang="en")


def show(theirs: list[list], options: tuple[int, ...] = (2, 4, 5, 7, 8, 9, 10)) -> DecisionRequest:
    return DecisionRequest(id=9, seat=WOLF, kind="wolf_kill", phase="N2", asked_in="N2", legal=choose_seat(options),
                           default=None, context={"wolves": TEAM, "proposals": theirs})


def ask(obs: Observation, request: DecisionRequest):
    provider = MockProvider("scripted", MockConfig(script=[ASKED]))
    agent = LLMAgent("mock:scripted", WOLF, ManagedProvider(provider, CallPolicy(timeout=2, max_retries=1)),
                     options=LLMAgentOptions())
    return asyncio.run(agent.decide(obs, request)), provider.calls


def test_the_final_show_needs_no_call_when_the_conferral_agrees():
    # Round 1: 3 proposed 8; round 2: 5, as both teammates did. The seat's latest proposal is shown.
    obs = night(("N2", 1, 5, 1), ("N2", WOLF, 8, 1), ("N2", 6, 5, 1), ("N2", WOLF, 5, 2))
    answer, calls = ask(obs, show([[1, 5], [6, 5]]))
    assert calls == 0 and answer.value == 5 and answer.extras.usage is None
    assert answer.extras.memory["agreed"] == 5 and "without a model call" in answer.extras.memory["note"]
    # All propose no kill: the seat shows no kill.
    answer, calls = ask(night(("N2", WOLF, None, 1)), show([[1, None], [6, None]]))
    assert calls == 0 and answer.value is None and answer.extras.memory["agreed"] is None


@pytest.mark.parametrize("obs, theirs, options", [
    (night(("N2", WOLF, 5, 1)), [[1, 5], [6, 8]], None),          # a teammate disagrees
    (night(("N2", WOLF, 8, 1), ("N2", WOLF, 5, 2)), [[1, 8], [6, 8]], None),  # they agree on 3's older one
    (night(("N2", WOLF, 5, 1)), [[1, 5]], None),                   # a teammate has not proposed
    (night(("N1", WOLF, 5, 1)), [[1, 5], [6, 5]], None),           # 3's proposal was last night's
    (night(), [[1, 5], [6, 5]], None),                              # 3 has not proposed
    (night(("N2", WOLF, 5, 1)), [[1, 5], [6, 5]], (2, 4, 7, 8, 9)),  # 5 has since been objected to
])
def test_the_final_show_is_asked_when_the_conferral_does_not_settle_it(obs, theirs, options):
    answer, calls = ask(obs, show(theirs, options or (2, 4, 5, 7, 8, 9, 10)))
    assert calls == 1 and answer.value == 9


@pytest.mark.parametrize("legal, value", [
    (ChooseSeats(options=(4, 9), min_count=2, max_count=2), [4, 9]),
    (SpeechOrderChoice(starts=(4,), directions=("ascending",)), {"start": 4, "direction": "ascending"}),
])
def test_a_forced_answer_never_reaches_the_model(legal, value):
    request = DecisionRequest(id=1, seat=WOLF, kind="cupid_link", phase="N1", asked_in="N1", legal=legal)
    answer, calls = ask(night(), request)
    assert calls == 0 and answer.value == value and answer.extras.note == "a single legal choice"
