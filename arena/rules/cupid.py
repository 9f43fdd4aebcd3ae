"""Cupid and the lovers (R141-R148): the N1 link, the lovers' recognition, and what the link changes.

What the link changes elsewhere, and where it lives:
- camps (R144, R170): :func:`arena.rules.victory.camp_of` reads ``state.lovers`` and ``cupid_camp``;
- the lover chain (R40, R143): :func:`arena.rules.deaths.process_batch`;
- the vote ban (R85): :func:`arena.rules.vote.lover_ban`;
- a hunter dying as the suicide lover (R122): :func:`arena.rules.hunter.blocked_by`;
- an idiot dying as a lover cannot reveal (R137): the reveal is only ever offered to an exiled idiot.

Visibility: Cupid alone sees whom he linked (:class:`LoversLinked`); the two lovers alone see each
other's seat, and each other's card only with ``lovers_know_roles`` (:class:`LoversRecognised`).
Cupid is never told the lovers' cards (R144: he "works it out").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from arena.actions import ChooseSeat, ChooseSeats
from arena.events import LoversLinked, LoversRecognised, WitnessNamed, only
from arena.types import Camp, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


def legal_link(game: "Game", night: "Night", cupid: int) -> ChooseSeats:
    """R141: two distinct living players; Cupid himself only with ``cupid_self_link``; null only with
    ``cupid_may_skip`` (OQ44)."""
    options = tuple(s for s in night.alive_at_start if game.sw.cupid_self_link or s != cupid)
    return ChooseSeats(options=options, min_count=2, max_count=2, allow_none=game.sw.cupid_may_skip)


def default_link(legal: ChooseSeats) -> list[int] | None:
    """No link where skipping is allowed (CONFORMANCE.md); else the two lowest legal seats (docs/decisions.md)."""
    if legal.allow_none or len(legal.options) < 2:
        return None
    return list(legal.options[:2])


def cupid_step(game: "Game", night: "Night") -> "Flow":
    """N1: every living Cupid holder links two players (a thief who took Cupid acts here, R22)."""
    if game.state.lovers is not None:
        return
    for cupid in game.state.holders(Role.CUPID):
        legal = legal_link(game, night, cupid)
        if len(legal.options) < 2:
            continue
        pair = yield from game.ask(cupid, Kind.CUPID_LINK, legal, default_link(legal))
        game.emit(LoversLinked(phase=night.phase, visibility=only(cupid), cupid=cupid, lovers=list(pair or [])))
        if pair:
            if game.sw.witness:
                yield from witness_step(game, night, cupid, pair)
            break  # one couple per game


def witness_step(game: "Game", night: "Night", cupid: int, pair: list[int]) -> "Flow":
    """R147 (003, ``witness``): Cupid, with the lovers, names one more other living player as the witness
    (``cupid_witness``: seat or null, default null = no witness). The witness joins the lovers camp but is
    no lover (no suicide link)."""
    options = tuple(s for s in night.alive_at_start if s != cupid and s not in pair)
    witness = yield from game.ask(cupid, Kind.CUPID_WITNESS, ChooseSeat(options=options), None,
                                  context={"lovers": list(pair)})
    seen = only(cupid, *pair, *([witness] if witness is not None else []), team="lovers")
    game.emit(WitnessNamed(phase=night.phase, visibility=seen, cupid=cupid, witness=witness))


def lovers_step(game: "Game", night: "Night") -> "Flow":
    """R142: on N1 the lovers wake and recognise each other. Later nights (003's lovers camp) only talk."""
    lovers = game.state.lovers
    if lovers is None or night.number != 1:
        return
    if game.sw.witness:  # 003: Cupid, the lovers and the witness know each other's identities (R147)
        camp = sorted(s for s in {game.state.cupid, *lovers, game.state.witness} if s is not None)
    else:
        camp = list(lovers)
    roles = {s: game.state.card(s) for s in camp} if game.sw.lovers_know_roles else None
    game.emit(LoversRecognised(phase=night.phase, visibility=only(*camp, team="lovers"), lovers=list(lovers),
                               roles=roles, camp=camp if game.sw.witness else None))
    return
    yield  # a generator, like every step


def lovers_knife_holders(game: "Game") -> list[int]:
    """R26, R148 (003, ``cupid_camp=always_third``): when every wolves-camp player is dead and a lovers-camp
    member lives, the lovers camp holds the knife: its living members decide by the knife's consensus."""
    state = game.state
    if game.sw.cupid_camp != "always_third" or state.lovers is None:
        return []
    from arena.rules.victory import camp_of
    from arena.types import Camp

    camps = {s: camp_of(state, s) for s in state.alive_seats()}
    if any(c == Camp.WOLVES for c in camps.values()):
        return []
    return [s for s, c in camps.items() if c == Camp.LOVERS]


def side_class(state: "GameState") -> Literal["villager"] | None:
    """R173: with ``cupid_side_class=villager`` Cupid counts as an ordinary villager for the side kill."""
    return "villager" if state.rules.switches.cupid_side_class == "villager" else None


def is_lover(game: "Game", seat: int) -> bool:
    return game.state.lovers is not None and seat in game.state.lovers


SPEC = RoleSpec(
    role=Role.CUPID, camp=Camp.VILLAGE, kinds=(Kind.CUPID_LINK, Kind.CUPID_WITNESS),
    steps=(NightStepSpec("cupid", cupid_step, called_for=Role.CUPID, pretend_when_absent=True,
                         sits={"order_000": (20, "n1"), "order_001": (20, "n1"), "order_004a": (20, "n1"),
                               "order_004c": (20, "n1"), "order_003": (20, "n1")}),
           NightStepSpec("lovers", lovers_step, called_for=Role.CUPID, pretend_when_absent=True,
                         sits={"order_000": (30, "n1"), "order_001": (30, "n1"), "order_004a": (30, "n1"),
                               "order_004c": (30, "n1"), "order_003": (30, "all")})),
    state=("lovers", "cupid", "witness"), takes_the_knife=lovers_knife_holders, side_class=side_class,
)
