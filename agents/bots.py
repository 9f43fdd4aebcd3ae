"""Built-in bots: ``bot:random`` (uniform over the legal set) and ``bot:scripted`` (answers from a script).

``bot:heuristic`` lives in :mod:`agents.heuristic`. Bots are deterministic: every random choice
comes from the stream ``bot:<seat>`` of the game's seed.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from arena.actions import (Answer, AnswerExtras, ChooseBool, ChooseOption, ChooseSeat, ChooseSeats, DecisionRequest, Speak,
                           SpeechOrderChoice)
from arena.observation import Observation
from agents.base import SyncAgent

#: Interrupting decisions a uniform choice would take half the time, wrecking every game; a random
#: seat takes them with this probability instead.
RANDOM_INTERRUPT_P = 0.05
INTERRUPT_KINDS = frozenset({"self_destruct", "self_destruct_election"})


def random_choice(request: DecisionRequest, rng: random.Random) -> Any:
    """A uniformly random legal answer to any request."""
    legal = request.legal
    if isinstance(legal, ChooseBool):  # first: self-destruct offers are two fifths of a game's questions
        if request.kind in INTERRUPT_KINDS:
            return rng.random() < RANDOM_INTERRUPT_P
        return rng.random() < 0.5
    if isinstance(legal, ChooseSeat):
        options: list[Any] = list(legal.options) + ([None] if legal.allow_none else [])
        return rng.choice(options) if options else None
    if isinstance(legal, ChooseOption):
        return rng.choice(list(legal.options))
    if isinstance(legal, ChooseSeats):
        if legal.allow_none and rng.random() < 0.5:
            return None
        count = rng.randint(legal.min_count, min(legal.max_count, len(legal.options)))
        return sorted(rng.sample(list(legal.options), count))
    if isinstance(legal, SpeechOrderChoice):
        return {"start": rng.choice(list(legal.starts)), "direction": rng.choice(list(legal.directions))}
    if isinstance(legal, Speak):
        return "pass"
    return request.default


class RandomBot(SyncAgent):
    """Uniform over the legal choices, seeded; says "pass" in every speech."""

    spec = "bot:random"
    deterministic = True

    def __init__(self, seat: int, seed: int, **_: Any):
        self.seat = seat
        self.rng = random.Random(f"{seed}:bot:{seat}")

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Any:
        return random_choice(request, self.rng)  # a bare value: it has no reasoning to record


class ScriptedBot(SyncAgent):
    """Answers ``"<phase>.<kind>"`` keys from a script (CONFORMANCE.md); anything unscripted gets the default.

    ``self_destruct`` answers follow the conformance table: ``true`` acts at the first chance,
    a seat number acts just before that seat's speech, ``false`` never.
    """

    spec = "bot:scripted"
    deterministic = True

    def __init__(self, seat: int, seed: int = 0, script: dict[str, Any] | None = None,
                 fallback: Callable[[DecisionRequest], Any] | None = None, **_: Any):
        self.seat = seat
        self.script = dict(script or {})
        self.fallback = fallback
        self.used: set[str] = set()

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        from arena.scenario import scripted_value

        found, value = scripted_value(self.script, request)
        if not found and self.fallback is not None:
            value = self.fallback(request)
        if found:
            self.used.add(request.key)
        return Answer(value=value, extras=AnswerExtras(note=f"scripted: {found}"))
