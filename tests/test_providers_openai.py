"""The openai adapter through the REAL openai SDK against a loopback server: structured answers,
reasoning models, local servers, 429 with Retry-After, 500, 4xx, timeouts, and key hygiene."""

from __future__ import annotations

import asyncio
import json

import pytest

from agents.providers import AnswerSchema, ChatMessage, GenerateOptions, make_provider
from agents.providers.budget import sized_max_tokens
from agents.providers.wrapper import CallPolicy, ManagedProvider
from tests.llm_loopback import LoopbackServer, Reply, openai_completion, openai_response

SECRET = "sk-test-THISISASECRETKEY0123456789"
SCHEMA = AnswerSchema(json_schema={
    "type": "object",
    "properties": {"reasoning": {"type": "string"},
                   "action": {"anyOf": [{"type": "integer", "enum": [2, 5]}, {"type": "null"}]},
                   "notes": {"type": "string"},
                   "picks": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}},
    "required": ["reasoning", "action", "notes", "picks"], "additionalProperties": False})
MESSAGES = [ChatMessage.of("system", "rules", "role", cache_last=True), ChatMessage.of("user", "history", "question")]


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")


def managed(url: str, **policy) -> ManagedProvider:
    policy.setdefault("timeout", 5.0)
    # The loopback server stands in for OpenAI itself, not for an OpenAI-compatible server.
    provider = make_provider("openai", "gpt-4o-mini", base_url=url + "/v1", timeout=policy["timeout"], compatible=False)
    return ManagedProvider(provider, CallPolicy(**policy), cap_key=f"openai-test-{url}")


def run(coro):
    return asyncio.run(coro)


def test_structured_answer_uses_strict_json_schema_and_reports_usage_and_cost():
    answer = {"reasoning": "r", "action": 5, "notes": "n", "picks": [1, 2]}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion(json.dumps(answer), prompt_tokens=2000, completion_tokens=100,
                                               cached=1024, reasoning=7)))
        result = run(managed(srv.url).call(MESSAGES, schema=SCHEMA, options=GenerateOptions(temperature=0.2, seed=3)))
        sent = srv.seen[0]
    assert result.ok and result.reply.parsed == answer
    assert result.usage.input == 2000 and result.usage.cached == 1024 and result.usage.reasoning == 7
    # gpt-4o-mini: 976 uncached * 0.15 + 1024 * 0.075 + 100 * 0.60 per million
    assert result.cost_usd == pytest.approx((976 * 0.15 + 1024 * 0.075 + 100 * 0.60) / 1e6)
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    body = sent.body
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["properties"]["action"]["anyOf"][0]["enum"] == [2, 5]
    assert "minItems" not in json.dumps(fmt)  # stripped for strict mode
    # max_tokens unset: sized from the answer's fields (agents.providers.budget; tests/test_answer_length.py)
    assert body["temperature"] == 0.2 and body["seed"] == 3
    assert body["max_completion_tokens"] == sized_max_tokens(SCHEMA.json_schema, "en")
    assert [m["content"] for m in body["messages"]] == ["rulesrole", "historyquestion"]
    assert "cache" not in json.dumps(body["messages"])  # cache marks are Anthropic's: OpenAI caches by itself


def test_reasoning_model_gets_reasoning_effort_and_no_temperature():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion('{"reasoning":"","action":2,"notes":"","picks":[]}', reasoning=300)))
        result = run(managed(srv.url).call(MESSAGES, schema=SCHEMA,
                                           options=GenerateOptions(temperature=0.7, reasoning_effort="low")))
        body = srv.seen[0].body
    assert result.ok and result.usage.reasoning == 300
    assert body["reasoning_effort"] == "low" and "temperature" not in body


def test_429_retry_after_is_honoured_then_succeeds():
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    with LoopbackServer() as srv:
        srv.queue(Reply(status=429, headers={"retry-after": "7"}, body={"error": {"message": "rate limited"}}),
                  Reply(body=openai_completion('{"reasoning":"","action":null,"notes":"","picks":[]}')))
        m = managed(srv.url)
        m._sleep = fake_sleep
        result = run(m.call(MESSAGES, schema=SCHEMA, options=GenerateOptions()))
        assert len(srv.seen) == 2
    assert result.ok and result.reply.parsed["action"] is None
    assert slept == [7.0]
    assert result.tries[0].status == 429 and result.tries[0].kind == "rate_limit"
    assert m.stats.retries == 1


