"""The wild wolf (R168, 003): a wolf card that knifes and is seen as a wolf. Until any wolf card has died,
every night he may also wake alone and kill one other living player (``wild_wolf_kill``, seat or null,
default null; cause ``wild_wolf``, a wolf attack in batch K). An attack on a wolf card has no effect
(R28.3, :func:`arena.rules.night.attack_void`). His choice is told to him alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ChooseSeat
from arena.events import WildWolfKill, only
from arena.types import Camp, Cause, Kind, Role, is_wolf_card
from arena.rules.registry import AttackShield, NightStepSpec, RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night


def night_step(game: "Game", night: "Night") -> "Flow":
    from arena.rules.deaths import a_wolf_has_died
    from arena.rules.night import add_attack

    if a_wolf_has_died(game):
        return
    for seat in game.state.holders(Role.WILD_WOLF):
        options = tuple(s for s in night.alive_at_start if s != seat)
        target = yield from game.ask(seat, Kind.WILD_WOLF_KILL, ChooseSeat(options=options), None)
        if target is not None:
            game.emit(WildWolfKill(phase=night.phase, visibility=only(seat), seat=seat, target=target))
            add_attack(game, night, target, Cause.WILD_WOLF, seat)


def shield(game: "Game", night: "Night", target: int, cause: Cause) -> bool:
    """R28.3: the wild wolf's attack on a wolf card has no effect."""
    return cause == Cause.WILD_WOLF and is_wolf_card(game.state.card(target))


SPEC = RoleSpec(role=Role.WILD_WOLF, camp=Camp.WOLVES, kinds=(Kind.WILD_WOLF_KILL,),
                steps=(NightStepSpec("wild_wolf", night_step, called_for=Role.WILD_WOLF, sits={"order_003": (80, "all")}),),
                shield=AttackShield(rank=20, void=shield))
