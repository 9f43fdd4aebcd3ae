"""The shared rate limiter: token-bucket arithmetic, Retry-After pausing a whole account, a
file-locked bucket shared by processes, the provider wrapper consulting it, and a tournament naming
the limits once."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from pathlib import Path

import pytest

from arena import ratelimit
from arena.ratelimit import BucketState, FileBuckets, LimitsSetup, LocalBuckets, RateLimit


@pytest.fixture(autouse=True)
def _clean_registry():
    yield
    ratelimit.install(None)


def test_requests_per_minute_spaces_calls_after_the_burst():
    limit = RateLimit(requests_per_minute=120)  # 2 per second, a burst of 2
    state = BucketState.full(limit, now=0.0)
    assert state.take(limit, 0.0, 0) == 0 and state.take(limit, 0.0, 0) == 0
    wait = state.take(limit, 0.0, 0)
    assert wait == pytest.approx(0.5)
    assert state.take(limit, 0.5, 0) == 0  # after the wait it goes


def test_tokens_per_minute_reserves_and_settles():
    limit = RateLimit(tokens_per_minute=6000, burst_seconds=1)  # 100 tokens a second
    state = BucketState.full(limit, now=0.0)
    assert state.take(limit, 0.0, 80) == 0
    assert state.take(limit, 0.0, 80) == pytest.approx((80 - 20) * 60 / 6000)
    state.settle(limit, 0.0, -70)  # the call used 10 tokens, not 80
    assert state.take(limit, 0.0, 80) == 0


def test_retry_after_pauses_everyone_on_the_account():
    limit = RateLimit(requests_per_minute=600)
    buckets = LocalBuckets()
    buckets.pause("openai", limit, 2.0)
    assert buckets.take("openai", limit, 0) == pytest.approx(2.0, abs=0.05)
    assert buckets.take("anthropic", limit, 0) == 0  # another account is not held up


def _take_many(folder: str, n: int, out: "multiprocessing.Queue[float]") -> None:
    buckets = FileBuckets(folder)
    limit = RateLimit(requests_per_minute=600, burst_seconds=1)  # 10 a second
    for _ in range(n):
        while (wait := buckets.take("acct", limit, 0)) > 0:
            time.sleep(wait)
        out.put(time.time())


def test_a_file_bucket_is_shared_by_processes(tmp_path: Path):
    """Two processes each take 15 requests from a 10-per-second bucket: together they need about
    2 s (30 requests, a burst of 10), not the 0.5 s each would take alone."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_take_many, args=(str(tmp_path), 15, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    stamps = sorted(queue.get(timeout=60) for _ in range(30))
    for p in procs:
        p.join(timeout=30)
    span = stamps[-1] - stamps[0]
    assert span >= 1.7, f"30 requests at 10/s with a burst of 10 took only {span:.2f}s"


def test_the_wrapper_waits_for_the_shared_limit_and_a_429_pauses_the_account():
    from agents.providers import ChatMessage, GenerateOptions
    from agents.providers.base import ProviderError, ProviderReply, Usage
    from agents.providers.wrapper import CallPolicy, ManagedProvider

    calls: list[float] = []

    class Flaky:
        name = "acct-test"
        model = "m"

        async def generate(self, messages, *, schema, options):  # type: ignore[no-untyped-def]
            calls.append(time.monotonic())
            if len(calls) == 1:
                raise ProviderError("HTTP 429", retryable=True, status=429, retry_after=0.3, kind="rate_limit")
            return ProviderReply(text="{}", usage=Usage(input=10, output=5))

    ratelimit.install(LimitsSetup(accounts={"acct-test": RateLimit(requests_per_minute=6000)}))
    slept: list[float] = []

    async def no_sleep(s: float) -> None:
        slept.append(s)

    managed = ManagedProvider(Flaky(), CallPolicy(timeout=5), sleep=no_sleep)
    result = asyncio.run(managed.call([ChatMessage.of("user", "q")], options=GenerateOptions(max_tokens=10)))
    assert result.ok and slept == [0.3]
    # The wrapper's own sleep was skipped (fake), yet the second call still waited for the account's pause.
    assert calls[1] - calls[0] >= 0.25
    limiter = ratelimit.limiter_for("acct-test")
    assert limiter is not None and limiter.waited >= 0.25


def test_no_limits_no_limiter():
    assert ratelimit.limiter_for("openai") is None
    ratelimit.install(LimitsSetup(accounts={"openai": RateLimit(requests_per_minute=10)}))
    assert ratelimit.limiter_for("openai") is not None and ratelimit.limiter_for("anthropic") is None


def test_a_tournament_config_names_the_limits_once(tmp_path: Path):
    from arena.tournament import TournamentError, load_config

    path = tmp_path / "t.yaml"
    path.write_text("roster: [{label: a, agent: 'bot:heuristic'}]\nboards: [{preset: std-12-guard}]\n"
                    "rate_limits: {openai: {requests_per_minute: 500, tokens_per_minute: 200000}}\n")
    cfg = load_config(path)
    assert cfg.rate_limits["openai"].tokens_per_minute == 200000
    path.write_text("roster: [{label: a, agent: 'bot:heuristic'}]\nboards: [{preset: std-12-guard}]\n"
                    "rate_limits: {openai: {requests_per_hour: 5}}\n")
    with pytest.raises(TournamentError, match="requests_per_hour"):
        load_config(path)


def test_a_process_pool_tournament_shares_a_file_bucket(tmp_path: Path):
    from arena.tournament import RunOptions, TournamentConfig, run_tournament

    cfg = TournamentConfig(
        name="limits", roster=[{"label": "stand-in", "agent": "mock:x"}, {"label": "bot", "agent": "bot:heuristic"}],
        boards=[{"preset": "std-12-guard"}], deals=1, seed=5, seating="sides", out=str(tmp_path), concurrency=2,
        rate_limits={"mock": {"requests_per_minute": 60000}})
    result = asyncio.run(run_tournament(cfg, RunOptions(executor="process")))
    assert result.played == 2 and result.failed == []
    state = (tmp_path / ".ratelimit" / "mock.json").read_text()
    assert '"requests"' in state and '"updated"' in state  # the workers' shared bucket
    assert ratelimit.installed() is None  # the run leaves this process unlimited again
