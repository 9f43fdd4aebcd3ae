"""The self-destruct offer and the prompt say the same thing: the rules (R66-R67) allow a wolf to
self-destruct before any day speech; the seat's briefing says when this seat is asked (its policy),
and the agent asks the model exactly then. Right before its own speech the question comes with the
speech's, in one call whose speech answers the speech request that follows."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from agents.llm import LLMAgent, LLMAgentOptions
from agents.llm_prompts import PromptBuilder
from agents.providers.mock import MockConfig, MockProvider
from agents.providers.wrapper import CallPolicy, ManagedProvider
from arena.actions import YES_OR_NO, DecisionRequest, Speak
from arena.config import resolve_rules
from arena.events import GameStarted, PhaseStarted, RoleAssigned, Speech, WolfTeam, only
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


def offer(before: int, rid: int = 1, speech: str = "discussion") -> DecisionRequest:
    """The referee's offer: who speaks next, which speech and that speaker's length limit."""
    return DecisionRequest(id=rid, seat=WOLF, kind="self_destruct", phase="D1", asked_in="D1", legal=YES_OR_NO,
                           default=False, context={"before_speaker": before, "speech": speech, "max_chars": 2000})


def briefing(builder: PromptBuilder, obs: Observation) -> str:
    return builder.build(obs, offer(WOLF)).messages[0].parts[1].text


def speech(rid: int = 3, kind: str = "discussion", phase: str = "D1") -> DecisionRequest:
    return DecisionRequest(id=rid, seat=WOLF, kind="speech", phase=phase, asked_in=phase, legal=Speak(max_chars=2000),
                           default="pass", context={"speech": kind})


def wolf(script: list, policy: str = "own_turn", lang: str = "en", **options) -> tuple[LLMAgent, MockProvider]:
    provider = MockProvider("scripted", MockConfig(script=[json.dumps(x) if isinstance(x, dict) else x for x in script]))
    agent = LLMAgent("mock:scripted", WOLF, ManagedProvider(provider, CallPolicy(timeout=2, max_retries=1)),
                     options=LLMAgentOptions(self_destruct=policy, lang=lang, **options))
    return agent, provider


def calls_for(agent: LLMAgent, provider: MockProvider, obs: Observation, request: DecisionRequest):
    before = provider.calls
    answer = asyncio.run(agent.decide(obs, request))
    return answer, provider.calls - before


NO = {"reasoning": "", "action": False, "notes": ""}
SPEAK = {"reasoning": "stay hidden", "self_destruct": False, "action": "I am a villager.", "notes": "3 stays hidden"}
BLOW = {"reasoning": "the seer is about to check me", "self_destruct": True, "action": "unused", "notes": ""}
PLAIN = {"reasoning": "", "action": "A speech of its own.", "notes": ""}


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

    agent, provider = wolf([NO] * asked_before_other + [SPEAK] * asked_before_own + [PLAIN], policy, lang)
    assert calls_for(agent, provider, observation(lang), offer(before=7))[1] == int(asked_before_other)
    # Right before its own speech the seat is asked once: the question comes with the speech's, and
    # the speech request that follows is answered from that call (under `never`, by a call of its own).
    asked, n = calls_for(agent, provider, observation(lang), offer(before=WOLF, rid=2))
    assert n == int(asked_before_own) and asked.value is False
    spoken, n = calls_for(agent, provider, observation(lang), speech())
    assert n == int(not asked_before_own)
    assert spoken.value == ("I am a villager." if asked_before_own else "A speech of its own.")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("election", [False, True])
def test_one_call_asks_the_self_destruct_question_with_the_speech(lang, election):
    """The call's prompt is the speech's question plus the self-destruct clause of the request's kind
    (and that kind's rule lines under summary memory), its schema asks the boolean; the self-destruct
    line records the call once, the speech line none, and says where its speech came from."""
    from agents.llm_prompts import prompt_book

    kind = "self_destruct_election" if election else "self_destruct"
    book = prompt_book(lang)
    agent, provider = wolf([SPEAK], lang=lang, memory="summary")
    sent: list = []
    generate = provider.generate

    async def record(messages, *, schema, options):
        sent.append((messages, schema))
        return await generate(messages, schema=schema, options=options)
    provider.generate = record
    speech_kind = "campaign" if election else "discussion"
    ask = DecisionRequest(id=1, seat=WOLF, kind=kind, phase="D1", asked_in="D1", legal=YES_OR_NO, default=False,
                          context={"before_speaker": WOLF, "speech": speech_kind, "max_chars": 2000})
    asked, n = calls_for(agent, provider, observation(lang), ask)
    assert n == 1 and asked.value is False and asked.reasoning == "stay hidden" and asked.notes == "3 stays hidden"
    messages, schema = sent[0]
    question = messages[-1].parts[-1].text
    assert book.decisions["self_destruct_clause"][kind] in question
    assert book.events["speech_kinds"][speech_kind] in question  # the speech question itself
    if election:  # the rule line that bears on a self-destruct in the election comes with it
        assert book.system["card_rules"]["election_self_destruct"]["badge_lost"] in question
    assert schema.json_schema["properties"]["self_destruct"] == {
        "type": "boolean", "description": "true: self-destruct now, and the speech is not given"}
    assert asked.extras.usage.calls == 1 and asked.extras.memory["asked_with_speech"] == speech_kind
    spoken, n = calls_for(agent, provider, observation(lang), speech(kind=speech_kind))
    assert n == 0 and spoken.value == "I am a villager."
    assert spoken.extras.usage is None and spoken.reasoning is None and spoken.extras.memory["given_with"] == 1
    assert agent.calls == 1


def test_the_kept_speech_answers_only_the_very_next_matching_request_with_nothing_new_seen():
    obs = observation("en")
    later = observation("en")
    later.events.append(Speech(phase="D1", seat=2, kind="discussion", text="2 speaks out of turn"))
    for next_obs, request in [(later, speech()),                      # something new was seen
                              (obs, speech(kind="pk")),                # another kind of speech
                              (obs, speech(phase="D2"))]:              # another phase
        agent, provider = wolf([SPEAK, PLAIN])
        assert calls_for(agent, provider, obs, offer(before=WOLF))[1] == 1
        spoken, n = calls_for(agent, provider, next_obs, request)
        assert n == 1 and spoken.value == "A speech of its own."
    # Any request in between drops it.
    agent, provider = wolf([SPEAK, PLAIN])
    calls_for(agent, provider, obs, offer(before=WOLF))
    calls_for(agent, provider, obs, offer(before=7, rid=2))  # answered without a call
    assert calls_for(agent, provider, obs, speech())[1] == 1


def test_a_bad_self_destruct_value_is_re_asked_then_falls_back_to_no_and_keeps_no_speech():
    bad = dict(SPEAK, self_destruct="maybe")
    missing = {k: v for k, v in SPEAK.items() if k != "self_destruct"}
    agent, provider = wolf([bad, missing, bad, PLAIN])
    asked, n = calls_for(agent, provider, observation("en"), offer(before=WOLF))
    assert n == 3 and asked.value is False and asked.extras.fallback
    errors = [a.error for a in asked.extras.attempts]
    assert "expected true or false, got 'maybe'" in errors[0] and 'no "self_destruct" key' in errors[1]
    assert "expected true or false" in asked.extras.prompt[-1]["content"]  # the re-ask carries the error
    spoken, n = calls_for(agent, provider, observation("en"), speech())
    assert n == 1 and spoken.value == "A speech of its own."
    # A bad speech with a valid "no" is re-asked too (the speech keeps its own validation).
    agent, provider = wolf([dict(SPEAK, action=None), SPEAK])
    asked, n = calls_for(agent, provider, observation("en"), offer(before=WOLF))
    assert n == 2 and asked.value is False and "a speech is required" in asked.extras.attempts[0].error
    assert calls_for(agent, provider, observation("en"), speech())[1] == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wolf_that_self_destructs_gives_no_speech(lang):
    """In whole games of stand-in seats: every self-destruct asked with the seat's speech leaves that
    speech unpublished (the wolf's last words are asked anew), and every speech given from such a call
    is the one its reply carried."""
    from agents.registry import make_agent
    from arena.engine import GameSetup
    from arena.referee import run_game
    from arena.transcript import TranscriptWriter

    blown = folded = reused = 0
    for seed in range(3):
        buf = io.StringIO()
        agents = [make_agent("mock:bench", seat=s, seed=seed, memory="summary", lang=lang) for s in range(1, 13)]
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents, writer=TranscriptWriter(stream=buf)))
        lines = [json.loads(x) for x in buf.getvalue().splitlines()]
        decisions = {x["id"]: x for x in lines if x["type"] == "decision"}
        speeches = [x["event"] for x in lines if x["type"] == "event" and x["event"]["type"] == "speech"]
        for d in decisions.values():
            if not (d["memory"] or {}).get("asked_with_speech"):
                continue
            said = json.loads(d["raw_reply"])["action"]
            if d["answer"] is True:
                blown += 1
                assert not any(said in e["text"] for e in speeches)
            else:
                folded += 1
        for d in decisions.values():
            given_with = (d["memory"] or {}).get("given_with")
            if given_with is not None:
                reused += 1
                assert d["kind"] == "speech" and d["usage"] is None
                assert d["answer"] == json.loads(decisions[given_with]["raw_reply"])["action"].strip()
    assert blown and folded and reused


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_offer_sentence_for_a_seat_that_cannot_self_destruct(lang):
    from agents.llm_prompts import prompt_book

    sentences = prompt_book(lang).roles["self_destruct_offer"].values()
    villager = briefing(PromptBuilder(lang, WOLF), observation(lang, Role.VILLAGER))
    assert not any(s in villager for s in sentences)
    off = dict(SWITCHES, self_destruct=False)
    wolf_no_rule = briefing(PromptBuilder(lang, WOLF), observation(lang, switches=off))
    assert not any(s in wolf_no_rule for s in sentences)


def test_the_referees_offer_says_which_speech_comes_next():
    """The fold asks the speech the referee names: every self-destruct offer carries the coming
    speech's kind and the speaker's length limit, the ones the speaker's own request then has. (The
    agent reads them from the offer; it does not work out the day's rules itself.) An offer that does
    not say it is asked alone."""
    from agents.registry import make_agent
    from arena.engine import GameSetup
    from arena.referee import run_game

    asked: list[DecisionRequest] = []
    agents = [make_agent("bot:random", seat=s, seed=3) for s in range(1, 13)]
    for agent in agents:  # bots answer synchronously (the referee calls decide_sync)
        def wrap(agent=agent, decide=agent.decide_sync):
            def recording(observation, request):
                asked.append(request)
                return decide(observation, request)
            agent.decide_sync = recording
        wrap()
    asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=3), agents))
    offers = [r for r in asked if r.kind in ("self_destruct", "self_destruct_election")]
    checked = 0
    for offer_ in offers:
        ctx = offer_.context
        spoken = next((r for r in asked if r.id > offer_.id and r.seat == ctx["before_speaker"]
                       and r.kind in ("speech", "last_words")), None)
        if spoken is None:  # the day ended first (a self-destruct)
            continue
        assert ctx["speech"] == spoken.context.get("speech", "last_words")
        assert ctx["max_chars"] == spoken.legal.max_chars
        checked += 1
    assert checked >= 10, (len(offers), checked)

    provider = MockProvider("scripted", MockConfig(script=['{"reasoning": "", "action": false, "notes": ""}']))
    agent = LLMAgent("mock:scripted", WOLF, ManagedProvider(provider, CallPolicy(timeout=2, max_retries=1)),
                     options=LLMAgentOptions(lang="en"))
    bare = DecisionRequest(id=1, seat=WOLF, kind="self_destruct", phase="D1", asked_in="D1", legal=YES_OR_NO,
                           default=False, context={"before_speaker": WOLF})
    answer = asyncio.run(agent.decide(observation("en"), bare))
    assert answer.value is False and provider.calls == 1 and agent._kept is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wolf_may_self_destruct_before_another_seat_s_speech_by_a_standing_instruction(lang):
    """#25 item 7 (seed 004: 狼人可以在任何人发言时自爆): any day answer of a wolf may name the seat
    before whose speech it self-destructs today (its briefing says so); the offer before that seat is
    answered from it with no model call, the offer before another seat or on another day is not."""
    from agents.llm_prompts import prompt_book

    obs = observation(lang)
    agent, provider = wolf([{**PLAIN, "claims": [], "self_destruct_before": 8}], lang=lang)
    assert prompt_book(lang).roles["self_destruct_offer"]["own_turn"] in briefing(agent.builder(lang), obs)
    asyncio.run(agent.decide(obs, speech()))
    assert agent._destruct_seats(agent.builder(lang), obs, speech()) == [s for s in range(1, 13) if s != WOLF]
    blow, calls = calls_for(agent, provider, obs, offer(8, rid=10))
    assert blow.value is True and calls == 0
    other, calls = calls_for(agent, provider, obs, offer(9, rid=11))
    assert other.value is False and calls == 0
    later = DecisionRequest(id=12, seat=WOLF, kind="self_destruct", phase="D2", asked_in="D2", legal=YES_OR_NO,
                            default=False, context={"before_speaker": 8, "speech": "discussion", "max_chars": 2000})
    assert asyncio.run(agent.decide(obs, later)).value is False  # yesterday's instruction is spent
    villager = observation(lang, role=Role.VILLAGER)
    plain, _ = wolf([PLAIN], lang=lang)
    assert plain._destruct_seats(plain.builder(lang), villager, speech()) is None  # no field for a card that cannot
