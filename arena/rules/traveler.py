"""The traveler (R159, 003): passive on N1. A wolf attack on N1 does not kill him, and if the wolves attack
him that night he learns the seat of the wolf card nearest to him (:class:`TravelerInfo`, his eyes only).

Distance counts seats around the table, dead ones included; a tie goes to the wolf reached first going
in ascending order; every wolf card counts, the latent little wolf brother and a wolf lover included
(OQ48). The attack he survives is not shown to the witch (it is void, R28.2). Skills lost (elder penalty
under ``all_good_skills``, fire wolf) take the immunity away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.events import TravelerInfo, only
from arena.types import WOLF_ATTACKS, Camp, Cause, Role, is_wolf_card
from arena.rules.registry import AttackShield, RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.rules.night import Night


def nearest_wolf(game: "Game", seat: int) -> int | None:
    n = game.state.n
    best: tuple[int, int, int] | None = None
    for other, player in game.state.players.items():
        if other == seat or not is_wolf_card(player.card):
            continue
        up = (other - seat) % n  # steps going ascending
        down = (seat - other) % n
        key = (min(up, down), 0 if up <= down else 1, other)
        if best is None or key < best:
            best = key
    return best[2] if best else None


def shields(game: "Game", night: "Night", seat: int) -> bool:
    """R159: is ``seat`` a traveler whom tonight's wolf attack cannot kill? Tells him the nearest wolf."""
    state = game.state
    if night.number != 1 or state.card(seat) != Role.TRAVELER or state.skill_disabled(seat):
        return False
    if not night.traveler_told:
        night.traveler_told = True
        game.emit(TravelerInfo(phase=night.phase, visibility=only(seat), seat=seat, wolf=nearest_wolf(game, seat)))
    return True


def shield(game: "Game", night: "Night", target: int, cause: Cause) -> bool:
    return cause in WOLF_ATTACKS and shields(game, night, target)


SPEC = RoleSpec(role=Role.TRAVELER, camp=Camp.VILLAGE, shield=AttackShield(rank=30, void=shield), good_skill="other")
