"""The white wolf king (R161-R163, 003): a wolf card that knifes and is seen as a wolf. When he
self-destructs he reveals his card (as every self-destruct does) and may take one other living player
with him (``white_wolf_king_take``, seat or null, default null; public :class:`KingTook`). The victim dies
(cause ``white_wolf_king``) in a new batch right after the self-destruct batch's check, with its own lover
chain and check; with ``self_destruct_silences_day`` he has no last words (R70). The take does not cost
the wolves their next knife (OQ50). Skills lost (fire wolf) mean no take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ChooseSeat
from arena.events import KingTook
from arena.rules import deaths
from arena.types import Camp, Cause, Kind, Role
from arena.rules.registry import RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.deaths import Chain


def take(game: "Game", seat: int, chain: "Chain") -> "Flow":
    state = game.state
    if state.card(seat) != Role.WHITE_WOLF_KING or state.skill_disabled(seat) or seat not in chain.seats():
        return
    options = tuple(state.alive_seats())
    if not options:
        return
    target = yield from game.ask(seat, Kind.WHITE_WOLF_KING_TAKE, ChooseSeat(options=options), None)
    if target is None:
        return
    game.emit(KingTook(phase=state.phase, seat=seat, target=target, king="white"))
    taken = deaths.process_batch(game, [(target, Cause.WHITE_WOLF_KING)], state.phase)
    deaths.announce_deaths(game, [d.seat for d in taken.departed], state.phase)
    deaths.finish_if_won(game, taken.result)
    chain.departed.extend(taken.departed)


SPEC = RoleSpec(role=Role.WHITE_WOLF_KING, camp=Camp.WOLVES, kinds=(Kind.WHITE_WOLF_KING_TAKE,), on_self_destruct=take)
