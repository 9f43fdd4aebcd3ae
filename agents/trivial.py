"""Trivial talkers for the leaderboard's gate (``arena bench selftest --trivial``, issue #26).

Each is the heuristic bot with its speeches replaced by a policy that carries no thought: whatever a
trivial talker gains on the leaderboard is something the benchmark rewards without reasoning about
talk. They vote, use night skills and answer every other question exactly as ``bot:heuristic``.

* ``bot:silent``: "pass" in every speech and last words;
* ``bot:claim-seer``: "I am the seer. I checked N: wolf. Vote N." in every speech, whatever its card
  (N is the seat it means to vote);
* ``bot:random-speech``: a few of the speech book's templates picked at random, seats at random;
* ``bot:copycat``: repeats the last speech it heard today, word for word ("pass" when it speaks first).

Their randomness comes from the game seed and the seat, like every bot's: the speech draws use their
own stream, so the heuristic's own seeded choices are those it would make with these speeches.
"""

from __future__ import annotations

import random
import string
from typing import Any, Callable

from agents.heuristic import HeuristicBot, speech_book
from arena.actions import DecisionRequest
from arena.events import Speech
from arena.observation import Observation
from arena.types import parse_phase

#: Speech templates whose placeholders the random talker can fill (a seat, a night, a seat list).
_FIELDS = ("seat", "seats", "night", "checks")


class SilentBot(HeuristicBot):
    """Never says anything."""

    spec = "bot:silent"

    def _speech(self, req: DecisionRequest) -> str:
        return "pass"

    def _interject(self, req: DecisionRequest) -> str:
        return "pass"


class ClaimSeerBot(HeuristicBot):
    """Claims seer with a wolf check on its vote target in every speech, whatever its card."""

    spec = "bot:claim-seer"

    def _speech(self, req: DecisionRequest) -> str:
        target = self._speech_target()
        if target is None:
            return "I am the seer."
        return f"I am the seer. I checked {target}: wolf. Vote {target}."


class RandomSpeechBot(HeuristicBot):
    """One to three templates of the speech book, drawn at random, with random seats."""

    spec = "bot:random-speech"

    def __init__(self, seat: int, seed: int, lang: str = "en"):
        super().__init__(seat, seed, lang)
        self.talk_rng = random.Random(f"{seed}:random-speech:{seat}")

    def _speech(self, req: DecisionRequest) -> str:
        book = speech_book(self.lang)["templates"]
        keys = sorted(k for k, v in book.items() if isinstance(v, (str, list)))
        players = self.mem.players or 12
        parts = []
        for _ in range(self.talk_rng.randint(1, 3)):
            tpl = book[self.talk_rng.choice(keys)]
            text = self.talk_rng.choice(tpl) if isinstance(tpl, list) else tpl
            names = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            fill = {f: self.talk_rng.randint(1, players) for f in names if f in _FIELDS}
            if set(fill) == names:
                parts.append(text.format(**fill))
        return (" " if self.lang != "zh" else "").join(parts) or "pass"


class CopycatBot(HeuristicBot):
    """Repeats the last speech of the day it heard (its own day's, never a previous day's)."""

    spec = "bot:copycat"

    def __init__(self, seat: int, seed: int, lang: str = "en"):
        super().__init__(seat, seed, lang)
        self.last_heard: tuple[int, str] | None = None  # (day, text) of the latest speech by another seat

    def _absorb(self, observation: Observation) -> None:
        events = observation.events
        fresh = events[self._seen:] if len(events) >= self._seen else observation.new_events
        for e in fresh:
            if isinstance(e, Speech) and e.seat != self.seat:
                self.last_heard = (parse_phase(e.phase)[1], e.text)
        super()._absorb(observation)

    def _speech(self, req: DecisionRequest) -> str:
        if self.last_heard is None or self.last_heard[0] != self.mem.day:
            return "pass"
        return self.last_heard[1]


#: ``bot:<name>`` -> the class; the gate plays each of these (agents.registry builds them).
TRIVIAL_BOTS: dict[str, Callable[..., Any]] = {
    "silent": SilentBot,
    "claim-seer": ClaimSeerBot,
    "random-speech": RandomSpeechBot,
    "copycat": CopycatBot,
}

__all__ = ["ClaimSeerBot", "CopycatBot", "RandomSpeechBot", "SilentBot", "TRIVIAL_BOTS"]
