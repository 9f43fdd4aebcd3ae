"""The auxiliary police (R95-R96, R158, 003 ``aux_police``): a marker the sheriff gives.

When the sheriff obtains the badge and at every daybreak (R15 step 5, after the night's last words) the
living sheriff may appoint, or replace, one other living player (``aux_police_appoint``: seat, or null to
keep the current one or to appoint none; default null). The appointment is public
(:class:`AuxPoliceAppointed`). The auxiliary police's exile ballot weighs 1.5 (:func:`arena.rules.vote.
exile_weights`) and he speaks up to 150 s. He loses the marker when the badge changes hands or is torn,
when the sheriff appoints someone else, or when he dies (reducer of :class:`BadgeMoved` / :class:`PlayerDied`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ChooseSeat
from arena.events import AuxPoliceAppointed
from arena.rules import cycle
from arena.types import Kind

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow

WEIGHT = 1.5


def appoint(game: "Game") -> "Flow":
    state = game.state
    sheriff = state.sheriff
    if not game.sw.aux_police or sheriff is None or not state.is_alive(sheriff):
        return
    if not cycle.may_ask_appointment(game, sheriff):
        return  # already asked this phase (the badge came to him at this very dawn)
    options = tuple(s for s in state.alive_seats() if s != sheriff)
    choice = yield from game.ask(sheriff, Kind.AUX_POLICE_APPOINT, ChooseSeat(options=options), None,
                                 context={"current": state.aux_police})
    if choice is not None and choice != state.aux_police:
        game.emit(AuxPoliceAppointed(phase=state.phase, sheriff=sheriff, seat=choice))


def weight(game: "Game") -> dict[int, float]:
    aux = game.state.aux_police
    if not game.sw.aux_police or aux is None or aux == game.state.sheriff or not game.state.is_alive(aux):
        return {}
    return {aux: WEIGHT}