def test_500_is_retried_and_400_is_not():
    with LoopbackServer() as srv:
        srv.queue(Reply(status=500, body={"error": {"message": "boom"}}),
                  Reply(body=openai_completion('{"reasoning":"","action":2,"notes":"","picks":[]}')))
        ok = run(managed(srv.url, backoff_base=0.01).call(MESSAGES, schema=SCHEMA))
        assert ok.ok and [t.status for t in ok.tries] == [500, None]
        srv.queue(Reply(status=400, body={"error": {"message": "Invalid schema for response_format"}}))
        bad = run(managed(srv.url, backoff_base=0.01).call(MESSAGES, schema=SCHEMA))
        assert len(srv.seen) == 3  # the 400 was sent once
    assert not bad.ok and bad.error_kind == "client" and "Invalid schema" in bad.error


def test_slow_reply_past_the_timeout_is_a_retried_timeout():
    with LoopbackServer() as srv:
        srv.default = Reply(body=openai_completion("{}"), delay=1.5)
        result = run(managed(srv.url, timeout=0.3, max_retries=1, backoff_base=0.01).call(MESSAGES, schema=SCHEMA))
        import time

        deadline = time.monotonic() + 3  # a loaded machine may record the second request late
        while len(srv.seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        seen = len(srv.seen)
    assert not result.ok and result.error_kind == "timeout"
    # two attempts, both cut at the timeout (the second may be cut before it reaches the server)
    assert 1 <= seen <= 2 and [t.kind for t in result.tries] == ["timeout", "timeout"]
    assert all(t.latency_ms < 1200 for t in result.tries)


def test_malformed_json_and_prose_come_back_as_text_without_parsed():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion('{"reasoning": "cut off here', finish_reason="length")),
                  Reply(body=openai_completion("I think seat 5 is the wolf.")))
        m = managed(srv.url)
        cut = run(m.call(MESSAGES, schema=SCHEMA))
        prose = run(m.call(MESSAGES, schema=SCHEMA))
    assert cut.ok and cut.reply.parsed is None and cut.reply.finish_reason == "length"
    assert prose.ok and prose.reply.parsed is None and prose.reply.text.startswith("I think")


def test_a_key_never_appears_in_errors(monkeypatch):
    echo = {"error": {"message": f"Incorrect API key provided: {SECRET}. Authorization: Bearer {SECRET}"}}
    with LoopbackServer() as srv:
        srv.queue(Reply(status=401, body=echo))
        result = run(managed(srv.url).call(MESSAGES, schema=SCHEMA))
    assert not result.ok and result.error_kind == "client"
    dumped = result.model_dump_json()
    assert SECRET not in dumped and SECRET[:12] not in dumped
    assert "***" in result.error


def test_missing_key_is_a_config_error_naming_the_variable(monkeypatch):
    from agents.providers import ProviderConfigError

    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ProviderConfigError, match="OPENAI_API_KEY"):
        make_provider("openai", "gpt-4o-mini")


def test_local_server_gets_json_mode_with_schema_and_max_tokens(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion('{"reasoning":"x","action":2,"notes":"","picks":[1,2]}',
                                               extra_message={"reasoning_content": "hmm, seat 2"})))
        provider = make_provider("local", "smol", base_url=srv.url + "/v1")
        result = run(ManagedProvider(provider, CallPolicy(timeout=5)).call(
            MESSAGES, schema=SCHEMA, options=GenerateOptions(structured="json_object", max_tokens=99)))
        sent = srv.seen[0]
    assert result.ok and result.reply.parsed["action"] == 2 and result.reply.thinking == "hmm, seat 2"
    assert sent.body["response_format"]["type"] == "json_object"
    assert sent.body["response_format"]["schema"]["required"] == ["reasoning", "action", "notes", "picks"]
    assert sent.body["max_tokens"] == 99 and "max_completion_tokens" not in sent.body
    assert sent.headers["authorization"] == "Bearer not-needed"
    assert result.cost_usd == 0.0


def test_concurrency_cap_holds_across_agents_sharing_a_key():
    with LoopbackServer() as srv:
        srv.default = Reply(body=openai_completion('{"reasoning":"","action":2,"notes":"","picks":[]}'), delay=0.2)
        provider_a = make_provider("openai", "gpt-4o-mini", base_url=srv.url + "/v1")
        provider_b = make_provider("openai", "gpt-4o-mini", base_url=srv.url + "/v1")
        policy = CallPolicy(timeout=5, concurrency=2)
        a = ManagedProvider(provider_a, policy, cap_key="shared")
        b = ManagedProvider(provider_b, policy, cap_key="shared")

        async def main():
            import time

            t0 = time.perf_counter()
            results = await asyncio.gather(*(m.call(MESSAGES, schema=SCHEMA) for m in (a, b, a, b)))
            return results, time.perf_counter() - t0

        results, wall = run(main())
    assert all(r.ok for r in results)
    assert wall >= 0.38  # four 0.2 s calls, two at a time


# ---- the Responses API ---------------------------------------------------------------------------

