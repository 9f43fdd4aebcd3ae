"""The slice of a transcript the ratings need: who sat where, with which card, and who won.

Ratings take :class:`GameRecord` values, not transcripts, so they can be tested on synthetic games
and fed by any reader. :func:`game_record` builds one from a read transcript.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.transcript import Transcript
from arena.types import is_wolf_card

Side = Literal["good", "wolf"]


# Plain slotted dataclasses, not pydantic models: the evaluator keeps one GameRecord per scored game
# until the ratings run (a pydantic record with its seats weighed about 4.5 KiB a game; this, with
# the seat records shared between games, about 0.3 KiB).
@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    agent: str
    role: str
    side: Side


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game. ``winner`` is the transcript's winner string (village, wolves, lovers, draw)."""

    game_id: str
    board: str
    winner: str
    seats: tuple[SeatRecord, ...]
    seed: int | None = None
    abandoned: bool = False

    @property
    def good_won(self) -> float | None:
        """1 if the village won, 0 if the wolves won, 0.5 for a draw, None for anything else."""
        if self.abandoned:
            return None
        return {"village": 1.0, "wolves": 0.0, "draw": 0.5}.get(self.winner)

    def sort_key(self) -> tuple:
        """A total order on games that does not depend on how they were listed."""
        return (
            self.game_id,
            self.board,
            self.seed if self.seed is not None else -1,
            self.winner,
            tuple((s.seat, s.agent, s.role) for s in self.seats),
        )


def side_of(role: str) -> Side:
    return "wolf" if is_wolf_card(role) else "good"


def agent_label(spec: str, label: str | None) -> str:
    return label or spec


def game_record(transcript: Transcript) -> GameRecord | None:
    """None for an unfinished transcript (no result line)."""
    result = transcript.result
    if result is None:
        return None
    header = transcript.header
    names = {a.seat: agent_label(a.spec, a.label) for a in header.agents}
    seats = tuple(
        SeatRecord(seat=seat, agent=names.get(seat, "?"), role=str(role), side=side_of(str(role)))
        for seat, role in sorted(result.roles.items())
    )
    return GameRecord(
        game_id=header.game_id,
        board=header.preset,
        winner=str(result.winner),
        seats=seats,
        seed=header.seed,
        abandoned=result.abandoned,
    )
