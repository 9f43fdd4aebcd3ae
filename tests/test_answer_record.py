"""What an agent says about its answer is stored once, on the answer's decision line: the engine takes
values only (no thought events), latency is the agent's to report in ``AnswerExtras``, and transcripts
written when reasoning was also an event still read, replay, view and score."""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import time
from pathlib import Path
from typing import Any

from agents.base import timed
from agents.bots import RandomBot, random_choice
from arena.actions import Answer
from arena.engine import Game, GameSetup
from arena.referee import play_sync, run_game
from arena.transcript import TranscriptWriter, read_transcript

#: A game written before reasoning was stored once: its answers' reasoning, notes and beliefs are on
#: the decision lines and also in ``thought`` events (36 of them).
OLD = Path(__file__).parent / "data" / "transcript-with-thought-events.jsonl"


class Thinking:
    """Random choices, with reasoning, notes and beliefs on most answers (the agent that wrote OLD)."""

    spec = "test:thinking"
    deterministic = True

    def __init__(self, seat: int):
        self.seat = seat
        self.rng = random.Random(f"thinking:{seat}")

    def decide_sync(self, observation: Any, request: Any) -> Any:
        value = random_choice(request, self.rng)
        if request.id % 3 == 0:
            return value
        return Answer(value=value, reasoning=f"seat {self.seat} reasons about decision {request.id}",
                      notes=f"note {request.id}" if request.id % 2 else None,
                      beliefs={1: 0.25, 2: 0.5} if request.id % 5 == 0 else None)

    async def decide(self, observation: Any, request: Any) -> Any:
        return self.decide_sync(observation, request)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_the_engine_takes_values_only() -> None:
    assert list(inspect.signature(Game.submit).parameters) == ["self", "answers"]
    assert list(inspect.signature(Game.submit_in_order).parameters) == ["self", "answers"]


def test_reasoning_notes_and_beliefs_are_stored_once_on_the_decision_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with TranscriptWriter(path) as writer:
        play_sync(GameSetup(preset="cupid-tucheng-7", seed=5), [Thinking(s) for s in range(1, 8)], writer=writer)
    lines = _lines(path)
    assert not [x for x in lines if x["type"] == "event" and x["event"]["type"] == "thought"]
    decisions = [x for x in lines if x["type"] == "decision"]
    thought = [d for d in decisions if d["reasoning"]]
    assert len(thought) >= 30
    for d in decisions:
        expected = None if d["id"] % 3 == 0 else f"seat {d['seat']} reasons about decision {d['id']}"
        assert d["reasoning"] == expected
    assert any(d["notes"] for d in decisions) and any(d["beliefs"] for d in decisions)
    # each reasoning appears once in the whole file
    text = path.read_text(encoding="utf-8")
    assert all(text.count(f'"{d["reasoning"]}"') == 1 for d in thought)
    # the game and its events are those of the code that also wrote thought events, less those events
    old = [x for x in _lines(OLD) if not (x["type"] == "event" and x["event"]["type"] == "thought")]
    strip = [{k: v for k, v in x.items() if k != "seq"} for x in old[1:]]
    now = [{k: v for k, v in x.items() if k != "seq"} for x in lines[1:]]
    for was, new in zip(strip, now):  # that code gave every day without an exile the reason no_exile (replay.py)
        if was.get("event", {}).get("reason") == "no_exile" and new.get("event", {}).get("type") == "exile_result":
            new["event"]["reason"] = "no_exile"
    assert strip == now


def test_a_transcript_with_thought_events_still_reads_replays_views_and_scores() -> None:
    from arena.evaluate.load import load_game
    from arena.replay import replay
    from arena.viewer import build_view_data

    t = read_transcript(OLD)
    assert sum(1 for e in t.events if e.event.type == "thought") == 36
    report = replay(OLD)
    assert report.ok, report.first_difference
    page = build_view_data(OLD)
    assert sum(1 for d in page["decisions"] if d["reasoning"]) == sum(1 for d in t.decisions if d.reasoning) >= 30
    game = load_game(OLD, strict=True)
    assert game.result is not None


def test_latency_is_reported_by_agents_that_measure_it_and_never_by_bots(tmp_path: Path) -> None:
    class Timed:  # an agent that is not deterministic and has no decide_sync, like a model or a person
        spec = "test:timed"
        deterministic = False

        def __init__(self, seat: int):
            self.rng = random.Random(seat)

        async def decide(self, observation: Any, request: Any) -> Answer:
            started = time.perf_counter()
            await asyncio.sleep(0.002 if request.id < 5 else 0)
            return timed(Answer(value=random_choice(request, self.rng)), started)

    path = tmp_path / "g.jsonl"
    agents: list[Any] = [Timed(s) if s <= 2 else RandomBot(s, 1) for s in range(1, 8)]
    with TranscriptWriter(path) as writer:
        asyncio.run(run_game(GameSetup(preset="cupid-tucheng-7", seed=1), agents, writer=writer))
    decisions = [x for x in _lines(path) if x["type"] == "decision"]
    timed_lines = [d for d in decisions if d["seat"] <= 2]
    assert timed_lines and all(isinstance(d["latency_ms"], float) for d in timed_lines)
    assert any(d["latency_ms"] >= 2.0 for d in timed_lines if d["id"] < 5)
    assert all(d["latency_ms"] is None for d in decisions if d["seat"] > 2)


def test_the_llm_agent_reports_its_latency_and_its_reasoning_once(tmp_path: Path) -> None:
    from agents.registry import make_agent

    path = tmp_path / "g.jsonl"
    agents = [make_agent("mock:bench", seat=s, seed=0, latency=0.0) for s in range(1, 8)]
    with TranscriptWriter(path) as writer:
        asyncio.run(run_game(GameSetup(preset="cupid-tucheng-7", seed=2), agents, writer=writer))
    lines = _lines(path)
    decisions = [x for x in lines if x["type"] == "decision"]
    assert decisions and all(isinstance(d["latency_ms"], float) and d["latency_ms"] >= 0 for d in decisions)
    assert any(d["reasoning"] for d in decisions)
    assert not [x for x in lines if x["type"] == "event" and x["event"]["type"] == "thought"]
