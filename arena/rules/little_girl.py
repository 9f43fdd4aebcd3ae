"""The little girl (R152-R154, 001): she may peek during the wolves' step; caught, she may be killed at once.

Her step is called every night right before the wolves' knife (``order_001`` lists it; other orders get it
inserted there when the deck has her, see :mod:`arena.rules.night`). Flow (OQ46):

1. ``little_girl_peek`` (true/false, default false), asked every night of a living little girl, even
   one whose skills are lost (then only false is legal, R134).
2. A peek shows her, and only her, the seats of the wolves awake (:class:`LittleGirlPeeked`).
3. Discovery per ``little_girl_discovery``: ``always``, ``never`` or ``chance`` (p = 1/2 from the
   seeded stream ``little_girl``).
4. Caught, the wolves (and only they) learn her seat (:class:`LittleGirlCaught`) and each knifing wolf
   answers ``little_girl_kill`` (true/false, default false). She is killed when they all say true (the
   knife's consensus rule, R24); then she dies at once (cause ``little_girl``), unsavable and unguardable,
   announced at dawn, and the wolves knife nobody else that night (R153). Otherwise they knife as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ONLY_NO, YES_OR_NO
from arena.events import LittleGirlCaught, LittleGirlKill, LittleGirlPeeked, only
from arena.types import Camp, Cause, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night

DISCOVERY_CHANCE = 0.5  # OQ46


def discovered(game: "Game") -> bool:
    rule = game.sw.little_girl_discovery
    if rule == "always":
        return True
    if rule == "never":
        return False
    return game.rng("little_girl").random() < DISCOVERY_CHANCE


def night_step(game: "Game", night: "Night") -> "Flow":
    for girl in game.state.holders(Role.LITTLE_GIRL):
        able = not game.state.skill_disabled(girl)
        peek = yield from game.ask(girl, Kind.LITTLE_GIRL_PEEK, YES_OR_NO if able else ONLY_NO,
                                   False)
        if not peek:
            continue
        wolves = game.state.hooks.knife_holders(game)
        game.emit(LittleGirlPeeked(phase=night.phase, visibility=only(girl), seat=girl, wolves=wolves))
        if not wolves or not discovered(game):
            continue
        team = only(*wolves, team="wolves")
        game.emit(LittleGirlCaught(phase=night.phase, visibility=team, seat=girl))
        requests = [game.request(w, Kind.LITTLE_GIRL_KILL, YES_OR_NO, False, context={"little_girl": girl})
                    for w in wolves]
        answers = yield from game.ask_all(requests)
        killed = bool(answers) and all(answers.values())
        game.emit(LittleGirlKill(phase=night.phase, visibility=team, seat=girl, killed=killed))
        if killed:
            night.little_girl_killed = girl
            kill_now(game, night, girl)


def kill_now(game: "Game", night: "Night", girl: int) -> None:
    """R153 (001 小女孩立即死亡): she dies at this moment, a batch of its own with her lover's grief (R40)
    and its win check; the rest of the night treats them as dead (no check, poison, guard or save, and no
    step of theirs). The table learns of it at dawn, announced with the night's other deaths (R37)."""
    from arena.rules import deaths

    batch = deaths.process_batch(game, [(girl, Cause.LITTLE_GIRL)], night.phase)
    night.departed_early.extend(batch.departed)
    night.alive_at_start = [s for s in night.alive_at_start if game.state.is_alive(s)]
    deaths.finish_if_won(game, batch.result, announce=[d.seat for d in deaths.announcement_order(game, batch.departed)],
                         death_phase=night.phase)


def knife_forbidden(night: "Night") -> bool:
    """R153: the night the wolves kill the caught little girl they can kill nobody else."""
    return night.little_girl_killed is not None


SPEC = RoleSpec(
    role=Role.LITTLE_GIRL, camp=Camp.VILLAGE, kinds=(Kind.LITTLE_GIRL_PEEK, Kind.LITTLE_GIRL_KILL),
    # 001 has her peek inside the wolves' step (R18 "Wolves (+ Little Girl may peek)"); on a board of another
    # order that deals her, her step is called right before the wolves' (R152).
    steps=(NightStepSpec("little_girl", night_step, called_for=Role.LITTLE_GIRL, sits={"order_001": (50, "all")},
                         elsewhere_before="wolves"),),
    good_skill="other", forbids_knife=knife_forbidden,
)
