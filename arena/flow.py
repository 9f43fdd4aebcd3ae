"""The vocabulary of the game flow, at the bottom of the engine: the generator type every rule step is
written as, and the exceptions that unwind it. Rules import these from here, never from
:mod:`arena.engine` (which imports the rules)."""

from __future__ import annotations

from dataclasses import dataclass
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
    """Raised inside a day when a self-destruct (R68) or the scapegoat's death (R155) ends it at once.

    It carries what the phase cycle records about the end (:mod:`arena.rules.cycle` writes the flow):
    ``silences_day``, a self-destruct took the rest of today's last words (R68); ``in_election``, it
    happened during the sheriff election (R59, R69)."""

    def __init__(self, seat: int, *, silences_day: bool = False, in_election: bool = False):
        super().__init__(seat)
        self.seat = seat
        self.silences_day = silences_day
        self.in_election = in_election


@dataclass(slots=True)
class FlowState:
    """The referee's bookkeeping of the flow, which is not game state (no player could observe it and a
    replay of the log does not need it). One typed record, ``Game.flow``, instead of loose attributes.

    :mod:`arena.rules.cycle` is its only writer (``tests/test_architecture.py`` holds to it): the other
    rules ask the cycle (a batch number, a unit of the last-words pool, whether the sheriff was already
    asked to appoint), return values (a batch's result, whether an election is held over) or raise
    :class:`DayEnds` carrying what the cycle records."""

    batch_counter: int = 0  # every batch of deaths takes a number, empty night batches too (R39)
    last_words_pool: int = 0  # wolf_pool_* last words left (R73, OQ24)
    election_due: bool = False  # the sheriff election is still to be held (R49, R69)
    election_self_destructs: int = 0  # self-destructs during elections (R69 postpone_third_loses)
    day_silenced: bool = False  # a self-destruct took today's last words (R68)
    day_ended_early: bool = False  # a self-destruct at dawn ended the day (R68)
    phases_without_death: int = 0  # for the draw rules (R102, R103)
    aux_police_asked: "tuple[str, int] | None" = None  # (phase, sheriff) already asked to appoint (R95)
