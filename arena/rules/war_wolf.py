"""The war wolf (R165, 003): a wolf card that knifes and is seen as a wolf, immune to every death except
exile and self-destruct: wolf attacks, the hunting gun, poison, shots, the white wolf king's take and
skill loss do not kill him, and he survives his lover's death (OQ52; if he is exiled his lover still
dies). The immunity is applied to night attacks before anything else (R28.1, so the witch is not shown
him) and to every batch (:func:`arena.rules.deaths.process_batch` asks :func:`survives`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.types import Camp, Cause, Role
from arena.rules.registry import AttackShield, RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.rules.night import Night

MORTAL_CAUSES = frozenset({Cause.EXILE, Cause.SELF_DESTRUCT})


def is_war_wolf(game: "Game", seat: int) -> bool:
    return game.state.card(seat) == Role.WAR_WOLF


def immune(game: "Game", seat: int, cause: Cause) -> bool:
    return is_war_wolf(game, seat) and cause not in MORTAL_CAUSES


def survives(game: "Game", seat: int, causes: list[Cause]) -> bool:
    """A batch's causes on the war wolf kill him only if one of them is exile or self-destruct."""
    return is_war_wolf(game, seat) and not (MORTAL_CAUSES & set(causes))


def shield(game: "Game", night: "Night", target: int, cause: Cause) -> bool:
    return immune(game, target, cause)


SPEC = RoleSpec(role=Role.WAR_WOLF, camp=Camp.WOLVES, shield=AttackShield(rank=10, void=shield), survives=survives)