def responses_managed(url: str, model: str = "o4-mini", **provider) -> ManagedProvider:
    adapter = make_provider("openai", model, base_url=url + "/v1", timeout=5.0, **provider)
    return ManagedProvider(adapter, CallPolicy(timeout=5.0), cap_key=f"openai-responses-test-{url}")


def test_a_reasoning_model_goes_through_responses_with_its_summary_as_private_thinking():
    answer = {"reasoning": "r", "action": 5, "notes": "", "picks": [1, 2]}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_response(json.dumps(answer), summary=["Seat 5 claimed seer late.", "Vote 5."],
                                             cached=128), headers={"x-request-id": "req_resp_1"}))
        result = run(responses_managed(srv.url).call(MESSAGES, schema=SCHEMA, options=GenerateOptions(
            temperature=0.7, reasoning_effort="high", max_tokens=700)))
        sent = srv.seen[0]
    assert sent.path == "/v1/responses"
    body = sent.body
    assert body["store"] is False and body["max_output_tokens"] == 700 and "temperature" not in body
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["input"][0] == {"role": "developer", "content": "rulesrole"}
    fmt = body["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["strict"] is True and "minItems" not in json.dumps(fmt["schema"])
    reply = result.reply
    assert reply.parsed == answer and reply.thinking == "Seat 5 claimed seer late.\n\nVote 5."
    assert (reply.api, reply.model, reply.finish_reason, reply.request_id, reply.response_id) == (
        "responses", "o4-mini-2025-04-16", "completed", "req_resp_1", "resp_test")
    usage = result.usage
    assert (usage.input, usage.cached, usage.output, usage.reasoning) == (200, 128, 300, 250)


def test_the_api_is_chosen_per_seat():
    from agents.providers.openai_provider import wants_responses

    assert wants_responses("gpt-5-mini") and wants_responses("o3") and not wants_responses("gpt-4o-mini")
    assert make_provider("openai", "gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api="responses").api == "responses"
    assert make_provider("openai", "o3", base_url="http://127.0.0.1:9/v1", api="chat").api == "chat"
    assert make_provider("local", "gpt-5-distill", base_url="http://127.0.0.1:9/v1").api == "chat"
    assert make_provider("openai", "o3", base_url="http://127.0.0.1:9/v1", store=True).store is True
    from agents.registry import AgentSpecError, make_agent

    with pytest.raises(AgentSpecError, match="api apply to openai: and local: seats only"):
        make_agent("mock:x", seat=1, api="responses")


def test_responses_refusal_and_max_output_tokens_cut_off():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_response(None, refusal="I won't lie to the other players.")),
                  Reply(body=openai_response('{"reasoning": "long', incomplete="max_output_tokens")))
        refused = run(responses_managed(srv.url).call(MESSAGES, schema=SCHEMA))
        cut = run(responses_managed(srv.url).call(MESSAGES, schema=SCHEMA))
    assert refused.reply.refusal.startswith("I won't") and refused.reply.parsed is None
    assert refused.reply.finish_reason == "refusal"
    assert cut.reply.truncated and cut.reply.parsed is None and cut.reply.finish_reason == "max_output_tokens"


def test_responses_429_with_retry_after_is_honoured():
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    with LoopbackServer() as srv:
        srv.queue(Reply(status=429, headers={"retry-after-ms": "1500"},
                        body={"error": {"message": "Rate limit reached", "type": "requests"}}),
                  Reply(body=openai_response('{"reasoning":"","action":2,"notes":"","picks":[]}', summary=[])))
        m = responses_managed(srv.url)
        m._sleep = fake_sleep
        result = run(m.call(MESSAGES, schema=SCHEMA))
    assert result.ok and slept == [1.5] and [t.status for t in result.tries] == [429, None]


def test_chat_completions_provenance_and_refusal():
    with LoopbackServer() as srv:
        body = openai_completion(None, model="gpt-4o-mini-2024-07-18", extra_message={"refusal": "I can't."})
        body["system_fingerprint"] = "fp_44709d6fcb"
        srv.queue(Reply(body=body, headers={"x-request-id": "req_chat_9"}),
                  Reply(body=openai_completion('{"reasoning": "cut', finish_reason="length")))
        refused = run(managed(srv.url).call(MESSAGES, schema=SCHEMA))
        cut = run(managed(srv.url).call(MESSAGES, schema=SCHEMA))
    reply = refused.reply
    assert reply.refusal == "I can't." and reply.parsed is None and reply.api == "chat"
    assert (reply.model, reply.request_id, reply.system_fingerprint, reply.response_id) == (
        "gpt-4o-mini-2024-07-18", "req_chat_9", "fp_44709d6fcb", "chatcmpl-test")
    assert cut.reply.truncated
