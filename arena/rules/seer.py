"""The seer (R107-R111): one check of another living player each night; wolf / good, or the card."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ChooseSeat
from arena.events import SeerResult, only
from arena.types import Kind, Role, is_wolf_card

if TYPE_CHECKING:
    from arena.engine import Flow, Game
    from arena.rules.night import Night


def check_result(game: "Game", target: int, seer: int | None = None) -> str:
    if seer is not None and game.state.skill_disabled(seer):
        return "none"  # R110: still called, may point, learns nothing
    card = game.state.card(target)
    if game.sw.seer_result == "exact_role":
        return card.value
    return "wolf" if is_wolf_card(card) else "good"


def night_step(game: "Game", night: "Night") -> "Flow":
    for seat in game.state.holders(Role.SEER):
        options = tuple(s for s in night.alive_at_start if s != seat)
        if not options:
            continue
        # The default is the lowest legal seat (CONFORMANCE.md): a check always happens.
        target = yield from game.ask(seat, Kind.SEER_CHECK, ChooseSeat(options=options, allow_none=False), options[0])
        game.emit(SeerResult(phase=night.phase, visibility=only(seat), seat=seat, target=target,
                             result=check_result(game, target, seat)))
