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
from arena.events import Event, ExileResult
from arena.observation import Observation
from arena.referee import Table, run_table_sync
from arena.transcript import DecisionLine, EventLine, Transcript, decision_fields, read_transcript


class ReplayMismatch(ValueError):
    pass


class _ReachedTheAbandonment(BaseException):
    """An abandoned game's replay reached the first decision nobody answered: the game stopped there.
    A BaseException, so that the referee's loop (which turns an agent's Exception into a default
    answer) lets it through."""

    def __init__(self, request: DecisionRequest):
        super().__init__(request.id)
        self.request = request


class RecordedAgent:
    """Answers each decision with what the transcript recorded for that decision id."""

    spec = "replay"
    deterministic = True

    def __init__(self, answers: dict[int, DecisionLine], stop_at: int | None = None, abandoned: bool = False):
        self.answers = answers
        self.stop_at = stop_at
        self.abandoned = abandoned  # the transcript says the game stopped: its first unanswered decision ends it

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        line = self.answers.get(request.id)
        if line is None and self.abandoned:
            raise _ReachedTheAbandonment(request)
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
                     game_index=h.game_index, first_kill_protected=tuple(h.first_kill_protected or ()),
                     beliefs=dict(h.beliefs or {}))


@dataclass
class ReplayReport:
    winner: str
    recorded_winner: str | None
    events_compared: int
    identical: bool
    first_difference: str | None = None
    complete: bool = True
    #: the transcript records an abandoned game (result line ``abandoned: true``)
    abandoned: bool = False
    #: where it stopped, when the replay agrees: "D2, before decision 41 (seat 3 vote) was answered"
    abandoned_at: str | None = None

    @property
    def ok(self) -> bool:
        return self.identical and self.complete and self.winner == self.recorded_winner and not self.abandoned


#: The parts of a decision line the replay re-derives (the rest is what the agent said about it).
_DECISION_FACTS = ("seat", "kind", "phase", "asked_in", "legal", "default", "answer", "value", "refused")


def as_recorded(recorded: Event, replayed: Event) -> Event:
    """The replayed event as an earlier version wrote it: a day without an exile once carried the reason
    ``no_exile`` whatever the cause; now it says why (a tie, a second tie, no ballot...)."""
    if (isinstance(recorded, ExileResult) and recorded.seat is None and recorded.reason == "no_exile"
            and isinstance(replayed, ExileResult) and replayed.seat is None):
        return replayed.model_copy(update={"reason": "no_exile"})
    return replayed


def replay(path: str | Path) -> ReplayReport:
    """Re-run the answers and compare everything the evaluator reads: every event, every decision's
    facts, the result line (winner, reason, roles, alive set, counts) and the header's seats."""
    transcript = read_transcript(path)
    answers = {d.id: d for d in transcript.decisions}
    game = Game(setup_of(transcript))
    abandoned = transcript.result is not None and transcript.result.abandoned
    agent = RecordedAgent(answers, abandoned=abandoned)
    table = Table(game, [agent] * game.state.n)
    recorded_winner = _recorded_winner(transcript)
    stopped_at: DecisionRequest | None = None
    try:
        run_table_sync(table)
    except ReplayMismatch as exc:
        return ReplayReport(winner="none", recorded_winner=recorded_winner, events_compared=0,
                            identical=False, first_difference=str(exc), complete=transcript.complete,
                            abandoned=abandoned)
    except _ReachedTheAbandonment as stop:
        stopped_at = stop.request
        table.abandoned = True  # as the referee marks a stopped game; the result lines are then compared whole
    winner = game.state.winner.value if game.state.winner else "none"
    # Earlier versions also wrote each seat's reasoning as a ``thought`` event; the engine no longer makes
    # them (the decision lines hold the same reasoning), so the replay passes over them.
    recorded = [(at, line) for at, line in enumerate(transcript.events) if line.event.type != "thought"]
    difference = _header_difference(transcript, game.state.n)
    for i, (at, line) in enumerate(recorded):
        if difference is not None:
            break
        if i >= len(game.log):
            difference = f"event {at}: the replay ended before it"
            break
        again = EventLine(seq=at, event=as_recorded(line.event, game.log[i])).model_dump_json()
        if again != line.model_dump_json():
            difference = f"event {at}: recorded {line.event.type}, replayed {game.log[i].type}"
    if difference is None:
        difference = _decision_difference(transcript, table)
    if difference is None and transcript.complete:
        if len(game.log) != len(recorded):
            difference = f"the replay has {len(game.log)} events, the transcript {len(recorded)}"
        else:
            difference = _result_difference(transcript, table)
    identical = difference is None
    if identical and not transcript.complete:
        difference = "the transcript has no result line: the game is incomplete" + (
            " (its last line is torn)" if transcript.torn_tail else "")
    where = None
    if identical and stopped_at is not None:
        where = (f"{game.state.phase}, before decision {stopped_at.id} (seat {stopped_at.seat} {stopped_at.kind}) "
                 "was answered")
    return ReplayReport(winner=winner, recorded_winner=recorded_winner, events_compared=len(recorded),
                        identical=identical, first_difference=difference, complete=transcript.complete,
                        abandoned=abandoned, abandoned_at=where)


def _header_difference(transcript: Transcript, players: int) -> str | None:
    """The header's seats: one agent per seat in seat order, and each decision names its seat's agent."""
    agents = transcript.header.agents
    if [a.seat for a in agents] != list(range(1, players + 1)):
        return f"header: agents are listed for seats {[a.seat for a in agents]}, the board has {players} seats"
    specs = {a.seat: a.spec for a in agents}
    for d in transcript.decisions:
        if d.agent is not None and d.agent != specs.get(d.seat):
            return f"decision {d.id}: made by {d.agent!r}, the header seats {specs.get(d.seat)!r} at seat {d.seat}"
    return None


def _decision_difference(transcript: Transcript, table: Table) -> str | None:
    replayed = table.game.decisions
    recorded = transcript.decisions
    if transcript.complete and len(replayed) != len(recorded):
        return f"the replay asked {len(replayed)} decisions, the transcript has {len(recorded)}"
    for record, line in zip(replayed, recorded):
        again = decision_fields(record, None, None)
        if again["id"] != line.id:
            return f"decision {line.id}: recorded in the place of decision {again['id']}"
        mine = DecisionLine.model_validate(again).model_dump(mode="json", include=set(_DECISION_FACTS))
        theirs = line.model_dump(mode="json", include=set(_DECISION_FACTS))
        if mine != theirs:
            field = next(k for k in _DECISION_FACTS if mine[k] != theirs[k])
            return f"decision {line.id}: recorded {field} {theirs[field]!r}, replayed {mine[field]!r}"
    return None


def _result_difference(transcript: Transcript, table: Table) -> str | None:
    assert transcript.result is not None
    recorded = transcript.result.model_dump(mode="json")
    again = table.result_line().model_dump(mode="json")
    for field, value in again.items():
        mine = recorded.get(field)
        if mine != value:
            if isinstance(value, dict) and isinstance(mine, dict):  # name the seats that differ
                keys = sorted(set(value) | set(mine), key=str)
                mine = {k: mine.get(k) for k in keys if mine.get(k) != value.get(k)}
                value = {k: value.get(k) for k in mine}
            return f"result: recorded {field} {mine!r}, replayed {value!r}"
    return None


def _recorded_winner(transcript: Transcript) -> Any:
    return transcript.result.winner if transcript.result else None
