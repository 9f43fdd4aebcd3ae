"""The driver: concurrency without nondeterminism, and agents that misbehave without killing the game."""

from __future__ import annotations

import asyncio
import io
import random
from typing import Any

import pytest

from agents.bots import RandomBot, random_choice
from arena.actions import Answer, DecisionRequest
from arena.engine import Game, GameSetup, new_game
from arena.observation import Observation
from arena.referee import Table, play_sync, run_game, run_table_sync
from arena.transcript import TranscriptWriter


class SlowRandom:
    """The random bot behind an async interface, answering after a random delay (out of order)."""

    deterministic = True

    def __init__(self, seat: int, seed: int):
        self.inner = RandomBot(seat, seed)
        self.spec = "bot:random"
        self.jitter = random.Random(seat * 7919)

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        await asyncio.sleep(self.jitter.random() * 0.002)
        return self.inner.decide_sync(observation, request)


def test_concurrent_answers_are_applied_in_seat_order() -> None:
    """R82 ballots are simultaneous: the agents finish in any order, the transcript is the same."""
    seed = 17
    sync_out, async_out = io.StringIO(), io.StringIO()
    setup = GameSetup(preset="std-12-guard", seed=seed)
    play_sync(setup, [RandomBot(s, seed) for s in range(1, 13)], writer=TranscriptWriter(stream=sync_out),
              specs=["bot:random"] * 12)
    asyncio.run(run_game(setup, [SlowRandom(s, seed) for s in range(1, 13)],
                         writer=TranscriptWriter(stream=async_out), specs=["bot:random"] * 12))
    assert sync_out.getvalue() == async_out.getvalue()


class Crasher:
    spec = "test:crasher"

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        raise RuntimeError("model exploded")


class Nonsense:
    spec = "test:nonsense"

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        return Answer(value={"not": "an answer"})


def test_a_crashing_or_nonsensical_agent_never_stops_the_game() -> None:
    """R9: an illegal answer is refused and the default applies; an agent error is a recorded fault."""
    seed = 5
    agents = [Crasher() if s in (1, 2) else Nonsense() if s in (3, 4) else RandomBot(s, seed) for s in range(1, 13)]
    out = io.StringIO()
    result = asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents,
                                  writer=TranscriptWriter(stream=out)))
    assert result.winner in {"village", "wolves", "draw"}
    records = result.game.decisions
    crashed = [r for r in records if r.request.seat in (1, 2)]
    nonsense = [r for r in records if r.request.seat in (3, 4)]
    assert crashed and all(r.value == r.request.default for r in crashed)
    assert nonsense and all(r.refused and r.value == r.request.default for r in nonsense)
    text = out.getvalue()
    assert "agent error: RuntimeError: model exploded" in text
    assert '"refused":true' in text


def test_illegal_answers_are_refused_with_a_reason() -> None:
    game = new_game("std-12-guard", seed=1, rules={"sheriff": False})
    guard_request = next(r for r in game.pending())
    assert guard_request.kind == "guard"
    game.submit({guard_request.id: 99})
    record = game.decisions[-1]
    assert record.refused and record.value is None and "not a legal choice" in record.error
    refused = [e for e in game.log if e.type == "answer_refused"]
    assert refused and refused[-1].visibility.seats == (guard_request.seat,)


def test_pending_names_seat_kind_and_legal_set() -> None:
    game = Game(GameSetup(preset="std-12-guard", seed=2, rules={"sheriff": False}))
    seen = set()
    while not game.over and len(seen) < 4:
        requests = game.pending()
        for r in requests:
            seen.add(r.kind)
            assert 1 <= r.seat <= 12 and r.legal.check(r.default) == r.default or r.legal.type == "seat"
        game.submit({r.id: r.default for r in requests})
    assert {"guard", "wolf_kill"} <= seen


class Meddler:
    """An agent that tries to change the request it is handed before answering it."""

    spec = "test:meddler"
    deterministic = True

    def __init__(self, seat: int, seed: int):
        self.inner = RandomBot(seat, seed)
        self.blocked = 0

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        for name, value in (("default", "nonsense"), ("legal", None), ("seat", 99)):
            try:
                setattr(request, name, value)
            except AttributeError:
                self.blocked += 1
        return self.inner.decide_sync(observation, request)


