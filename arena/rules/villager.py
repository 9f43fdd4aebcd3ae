"""The villager (R105): no ability; by day he finds the wolves through speeches and votes."""

from __future__ import annotations

from arena.rules.registry import RoleSpec
from arena.types import Camp, Role

SPEC = RoleSpec(role=Role.VILLAGER, camp=Camp.VILLAGE)
