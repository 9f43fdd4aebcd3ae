"""The black wolf king (R164, 003): a wolf card that knifes and is seen as a wolf. When he dies by any cause
other than self-destruct, lover suicide or poison he may take one other living player with him
(``wolf_king_shoot``, seat or null, default null, keyed by the phase of his death like the hunter's
shot); the take reveals his card and is public (:class:`KingTook`); the victim dies at the same time
(cause ``shot``), handled by :func:`arena.rules.deaths.death_skills` like the hunter's shot.

The take is a wolf attack (a wolf card's skill, OQ51): taken in a night phase (the king died at night) the
elder's immunity and extra life apply; by day it kills him, and never triggers the elder's penalty (not a
good god's skill, :mod:`arena.rules.elder`). Skills lost (fire wolf) mean no take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.events import KingTook, RoleRevealed
from arena.types import Camp, Cause, Kind, Role, parse_phase
from arena.rules.registry import DeathSkill, RoleSpec, registry

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.rules.deaths import Departed

BLOCKING = frozenset({Cause.SELF_DESTRUCT, Cause.LOVER, Cause.POISON})


def can_take(game: "Game", d: "Departed") -> bool:
    state = game.state
    return (state.card(d.seat) == Role.BLACK_WOLF_KING and not state.skill_disabled(d.seat)
            and not (BLOCKING & set(d.causes)))


def announce_take(game: "Game", d: "Departed", target: int) -> bool:
    """Reveal and announce the take; False when a night-time take is absorbed by the elder (OQ51)."""
    state = game.state
    game.emit(RoleRevealed(phase=state.phase, seat=d.seat, role=Role.BLACK_WOLF_KING, reason="wolf_king_shoot"))
    game.emit(KingTook(phase=state.phase, seat=d.seat, target=target, king="black"))
    absorbs = registry().spec(state.card(target)).absorbs_take  # OQ51: the elder's immunity or extra life
    return not (parse_phase(d.phase)[0] and absorbs is not None and absorbs(game, target))


SPEC = RoleSpec(role=Role.BLACK_WOLF_KING, camp=Camp.WOLVES, kinds=(Kind.WOLF_KING_SHOOT,),
                death_skill=DeathSkill(kind=Kind.WOLF_KING_SHOOT, usable=can_take, announce=announce_take))
