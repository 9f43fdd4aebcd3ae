"""The deal (R10-R13): cards to seats, the rest to the center, under the thief's deal guard."""

from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING

from arena.config import RuleSet
from arena.flow import SetupError
from arena.rules.registry import registry
from arena.types import Role, is_wolf_card

if TYPE_CHECKING:
    from arena.engine import GameSetup

def supported_roles() -> frozenset[Role]:
    """Roles whose rules the referee implements (every role module's spec). A board with any other card
    is refused with a message."""
    return registry().roles


def unsupported_roles(rules: RuleSet) -> list[str]:
    return sorted({c.value for c in rules.preset.cards} - {r.value for r in supported_roles()})


def center_allowed(rules: RuleSet, center: list[Role]) -> bool:
    """R12 ``thief_deal_guard``: what the referee lets lie in the center."""
    guard = rules.switches.thief_deal_guard
    wolves = sum(1 for c in center if is_wolf_card(c))
    if guard == "none":
        return True
    if wolves >= 2:
        return False
    if guard == "no_two_wolves_no_thief_wolf" and Role.THIEF in center and wolves:
        return False
    return True


def deal_cards(rules: RuleSet, setup: "GameSetup", rng: random.Random) -> tuple[list[Role], list[Role]]:
    missing = unsupported_roles(rules)
    if missing:
        raise SetupError(
            f"preset {rules.preset.id!r} uses role(s) the referee does not implement yet: {', '.join(missing)}"
        )
    deck = list(rules.preset.cards)
    n = rules.preset.players
    if setup.deal is not None:
        try:
            seats = [Role(r) for r in setup.deal]
            center = [Role(r) for r in (setup.center or [])]
        except ValueError as exc:
            raise SetupError(f"deal: {exc}") from None
        if len(seats) != n:
            raise SetupError(f"deal has {len(seats)} cards but preset {rules.preset.id!r} seats {n} players")
        if Counter(seats + center) != Counter(deck):
            want = ", ".join(f"{c.value}x{k}" for c, k in sorted(Counter(deck).items()))
            raise SetupError(f"deal + center does not match the deck of preset {rules.preset.id!r} ({want})")
        if center and not center_allowed(rules, center):
            raise SetupError(f"center {[c.value for c in center]} breaks thief_deal_guard="
                             f"{rules.switches.thief_deal_guard}")
        return seats, center
    # Re-deal from the same stream until the center is allowed (OQ4): deterministic per seed.
    for _ in range(1000):
        cards = deck[:]
        rng.shuffle(cards)
        seats, center = cards[:n], cards[n:]
        if not center or center_allowed(rules, center):
            return seats, center
    raise SetupError("could not deal a center that satisfies thief_deal_guard")
