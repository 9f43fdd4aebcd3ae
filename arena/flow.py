"""The vocabulary of the game flow, at the bottom of the engine: the generator type every rule step is
written as, and the exceptions that unwind it. Rules import these from here, never from
:mod:`arena.engine` (which imports the rules)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator

if TYPE_CHECKING:
    from arena.actions import DecisionRequest

#: A rule step: yields batches of requests, receives their checked values in the same order.
Flow = Generator[list["DecisionRequest"], list[Any], Any]


class SetupError(ValueError):
    """The game cannot be set up as asked (bad deal, unknown role...). The message says what."""


class GameOver(Exception):
    """Raised inside the flow when a result is reached; unwinds every step at once (R42)."""


class DayEnds(Exception):
    """Raised inside a day when a self-destruct ends it at once (R68)."""
