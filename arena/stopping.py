"""Why a game stops before its end: it is then recorded as abandoned and never rated.

Agents raise these (the referee catches nothing else from an agent: any other fault is a recorded
default answer). They carry plain values only, so they cross process boundaries intact.
"""

from __future__ import annotations


class GameStopped(Exception):
    """The game cannot go on; the referee writes the result line with ``abandoned=true``."""


class SeatUnreachable(GameStopped):
    """A seat's model cannot be reached and will not be (a refused key, an unknown model, an endpoint
    down from the start): playing on would only record defaults in its name."""

    def __init__(self, seat: int, endpoint: str, error: str):
        self.seat = seat
        self.endpoint = endpoint
        self.error = error
        super().__init__(seat, endpoint, error)

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.endpoint}: {self.error}"


class GameDeadline(GameStopped):
    """The game ran past its total deadline."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(seconds)

    def __str__(self) -> str:
        return f"the game ran past its deadline of {self.seconds:g}s"


class Terminated(KeyboardInterrupt):
    """The process was sent SIGTERM (``kill``, a scheduler's stop): unwound as Ctrl-C is, so games in
    flight are cancelled, executors shut down and the command can say how to finish (``--resume``)."""


def terminate_as_interrupt(signum: int, frame: object) -> None:
    """A SIGTERM handler: raise :class:`Terminated` in the main thread."""
    raise Terminated()
