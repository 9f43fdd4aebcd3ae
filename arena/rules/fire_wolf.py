"""The fire wolf (R169, 003): a wolf card that knifes and is seen as a wolf. Once any wolf card has died,
once per game, at his step he may permanently disable the skills of one other living player
(``fire_wolf_disable``, seat or null, default null). His choice is told to him alone; the disabled seat
is recorded for the referee (:class:`SkillsLost`) and learns it only when a skill fails.

Effects (OQ54) are read wherever a skill is used, through ``state.skill_disabled``: seer no results,
witch no potions, hunter no guns, guard no protection, elder no immunity nor extra life (his penalty still
applies), idiot cannot avoid exile, scapegoat no tie, maid no swap, wolf kings no take, traveler no
immunity. A revealed idiot dies at dawn (``skill_loss``, batch P). Cupid's link is unaffected. The disable
applies to every step after his that night (R22): the guard's protection and the elder's immunity against
tonight's knife were settled before it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from arena.actions import ChooseSeat
from arena.events import FireWolfUsed, REFEREE, SkillsLost, only
from arena.types import Camp, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec, RoleState, registry

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


@dataclass(frozen=True)
class Fire:
    """The fire wolf's once-a-game disable has been used (R169), and the seat whose skills it took."""

    used: bool = False
    disabled: frozenset[int] = frozenset()


def _used(fire: Fire, event: FireWolfUsed, state: "GameState") -> Fire:
    return replace(fire, used=True)


def _lost(fire: Fire, event: SkillsLost, state: "GameState") -> Fire:
    return replace(fire, disabled=fire.disabled | set(event.seats)) if event.reason == "fire_wolf" else fire


def took_skills(state: "GameState", seat: int) -> bool:
    """R169: the fire wolf took this seat's skills."""
    return seat in state.record(Fire).disabled


def night_step(game: "Game", night: "Night") -> "Flow":
    from arena.rules.deaths import a_wolf_has_died

    state = game.state
    if state.record(Fire).used or not a_wolf_has_died(game):
        return
    for seat in state.holders(Role.FIRE_WOLF):
        if state.skill_disabled(seat):
            continue
        options = tuple(s for s in night.alive_at_start if s != seat)
        target = yield from game.ask(seat, Kind.FIRE_WOLF_DISABLE, ChooseSeat(options=options), None)
        if target is None:
            continue
        game.emit(FireWolfUsed(phase=night.phase, visibility=only(seat), seat=seat, target=target))
        if not state.skill_disabled(target):
            game.emit(SkillsLost(phase=night.phase, visibility=REFEREE, seats=[target], reason="fire_wolf"))
        dies = registry().spec(state.card(target)).dies_without_skill
        if dies is not None and dies(state, target):  # R139: a revealed idiot
            night.skill_loss.append(target)
        return


SPEC = RoleSpec(role=Role.FIRE_WOLF, camp=Camp.WOLVES, kinds=(Kind.FIRE_WOLF_DISABLE,),
                steps=(NightStepSpec("fire_wolf", night_step, called_for=Role.FIRE_WOLF, sits={"order_003": (90, "all")}),),
                takes_skills=took_skills, record=RoleState(Fire(), {FireWolfUsed: _used, SkillsLost: _lost}))
