"""Rate limits shared by every game of a tournament: one budget per provider account, whichever
process or Ray worker the game runs in.

A provider account allows so many requests and tokens per minute. Each game backing off alone
hammers the account into 429s (sixteen games each think they are alone); here every call first
takes its share from one shared pair of token buckets (requests, tokens), and a 429's
``Retry-After`` pauses every game of the account, not just the one that got it.

Where the buckets live depends on where the games run (the tournament's executor picks):

* ``LocalBuckets``: in this process (games as coroutines, or a single game);
* ``FileBuckets``: a small state file per account, updated under an exclusive ``flock``, so the
  worker processes of a process pool on one machine share it;
* ``RayBuckets``: one named Ray actor holding the buckets, for games spread over a cluster.

A tournament config names the limits once (``rate_limits: {openai: {requests_per_minute: 500,
tokens_per_minute: 200000}}``); a seat's account is its provider's name unless its options say
``account: NAME`` (two keys of one provider). Tokens are reserved before a call (an estimate:
the prompt's characters / 4 plus ``max_tokens``) and settled with the real count afterwards.

Nothing here imports a model SDK; :mod:`agents.providers.wrapper` consults :func:`limiter_for`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field


class RateLimit(BaseModel):
    """One account's allowance. ``None`` leaves that dimension unlimited."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: float | None = Field(default=None, gt=0)
    burst_seconds: float = Field(default=1.0, gt=0, le=60, description=(
        "how many seconds of allowance may be spent at once (the buckets' capacity); a small burst keeps "
        "requests spread out, the way providers meter them"))


class LimitsSetup(BaseModel):
    """What a process needs to join the shared limits: the accounts and where their buckets live."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    accounts: dict[str, RateLimit] = Field(default_factory=dict)
    backend: str = Field(default="local", description="local, file:<folder> or ray:<actor name>")


# ---- the bucket arithmetic (one copy, used by every backend) -------------------------------------

@dataclass
class BucketState:
    requests: float
    tokens: float
    updated: float  # wall-clock seconds: processes on one machine share the clock
    paused_until: float = 0.0

    @classmethod
    def full(cls, limit: RateLimit, now: float) -> "BucketState":
        return cls(requests=_capacity(limit.requests_per_minute, limit),
                   tokens=_capacity(limit.tokens_per_minute, limit), updated=now)

    def take(self, limit: RateLimit, now: float, tokens: float) -> float:
        """Take one request and ``tokens`` if the buckets hold them (returns 0), else the seconds to
        wait before asking again (nothing taken)."""
        self._refill(limit, now)
        if now < self.paused_until:
            return self.paused_until - now
        waits = [0.0]
        if limit.requests_per_minute is not None and self.requests < 1:
            waits.append((1 - self.requests) * 60.0 / limit.requests_per_minute)
        if limit.tokens_per_minute is not None:
            need = min(tokens, _capacity(limit.tokens_per_minute, limit))  # a call bigger than a burst still goes
            if self.tokens < need:
                waits.append((need - self.tokens) * 60.0 / limit.tokens_per_minute)
        wait = max(waits)
        if wait > 0:
            return wait
        self.requests -= 1
        self.tokens -= tokens
        return 0.0

    def settle(self, limit: RateLimit, now: float, tokens: float) -> None:
        """Correct a reservation by ``tokens`` (negative: fewer were used than reserved)."""
        self._refill(limit, now)
        if limit.tokens_per_minute is not None:
            self.tokens = min(self.tokens - tokens, _capacity(limit.tokens_per_minute, limit))

    def pause(self, now: float, seconds: float) -> None:
        """The provider said ``Retry-After``: nobody on this account calls before then."""
        self.paused_until = max(self.paused_until, now + seconds)
        self.requests = min(self.requests, 0.0)  # and the first call after it starts from an empty bucket

    def _refill(self, limit: RateLimit, now: float) -> None:
        elapsed = max(now - self.updated, 0.0)
        self.updated = max(now, self.updated)
        if limit.requests_per_minute is not None:
            self.requests = min(self.requests + elapsed * limit.requests_per_minute / 60.0,
                                _capacity(limit.requests_per_minute, limit))
        if limit.tokens_per_minute is not None:
            self.tokens = min(self.tokens + elapsed * limit.tokens_per_minute / 60.0,
                              _capacity(limit.tokens_per_minute, limit))


def _capacity(per_minute: float | None, limit: RateLimit) -> float:
    if per_minute is None:
        return float("inf")
    return max(per_minute / 60.0 * limit.burst_seconds, 1.0)


# ---- backends --------------------------------------------------------------------------------------

class Buckets(Protocol):
    """Where an account's state lives. Each method is one atomic step on it."""

    def take(self, account: str, limit: RateLimit, tokens: float) -> float: ...
    def settle(self, account: str, limit: RateLimit, tokens: float) -> None: ...
    def pause(self, account: str, limit: RateLimit, seconds: float) -> None: ...