def test_an_agent_cannot_change_the_request_it_answers() -> None:
    """Requests are immutable: what the referee checks an answer against is what it asked."""
    setup = GameSetup(preset="std-12-guard", seed=4)
    meddlers = [Meddler(s, 4) for s in range(1, 13)]
    result = play_sync(setup, meddlers)
    reference = play_sync(setup, [RandomBot(s, 4) for s in range(1, 13)])
    assert sum(m.blocked for m in meddlers) == 3 * result.decisions
    assert [(d.request.kind, d.value) for d in result.game.decisions] == \
        [(d.request.kind, d.value) for d in reference.game.decisions]


def test_observations_carry_the_seat_and_the_table_facts() -> None:
    """Each observation names its own seat and the table's board, switches and language, and its
    events are exactly what that seat may see up to the decision."""
    game = Game(GameSetup(preset="std-12-guard", seed=6))
    seen: list[tuple[Observation, DecisionRequest, int]] = []

    class Recorder(RandomBot):
        def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
            seen.append((observation, request, len(game.log)))
            return super().decide_sync(observation, request)

    table = Table(game, [Recorder(s, 6) for s in range(1, 13)], lang="zh")
    run_table_sync(table)
    assert len(seen) == len(game.decisions)
    switches = game.rules.switches.model_dump(mode="json")
    for observation, request, upto in seen[::7]:
        assert observation.seat == request.seat
        assert (observation.players, observation.preset, observation.lang) == (12, "std-12-guard", "zh")
        assert observation.switches == switches
        assert list(observation.events) == [e for e in game.log[:upto] if e.visibility.allows(request.seat)]


class WrappedRandom(RandomBot):
    """The random bot answering with an :class:`Answer` instead of its bare value."""

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        return Answer(value=super().decide_sync(observation, request))


class SyncCrasher(RandomBot):
    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        raise RuntimeError("bot exploded")


def test_the_sync_driver_takes_answers_or_bare_values_and_survives_crashes() -> None:
    """An agent may answer with an ``Answer`` or its bare choice (``bot:random`` does), and the game is
    the same; without an event loop too, an agent's crash is a recorded fault."""
    seed = 8
    setup = GameSetup(preset="std-12-guard", seed=seed)
    reference = play_sync(setup, [RandomBot(s, seed) for s in range(1, 13)])
    wrapped = play_sync(setup, [WrappedRandom(s, seed) if s <= 4 else RandomBot(s, seed) for s in range(1, 13)])
    assert [(d.request.key, d.value) for d in wrapped.game.decisions] == \
        [(d.request.key, d.value) for d in reference.game.decisions]
    assert wrapped.game.log == reference.game.log
    out = io.StringIO()
    crashed = play_sync(setup, [SyncCrasher(s, seed) if s <= 2 else RandomBot(s, seed) for s in range(1, 13)],
                        writer=TranscriptWriter(stream=out))
    faults = [d for d in crashed.game.decisions if d.request.seat <= 2]
    assert faults and all(d.value == d.request.default for d in faults)
    assert out.getvalue().count("agent error: RuntimeError: bot exploded") == len(faults)


def test_answers_in_order_equal_answers_by_id() -> None:
    """``submit_in_order`` (the drivers' form) plays exactly as ``submit`` by request id; a wrong count is refused."""
    by_id = new_game("std-12-guard", seed=3)
    in_order = new_game("std-12-guard", seed=3)
    rng_a, rng_b = random.Random(1), random.Random(1)
    while not by_id.over:
        by_id.submit({r.id: random_choice(r, rng_a) for r in by_id.pending()})
        in_order.submit_in_order([random_choice(r, rng_b) for r in in_order.pending()])
    assert in_order.over and in_order.log == by_id.log
    with pytest.raises(ValueError, match="0 answers for"):
        new_game("std-12-guard", seed=3).submit_in_order([])


class Oddity:
    def __str__(self) -> str:
        return "an odd object"


class OddAnswers(RandomBot):
    """Answers with an object no JSON serialiser knows."""

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        return Oddity()  # type: ignore[return-value]


def test_an_answer_no_serialiser_knows_is_refused_and_written_as_text(tmp_path: Any) -> None:
    from arena.transcript import read_transcript

    seed = 9
    path = tmp_path / "odd.jsonl"
    with TranscriptWriter(path=path) as writer:
        result = play_sync(GameSetup(preset="std-12-guard", seed=seed),
                           [OddAnswers(s, seed) if s == 1 else RandomBot(s, seed) for s in range(1, 13)], writer=writer)
    odd = [d for d in result.game.decisions if d.request.seat == 1]
    assert odd and all(d.refused for d in odd)
    lines = [d for d in read_transcript(path).decisions if d.seat == 1]
    assert len(lines) == len(odd) and all(d.answer == "an odd object" and d.refused for d in lines)
