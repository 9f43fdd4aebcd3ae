"""The scapegoat (R155-R156): a tied exile vote kills him instead, and he decides who votes next day.

The first tie of the day's exile vote triggers a living scapegoat whose skills are not lost; no PK is
held (OQ47). He dies (cause ``scapegoat``, a day batch of its own with its lover chain and win check);
with ``scapegoat_reveals_tied`` every tied player's card is turned face up (public). He then answers
``scapegoat_ban``: a list of living seats, or null. ``scapegoat_ban_mode=ban_list``: the listed players
lose their vote in the next exile vote that is held (its PK included): the next day's, or a later day's
when a self-destruct leaves a day without one (003 Role 7); ``allow_list``: only the listed players may vote
in the next day's exile vote (004 §C-role 11; if they all die in the night, nobody votes). Null or an empty
list restricts nobody.
The restriction is public (:class:`ScapegoatBan`). Then the badge and his last words (a day death),
and night falls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.actions import ChooseSeats
from arena.events import ExileResult, RoleRevealed, ScapegoatBan
from arena.flow import DayEnds
from arena.rules import deaths
from arena.types import Camp, Cause, Kind, Role, parse_phase
from arena.rules.registry import RoleSpec, RoleState

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.state import GameState


@dataclass(frozen=True)
class VoteRestriction:
    """The scapegoat's record (R156): the first day whose exile vote he restricted, "ban" or "allow", the seats."""

    day: int = 0
    mode: str = "ban"
    seats: tuple[int, ...] = ()


def _banned(record: VoteRestriction, e: ScapegoatBan, state: "GameState") -> VoteRestriction:
    return VoteRestriction(e.day, e.mode, tuple(e.seats))


def able_scapegoat(game: "Game") -> int | None:
    for seat in game.state.holders(Role.SCAPEGOAT):
        if not game.state.skill_disabled(seat):
            return seat
    return None


def die_for_tie(game: "Game", goat: int, tied: list[int]) -> "Flow":
    """R155: the scapegoat dies instead of the tied players; the day ends after his consequences."""
    state = game.state
    game.emit(ExileResult(phase=state.phase, seat=goat, reason="scapegoat"))
    if game.sw.scapegoat_reveals_tied:
        for seat in sorted(tied):
            game.emit(RoleRevealed(phase=state.phase, seat=seat, role=state.card(seat), reason="scapegoat_tie"))
    batch = deaths.process_batch(game, [(goat, Cause.SCAPEGOAT)], state.phase)
    departed = batch.departed  # the scapegoat first, then a lover (R79)
    deaths.announce_deaths(game, [d.seat for d in departed], state.phase)
    deaths.finish_if_won(game, batch.result)
    living = tuple(state.alive_seats())
    chosen = yield from game.ask(goat, Kind.SCAPEGOAT_BAN,
                                 ChooseSeats(options=living, min_count=0, max_count=len(living), allow_none=True),
                                 None, context={"mode": game.sw.scapegoat_ban_mode})
    if chosen:
        mode = "ban" if game.sw.scapegoat_ban_mode == "ban_list" else "allow"
        day = parse_phase(state.phase)[1] + 1
        game.emit(ScapegoatBan(phase=state.phase, seat=goat, mode=mode, seats=list(chosen), day=day))
    yield from deaths.consequences(game, deaths.Chain(departed=departed))
    raise DayEnds(goat)


def break_tie(game: "Game", tied: list[int]) -> "Flow":
    """R155, OQ47: an able scapegoat dies instead of the tied players and no PK is held."""
    goat = able_scapegoat(game)
    if goat is not None:
        yield from die_for_tie(game, goat, tied)


def restricted_voters(game: "Game", voters: list[int]) -> list[int]:
    """R84, R156: apply the scapegoat's restriction to today's exile vote if it falls on it: a ban to the next
    exile vote held (003 Role 7: 下一輪放逐投票), an allow list to the next day's (004 §C-role 11: 下一天投票)."""
    from arena.rules.vote import restriction_holds_today

    state = game.state
    restriction = state.record(VoteRestriction)
    if restriction.day == 0:
        return voters
    allow = restriction.mode == "allow"
    if not (state.phase == f"D{restriction.day}" if allow else restriction_holds_today(game, restriction.day)):
        return voters
    return [s for s in voters if (s in restriction.seats) == allow]


SPEC = RoleSpec(role=Role.SCAPEGOAT, camp=Camp.VILLAGE, kinds=(Kind.SCAPEGOAT_BAN,),
                restrict_voters=restricted_voters, exile_tie=break_tie, good_skill="god",
                record=RoleState(VoteRestriction(), {ScapegoatBan: _banned}))
