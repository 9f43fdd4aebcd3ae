"""What every provider needs, written once: per-call timeout, retries with backoff that honour
``Retry-After``, a per-provider concurrency cap, usage accounting and cost from the price table.

Adapters stay small: they make one SDK call (with the SDK's own retries turned off) and raise
:class:`ProviderError` with ``retryable`` set. :meth:`ManagedProvider.call` never raises a provider
error: it returns a :class:`CallResult` whose ``error`` says what finally went wrong, so a model that
cannot be reached is a recorded game fact and never a crashed game.
"""

from __future__ import annotations

import asyncio
import random
import time
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any, Awaitable, Callable

import yaml
from pydantic import BaseModel, ConfigDict, Field

from agents.providers.base import (
    AnswerSchema,
    ChatMessage,
    GenerateOptions,
    Provider,
    ProviderError,
    ProviderReply,
    Usage,
)
from agents.providers.breaker import Breaker, breaker_for
from agents.providers.budget import max_tokens_of
from agents.providers.secrets import redact
from arena.ratelimit import estimate_tokens, limiter_for
from arena.resources import data_dir

PRICES_PATH = data_dir("configs") / "prices.yaml"


class CallPolicy(BaseModel):
    """How hard to try. ``concurrency`` caps calls in flight per provider key (name + endpoint)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout: float = Field(default=60.0, gt=0, description="seconds for one attempt")
    max_retries: int = Field(default=4, ge=0, description="extra attempts after the first, for retryable errors")
    backoff_base: float = Field(default=1.0, ge=0, description="first backoff in seconds, doubled per retry")
    backoff_max: float = Field(default=30.0, ge=0)
    max_retry_after: float = Field(default=60.0, ge=0, description="cap on a server's Retry-After")
    # At least every seat of the largest board (24): a round asks every seat at once, and a cap below
    # it splits the round in two (the account's shared rate limit, not this cap, guards a provider).
    concurrency: int = Field(default=24, ge=1, description="calls in flight at once per provider key")
    account: str | None = Field(default=None, description=(
        "the provider account whose shared rate limit this seat's calls count against (a tournament's "
        "rate_limits); None: the provider's name"))
    decision_deadline: float = Field(default=180.0, gt=0, description=(
        "seconds for one whole decision: every attempt, retry, backoff and re-ask"))
    retry_budget: int = Field(default=30, ge=0, description="retries one seat may spend in a whole game")
    breaker_threshold: int = Field(default=4, ge=1, description=(
        "failed tries in a row (refused, timed out, 5xx) after which calls to the endpoint fail at once"))
    breaker_cooldown: float = Field(default=30.0, ge=0, description="seconds an open breaker refuses calls")


class TryRecord(BaseModel):
    """One HTTP-level attempt inside a call (retries are not re-asks: the prompt is the same)."""

    model_config = ConfigDict(extra="forbid")

    error: str | None = None
    kind: str | None = None
    status: int | None = None
    waited_s: float = 0.0
    latency_ms: float = 0.0


class CallResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reply: ProviderReply | None = None
    error: str | None = None
    error_kind: str | None = None
    tries: list[TryRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    latency_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.reply is not None


class ProviderStats(BaseModel):
    """Running totals for one managed provider (a benchmark or a tournament reads them)."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    failed_calls: int = 0
    retries: int = 0
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    priced: bool = True


# ---- prices ------------------------------------------------------------------------------------

@lru_cache(maxsize=4)
def load_prices(path: str = str(PRICES_PATH)) -> dict[str, dict[str, dict[str, float]]]:
    p = Path(path)
    if not p.is_file():
        return {}
    data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    return {str(k): {str(m): dict(v) for m, v in (models or {}).items()} for k, models in data.items()}


def price_for(provider: str, model: str, prices: dict[str, Any] | None = None) -> dict[str, float] | None:
    table = (prices if prices is not None else load_prices()).get(provider) or {}
    best = None
    for key in table:
        if model.startswith(key) and (best is None or len(key) > len(best)):
            best = key
    return table[best] if best is not None else None


