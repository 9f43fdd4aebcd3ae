"""Belief elicitation: when the referee asks a seat for its private P(wolf) of the other living seats.

Not a rule of the game: a measurement. A seat's mode comes from its agent (``GameSetup.beliefs``):

``off``           never asked.
``votes``         the agent adds its beliefs to its exile votes itself; the referee asks nothing more.
``day_end``       asked once after each day's discussion, before the vote (or when the day ends early).
``every_speech``  asked after each speech it hears (a short update, with no speech of its own).

A report is recorded like any decision, visible to its seat only, and changes nothing in the game; a seat
with no mode the referee asks (every bot, by default) is never asked, so its transcript is unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from arena.actions import RateSeats
from arena.types import Kind

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow

BELIEF_MODES = ("off", "votes", "day_end", "every_speech")
#: The modes whose reports the referee asks for (``votes`` rides on the vote decision itself).
ASKED_MODES = frozenset({"day_end", "every_speech"})


def check_mode(value: object) -> str:
    """The belief mode ``value`` names, or ValueError naming the allowed modes."""
    if isinstance(value, bool):  # older configs: beliefs: true / false
        return "votes" if value else "off"
    if isinstance(value, str) and value.strip().lower() in BELIEF_MODES:
        return value.strip().lower()
    raise ValueError(f"unknown belief mode {value!r}; choose one of {', '.join(BELIEF_MODES)}")


def check_modes(modes: Mapping[int, str], players: int) -> dict[int, str]:
    """A setup's per-seat modes, checked: seats on the board, known modes; only the asked ones kept."""
    out: dict[int, str] = {}
    for seat, mode in modes.items():
        if not isinstance(seat, int) or not 1 <= seat <= players:
            raise ValueError(f"belief mode for seat {seat!r}: no such seat (1..{players})")
        mode = check_mode(mode)
        if mode in ASKED_MODES:
            out[seat] = mode
    return dict(sorted(out.items()))


def _ask(game: "Game", seats: list[int], context: dict[str, object]) -> "Flow":
    alive = game.state.alive_seats()
    requests = [game.request(s, Kind.BELIEF, RateSeats(seats=tuple(x for x in alive if x != s)), None,
                             context=context) for s in seats if s in alive and len(alive) > 1]
    if requests:
        yield from game.ask_all(requests)


def after_speech(game: "Game", speaker: int, kind: str) -> "Flow":
    """Every living ``every_speech`` seat but the speaker updates its beliefs after a speech."""
    modes = game.setup.beliefs
    if not modes:
        return
    seats = [s for s, m in modes.items() if m == "every_speech" and s != speaker]
    yield from _ask(game, seats, {"after": "speech", "speaker": speaker, "speech": kind})


def after_discussion(game: "Game") -> "Flow":
    """Every living ``day_end`` seat reports its beliefs once the day's discussion is over."""
    modes = game.setup.beliefs
    if not modes:
        return
    yield from _ask(game, [s for s, m in modes.items() if m == "day_end"], {"after": "day_end"})


def after_day_cut_short(game: "Game") -> "Flow":
    """A day that ended before its vote (a self-destruct): ``day_end`` seats not yet asked today report now."""
    modes = game.setup.beliefs
    if not modes or "day_end" not in modes.values():
        return
    phase = game.state.phase
    for record in reversed(game.decisions):
        request = record.request
        if request.asked_in != phase:
            break
        if request.kind == Kind.BELIEF and request.context.get("after") == "day_end":
            return  # the discussion was over and its reports are in
    yield from _ask(game, [s for s, m in modes.items() if m == "day_end"], {"after": "day_end", "cut_short": True})

