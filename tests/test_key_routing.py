"""A key goes only where it belongs (#23): the OpenAI key to OpenAI's endpoint or to the base URL
the user set for it, a ``local:`` endpoint no key unless one is configured for that URL. Each test
runs the real SDK against a loopback server that records the headers it received."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.providers import ChatMessage, GenerateOptions, ProviderConfigError
from agents.registry import make_agent, make_operator_agent
from tests.llm_loopback import LoopbackServer, Reply, anthropic_message, openai_completion

OPENAI_KEY = "sk-test-OPENAIKEY0123456789abcdef"
ANTHROPIC_KEY = "sk-ant-test-ANTHROPICKEY0123456789"
ORG, PROJECT = "org-operatorsOrganisation", "proj-operatorsProject"
MESSAGES = [ChatMessage.of("user", "say something")]


@pytest.fixture(autouse=True)
def _operator_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The operator's machine: both keys and the OpenAI account ids in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_ORG_ID", ORG)
    monkeypatch.setenv("OPENAI_PROJECT_ID", PROJECT)
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(tmp_path / "no-keys.yaml"))


def headers_sent(spec: str, reply: Reply | None = None, *, operator: bool = True, **options: object) -> list[str]:
    """One call by a seat built from ``spec`` (``{url}`` is the loopback server's); every header
    value the server received, as ``name: value`` lines."""
    with LoopbackServer() as srv:
        srv.default = reply or Reply(body=openai_completion("hello"))
        build = make_operator_agent if operator else make_agent
        agent = build(spec.format(url=srv.url), seat=1, timeout=5.0, max_retries=0, **options)
        result = asyncio.run(agent.provider.call(MESSAGES, schema=None, options=GenerateOptions()))
        assert result.ok, result
        assert srv.seen, "the seat never reached the server"
        return [f"{k}: {v}" for seen in srv.seen for k, v in seen.headers.items()]


def carries(headers: list[str], *values: str) -> bool:
    return any(v in h for h in headers for v in values)


@pytest.mark.parametrize("operator", [True, False], ids=["cli-spec", "untrusted-spec"])
def test_a_local_url_nobody_configured_gets_no_key_and_no_account_ids(operator: bool) -> None:
    # The attack of #23: local:MODEL@ATTACKER_URL was sent OPENAI_API_KEY as a Bearer token.
    headers = headers_sent("local:m@{url}/v1", operator=operator)
    assert not carries(headers, OPENAI_KEY, ANTHROPIC_KEY, ORG, PROJECT), headers
    assert "authorization: Bearer not-needed" in headers


def test_a_local_url_set_as_the_openai_base_url_is_configured_for_the_openai_key(monkeypatch) -> None:
    with LoopbackServer() as srv:
        # The same endpoint written differently (a trailing slash) is still that endpoint.
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1/")
        srv.default = Reply(body=openai_completion("hello"))
        agent = make_operator_agent(f"local:m@{srv.url}/v1", seat=1, timeout=5.0)
        assert asyncio.run(agent.provider.call(MESSAGES, schema=None)).ok
        sent = srv.seen[0].headers
    assert sent["authorization"] == f"Bearer {OPENAI_KEY}"


def test_api_key_env_gives_a_local_endpoint_its_own_key_and_never_the_openai_key(monkeypatch) -> None:
    monkeypatch.setenv("GPU_BOX_KEY", "sk-local-GPUBOXKEY987654321")
    headers = headers_sent("local:m@{url}/v1", api_key_env="GPU_BOX_KEY")
    assert "authorization: Bearer sk-local-GPUBOXKEY987654321" in headers
    assert not carries(headers, OPENAI_KEY, ANTHROPIC_KEY)


def test_a_keys_file_entry_gives_one_local_endpoint_its_key(monkeypatch, tmp_path: Path) -> None:
    keys = tmp_path / "keys.yaml"
    with LoopbackServer() as srv:
        keys.write_text(f'local: {{"{srv.url}/v1": sk-local-FROMTHEFILE123456}}\n', encoding="utf-8")
        monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(keys))
        srv.default = Reply(body=openai_completion("hello"))
        for url in (srv.url + "/v1", srv.url + "/other"):  # the entry's endpoint, then another path
            agent = make_operator_agent(f"local:m@{url}", seat=1, timeout=5.0)
            assert asyncio.run(agent.provider.call(MESSAGES, schema=None)).ok
        configured, other = (s.headers["authorization"] for s in srv.seen)
    assert configured == "Bearer sk-local-FROMTHEFILE123456" and other == "Bearer not-needed"


def test_api_key_env_naming_an_unset_variable_is_an_error_naming_it() -> None:
    with pytest.raises(ProviderConfigError, match="api_key_env names NOT_SET_ANYWHERE, which is not set"):
        make_operator_agent("local:m@http://127.0.0.1:9/v1", seat=1, api_key_env="NOT_SET_ANYWHERE")
    with pytest.raises(Exception, match="api_key_env applies to"):
        make_operator_agent("mock:x", seat=1, api_key_env="OPENAI_API_KEY")


def test_an_openai_seat_sends_its_key_to_the_base_url_the_user_set_for_it() -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(body=openai_completion("hello"))
        agent = make_operator_agent("openai:gpt-4o-mini", seat=1, base_url=srv.url + "/v1", timeout=5.0)
        assert asyncio.run(agent.provider.call(MESSAGES, schema=None)).ok
        headers = srv.seen[0].headers
    assert headers["authorization"] == f"Bearer {OPENAI_KEY}" and headers["openai-organization"] == ORG
    assert not any(ANTHROPIC_KEY in v for v in headers.values())


def test_an_anthropic_seat_sends_only_the_anthropic_key_to_its_base_url() -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(body=anthropic_message(text="hello"))
        agent = make_operator_agent("anthropic:claude-sonnet-4-6", seat=1, base_url=srv.url, timeout=5.0)
        assert asyncio.run(agent.provider.call(MESSAGES, schema=None)).ok
        headers = [f"{k}: {v}" for k, v in srv.seen[0].headers.items()]
    assert carries(headers, ANTHROPIC_KEY) and not carries(headers, OPENAI_KEY, ORG, PROJECT)
