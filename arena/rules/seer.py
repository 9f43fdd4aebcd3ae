"""The seer (R107-R111): one check of another living player each night; wolf / good, or the card."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import choose_seat
from arena.events import SeerResult, SeersMet, only
from arena.types import Camp, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec, registry

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night


def check_result(game: "Game", target: int, seer: int | None = None) -> str:
    if seer is not None and game.state.skill_disabled(seer):
        return "none"  # R110: still called, may point, learns nothing
    card = game.state.card(target)
    if game.sw.seer_result == "exact_role":
        return card.value
    # Every wolf card is "wolf" except the latent little wolf brother (R108, R167); Cupid is "good" (R145).
    return registry().seer_reading(game, target)


def night_step(game: "Game", night: "Night") -> "Flow":
    """R107, R111: each living seer names another living player. With two seers (003) they know each other
    and check together: if they differ the lower-seat able seer's target is used (OQ36) and both learn the
    result; N1 has an extra joint check with ``seer_first_night_extra_check``."""
    state = game.state
    everyone = state.holders(Role.SEER, alive_only=False)
    if night.number == 1 and len(everyone) > 1:
        game.emit(SeersMet(phase=night.phase, visibility=only(*everyone, team="seers"), seers=everyone))
    seers = state.holders(Role.SEER)
    if not seers:
        return
    yield from _joint_check(game, night, seers, Kind.SEER_CHECK)
    if night.number == 1 and game.sw.seer_first_night_extra_check:
        yield from _joint_check(game, night, seers, Kind.SEER_CHECK_EXTRA)


def _joint_check(game: "Game", night: "Night", seers: list[int], kind: str) -> "Flow":
    requests = []
    for seat in seers:
        options = tuple(s for s in night.alive_at_start if s != seat)
        if options:
            # The default is the lowest legal seat (CONFORMANCE.md): a check always happens.
            requests.append(game.request(seat, kind, choose_seat(options, allow_none=False), options[0]))
    if not requests:
        return
    choices = yield from game.ask_all(requests)
    able = [s for s in sorted(choices) if not game.state.skill_disabled(s)]
    target = choices[able[0]] if able else None
    for seat in sorted(choices):
        checked = target if target is not None and target != seat else choices[seat]
        game.emit(SeerResult(phase=night.phase, visibility=only(seat), seat=seat, target=checked,
                             result=check_result(game, checked, seat)))


SPEC = RoleSpec(
    role=Role.SEER, camp=Camp.VILLAGE, kinds=(Kind.SEER_CHECK, Kind.SEER_CHECK_EXTRA),
    steps=(NightStepSpec("seer", night_step, called_for=Role.SEER,
                         sits={"order_000": (80, "all"), "order_001": (40, "all"), "order_004a": (70, "all"),
                               "order_004c": (80, "all"), "order_003": (120, "all")}),),
    good_skill="god",
)
