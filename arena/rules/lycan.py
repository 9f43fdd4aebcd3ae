"""The lycan: a test-only role, on the test board ``test-lycan-9`` alone, that shows what adding a role
takes (docs/design.md): this module, which declares its card, its words in ``prompts/``, a board in
``configs/`` and its test.

Camp village, no night step, no decision. A villager with wolf blood: the seer's check reads him as a
wolf (the card's ``seen_as``), though he is on the village side and counts as a villager for the wins.
With ``seer_result=exact_role`` the seer reads his card, as for any card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from arena.rules.registry import RoleSpec
from arena.types import Camp, Role

LYCAN = Role("lycan")

if TYPE_CHECKING:
    from arena.engine import Game


def seen_as(game: "Game", seat: int) -> Literal["wolf"]:
    return "wolf"


SPEC = RoleSpec(role=LYCAN, camp=Camp.VILLAGE, seen_as=seen_as)
