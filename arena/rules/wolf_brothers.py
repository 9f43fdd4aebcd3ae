"""The wolf brothers (R166-R167, 003).

- Big wolf brother (狼兄): a wolf card that knifes and is seen as a wolf; he cannot self-destruct
  (:func:`arena.rules.wolves.self_destruct_cards`).
- Little wolf brother (狼弟): recognises the wolves on N1 (he is in the ``wolf_team``). While the big
  brother lives he is latent: he does not knife and the seer sees him as good. On the night after the big
  brother dies he awakens: at his own step (before the knife) he wakes alone and may kill one other living
  player (``brother_kill``, seat or null, default null; cause ``wolf_brother``, a wolf attack in batch K),
  then knifes with the wolves; from then on he is seen as a wolf. If the big brother is not in play
  (buried in the center) he is awake from N1, without the awakening kill (OQ53).

Night deaths take effect at dawn, so "the night after" falls out of the state: during the night in which
the big brother is killed he is still alive, hence his brother still latent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from arena.actions import ChooseSeat
from arena.events import BrotherKill, only
from arena.types import Camp, Cause, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec, RoleState

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


@dataclass(frozen=True)
class Awakening:
    """003's little wolf brother has made his awakening kill (R167)."""

    done: bool = False


def _awoke(awakening: Awakening, event: BrotherKill, state: "GameState") -> Awakening:
    return Awakening(done=True)


def big_brothers(game: "Game") -> list[int]:
    return game.state.holders(Role.BIG_WOLF_BROTHER, alive_only=False)


def latent(game: "Game", seat: int) -> bool:
    """R167: the little brother is latent while a big brother in play is alive."""
    state = game.state
    if state.card(seat) != Role.LITTLE_WOLF_BROTHER:
        return False
    return any(state.is_alive(b) for b in big_brothers(game))


def seen_as(game: "Game", seat: int) -> Literal["good"] | None:
    """R167: the latent little brother reads as good to the seer."""
    return "good" if latent(game, seat) else None


def night_step(game: "Game", night: "Night") -> "Flow":
    from arena.rules.night import add_attack

    state = game.state
    if state.record(Awakening).done or not big_brothers(game):
        return
    for seat in state.holders(Role.LITTLE_WOLF_BROTHER):
        if latent(game, seat):
            continue
        options = tuple(s for s in night.alive_at_start if s != seat)
        target = yield from game.ask(seat, Kind.BROTHER_KILL, ChooseSeat(options=options), None)
        game.emit(BrotherKill(phase=night.phase, visibility=only(seat), seat=seat, target=target))
        if target is not None:
            add_attack(game, night, target, Cause.WOLF_BROTHER, seat)


SPECS = (
    RoleSpec(role=Role.BIG_WOLF_BROTHER, camp=Camp.WOLVES, self_destructs=False),  # R66
    RoleSpec(role=Role.LITTLE_WOLF_BROTHER, camp=Camp.WOLVES, kinds=(Kind.BROTHER_KILL,), latent=latent, seen_as=seen_as,
             steps=(NightStepSpec("little_wolf_brother", night_step, called_for=Role.LITTLE_WOLF_BROTHER,
                                  sits={"order_003": (60, "all")}),),
             record=RoleState(Awakening(), {BrotherKill: _awoke})),
)
