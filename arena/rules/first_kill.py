"""No consecutive first kill (004 §C-conduct 5; switch ``first_kill_protection``, RULES.md Appendix A.3).

The seed's etiquette for a session of several games at one table: last game's first kill (首杀, the player
killed on the first night) must not be the first kill again; with more than 12 players last game's first
kill and first vote (首票, the player voted out on day 1) are spared the first knife for the next two games;
if fewer than 3 newcomers join, the newcomers may not be first-killed. (The seed's last clause, that the
last game's judge counts as a first kill, has no seat here: the referee is the engine.)

The engine enforces it on the wolves' night-1 knife: the protected seats are not among its legal targets.
Which seats are protected is worked out before the game from the earlier games of the series (the same
players in the same seats) and is part of the game's setup, so a transcript replays on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from arena.events import ExileResult, PlayerDied
from arena.types import Cause

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.events import Event

#: Above this many players the first kill and the first vote are protected for two games (004 §C-conduct 5).
LARGE_TABLE = 12
#: Newcomers are protected when fewer than this many join.
FEW_NEWCOMERS = 3


class EarlierGame(BaseModel):
    """What the rule needs of an earlier game of the series, by seat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n1_victims: list[int] = Field(default_factory=list, description="killed by the wolves on night 1 (首杀)")
    d1_exile: int | None = Field(default=None, description="voted out on day 1 (首票)")


def protected_seats(players: int, earlier: Sequence[EarlierGame], newcomers: Iterable[int] = ()) -> list[int]:
    """The seats the wolves may not knife on night 1; ``earlier`` is the series so far, oldest first."""
    out: set[int] = set()
    if earlier:
        out.update(earlier[-1].n1_victims)
    if players > LARGE_TABLE:
        for game in earlier[-2:]:
            out.update(game.n1_victims)
            if game.d1_exile is not None:
                out.add(game.d1_exile)
    fresh = set(newcomers)
    if 0 < len(fresh) < FEW_NEWCOMERS:
        out.update(fresh)
    return sorted(s for s in out if 1 <= s <= players)


def knife_targets(game: "Game", number: int, targets: Sequence[int]) -> tuple[int, ...]:
    """The wolves' legal knife targets tonight: on night 1, less the protected seats (when the switch is on)."""
    if number != 1 or not game.sw.first_kill_protection or not game.setup.first_kill_protected:
        return tuple(targets)
    spared = set(game.setup.first_kill_protected)
    return tuple(s for s in targets if s not in spared)


def earlier_game_of(events: Iterable["Event"]) -> EarlierGame:
    """The facts of a finished game the rule needs, read from its events (the referee's view)."""
    victims: list[int] = []
    exile: int | None = None
    for e in events:
        if isinstance(e, PlayerDied) and e.phase == "N1" and Cause.WOLF in e.causes:
            victims.append(e.seat)
        elif isinstance(e, ExileResult) and e.phase == "D1" and e.reason == "exiled":
            exile = e.seat
    return EarlierGame(n1_victims=sorted(victims), d1_exile=exile)
