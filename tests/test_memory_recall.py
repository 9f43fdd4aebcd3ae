"""#25 items 2-3: a seat's prompt holds the facts a strong player relies on. The recall audit
(benchmarks/recall_audit.py) plays mock:talker games and checks, for every decision from day 3 on,
each fact the seat could know (from its visible events, not from the prompt builder) against the
prompt it was sent: full memory must recall every fact, the bench suite's memory at least 95% of
each class."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from agents.llm_prompts import PromptBuilder, prompt_book  # noqa: E402
from arena.actions import DecisionRequest  # noqa: E402
from arena.bench import load_suite  # noqa: E402
from arena.events import DeathsAnnounced, PhaseStarted, Speech  # noqa: E402
from tests.test_llm_agent import events, observation, vote_request  # noqa: E402


def assert_recall(results: dict, bench_memory: str) -> None:
    for memory, tally in results.items():
        floor = 1.0 if memory == "full" else 0.95 if memory == bench_memory else 0.0
        low = {cls: f"{found}/{total}" for cls, (found, total) in tally.items() if total and found / total < floor}
        assert not low, f"{memory} memory recalls too little: {low}"
    assert all(results[m] for m in results)


def test_the_bench_suite_states_its_memory():
    suite, _ = load_suite("werewolf-bench")
    assert suite.memory == "summary"


@pytest.mark.parametrize("preset,lang", [("std-12-guard", "en"), ("std-12-guard", "zh"),
                                         ("cupid-thief-12", "zh"),
                                         pytest.param("advanced-seed003", "en", marks=pytest.mark.slow)])  # ~20 s
def test_full_memory_recalls_every_fact_and_the_bench_memory_nearly_every(preset, lang):
    from recall_audit import audit

    bench_memory = load_suite("werewolf-bench")[0].memory
    results, decisions = audit([preset], [lang], ["full", bench_memory], games=1, seed=1)
    assert decisions["full"] > 20
    for cls in ("claims with their day", "today's speeches whole", "ballots: earlier days"):
        assert results["full"].get(cls, [0, 0])[1] or preset != "std-12-guard", cls
    assert_recall(results, bench_memory)


@pytest.mark.slow
def test_recall_over_many_games_of_every_board_and_language():
    from recall_audit import PRESETS, audit

    bench_memory = load_suite("werewolf-bench")[0].memory
    results, _ = audit(list(PRESETS), ["en", "zh"], ["full", bench_memory], games=2, seed=10)
    assert_recall(results, bench_memory)


def test_the_audit_sees_a_fact_that_is_missing(monkeypatch):
    """The audit can fail: a memory that drops the ballots of earlier days is caught."""
    import agents.llm_prompts as lp
    from recall_audit import audit

    render = lp.render_history

    def forgetful(renderer, events, **kw):  # the ballots of every day but the latest are dropped
        last = events[-1].phase if events else ""
        return render(renderer, [e for e in events if e.type != "ballot_cast" or e.phase == last], **kw)

    monkeypatch.setattr(lp, "render_history", forgetful)
    results, _ = audit(["std-12-guard"], ["en"], ["summary"], games=1, seed=1)
    found, total = results["summary"]["ballots: earlier days"]
    assert total and found < total


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_summary_memory_folds_only_the_words_of_earlier_days(lang):
    """Every referee line stays; today's speeches are whole; an earlier day's speeches of others are
    replaced by the seat's own summary of that day, its own speeches and last words stay whole."""
    log = events()
    for day in range(2, 5):
        log += [PhaseStarted(phase=f"N{day}"), PhaseStarted(phase=f"D{day}"),
                DeathsAnnounced(phase=f"D{day}", seats=[], death_phase=f"N{day}")]
        log += [Speech(phase=f"D{day}", seat=s, kind="discussion", text=f"seat {s} on day {day} " + "word " * 120)
                for s in (1, 2, 5)]
        if day == 3:
            log.append(Speech(phase="D3", seat=2, kind="last_words", text="my last words on day 3"))
    asked = vote_request()
    day4 = DecisionRequest(id=asked.id, seat=5, kind="vote", phase="D4", asked_in="D4", legal=asked.legal, default=None)
    builder = PromptBuilder(lang, 5, memory="summary")
    builder.summaries = {2: "day two in my words", 3: "day three in my words"}
    text = builder.build(observation(lang=lang, log=log), day4).messages[1].text
    full = PromptBuilder(lang, 5).build(observation(lang=lang, log=log), day4).messages[1].text
    peaceful = prompt_book(lang).events["events"]["deaths_announced_none"]
    assert text.count(peaceful) == full.count(peaceful) == 3
    assert "seat 1 on day 2" not in text and "seat 1 on day 3" not in text
    assert ("seat 1 on day 4 " + "word " * 120).strip() in text  # today's: whole
    assert "seat 5 on day 2" in text and "my last words on day 3" in text
    assert "day two in my words" in text and "day three in my words" in text and len(text) < len(full)
    assert "…" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_witch_with_two_victims_is_told_both_and_nobody_is_not_none(lang):
    """#25 item 6: on the seed-003 board two attacks may hit; the question names both victims (not
    "the wolves attacked nobody"); an unset auxiliary police reads as nobody, not None."""
    from arena.actions import ChooseOption, ChooseSeat
    from arena.events import WitchTold, only

    log = events(extra=[WitchTold(phase="N1", visibility=only(5), seat=5, victim=10, victims=[10, 3])])
    asked = DecisionRequest(id=2, seat=5, kind="witch_save", phase="N1", asked_in="N1",
                            legal=ChooseOption(options=(10, 3, False)), default=False, context={"victims": [10, 3]})
    text = PromptBuilder(lang, 5).build(observation(lang=lang, log=log), asked).messages[1].text
    nobody = prompt_book(lang).events["nobody"]
    ten, three = ("#10", "#3") if lang == "en" else ("10号", "3号")
    question = text.splitlines()[-1]
    assert ten in question and three in question and nobody not in question
    record = [ln for ln in text.splitlines() if ten in ln and three in ln]
    assert len(record) >= 2  # the record's line names both too
    appoint = DecisionRequest(id=3, seat=5, kind="aux_police_appoint", phase="D2", asked_in="D2",
                              legal=ChooseSeat(options=(1, 2), allow_none=True), default=None, context={"current": None})
    text = PromptBuilder(lang, 5).build(observation(lang=lang), appoint).messages[1].text
    assert "None" not in text.splitlines()[-1] and nobody in text.splitlines()[-1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_model_seat_declares_its_claims_and_listeners_keep_them_exactly(lang):
    """#25 item 4: a speech answer's ``claims`` are appended to the public speech in the table's words;
    when that day is folded the declaration stays; nonsense items are left out, not guessed at."""
    import asyncio
    import json

    from arena.actions import Speak
    from agents.llm_answer import read_claims
    from tests.test_llm_agent import agent_with

    claims = [{"kind": "role", "role": "seer", "seat": None, "result": None, "night": None, "then": None},
              {"kind": "check", "role": None, "seat": 9, "result": "wolf", "night": 1, "then": None},
              {"kind": "check", "role": None, "seat": 99, "result": "wolf", "night": 1, "then": None}]
    reply = json.dumps({"reasoning": "r", "action": "I am the seer and #9 is my wolf.", "notes": "", "claims": claims})
    agent, _ = agent_with([reply], memory="summary", lang=lang)
    speech = DecisionRequest(id=7, seat=5, kind="speech", phase="D1", asked_in="D1", legal=Speak(max_chars=800),
                             default="pass", context={"speech": "discussion"})
    answer = asyncio.run(agent.decide(observation(lang=lang), speech))
    seer = prompt_book(lang).system["role_names"]["seer"]
    nine = "#9" if lang == "en" else "9号"
    body, _, declared = answer.value.rpartition("\n")
    assert body == "I am the seer and #9 is my wolf." and seer in declared and nine in declared and "99" not in declared
    assert len(read_claims({"claims": claims}, 12)) == 2
    # folded two days later, the declaration is still in the listener's record
    log = events() + [Speech(phase="D1", seat=2, kind="discussion", text=answer.value)]
    for day in (2, 3):
        log += [PhaseStarted(phase=f"N{day}"), PhaseStarted(phase=f"D{day}")]
    asked = vote_request()
    day3 = DecisionRequest(id=9, seat=5, kind="vote", phase="D3", asked_in="D3", legal=asked.legal, default=None)
    text = PromptBuilder(lang, 5, memory="summary").build(observation(lang=lang, log=log), day3).messages[1].text
    assert "I am the seer" not in text and '<declared seat="2"' in text and nine in text.split('<declared seat="2"')[1]
