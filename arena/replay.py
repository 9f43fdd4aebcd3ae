"""Replay a transcript: re-run its recorded answers through the referee and compare.

Like a PGN move list, the answers are the canonical record: the same setup and the same answers
must give the same events, byte for byte, and the same result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.actions import Answer, AnswerExtras, DecisionRequest
from arena.engine import Game, GameSetup
from arena.observation import Observation
from arena.referee import Table, run_table_sync
from arena.transcript import DecisionLine, EventLine, Transcript, read_transcript


class ReplayMismatch(ValueError):
    pass


class RecordedAgent:
    """Answers each decision with what the transcript recorded for that decision id."""

    spec = "replay"
    deterministic = True

    def __init__(self, answers: dict[int, DecisionLine], stop_at: int | None = None):
        self.answers = answers
        self.stop_at = stop_at

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        line = self.answers.get(request.id)
        if line is None:
            raise ReplayMismatch(f"decision {request.id} ({request.seat}: {request.key}) is not in the transcript")
        if line.seat != request.seat or line.kind != request.kind:
            raise ReplayMismatch(f"decision {request.id}: the transcript has seat {line.seat} {line.kind}, "
                                 f"the referee asks seat {request.seat} {request.kind}")
        if line.defaulted and line.answer == line.default:
            return Answer(value=line.answer, extras=AnswerExtras(default_applies=True))
        return Answer(value=line.answer, reasoning=line.reasoning, notes=line.notes, beliefs=line.beliefs)


def setup_of(transcript: Transcript) -> GameSetup:
    h = transcript.header
    return GameSetup(preset=h.preset, seed=h.seed, rules=dict(h.rules), deal=h.deal, center=h.center,
                     game_index=h.game_index, first_kill_protected=tuple(h.first_kill_protected or ()))


@dataclass
class ReplayReport:
    winner: str
    recorded_winner: str | None
    events_compared: int
    identical: bool
    first_difference: str | None = None

    @property
    def ok(self) -> bool:
        return self.identical and (self.recorded_winner is None or self.winner == self.recorded_winner)


def replay(path: str | Path) -> ReplayReport:
    transcript = read_transcript(path)
    answers = {d.id: d for d in transcript.decisions}
    game = Game(setup_of(transcript))
    agent = RecordedAgent(answers)
    table = Table(game, [agent] * game.state.n)
    try:
        run_table_sync(table)
    except ReplayMismatch as exc:
        return ReplayReport(winner="none", recorded_winner=_recorded_winner(transcript), events_compared=0,
                            identical=False, first_difference=str(exc))
    recorded = transcript.events
    difference = None
    for i, line in enumerate(recorded):
        if i >= len(game.log):
            difference = f"event {i}: the replay ended before it"
            break
        again = EventLine(seq=i, event=game.log[i]).model_dump_json()
        if again != line.model_dump_json():
            difference = f"event {i}: recorded {line.event.type}, replayed {game.log[i].type}"
            break
    if difference is None and transcript.complete and len(game.log) != len(recorded):
        difference = f"the replay has {len(game.log)} events, the transcript {len(recorded)}"
    return ReplayReport(winner=game.state.winner.value if game.state.winner else "none",
                        recorded_winner=_recorded_winner(transcript), events_compared=len(recorded),
                        identical=difference is None, first_difference=difference)


def _recorded_winner(transcript: Transcript) -> Any:
    return transcript.result.winner if transcript.result else None