def cost_of(provider: str, model: str, usage: Usage, prices: dict[str, Any] | None = None) -> float | None:
    """USD for ``usage``; ``None`` when the model is not in the price table (never a guess).

    ``usage.input`` counts every input token, cached or not (adapters normalise to that)."""
    price = price_for(provider, model, prices)
    if price is None:
        return None
    uncached = max(usage.input - usage.cached - usage.cache_write, 0)
    per_m = (uncached * price.get("input", 0.0)
             + usage.cached * price.get("cached_input", price.get("input", 0.0))
             + usage.cache_write * price.get("cache_write", price.get("input", 0.0))
             + usage.output * price.get("output", 0.0))
    return round(per_m / 1_000_000, 8)


# ---- concurrency caps --------------------------------------------------------------------------

# One semaphore per provider key *per event loop*: asyncio primitives bind to a loop, and tests or
# tournaments may run several loops in one process.
_SEMAPHORES: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]]" = (
    weakref.WeakKeyDictionary())


def _semaphore(key: str, size: int) -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    per_loop = _SEMAPHORES.setdefault(loop, {})
    sem = per_loop.get(key)
    if sem is None:
        sem = per_loop[key] = asyncio.Semaphore(size)
    return sem


class ManagedProvider:
    """A provider wrapped in the policy. Agents share one per (provider, endpoint) through the cap key."""

    def __init__(self, provider: Provider, policy: CallPolicy | None = None, *,
                 cap_key: str | None = None, prices: dict[str, Any] | None = None,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep, jitter_seed: int = 0):
        self.provider = provider
        self.policy = policy or CallPolicy()
        self.cap_key = cap_key or f"{provider.name}"
        self.prices = prices
        self._sleep = sleep
        self._rng = random.Random(f"backoff:{jitter_seed}")  # jitter only changes timing, never answers
        self.stats = ProviderStats()
        self.retries_left = self.policy.retry_budget
        # The stand-in's faults are simulated per seat: they must not trip a breaker shared by the table.
        self.breaker: Breaker | None = None if provider.name == "mock" else breaker_for(
            self.cap_key, self.policy.breaker_threshold, self.policy.breaker_cooldown)

    @property
    def name(self) -> str:
        return self.provider.name

    @property
    def model(self) -> str:
        return self.provider.model

    def _backoff(self, retry: int, err: ProviderError) -> float:
        if err.retry_after is not None and err.retry_after >= 0:
            return min(err.retry_after, self.policy.max_retry_after)
        base = min(self.policy.backoff_base * (2 ** retry), self.policy.backoff_max)
        return base * (0.5 + 0.5 * self._rng.random())

    async def _one_try(self, messages: list[ChatMessage], schema: AnswerSchema | None,
                       options: GenerateOptions, timeout: float) -> ProviderReply:
        async with _semaphore(self.cap_key, self.policy.concurrency):
            if self.breaker is not None:
                self.breaker.check()
            try:
                reply = await asyncio.wait_for(self.provider.generate(messages, schema=schema, options=options),
                                               timeout=timeout)
            except (asyncio.TimeoutError, TimeoutError):
                err = ProviderError(f"no reply within {timeout:g}s", retryable=True, kind="timeout")
                self._record(err)
                raise err from None
            except ProviderError as err:
                self._record(err)
                raise
            self._record(None)
            return reply

    def _record(self, err: ProviderError | None) -> None:
        if self.breaker is not None:
            self.breaker.record(err)

    async def _generate(self, messages: list[ChatMessage], schema: AnswerSchema | None,
                        options: GenerateOptions, timeout: float) -> ProviderReply:
        try:
            return await self._one_try(messages, schema, options, timeout)
        except ProviderError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # an adapter bug or an SDK error we do not map: never retried
            raise ProviderError(f"{type(exc).__name__}: {exc}", retryable=False, kind="unexpected") from None

    async def call(self, messages: list[ChatMessage], *, schema: AnswerSchema | None = None,
                   options: GenerateOptions | None = None, deadline: float | None = None,
                   lang: str | None = None) -> CallResult:
        """One call with its retries. ``deadline`` (``time.monotonic()`` seconds) bounds the whole
        of it: no attempt's timeout and no backoff reaches past it. ``max_tokens`` left unset is
        sized here from the schema, ``lang`` (guessed from the messages when None) and the model's
        kind (:func:`agents.providers.budget.max_tokens_of`)."""
        options = options or GenerateOptions()
        if options.max_tokens is None:
            options = options.model_copy(update={"max_tokens": max_tokens_of(
                self.provider, options, schema, lang=lang, messages=messages)})
        result = CallResult()
        start = time.perf_counter()
        waited = 0.0
        limiter = limiter_for(self.policy.account or self.provider.name)
        reserved = estimate_tokens(sum(len(m.text) for m in messages), options.max_tokens or 0) if limiter else 0.0
        for attempt in range(self.policy.max_retries + 1):
            if limiter is not None:
                await limiter.acquire(reserved)  # the account's shared budget, before the clock starts
            t0 = time.perf_counter()
            timeout = self.policy.timeout
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
            try:
                if timeout <= 0:
                    raise ProviderError("the decision's deadline has passed", retryable=False, kind="deadline")
                reply = await self._generate(messages, schema, options, timeout)
            except ProviderError as err:
                if limiter is not None:
                    await limiter.settle(-reserved)  # a failed call is not billed
                    if err.kind == "rate_limit":  # every game of the account holds off, not this one alone
                        await limiter.pause(self._backoff(attempt, err))
                record = TryRecord(error=redact(str(err)), kind=err.kind, status=err.status, waited_s=waited,
                                   latency_ms=round((time.perf_counter() - t0) * 1000, 3))
                result.tries.append(record)
                stop = None
                if err.retryable and attempt < self.policy.max_retries:
                    waited = self._backoff(attempt, err)
                    if attempt >= 1 and err.kind == "connection" and self.breaker is not None \
                            and not self.breaker.ever_ok:
                        # Refused twice by an endpoint that has never answered: a wrong URL or a server
                        # not started, which backing off for seconds will not fix.
                        stop = "the endpoint has never answered"
                    elif self.retries_left <= 0:
                        stop = f"the seat's retry budget of {self.policy.retry_budget} is spent"
                    elif deadline is not None and time.monotonic() + waited >= deadline:
                        stop = "no time left before the decision's deadline"
                    else:
                        self.retries_left -= 1
                        self.stats.retries += 1
                        await self._sleep(waited)
                        continue
                result.error = record.error if err.retryable is False else (
                    f"{record.error} (gave up after {attempt + 1} attempt{'s' if attempt else ''}"
                    f"{': ' + stop if stop else ''})")
                result.error_kind = err.kind
                break
            result.tries.append(TryRecord(waited_s=waited, latency_ms=round((time.perf_counter() - t0) * 1000, 3)))
            result.reply = reply
            result.usage = reply.usage.model_copy()
            if limiter is not None:
                await limiter.settle(reply.usage.input + reply.usage.output - reserved)
            break
        result.latency_ms = round((time.perf_counter() - start) * 1000, 3)
        # A LangChain model prices as the SDK under it (``price_provider``), others by their name.
        table = getattr(self.provider, "price_provider", None) or self.provider.name
        result.cost_usd = cost_of(table, self.provider.model, result.usage, self.prices)
        self._account(result)
        return result

    def _account(self, result: CallResult) -> None:
        self.stats.calls += 1
        if not result.ok:
            self.stats.failed_calls += 1
        self.stats.usage.add(result.usage)
        if result.cost_usd is None:
            self.stats.priced = False
        else:
            self.stats.cost_usd = round(self.stats.cost_usd + result.cost_usd, 8)
