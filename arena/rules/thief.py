"""The thief (R11-R13, R149-R151): two center cards, the N1 pick, forced wolves, buried cards.

The deal and its guard against a bad center (R11-R13, ``thief_deal_guard``) live in
:mod:`arena.rules.setup`. Here: the thief's N1 step. He is shown the two center cards
(:class:`ThiefCards`, his eyes only), picks per ``thief_pick``, and learns his new card through a
:class:`RoleAssigned` that only he sees; the center as it now lies is recorded for the referee only
(:class:`CenterCards`). From then on he *is* the chosen card: its night steps (from this N1 on, R22),
its camp and its side-kill class (R150, R173) all follow ``state.card``. If the thief card itself lies
in the center there is no thief: the step is still called and nobody is asked (R13, R151).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ChooseOption
from arena.events import CenterCards, REFEREE, RoleAssigned, ThiefCards, only
from arena.types import Camp, Kind, Role, is_wolf_card
from arena.rules.registry import NightStepSpec, RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night


def pick_options(rule: str, center: list[Role]) -> tuple[int | None, ...]:
    """Legal answers to ``thief_pick`` (1 or 2 index the center; ``None`` keeps the thief card), R149."""
    wolves = tuple(i + 1 for i, card in enumerate(center) if is_wolf_card(card))
    both = tuple(range(1, len(center) + 1))
    if rule == "must_take_wolf_forced":
        return wolves or both  # a wolf must be taken; two wolves (only under thief_deal_guard=none): either
    if rule == "may_keep_two_wolves_forced":
        return both if len(wolves) == len(center) else both + (None,)
    return both  # must_take_free


def default_pick(rule: str, center: list[Role]) -> int | None:
    """OQ45: the forced card if any; else keep where allowed; else the first center card."""
    options = pick_options(rule, center)
    wolves = [i for i in options if i is not None and is_wolf_card(center[i - 1])]
    forced = rule == "must_take_wolf_forced" or (rule == "may_keep_two_wolves_forced" and None not in options)
    if wolves and forced:
        return wolves[0]
    if None in options:
        return None
    return options[0]


def night_step(game: "Game", night: "Night") -> "Flow":
    state = game.state
    for seat in state.holders(Role.THIEF):
        center = list(state.center)
        if not center:
            continue
        rule = game.sw.thief_pick
        game.emit(ThiefCards(phase=night.phase, visibility=only(seat), seat=seat, cards=center))
        pick = yield from game.ask(seat, Kind.THIEF_PICK, ChooseOption(options=pick_options(rule, center)),
                                   default_pick(rule, center), context={"center": [c.value for c in center]})
        if pick is None:
            continue  # he keeps the thief card and plays as a villager-side good player (R150)
        taken = center[pick - 1]
        center[pick - 1] = Role.THIEF  # the card he gives up goes to the center, buried (R150)
        game.emit(RoleAssigned(phase=night.phase, visibility=only(seat), seat=seat, role=taken))
        game.emit(CenterCards(phase=night.phase, visibility=REFEREE, cards=center))


SPEC = RoleSpec(
    role=Role.THIEF, camp=Camp.VILLAGE, kinds=(Kind.THIEF_PICK,),
    steps=(NightStepSpec("thief", night_step, called_for=Role.THIEF, pretend_when_absent=True,
                         sits={"order_000": (10, "n1"), "order_001": (10, "n1"), "order_004a": (10, "n1"),
                               "order_004c": (10, "n1"), "order_003": (10, "n1")}),),
)
