"""Summary memory's token budget: the rules that bear on one kind of decision come with that question
only, the votes so far say who voted for whom, older days fold into one bounded line of outcomes, and
each prompt reports its sections (what the budget is spent on). en and zh alike."""

from __future__ import annotations

import pytest

from agents.llm_prompts import SECTIONS, PromptBuilder, prompt_book
from arena.actions import ChooseSeat, DecisionRequest
from arena.events import (BallotCast, DeathsAnnounced, ExileResult, PhaseStarted, SheriffElected, VoteResult,
                          WolfKnife)
from tests.test_llm_agent import events, observation, vote_request


def request(kind: str, phase: str = "D1", **context) -> DecisionRequest:
    options = tuple(s for s in range(1, 13) if s not in (5, 7))
    return DecisionRequest(id=1, seat=5, kind=kind, phase=phase, asked_in=phase,
                           legal=ChooseSeat(options=options, allow_none=True), default=None, context=context)


def text_of(built) -> str:
    return "\n".join(m.text for m in built.messages)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_rule_that_bears_on_one_kind_of_decision_comes_with_that_question_only(lang):
    card = prompt_book(lang).system["card_rules"]
    voters = card["sheriff_voters"]["non_candidates"]
    tie = card["exile_tie"]["pk_once"]
    builder = PromptBuilder(lang, 5, memory="summary")
    sheriff_vote = builder.build(observation(lang=lang), request("sheriff_vote"))
    exile_vote = builder.build(observation(lang=lang), vote_request())
    assert voters in sheriff_vote.sections["question"] and voters not in text_of(exile_vote)
    assert tie in exile_vote.sections["question"] and tie not in text_of(sheriff_vote)
    # the rules block stays the same text for every seat and kind: the cacheable prefix is untouched
    assert sheriff_vote.sections["rules"] == exile_vote.sections["rules"]
    # full memory keeps every rule line in the rules block
    full = PromptBuilder(lang, 5).build(observation(lang=lang), vote_request())
    assert prompt_book(lang).system["rules"]["sheriff_voters"]["non_candidates"] in full.sections["rules"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_conferral_round_is_a_number_not_a_seat(lang):
    built = PromptBuilder(lang, 5, memory="summary").build(
        observation(lang=lang), request("wolf_propose", phase="N1", wolves=[5, 6], round=1, rounds=3, proposals=[]))
    q = built.sections["question"]
    assert ("round 1 of 3" in q) if lang == "en" else ("共3轮" in q)


def test_sections_are_the_whole_prompt_in_order():
    built = PromptBuilder("en", 5, memory="summary").build(observation(), vote_request())
    assert list(built.sections) == list(SECTIONS)
    whole = text_of(built)
    for name, text in built.sections.items():
        assert text.strip() in whole, name
    assert built.sections["notes"] and built.sections["state"].startswith("Now:")





