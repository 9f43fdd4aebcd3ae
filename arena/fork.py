"""Counterfactual forks: replay a game's recorded answers up to a decision, then play on with other
agents (or the same ones with another seed), writing a new transcript that names its parent.

The engine is deterministic, so replaying the parent's answers rebuilds the game exactly up to the
fork point; every replayed request is checked against the parent's decision line (same id, seat and
kind) and a divergence is an error, never a silent different game. Decisions before the fork point
keep the parent's private material (reasoning, notes, beliefs), so the evaluator sees the same
prefix in parent and fork. Like the tournament, this module never imports ``agents``: the caller
passes the agent factory.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, Sequence

from pydantic import BaseModel, ConfigDict

from arena.actions import Answer, AnswerExtras, DecisionRequest
from arena.config import ConfigError
from arena.engine import GameSetup
from arena.observation import Observation
from arena.transcript import DecisionLine, ForkOrigin, Transcript, TranscriptWriter, read_transcript


class ForkError(ConfigError):
    """The fork cannot be made (bad decision id, the replay diverged...). The message says why."""


def _recorded_answer(line: DecisionLine) -> Answer:
    if line.defaulted and line.answer == line.default:
        return Answer(value=line.answer, extras=AnswerExtras(default_applies=True))
    return Answer(value=line.answer, reasoning=line.reasoning, notes=line.notes, beliefs=line.beliefs)


class ReplayThen:
    """Answers decisions before ``at`` from the parent's record; asks ``inner`` from ``at`` on."""

    deterministic = True

    def __init__(self, inner: Any, recorded: dict[int, DecisionLine], at: int):
        self.inner = inner
        self.recorded = recorded
        self.at = at
        self.spec = getattr(inner, "spec", "agent")

    def _replayed(self, request: DecisionRequest) -> Answer:
        line = self.recorded.get(request.id)
        if line is None or line.seat != request.seat or line.kind != request.kind:
            had = f"seat {line.seat} {line.kind}" if line is not None else "nothing"
            raise ForkError(f"the replay diverged at decision {request.id}: the parent has {had}, the referee "
                            f"asks seat {request.seat} {request.kind}")
        return _recorded_answer(line)

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        if request.id < self.at:
            return self._replayed(request)
        return await self.inner.decide(observation, request)


class SyncReplayThen(ReplayThen):
    """The same, for inner agents that decide without I/O (so the referee keeps its fast sync path)."""

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        if request.id < self.at:
            return self._replayed(request)
        return self.inner.decide_sync(observation, request)


class ForkResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    game_id: str
    parent: str
    at_decision: int
    winner: str
    parent_winner: str | None
    specs: list[str]


def setup_of(transcript: Transcript) -> GameSetup:
    h = transcript.header
    return GameSetup(preset=h.preset, seed=h.seed, rules=dict(h.rules), deal=h.deal, center=h.center,
                     first_kill_protected=tuple(h.first_kill_protected or ()),
                     beliefs=dict(h.beliefs or {}))


async def fork_game(
    parent_path: str | Path,
    at: int,
    factory: Callable[..., Any],
    *,
    specs: Sequence[str] | None = None,
    agent_seed: int | None = None,
    out: str | Path | None = None,
    labels: Sequence[str | None] | None = None,
) -> ForkResult:
    """Replay ``parent_path`` up to decision ``at`` (exclusive), then play on with ``specs``.

    ``specs``: one per seat (default: the parent's). ``agent_seed``: the seed the new agents are built
    with (default: the game's seed); the game's own seed never changes, so the deal and the referee's
    random streams are the parent's.
    """
    from arena.referee import run_game

    parent = read_transcript(parent_path)
    header = parent.header
    recorded = {d.id: d for d in parent.decisions}
    if not recorded:
        raise ForkError(f"{parent_path}: no decisions to replay")
    if not 1 <= at <= max(recorded) + 1:
        raise ForkError(f"--at {at}: the parent's decisions are numbered 1..{max(recorded)}")
    n = len(header.agents)
    specs = list(specs) if specs else [a.spec for a in sorted(header.agents, key=lambda a: a.seat)]
    if len(specs) != n:
        raise ForkError(f"{len(specs)} agent specs for {n} seats")
    seed = header.seed if agent_seed is None else agent_seed
    inner = [factory(spec, seat=i + 1, seed=seed, lang=header.lang) for i, spec in enumerate(specs)]
    agents = [(SyncReplayThen if hasattr(a, "decide_sync") else ReplayThen)(a, recorded, at) for a in inner]
    tag = hashlib.sha256(f"{','.join(specs)}|{seed}".encode()).hexdigest()[:6]
    game_id = f"{header.game_id}-fork{at}-{tag}"
    if out is None:
        path = Path(parent_path).with_name(f"{game_id}.jsonl")
    else:
        out = Path(out)
        path = out / f"{game_id}.jsonl" if out.suffix != ".jsonl" else out
    if labels is None:
        by_seat = {a.seat: a for a in header.agents}
        # A spec that the parent's roster named with exactly one label keeps that label, so the
        # evaluator sees one agent ("heuristic"), not two ("heuristic" and "bot:heuristic").
        names: dict[str, set[str]] = {}
        for a in header.agents:
            if a.label:
                names.setdefault(a.spec, set()).add(a.label)
        unique = {spec: next(iter(found)) for spec, found in names.items() if len(found) == 1}
        labels = [by_seat[i + 1].label if specs[i] == by_seat[i + 1].spec else unique.get(specs[i])
                  for i in range(n)]
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    try:
        with TranscriptWriter(part) as writer:
            result = await run_game(setup_of(parent), agents, writer=writer, specs=specs, lang=header.lang,
                                    game_id=game_id, labels=list(labels),
                                    fork=ForkOrigin(parent=header.game_id, at_decision=at))
    except BaseException:
        part.unlink(missing_ok=True)  # never leave a half-written fork behind
        raise
    part.replace(path)
    return ForkResult(path=str(path), game_id=game_id, parent=header.game_id, at_decision=at, winner=result.winner,
                      parent_winner=parent.result.winner if parent.result else None, specs=specs)
