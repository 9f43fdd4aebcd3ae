"""The hunter (R121-R124): a shot on death unless blocked; the nightly status signal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.events import HunterStatus, only
from arena.types import Cause, Role

if TYPE_CHECKING:
    from arena.engine import Flow, Game
    from arena.rules.night import Night


def blocked_by(game: "Game", causes: tuple[Cause, ...] | list[Cause]) -> bool:
    """R122 ``hunter_blocked_by``: poison among the causes (OQ3), or dying of grief as a lover."""
    rule = game.sw.hunter_blocked_by
    if rule == "nothing":
        return False
    if Cause.POISON in causes:
        return True
    return rule == "poison_and_lover" and Cause.LOVER in causes


def night_step(game: "Game", night: "Night") -> "Flow":
    """R123 ``every_night``: tell the hunter whether his gun would work, from tonight's pending results."""
    if game.sw.hunter_status_signal != "every_night":
        return
    from arena.rules.night import knife_outcome

    for seat in game.state.holders(Role.HUNTER):
        causes = []
        if night.poisoned == seat:
            causes.append(Cause.POISON)
        if knife_outcome(night) == seat:
            causes.append(Cause.WOLF)
        partner = game.state.partner(seat)
        if not causes and partner is not None and partner in (night.poisoned, knife_outcome(night)):
            causes.append(Cause.LOVER)  # he would die tonight as the suicide lover (R123)
        game.emit(HunterStatus(phase=night.phase, visibility=only(seat), seat=seat,
                               can_shoot=not blocked_by(game, causes) and not game.state.skill_disabled(seat)))
    return
    yield  # a generator, like every step
