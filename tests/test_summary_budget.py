"""Summary memory's token budget: the rules that bear on one kind of decision come with that question
only, each prompt reports its sections (what the budget is spent on), and the budget is never met by
dropping facts: with realistic speech summary memory costs less than full memory, and the figure is
measured (docs/llm.md), not bounded by cutting. en and zh alike."""

from __future__ import annotations

import pytest

from agents.llm_prompts import SECTIONS, PromptBuilder, prompt_book
from arena.actions import ChooseSeat, DecisionRequest
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







def test_summary_memory_costs_less_than_full_memory_with_realistic_speech():
    """The budget is never met by dropping facts (#25 item 3). With the talking stand-in (speeches
    of 300-600 characters, as chat models give) no memory that keeps the facts and today's speeches
    whole stays under the old 100k-token budget of issue 17 (about 750k prompt tokens a game in
    English, see docs/llm.md and `benchmarks/llm_budget.py --agent mock:talker`); what summary memory
    must do is cost clearly less than full memory, in prompt tokens, for the same game."""
    pytest.importorskip("bpe_openai")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from llm_budget import play

    full = play("full", 0, 0.0, agent="mock:talker")
    summary = play("summary", 0, 0.0, agent="mock:talker")
    assert full["days"] == summary["days"] >= 4  # the same game: the stand-in never reads its prompt
    assert summary["input"] < 0.75 * full["input"], (summary["input"], full["input"])
