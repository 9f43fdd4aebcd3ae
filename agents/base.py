"""The agent interface: one async method from (observation, pending decision) to an answer.

The answer is an :class:`Answer` (the choice plus optional reasoning, notes, beliefs and what the
transcript should record about how it came about), or the bare choice when there is nothing to add.

Every kind of seat (bots, LLMs, humans) implements it; the referee's driver calls it and never
looks inside. An agent may also offer ``decide_sync`` when it needs no I/O: the driver then skips
the event loop round trip, which is what lets bot games run hundreds per second.

An agent that is not deterministic (a model, a person) reports how long it took in its answer's
``extras.latency_ms`` (:func:`timed`); the driver does not time agents, so a deterministic agent's
transcript holds no clock reading and the same seed gives the same bytes.
"""

from __future__ import annotations

import time
from typing import Any, Protocol, runtime_checkable

from arena.actions import Answer, AnswerExtras, DecisionRequest
from arena.observation import Observation


@runtime_checkable
class Agent(Protocol):
    #: The spec this agent was built from, e.g. ``bot:heuristic`` or ``openai:gpt-4o-mini``.
    spec: str

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer | Any: ...


class SyncAgent:
    """Base for agents that decide without I/O: ``decide`` wraps ``decide_sync``."""

    spec = "sync"

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer | Any:
        raise NotImplementedError

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer | Any:
        return self.decide_sync(observation, request)


def timed(answer: Answer, started: float) -> Answer:
    """``answer`` with the milliseconds since ``started`` (a ``time.perf_counter()`` reading taken when
    the agent was asked) as its ``extras.latency_ms``."""
    elapsed = round((time.perf_counter() - started) * 1000, 3)
    if answer.extras is None:
        answer.extras = AnswerExtras(latency_ms=elapsed)
    else:
        answer.extras.latency_ms = elapsed
    return answer
