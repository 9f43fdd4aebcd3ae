"""The call wrapper, the stand-in provider's faults, prices and key hygiene (no network)."""

from __future__ import annotations

import asyncio
import time

import pytest

from agents.providers import AnswerSchema, ChatMessage, GenerateOptions, ProviderError, Usage
from agents.providers.mock import FAULT_KINDS, INJECTION_SPEECH, MockConfig, MockProvider
from agents.providers.secrets import redact, reject_key_options
from agents.providers.wrapper import CallPolicy, ManagedProvider, cost_of, price_for

SCHEMA = AnswerSchema(json_schema={
    "type": "object",
    "properties": {"reasoning": {"type": "string"},
                   "action": {"anyOf": [{"type": "integer", "enum": [1, 4, 9]}, {"type": "null"}]},
                   "notes": {"type": "string"}},
    "required": ["reasoning", "action", "notes"], "additionalProperties": False})
SPEECH = AnswerSchema(json_schema={
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "action": {"type": "string"}, "notes": {"type": "string"}},
    "required": ["reasoning", "action", "notes"], "additionalProperties": False})
MSG = [ChatMessage.of("system", "S" * 5000), ChatMessage.of("user", "Q")]


async def _no_sleep(_: float) -> None:
    return None


def call(provider, schema=SCHEMA, **policy):
    policy.setdefault("timeout", 0.2)
    managed = ManagedProvider(provider, CallPolicy(**policy), sleep=_no_sleep)
    return asyncio.run(managed.call(MSG, schema=schema, options=GenerateOptions())), managed


def only(kind: str, **cfg) -> MockProvider:
    return MockProvider("t", MockConfig(fault_weights={kind: 1.0}, hang_seconds=5, **cfg))


def test_stand_in_answers_inside_the_legal_set_with_realistic_lengths():
    provider = MockProvider("t", MockConfig(reasoning_chars=300))
    result, _ = call(provider)
    assert result.ok and result.reply.parsed["action"] in (1, 4, 9, None)
    assert 280 <= len(result.reply.parsed["reasoning"]) <= 360
    assert result.usage.input == (5000 + 1 + 1) // 4


def test_simulated_prefix_cache_counts_the_shared_prefix():
    provider = MockProvider("t")
    call(provider)
    second, _ = call(provider)
    assert second.usage.cached == 1152  # 1250 shared tokens, in 128-token blocks


@pytest.mark.parametrize("kind", ["malformed_json", "prose", "out_of_range"])
def test_content_faults_reach_the_agent_as_text(kind):
    result, _ = call(only(kind))
    assert result.ok and result.reply.parsed is None or kind == "out_of_range"
    if kind == "out_of_range":
        import json

        assert json.loads(result.reply.text)["action"] == 99


def test_rate_limit_carries_retry_after_and_is_retried():
    provider = only("rate_limit", retry_after=2.5)
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    managed = ManagedProvider(provider, CallPolicy(max_retries=2), sleep=sleep)
    result = asyncio.run(managed.call(MSG, schema=SCHEMA))
    assert not result.ok and result.error_kind == "rate_limit" and "gave up after 3 attempts" in result.error
    assert slept == [2.5, 2.5]


def test_retry_after_is_capped():
    provider = only("rate_limit", retry_after=500)
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    asyncio.run(ManagedProvider(provider, CallPolicy(max_retries=1, max_retry_after=10), sleep=sleep).call(MSG))
    assert slept == [10]


def test_server_error_and_timeout_are_retried_then_given_up():
    result, managed = call(only("server_error"), max_retries=3)
    assert [t.status for t in result.tries] == [500] * 4 and managed.stats.retries == 3
    started = time.perf_counter()
    result, _ = call(only("timeout"), max_retries=1, timeout=0.1)
    assert result.error_kind == "timeout" and len(result.tries) == 2
    assert time.perf_counter() - started < 2


def test_injection_only_in_speeches():
    result, _ = call(only("injection"), schema=SPEECH)
    assert result.reply.parsed["action"] == INJECTION_SPEECH
    result, _ = call(only("injection"))
    assert result.reply.parsed["action"] in (1, 4, 9, None)


def test_fault_rate_spreads_over_every_kind():
    provider = MockProvider("t", MockConfig(fault_rate=0.7, hang_seconds=0))
    for _ in range(400):
        provider._draw_fault()
    draws = [provider._draw_fault() for _ in range(2000)]
    share = sum(d is not None for d in draws) / len(draws)
    assert 0.65 < share < 0.75 and {d for d in draws if d} == set(FAULT_KINDS)


def test_adapter_bug_is_not_retried_and_is_reported():
    class Broken:
        name, model = "broken", "x"

        async def generate(self, messages, *, schema, options):
            raise KeyError("choices")

    result, managed = call(Broken())
    assert result.error_kind == "unexpected" and len(result.tries) == 1 and "KeyError" in result.error


def test_concurrency_cap():
    in_flight, peak = 0, 0

    class Slow:
        name, model = "slow", "x"

        async def generate(self, messages, *, schema, options):
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.02)
            in_flight -= 1
            from agents.providers import ProviderReply

            return ProviderReply(text="{}")

    managed = ManagedProvider(Slow(), CallPolicy(concurrency=3), cap_key="slow-cap")

    async def main():
        await asyncio.gather(*(managed.call(MSG) for _ in range(12)))

    asyncio.run(main())
    assert peak == 3


def test_prices():
    assert price_for("openai", "gpt-4o-mini-2024-07-18")["input"] == 0.15
    assert price_for("openai", "gpt-4o-2024-08-06")["input"] == 2.50  # longest prefix wins
    assert cost_of("openai", "no-such-model", Usage(input=10)) is None
    assert cost_of("mock", "anything", Usage(input=10 ** 6, output=10 ** 6)) == 0.0
    usage = Usage(input=1_000_000, cached=400_000, output=100_000)
    assert cost_of("openai", "gpt-4o-mini", usage) == pytest.approx(0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.60)


def test_redact_removes_known_and_key_shaped_secrets(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plainsecretvalue42")
    text = ("key plainsecretvalue42 and sk-proj-abcdef123456 and Authorization: Bearer tok_live_ABCDEFGH "
            "x-api-key: zzzzzzzzzz")
    out = redact(text)
    for secret in ("plainsecretvalue42", "sk-proj-abcdef123456", "tok_live_ABCDEFGH", "zzzzzzzzzz"):
        assert secret not in out
    err = ProviderError("HTTP 401: bad key plainsecretvalue42", retryable=False)
    assert "plainsecretvalue42" not in str(err)


def test_keys_are_refused_in_agent_options():
    from agents.providers import ProviderConfigError

    with pytest.raises(ProviderConfigError) as info:
        reject_key_options({"api_key": "sk-should-not-echo-123456"})
    assert "sk-should-not-echo" not in str(info.value) and "OPENAI_API_KEY" in str(info.value)
