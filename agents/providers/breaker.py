"""A circuit breaker per endpoint: after a run of transport failures, calls to that endpoint fail at
once for a cool-down instead of each waiting out its own timeouts and retries.

Closed (calls go through) -> open after ``threshold`` consecutive failed tries (connection refused,
timeout, 5xx) -> after ``cooldown`` seconds one trial call is let through (half-open): success
closes the breaker, failure opens it again. Rate limits (429) do not count: they say the endpoint
is up. One breaker per endpoint per process, shared by every seat that calls it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from agents.providers.base import ProviderError

TRIPPING_KINDS = frozenset({"connection", "timeout", "server"})


@dataclass
class Breaker:
    endpoint: str
    threshold: int
    cooldown: float
    clock: Callable[[], float] = time.monotonic
    failures: int = 0
    opened_at: float | None = None
    last_error: str | None = None
    ever_ok: bool = field(default=False)

    def check(self) -> None:
        """Raise a non-retryable :class:`ProviderError` (kind ``breaker``) while the breaker is open."""
        if self.opened_at is None:
            return
        waited = self.clock() - self.opened_at
        if waited >= self.cooldown:
            self.opened_at = self.clock()  # half-open: this call is the trial; others keep failing fast
            self.failures = self.threshold - 1
            return
        raise ProviderError(f"endpoint {self.endpoint} is failing ({self.failures} tries in a row, last: "
                            f"{self.last_error}); not calling it for {self.cooldown - waited:.0f}s more",
                            retryable=False, kind="breaker")

    def record(self, error: ProviderError | None) -> None:
        if error is None:
            self.failures = 0
            self.opened_at = None
            self.ever_ok = True
            return
        if error.kind not in TRIPPING_KINDS:
            return
        self.failures += 1
        self.last_error = str(error)[:200]
        if self.failures >= self.threshold:
            self.opened_at = self.clock()


_BREAKERS: dict[str, Breaker] = {}


def breaker_for(endpoint: str, threshold: int, cooldown: float) -> Breaker:
    """The process's breaker for ``endpoint`` (made on first use with these settings)."""
    breaker = _BREAKERS.get(endpoint)
    if breaker is None:
        breaker = _BREAKERS[endpoint] = Breaker(endpoint, threshold, cooldown)
    return breaker


def reset_breakers() -> None:
    """Forget every endpoint's history (tests; a long-lived server between tournaments)."""
    _BREAKERS.clear()
