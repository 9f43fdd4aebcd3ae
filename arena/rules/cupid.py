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

from typing import TYPE_CHECKING

from arena.actions import ChooseSeats
from arena.events import LoversLinked, LoversRecognised, only
from arena.types import Kind, Role

if TYPE_CHECKING:
    from arena.engine import Flow, Game
    from arena.rules.night import Night


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
            break  # one couple per game


def lovers_step(game: "Game", night: "Night") -> "Flow":
    """R142: on N1 the lovers wake and recognise each other. Later nights (003's lovers camp) only talk."""
    lovers = game.state.lovers
    if lovers is None or night.number != 1:
        return
    roles = {s: game.state.card(s) for s in lovers} if game.sw.lovers_know_roles else None
    game.emit(LoversRecognised(phase=night.phase, visibility=only(*lovers, team="lovers"), lovers=list(lovers),
                               roles=roles))
    return
    yield  # a generator, like every step


def is_lover(game: "Game", seat: int) -> bool:
    return game.state.lovers is not None and seat in game.state.lovers
