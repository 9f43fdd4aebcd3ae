"""The anthropic adapter through the REAL anthropic SDK against a loopback server: structured
outputs (output_config.format) with and without thinking (streamed as server-sent events), forced
tool use, cache_control on the stable prefix, effort, refusals, max_tokens cut-offs, 429/529/400,
an overloaded error inside a stream, timeouts, lazy imports."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from agents.providers import AnswerSchema, ChatMessage, ContentPart, GenerateOptions, make_provider
from agents.providers.wrapper import CallPolicy, ManagedProvider
from tests.llm_loopback import LoopbackServer, Reply, anthropic_message

SECRET = "sk-ant-test-SECRETSECRET-0123456789"
SCHEMA = AnswerSchema(json_schema={
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "action": {"type": "boolean"}, "notes": {"type": "string"}},
    "required": ["reasoning", "action", "notes"], "additionalProperties": False})
MESSAGES = [ChatMessage.of("system", "RULES", "ROLE", cache_last=True),
            ChatMessage.of("user", "N1 history", "D1 history", cache_last=True),
            ChatMessage.of("user", "the question")]


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")


def managed(url: str, **policy) -> ManagedProvider:
    policy.setdefault("timeout", 5.0)
    provider = make_provider("anthropic", "claude-sonnet-4-6", base_url=url, timeout=policy["timeout"])
    return ManagedProvider(provider, CallPolicy(**policy), cap_key=f"anthropic-test-{url}")


def test_structured_output_without_thinking_is_output_config_format():
    answer = {"reasoning": "quiet night", "action": True, "notes": "n"}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(text=json.dumps(answer), model="claude-sonnet-4-6-20260101"),
                        headers={"request-id": "req_011abc"}))
        result = asyncio.run(managed(srv.url).call(MESSAGES, schema=SCHEMA,
                                                   options=GenerateOptions(reasoning_effort="low")))
        body = srv.seen[0].body
    assert result.ok and result.reply.parsed == answer and result.reply.thinking is None
    assert body["output_config"] == {"effort": "low", "format": {"type": "json_schema", "schema": SCHEMA.json_schema}}
    assert "tools" not in body and "tool_choice" not in body and "thinking" not in body and "stream" not in body
    reply = result.reply
    assert (reply.model, reply.finish_reason, reply.request_id, reply.response_id, reply.api) == (
        "claude-sonnet-4-6-20260101", "end_turn", "req_011abc", "msg_test", "messages")


def test_structured_output_with_budget_thinking_is_streamed_and_keeps_the_thinking():
    """The tool is no longer needed with thinking: the format constrains the reply either way. The
    thinking call is streamed; the SDK reassembles the events the loopback sends."""
    answer = {"reasoning": "r", "action": False, "notes": ""}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(thinking="Seat 4 pushed hard on seat 9...", text=json.dumps(answer),
                                               output_tokens=900), headers={"request-id": "req_stream"}))
        result = asyncio.run(managed(srv.url).call(
            MESSAGES, schema=SCHEMA, options=GenerateOptions(thinking_budget=2048, max_tokens=500, temperature=0.3)))
        body = srv.seen[0].body
    assert body["stream"] is True
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 2548 and "temperature" not in body and "tool_choice" not in body
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert result.ok and result.reply.parsed == answer and result.reply.thinking.startswith("Seat 4")
    assert result.reply.request_id == "req_stream" and result.usage.output == 900


def test_adaptive_thinking_and_max_effort():
    answer = {"reasoning": "r", "action": True, "notes": ""}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(thinking="hmm", text=json.dumps(answer))))
        result = asyncio.run(managed(srv.url).call(
            MESSAGES, schema=SCHEMA, options=GenerateOptions(thinking_budget="adaptive", reasoning_effort="max")))
        body = srv.seen[0].body
    # Adaptive thinking spends its tokens inside max_tokens: the sized default leaves it headroom.
    assert body["thinking"] == {"type": "adaptive"} and body["max_tokens"] == 32000
    assert body["output_config"]["effort"] == "max" and result.reply.thinking == "hmm"


def test_an_effort_anthropic_does_not_have_is_a_config_error():
    provider = make_provider("anthropic", "claude-sonnet-4-6", base_url="http://127.0.0.1:9")
    with pytest.raises(Exception, match="minimal.*Anthropic takes low, medium"):
        provider.request_params(MESSAGES, SCHEMA, GenerateOptions(reasoning_effort="minimal"))


def test_schema_constraints_the_api_does_not_take_move_into_descriptions():
    schema = AnswerSchema(json_schema={"type": "object", "properties": {
        "speech": {"type": "string", "maxLength": 200}}, "required": ["speech"], "additionalProperties": False})
    provider = make_provider("anthropic", "claude-sonnet-4-6", base_url="http://127.0.0.1:9")
    sent = provider.request_params(MESSAGES, schema, GenerateOptions())["output_config"]["format"]["schema"]
    assert "maxLength" not in sent["properties"]["speech"] and "200" in sent["properties"]["speech"]["description"]


def test_refusal_and_max_tokens_cut_off_are_not_parsed_as_answers():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(text="I can't help with deceiving people.", stop_reason="refusal")),
                  Reply(body=anthropic_message(text='{"reasoning": "a long', stop_reason="max_tokens")))
        refused = asyncio.run(managed(srv.url).call(MESSAGES, schema=SCHEMA))
        cut = asyncio.run(managed(srv.url).call(MESSAGES, schema=SCHEMA))
    assert refused.ok and refused.reply.parsed is None and refused.reply.refusal.startswith("I can't")
    assert refused.reply.finish_reason == "refusal"
    assert cut.ok and cut.reply.parsed is None and cut.reply.truncated


def test_overloaded_inside_a_stream_is_retried():
    answer = {"reasoning": "r", "action": True, "notes": ""}
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    with LoopbackServer() as srv:
        srv.queue(Reply(sse=[("message_start", {"type": "message_start", "message": {
                      **anthropic_message(text=""), "content": []}}),
                      ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})]),
                  Reply(body=anthropic_message(thinking="t", text=json.dumps(answer))))
        m = managed(srv.url, backoff_base=0.01)
        m._sleep = fake_sleep
        result = asyncio.run(m.call(MESSAGES, schema=SCHEMA, options=GenerateOptions(thinking_budget=1024)))
    assert result.ok and [t.kind for t in result.tries] == ["overloaded", None] and len(slept) == 1


def test_forced_tool_use_with_cache_control_and_usage():
    answer = {"reasoning": "quiet night", "action": True, "notes": "n"}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(tool_input=answer, input_tokens=50, cache_read=3000, cache_write=200,
                                               output_tokens=80)))
        result = asyncio.run(managed(srv.url).call(MESSAGES, schema=SCHEMA,
                                                   options=GenerateOptions(temperature=0.5, structured="tool")))
        sent = srv.seen[0]
    assert result.ok and result.reply.parsed == answer
    assert json.loads(result.reply.text) == answer
    assert result.usage.input == 3250 and result.usage.cached == 3000 and result.usage.cache_write == 200
    assert result.cost_usd == pytest.approx((50 * 3.0 + 3000 * 0.30 + 200 * 3.75 + 80 * 15.0) / 1e6)
    assert sent.path == "/v1/messages"
    assert SECRET in (sent.headers.get("x-api-key", "") + sent.headers.get("authorization", ""))
    body = sent.body
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert body["tools"][0]["input_schema"]["properties"]["action"] == {"type": "boolean"}
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in body["system"][0]
    # consecutive user messages are merged into one turn; the history's end carries the cache mark
    assert len(body["messages"]) == 1
    blocks = body["messages"][0]["content"]
    assert [b["text"] for b in blocks] == ["N1 history", "D1 history", "the question"]
    assert "cache_control" in blocks[1] and "cache_control" not in blocks[2]
    # anthropic 2.x's create() takes no temperature: the adapter leaves it out rather than fail
    assert "temperature" not in body or body["temperature"] == 0.5


def test_an_agent_prompt_keeps_its_cache_marks_within_the_api_limit():
    """The agent marks the end of the table's rules (shared by every seat), of the seat's briefing
    and of the history: three breakpoints, all kept, re-asks add none. Past Anthropic's limit of
    four, the first mark (the rules) and the latest ones are kept."""
    from agents.llm_prompts import PromptBuilder
    from agents.providers.anthropic_provider import MAX_CACHE_BREAKPOINTS
    from tests.test_llm_agent import observation, vote_request

    provider = make_provider("anthropic", "claude-sonnet-4-6", base_url="http://127.0.0.1:9")
    built = PromptBuilder("en", 5).build(observation(), vote_request()).messages
    repaired = built + [ChatMessage.of("assistant", "prose"), ChatMessage.of("user", "repair: answer in JSON")]
    for messages in (built, repaired):
        params = provider.request_params(messages, SCHEMA, GenerateOptions())
        blocks = params["system"] + [b for turn in params["messages"] for b in turn["content"]]
        marked = [b["text"] for b in blocks if "cache_control" in b]
        assert len(marked) == 3 <= MAX_CACHE_BREAKPOINTS
        assert marked[0] == built[0].parts[0].text and "seat #5" not in marked[0]  # the rules, for every seat
        assert marked[1] == built[0].parts[1].text and marked[2] == built[1].parts[-2].text
    many = [ChatMessage(role="system", parts=(ContentPart(text="rules", cache=True),
                                              ContentPart(text="briefing", cache=True)))]
    many += [ChatMessage.of("user", f"part {i}", cache_last=True) for i in range(5)]
    params = provider.request_params(many, SCHEMA, GenerateOptions())
    blocks = params["system"] + [b for turn in params["messages"] for b in turn["content"]]
    assert [b["text"] for b in blocks if "cache_control" in b] == ["rules", "part 2", "part 3", "part 4"]


def test_tool_mode_with_thinking_offers_the_tool_without_forcing_it_and_keeps_the_thinking():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(thinking="Seat 4 pushed hard on seat 9...",
                                               tool_input={"reasoning": "r", "action": False, "notes": ""})))
        result = asyncio.run(managed(srv.url).call(
            MESSAGES, schema=SCHEMA, options=GenerateOptions(thinking_budget=2048, max_tokens=500, temperature=0.3,
                                                             structured="tool")))
        body = srv.seen[0].body
    assert result.reply.thinking.startswith("Seat 4") and result.reply.parsed["action"] is False
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["tool_choice"] == {"type": "auto"} and body["max_tokens"] == 2548 and "temperature" not in body


def test_text_reply_without_the_tool_is_returned_as_text():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(text='Sure! {"reasoning": "x", "action": true, "notes": ""}')))
        result = asyncio.run(managed(srv.url).call(MESSAGES, schema=SCHEMA,
                                                   options=GenerateOptions(structured="tool")))
    assert result.ok and result.reply.parsed is None and result.reply.text.startswith("Sure!")


def test_429_retry_after_and_529_overloaded_are_retried_400_is_not():
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    ok = anthropic_message(text=json.dumps({"reasoning": "", "action": True, "notes": ""}))
    with LoopbackServer() as srv:
        srv.queue(Reply(status=429, headers={"retry-after": "3"},
                        body={"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
                  Reply(status=529, body={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
                  Reply(body=ok),
                  Reply(status=400, body={"type": "error", "error": {"type": "invalid_request_error",
                                                                     "message": "output_config bad"}}))
        m = managed(srv.url, backoff_base=0.5)
        m._sleep = fake_sleep
        first = asyncio.run(m.call(MESSAGES, schema=SCHEMA))
        second = asyncio.run(m.call(MESSAGES, schema=SCHEMA))
        assert len(srv.seen) == 4
    assert first.ok and [t.status for t in first.tries] == [429, 529, None]
    assert [t.kind for t in first.tries] == ["rate_limit", "overloaded", None]
    assert slept[0] == 3.0 and 0.25 <= slept[1] <= 1.0
    assert not second.ok and second.error_kind == "client" and "output_config bad" in second.error


def test_timeout_and_key_hygiene():
    with LoopbackServer() as srv:
        srv.queue(Reply(status=401, body={"type": "error", "error": {"type": "authentication_error",
                                                                     "message": f"invalid x-api-key: {SECRET}"}}))
        bad_key = asyncio.run(managed(srv.url).call(MESSAGES, schema=SCHEMA))
        srv.default = Reply(body=anthropic_message(text="late"), delay=1.0)
        late = asyncio.run(managed(srv.url, timeout=0.2, max_retries=0).call(MESSAGES, schema=SCHEMA))
    assert SECRET not in bad_key.model_dump_json() and "***" in bad_key.error
    assert not late.ok and late.error_kind == "timeout"


def test_anthropic_adapter_imports_neither_openai_nor_langchain():
    code = (
        "import os, sys; os.environ['ANTHROPIC_API_KEY'] = 'sk-ant-x-123456';"
        "from agents.providers import make_provider;"
        "p = make_provider('anthropic', 'claude-sonnet-4-6');"
        "import agents.llm, agents.llm_specs;"
        "from agents.registry import make_agent; make_agent('anthropic:claude-sonnet-4-6', seat=1);"
        "bad = [m for m in sys.modules if m == 'openai' or m.startswith(('openai.', 'langchain'))];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(_root()))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _root():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent
