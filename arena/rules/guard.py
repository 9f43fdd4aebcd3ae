"""The guard (R126-R129): one protection a night, never the same player two nights running."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.actions import choose_seat
from arena.events import GuardProtected, only
from arena.types import Camp, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec, RoleState

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


@dataclass(frozen=True)
class LastGuarded:
    """Whom the guard's protection last took effect on (R127: not the same player two nights running)."""

    seat: int | None = None


def last_guarded(state: "GameState") -> int | None:
    return state.record(LastGuarded).seat


def _protected(last: LastGuarded, event: GuardProtected, state: "GameState") -> LastGuarded:
    return LastGuarded(event.target if event.effective else None)


def legal_targets(game: "Game", night: "Night") -> tuple[int, ...]:
    last = last_guarded(game.state)
    refuse_repeat = game.sw.guard_repeat == "refuse"
    return tuple(s for s in night.alive_at_start if not (refuse_repeat and s == last))


def splash(game: "Game", night: "Night", target: int) -> set[int]:
    """R29 ``guard_splash_over_12`` (003): with more than 12 players alive the nearest living player on each
    side of the guarded one is protected too."""
    if not game.sw.guard_splash_over_12 or len(night.alive_at_start) <= 12:
        return set()
    alive = set(night.alive_at_start)
    n = game.state.n
    out = set()
    for step in (1, -1):
        seat = target
        for _ in range(n - 1):
            seat = (seat - 1 + step) % n + 1
            if seat in alive and seat != target:
                out.add(seat)
                break
    return out


def night_step(game: "Game", night: "Night") -> "Flow":
    for seat in game.state.holders(Role.GUARD):
        target = yield from game.ask(seat, Kind.GUARD, choose_seat(legal_targets(game, night)), None,
                                     context={"last_guarded": last_guarded(game.state)})
        # guard_repeat=void: the repeated choice stands but protects nobody (R127), and breaks the chain (OQ39).
        effective = target is not None and target != last_guarded(game.state)
        if game.state.skill_disabled(seat):
            effective = False  # R133: a guard without skills protects nobody
        game.emit(GuardProtected(phase=night.phase, visibility=only(seat), seat=seat, target=target,
                                 effective=effective))
        if effective:
            night.guarded = target
            night.protected |= splash(game, night, target)


SPEC = RoleSpec(
    role=Role.GUARD, camp=Camp.VILLAGE, kinds=(Kind.GUARD,),
    steps=(NightStepSpec("guard", night_step, called_for=Role.GUARD,
                         sits={"order_000": (40, "all"), "order_004a": (40, "all"), "order_004c": (60, "all"),
                               "order_003": (50, "all")}),),
    record=RoleState(LastGuarded(), {GuardProtected: _protected}),
    good_skill="god",
)