class _SteppedBuckets:
    """Buckets whose every operation is one atomic ``_step`` on an account's state."""

    def _step(self, account: str, limit: RateLimit, step: Any) -> Any:
        raise NotImplementedError

    def take(self, account: str, limit: RateLimit, tokens: float) -> float:
        return self._step(account, limit, lambda s, now: s.take(limit, now, tokens))

    def settle(self, account: str, limit: RateLimit, tokens: float) -> None:
        self._step(account, limit, lambda s, now: s.settle(limit, now, tokens))

    def pause(self, account: str, limit: RateLimit, seconds: float) -> None:
        self._step(account, limit, lambda s, now: s.pause(now, seconds))


class LocalBuckets(_SteppedBuckets):
    """In this process. A lock, because a watched game plays in a thread beside the event loop."""

    def __init__(self) -> None:
        self.states: dict[str, BucketState] = {}
        self._lock = threading.Lock()

    def _step(self, account: str, limit: RateLimit, step: Any) -> Any:
        with self._lock:
            state = self.states.get(account)
            if state is None:
                state = self.states[account] = BucketState.full(limit, time.time())
            return step(state, time.time())


class FileBuckets(_SteppedBuckets):
    """One JSON state file per account in ``folder``, read and written under an exclusive ``flock``:
    every process of one machine that opens the same folder shares the buckets."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def _step(self, account: str, limit: RateLimit, step: Any) -> Any:
        import fcntl

        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in account) or "account"
        with open(self.folder / f"{safe}.json", "a+", encoding="utf-8") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                fh.seek(0)
                raw = fh.read()
                now = time.time()
                try:
                    state = BucketState(**json.loads(raw)) if raw.strip() else BucketState.full(limit, now)
                except (ValueError, TypeError):
                    state = BucketState.full(limit, now)  # a torn write from a killed process: start full
                result = step(state, now)
                fh.seek(0)
                fh.truncate()
                fh.write(json.dumps(_state_json(state)))
                fh.flush()
                return result
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

def _state_json(state: BucketState) -> dict[str, float]:
    # JSON has no infinity: an unlimited dimension is stored as a huge number.
    return {k: (v if v != float("inf") else 1e300) for k, v in vars(state).items()}


class RayBuckets:
    """The buckets in one named Ray actor (created by the driver with :func:`start_ray_actor`)."""

    def __init__(self, name: str):
        import ray

        self._actor: Any = ray.get_actor(name)
        self._ray: Any = ray

    def take(self, account: str, limit: RateLimit, tokens: float) -> float:
        wait: float = self._ray.get(self._actor.take.remote(account, limit.model_dump(), tokens))
        return wait

    def settle(self, account: str, limit: RateLimit, tokens: float) -> None:
        self._actor.settle.remote(account, limit.model_dump(), tokens)  # fire and forget

    def pause(self, account: str, limit: RateLimit, seconds: float) -> None:
        self._ray.get(self._actor.pause.remote(account, limit.model_dump(), seconds))


class _LimiterActor:
    """The body of the Ray actor: LocalBuckets behind remote calls (an actor runs one at a time)."""

    def __init__(self) -> None:
        self.buckets = LocalBuckets()
        self.granted = 0  # calls let through, for the driver's summary

    def take(self, account: str, limit: dict[str, Any], tokens: float) -> float:
        wait = self.buckets.take(account, RateLimit(**limit), tokens)
        self.granted += wait <= 0
        return wait

    def granted_calls(self) -> int:
        return self.granted

    def settle(self, account: str, limit: dict[str, Any], tokens: float) -> None:
        self.buckets.settle(account, RateLimit(**limit), tokens)

    def pause(self, account: str, limit: dict[str, Any], seconds: float) -> None:
        self.buckets.pause(account, RateLimit(**limit), seconds)


def start_ray_actor(name: str) -> Any:
    """Create the limiter actor on the connected Ray cluster (the driver does, once per tournament)."""
    import ray

    return ray.remote(num_cpus=0)(_LimiterActor).options(name=name, get_if_exists=True).remote()


# ---- the process-wide registry the provider wrapper consults ------------------------------------

class Limiter:
    """One account's limit on one backend, with the async waiting around the atomic steps."""

    def __init__(self, account: str, limit: RateLimit, buckets: Buckets):
        self.account = account
        self.limit = limit
        self.buckets = buckets
        self.waited = 0.0  # seconds this process's calls spent waiting for the limit

    async def acquire(self, tokens: float) -> None:
        while True:
            wait = await self._call(self.buckets.take, tokens)
            if wait <= 0:
                return
            self.waited += wait
            await asyncio.sleep(min(wait, 5.0))

    async def settle(self, tokens: float) -> None:
        if tokens and self.limit.tokens_per_minute is not None:
            await self._call(self.buckets.settle, tokens)

    async def pause(self, seconds: float) -> None:
        await self._call(self.buckets.pause, seconds)

    async def _call(self, step: Any, value: float) -> Any:
        if isinstance(self.buckets, LocalBuckets):
            return step(self.account, self.limit, value)
        return await asyncio.to_thread(step, self.account, self.limit, value)  # a file lock or a Ray round trip


