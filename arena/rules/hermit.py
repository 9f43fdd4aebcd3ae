"""The hermit: a test-only role, on the test board ``test-hermit-9`` alone, that shows what adding a role
takes (docs/design.md): this module, which declares its card, its words in ``prompts/`` and a board in
``configs/``.

Camp village; no night step and no decision. He lives apart: on the first night a wolf attack on him has
no effect, like the traveler's immunity (R159) without the traveler's information. Skills lost (elder
penalty, fire wolf) take the immunity away. The void attack is not shown to the witch (R28).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.rules.registry import AttackShield, RoleSpec
from arena.types import WOLF_ATTACKS, Camp, Cause, Role

HERMIT = Role("hermit")

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.rules.night import Night


def shield(game: "Game", night: "Night", target: int, cause: Cause) -> bool:
    return (night.number == 1 and cause in WOLF_ATTACKS and game.state.card(target) == HERMIT
            and not game.state.skill_disabled(target))


SPEC = RoleSpec(role=HERMIT, camp=Camp.VILLAGE, shield=AttackShield(rank=35, void=shield))
