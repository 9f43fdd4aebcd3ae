"""Cupid and the lovers (R141-R148): the N1 link, the lovers' recognition, and what the link changes.

What the link changes elsewhere, and where it lives:
- the link is Cupid's record (:class:`Link`, read through :func:`link`); generic rules ask the registry:
  ``state.partner`` (the card's ``partner`` hook) and :func:`arena.rules.victory.camp_of` (its ``camp_of``
  hook, :func:`linked_camp`: R144, R170, ``cupid_camp``);
- the lover chain (R40, R143): :func:`arena.rules.deaths.process_batch`;
- the vote ban (R85): :func:`arena.rules.vote.lover_ban`;
- a hunter dying as the suicide lover (R122): :func:`arena.rules.hunter.blocked_by`;
- an idiot dying as a lover cannot reveal (R137): the reveal is only ever offered to an exiled idiot.

Visibility: Cupid alone sees whom he linked (:class:`LoversLinked`); the two lovers alone see each
other's seat, and each other's card only with ``lovers_know_roles`` (:class:`LoversRecognised`).
Cupid is never told the lovers' cards (R144: he "works it out").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from arena.actions import ChooseSeat, ChooseSeats
from arena.events import LoversLinked, LoversRecognised, WitnessNamed, only
from arena.types import Camp, Kind, Role, is_wolf_card
from arena.rules.registry import NightStepSpec, RoleSpec, RoleState

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


@dataclass(frozen=True)
class Link:
    """Cupid's record: the lovers (R141), the seat that linked them (a maid who later takes the Cupid card
    is not him, OQ49) and 003's witness (R147)."""

    lovers: tuple[int, int] | None = None
    cupid: int | None = None
    witness: int | None = None


def _linked(record: Link, e: LoversLinked, state: "GameState") -> Link:
    if not e.lovers:
        return replace(record, lovers=None, cupid=None)
    return replace(record, lovers=(min(e.lovers), max(e.lovers)), cupid=e.cupid)


def _witnessed(record: Link, e: WitnessNamed, state: "GameState") -> Link:
    return replace(record, witness=e.witness)


def link(state: "GameState") -> Link:
    return state.record(Link)


def partner(state: "GameState", seat: int) -> int | None:
    """R40, R143: the other lover of ``seat``, if he is one."""
    lovers = state.record(Link).lovers
    if lovers and seat in lovers:
        return lovers[0] if lovers[1] == seat else lovers[1]
    return None


def linked_camp(state: "GameState", seat: int) -> Camp | None:
    """R144, R170 (``cupid_camp``): the camp the link gives ``seat``; None: his card's."""
    record = state.record(Link)
    lovers = record.lovers
    if not lovers:
        return None
    mode = state.rules.switches.cupid_camp
    a, b = lovers
    mixed = is_wolf_card(state.card(a)) != is_wolf_card(state.card(b))
    both_wolves = is_wolf_card(state.card(a)) and is_wolf_card(state.card(b))
    is_lover = seat in lovers
    # The seat that linked them (a maid who later takes the Cupid card is not him, OQ49); 003's witness
    # belongs to the lovers camp with Cupid (R147).
    is_cupid = seat == record.cupid or seat == record.witness
    if mode == "always_third" and (is_lover or is_cupid):
        return Camp.LOVERS
    if mixed and (is_lover or (is_cupid and mode != "always_good")):
        return Camp.LOVERS
    if both_wolves and is_cupid and mode == "follows_lovers":
        return Camp.WOLVES
    return None


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
    if link(game.state).lovers is not None:
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
    record = link(game.state)
    lovers = record.lovers
    if lovers is None or night.number != 1:
        return
    if game.sw.witness:  # 003: Cupid, the lovers and the witness know each other's identities (R147)
        camp = sorted(s for s in {record.cupid, *lovers, record.witness} if s is not None)
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
    if game.sw.cupid_camp != "always_third" or link(state).lovers is None:
        return []
    from arena.rules.victory import camp_of

    camps = {s: camp_of(state, s) for s in state.alive_seats()}
    if any(c == Camp.WOLVES for c in camps.values()):
        return []
    return [s for s, c in camps.items() if c == Camp.LOVERS]


def side_class(state: "GameState") -> Literal["villager"] | None:
    """R173: with ``cupid_side_class=villager`` Cupid counts as an ordinary villager for the side kill, whatever
    his camp: with the wolves too when he linked two of them (004 §C-role 7: 不管如何，丘比特计入普通村民人数)."""
    return "villager" if state.rules.switches.cupid_side_class == "villager" else None


def is_lover(game: "Game", seat: int) -> bool:
    lovers = link(game.state).lovers
    return lovers is not None and seat in lovers


SPEC = RoleSpec(
    role=Role.CUPID, camp=Camp.VILLAGE, kinds=(Kind.CUPID_LINK, Kind.CUPID_WITNESS),
    steps=(NightStepSpec("cupid", cupid_step, called_for=Role.CUPID, pretend_when_absent=True,
                         sits={"order_000": (20, "n1"), "order_001": (20, "n1"), "order_004a": (20, "n1"),
                               "order_004c": (20, "n1"), "order_003": (20, "n1")}),
           NightStepSpec("lovers", lovers_step, called_for=Role.CUPID, pretend_when_absent=True,
                         sits={"order_000": (30, "n1"), "order_001": (30, "n1"), "order_004a": (30, "n1"),
                               "order_004c": (30, "n1"), "order_003": (30, "all")})),
    takes_the_knife=lovers_knife_holders, side_class=side_class, side_class_whatever_camp=True, partner=partner,
    camp_of=linked_camp,
    record=RoleState(Link(), {LoversLinked: _linked, WitnessNamed: _witnessed}),
)
