"""The hunter (R121-R124): a shot on death unless blocked; the nightly status signal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.actions import ChooseSeat
from arena.events import HunterShot, HunterStatus, HuntingGunFired, RoleRevealed, only
from arena.types import Camp, Cause, Kind, Role
from arena.rules.registry import DeathSkill, NightStepSpec, RoleSpec, RoleState

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.deaths import Departed
    from arena.rules.night import Night
    from arena.state import GameState


@dataclass(frozen=True)
class HuntingGun:
    """003's once-a-game night gun (R125) has been fired."""

    fired: bool = False


def _fired(gun: HuntingGun, event: HuntingGunFired, state: "GameState") -> HuntingGun:
    return HuntingGun(fired=True)


def blocked_by(game: "Game", causes: tuple[Cause, ...] | list[Cause]) -> bool:
    """R122 ``hunter_blocked_by``: poison among the causes (OQ3), or dying of grief as a lover."""
    rule = game.sw.hunter_blocked_by
    if rule == "nothing":
        return False
    if Cause.POISON in causes:
        return True
    return rule == "poison_and_lover" and Cause.LOVER in causes


def hunting_gun_step(game: "Game", night: "Night") -> "Flow":
    """R125 ``hunting_gun`` (003): once per game, at night, the hunter may kill one other living player
    (``hunting_gun_shoot``, seat or null, default null). It works like a wolf knife (guard blocks it, the
    witch may save its victim, OQ8) but is not a wolf attack; its death goes to batch P (R34)."""
    from arena.rules.night import add_attack

    state = game.state
    if not game.sw.hunting_gun or state.record(HuntingGun).fired:
        return
    for seat in state.holders(Role.HUNTER):
        able = not state.skill_disabled(seat)
        options = tuple(s for s in night.alive_at_start if s != seat) if able else ()
        target = yield from game.ask(seat, Kind.HUNTING_GUN_SHOOT, ChooseSeat(options=options), None)
        if target is None:
            continue
        game.emit(HuntingGunFired(phase=night.phase, visibility=only(seat), seat=seat, target=target))
        add_attack(game, night, target, Cause.HUNTING_GUN, seat)
        return


def night_step(game: "Game", night: "Night") -> "Flow":
    """R123 ``every_night``: tell the hunter whether his gun would work, from tonight's pending results."""
    if game.sw.hunter_status_signal != "every_night":
        return
    from arena.rules.night import night_batches

    batch_k, batch_p = night_batches(game, night)
    dying = batch_k + batch_p
    for seat in game.state.holders(Role.HUNTER):
        causes = [c for s, c in dying if s == seat]
        partner = game.state.partner(seat)
        if not causes and partner is not None and any(s == partner for s, _ in dying):
            causes.append(Cause.LOVER)  # he would die tonight as the suicide lover (R123)
        game.emit(HunterStatus(phase=night.phase, visibility=only(seat), seat=seat,
                               can_shoot=not blocked_by(game, causes) and not game.state.skill_disabled(seat)))
    return
    yield  # a generator, like every step


def can_shoot(game: "Game", d: "Departed") -> bool:
    """R122, R133: no shot when the causes block it or with skills lost."""
    return (game.state.card(d.seat) == Role.HUNTER and not blocked_by(game, d.causes)
            and not game.state.skill_disabled(d.seat))


def announce_shot(game: "Game", d: "Departed", target: int) -> bool:
    game.emit(RoleRevealed(phase=game.state.phase, seat=d.seat, role=Role.HUNTER, reason="hunter_shot"))
    game.emit(HunterShot(phase=game.state.phase, seat=d.seat, target=target))
    return True


SPEC = RoleSpec(
    role=Role.HUNTER, camp=Camp.VILLAGE, kinds=(Kind.HUNTER_SHOOT, Kind.HUNTING_GUN_SHOOT),
    steps=(NightStepSpec("hunter", night_step, called_for=Role.HUNTER,
                         sits={"order_000": (90, "all"), "order_004a": (80, "all"), "order_004c": (40, "n1")}),
           NightStepSpec("hunting_gun", hunting_gun_step, called_for=Role.HUNTER, sits={"order_003": (100, "all")},
                         acts=lambda switches: switches.hunting_gun)),
    death_skill=DeathSkill(kind=Kind.HUNTER_SHOOT, usable=can_shoot, announce=announce_shot),
    record=RoleState(HuntingGun(), {HuntingGunFired: _fired}),
    good_skill="god",
)
