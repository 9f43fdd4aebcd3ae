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


def long_game(days: int) -> list:
    """A game of ``days`` days: each night kills nobody, each day exiles one player by a public vote."""
    log = events()
    for d in range(1, days + 1):
        exiled = d + 7
        if d > 1:
            log += [PhaseStarted(phase=f"N{d}"), WolfKnife(phase=f"N{d}", target=None),
                    PhaseStarted(phase=f"D{d}"), DeathsAnnounced(phase=f"D{d}", seats=[], death_phase=f"N{d}")]
        if d == 1:
            log.append(SheriffElected(phase="D1", seat=1, reason="vote"))
        log += [BallotCast(phase=f"D{d}", ballot="exile", voter=v, target=exiled, weight=1) for v in (1, 2, 3)]
        log += [VoteResult(phase=f"D{d}", ballot="exile", tally={exiled: 3}, top=[exiled], voters=[1, 2, 3]),
                ExileResult(phase=f"D{d}", seat=exiled, reason="vote")]
    return log


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_older_days_fold_into_one_line_of_outcomes_and_the_votes_keep_the_last_days(lang):
    ev = prompt_book(lang).events
    st = prompt_book(lang).decisions["state"]
    builder = PromptBuilder(lang, 5, memory="summary")
    seat = (lambda n: f"#{n}") if lang == "en" else (lambda n: f"{n}号")
    sizes = []
    for days in (4, 5):
        built = builder.build(observation(lang=lang, log=long_game(days)), vote_request())
        digest = built.sections["digest"]
        outcomes = [ln for ln in digest.splitlines() if ln.startswith(ev["outcomes_line"].split("{phase}")[0]
                                                                     .replace("{mark}", "⚖"))]
        assert len(outcomes) == 1
        # every exile of the folded days is still there; peaceful nights and empty knives are not
        for d in range(1, days - 1):
            assert ev["events"]["exile_result"].format(seat=seat(d + 7)) in outcomes[0]
        assert ev["events"]["deaths_announced_none"] not in outcomes[0]
        assert ev["events"]["sheriff_elected"].format(seat=seat(1)) in outcomes[0]
        # votes: who voted whom, for the last two voting days only
        votes = next(ln for ln in built.sections["state"].splitlines()
                     if ln.startswith(st["votes_recent"].split("{")[0]))
        group = f"1,2,3→{days + 7}" if lang == "en" else f"1号、2号、3号投给{days + 7}号"
        assert group in votes and (f"→{days + 5}" if lang == "en" else f"投给{days + 5}号") not in votes
        sizes.append(len(built.sections["digest"]) + len(built.sections["state"]))
    assert sizes[1] - sizes[0] < 80  # one more day adds a fact or two, not a day's lines


def test_every_one_of_40_std12_seeds_stays_under_100k_prompt_tokens():
    """Issue 17's budget: summary memory, belief mode votes, std-12-guard, stand-in seats at all twelve
    places, prompt tokens of the whole table counted with the o200k_base vocabulary (every prompt
    sent, cached or not): under 100k in each of the 40 games `benchmarks/llm_budget.py --memory
    summary --games 40` plays. The stand-in's answers do not depend on the prompt text, so the games
    are the same whatever the templates say and this checks the prompts alone."""
    pytest.importorskip("bpe_openai")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from llm_budget import play

    totals = {seed: play("summary", seed, 0.0)["input"] for seed in range(40)}
    over = {seed: tokens for seed, tokens in totals.items() if tokens >= 100_000}
    assert not over, f"games over 100k prompt tokens: {over}"
    assert sum(totals.values()) / len(totals) < 60_000  # and the mean stays well below the limit
