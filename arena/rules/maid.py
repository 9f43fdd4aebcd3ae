"""The maid (R160, 003). After the last words of an exiled player who had not revealed his card (and so had
not used a day skill: a hunter's shot reveals), a living maid may reveal her own card and take that
player's card (``maid_swap``: true/false, default false). She becomes that role with its skills, and its
camp; her side-kill class becomes the new card's (OQ49). What the table sees: her maid card turned face
up and that she took the exiled player's card (:class:`MaidSwapped`); the card itself is told to her
alone (:class:`RoleAssigned`). If it is a wolf card the wolves learn her as one of theirs.

A maid who is a lover cannot swap; a maid in the lovers camp otherwise (the witness) may, but stays in
it; taking Cupid's card does not make her Cupid (the link stays with the seat that made it); taking the
witch gives her a single original potion (the reducer of :class:`MaidSwapped`). With her skills lost
(fire wolf; elder penalty under ``all_good_skills``) she is still asked but may only say false.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ONLY_NO, YES_OR_NO
from arena.events import MaidSwapped, RoleAssigned, RoleRevealed, only
from arena.types import Camp, Kind, Role, is_wolf_card
from arena.rules.registry import RoleSpec

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow


def offer(game: "Game", exiled: int) -> "Flow":
    state = game.state
    player = state.players[exiled]
    if player.alive or player.revealed:
        return
    for maid in state.holders(Role.MAID):
        able = not state.skill_disabled(maid) and state.partner(maid) is None
        legal = YES_OR_NO if able else ONLY_NO
        swap = yield from game.ask(maid, Kind.MAID_SWAP, legal, False, context={"exiled": exiled})
        if not swap:
            continue
        card = state.card(exiled)
        game.emit(RoleRevealed(phase=state.phase, seat=maid, role=Role.MAID, reason="maid_swap"))
        game.emit(RoleAssigned(phase=state.phase, visibility=only(maid), seat=maid, role=card))
        game.emit(MaidSwapped(phase=state.phase, seat=maid, from_seat=exiled))
        if is_wolf_card(card):
            game.announce_wolf_team()
        return


SPEC = RoleSpec(role=Role.MAID, camp=Camp.VILLAGE, kinds=(Kind.MAID_SWAP,), after_exile=offer, good_skill="other")
