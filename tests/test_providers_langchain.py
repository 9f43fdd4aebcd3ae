"""The langchain adapter: ChatOpenAI and ChatAnthropic (langchain-openai, langchain-anthropic) against
a loopback server, any BaseChatModel by import path, and error mapping."""

from __future__ import annotations

import asyncio
import json

import pytest

from agents.providers import AnswerSchema, ChatMessage, GenerateOptions, ProviderConfigError, make_provider
from agents.providers.langchain_provider import LangChainProvider, parse_spec
from agents.providers.wrapper import CallPolicy, ManagedProvider
from tests.llm_loopback import LoopbackServer, Reply, anthropic_message, openai_completion

pytest.importorskip("langchain_openai")
pytest.importorskip("langchain_anthropic")

SCHEMA = AnswerSchema(json_schema={
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "action": {"type": "integer", "enum": [3, 4]},
                   "notes": {"type": "string"}},
    "required": ["reasoning", "action", "notes"], "additionalProperties": False})
MESSAGES = [ChatMessage.of("system", "rules"), ChatMessage.of("user", "question")]


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-lc-0123456789")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-lc-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")


def test_spec_parsing():
    assert parse_spec("openai:gpt-4o-mini") == ("langchain_openai", "ChatOpenAI", "gpt-4o-mini", "openai")
    assert parse_spec("anthropic") == ("langchain_anthropic", "ChatAnthropic", None, "anthropic")
    assert parse_spec("my_pkg.chat:MyChat:big-model") == ("my_pkg.chat", "MyChat", "big-model", None)
    with pytest.raises(ProviderConfigError, match="unknown langchain model"):
        parse_spec("nosuch")


def test_chat_openai_structured_output_through_the_sdk():
    answer = {"reasoning": "r", "action": 4, "notes": "n"}
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion(json.dumps(answer), prompt_tokens=300, cached=256)))
        provider = make_provider("langchain", "openai:gpt-4o-mini", base_url=srv.url + "/v1")
        result = asyncio.run(ManagedProvider(provider, CallPolicy(timeout=10)).call(
            MESSAGES, schema=SCHEMA, options=GenerateOptions()))
        body = srv.seen[0].body
    assert result.ok, result.error
    assert result.reply.parsed == answer
    assert result.usage.input == 300 and result.usage.cached == 256
    assert body["model"] == "gpt-4o-mini" and body["response_format"]["type"] == "json_schema"
    assert result.cost_usd == pytest.approx((44 * 0.15 + 256 * 0.075 + 30 * 0.60) / 1e6)  # priced as openai


def test_chat_anthropic_structured_output_uses_a_tool():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(tool_input={"reasoning": "x", "action": 3, "notes": ""},
                                               tool_name="answer")))
        provider = make_provider("langchain", "anthropic:claude-sonnet-4-6", base_url=srv.url)
        result = asyncio.run(ManagedProvider(provider, CallPolicy(timeout=10)).call(
            MESSAGES, schema=SCHEMA, options=GenerateOptions()))
        body = srv.seen[0].body
    assert result.ok, result.error
    assert result.reply.parsed == {"reasoning": "x", "action": 3, "notes": ""}
    assert body["tools"][0]["name"] == "answer"


def test_rate_limit_through_langchain_is_retryable_with_retry_after():
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    with LoopbackServer() as srv:
        srv.queue(Reply(status=429, headers={"retry-after": "2"}, body={"error": {"message": "slow"}}),
                  Reply(body=openai_completion('{"reasoning": "", "action": 3, "notes": ""}')))
        provider = make_provider("langchain", "openai:gpt-4o-mini", base_url=srv.url + "/v1")
        managed = ManagedProvider(provider, CallPolicy(timeout=10), sleep=fake_sleep)
        result = asyncio.run(managed.call(MESSAGES, schema=SCHEMA))
    assert result.ok and slept == [2.0] and result.tries[0].status == 429


def test_any_base_chat_model_by_import_path_falls_back_to_text():
    provider = make_provider(
        "langchain", "langchain_core.language_models.fake_chat_models:FakeListChatModel", trusted=True,
        model_kwargs={"responses": ['Here you go: {"reasoning": "r", "action": 3, "notes": ""}']})
    result = asyncio.run(ManagedProvider(provider).call(MESSAGES, schema=SCHEMA))
    assert result.ok and result.reply.parsed is None and '"action": 3' in result.reply.text
    assert result.cost_usd is None  # not in the price table: no guessed cost


def test_an_instance_can_be_wrapped_directly():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    provider = LangChainProvider(chat_model=FakeListChatModel(responses=["prose only"]))
    result = asyncio.run(ManagedProvider(provider).call(MESSAGES, schema=None))
    assert result.reply.text == "prose only" and provider.model == "FakeListChatModel"