_SETUP: LimitsSetup | None = None
_LIMITERS: dict[str, Limiter] = {}


def install(setup: LimitsSetup | None) -> None:
    """Join the shared limits in this process (``None`` leaves every account unlimited again)."""
    global _SETUP
    _SETUP = setup if setup is not None and setup.accounts else None
    _LIMITERS.clear()


def install_json(text: str | None) -> None:
    """:func:`install` from JSON: what a worker process or a Ray task is handed."""
    install(LimitsSetup.model_validate_json(text) if text else None)


def installed() -> LimitsSetup | None:
    return _SETUP


def limiter_for(account: str) -> Limiter | None:
    """The limiter of ``account`` in this process, or None when no limit is set for it."""
    if _SETUP is None or account not in _SETUP.accounts:
        return None
    limiter = _LIMITERS.get(account)
    if limiter is None:
        limiter = _LIMITERS[account] = Limiter(account, _SETUP.accounts[account], _buckets(_SETUP.backend))
    return limiter


_BACKENDS: dict[str, Buckets] = {}


def _buckets(backend: str) -> Buckets:
    found = _BACKENDS.get(backend)
    if found is None:
        if backend == "local":
            found = LocalBuckets()
        elif backend.startswith("file:"):
            found = FileBuckets(backend[len("file:"):])
        elif backend.startswith("ray:"):
            found = RayBuckets(backend[len("ray:"):])
        else:
            raise ValueError(f"unknown rate-limit backend {backend!r}: use local, file:<folder> or ray:<actor>")
        _BACKENDS[backend] = found
    return found


def estimate_tokens(prompt_chars: int, max_tokens: int) -> float:
    """A call's reservation before the provider counts: about four characters a token, plus the reply."""
    return prompt_chars / 4.0 + max_tokens

