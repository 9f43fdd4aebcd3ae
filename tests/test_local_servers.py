"""Local OpenAI-compatible servers with the arena's defaults (issue #27): what llama-cpp-python,
Ollama and vLLM answer (tests/data/local_servers.json: recorded from llama-cpp-python, from the
servers' source for the other two) replayed by a loopback server this test starts, driven through
the real openai SDK by ``local:MODEL@URL`` and ``openai:MODEL`` with ``OPENAI_BASE_URL`` seats.

A server that refuses a structured mode is asked again in the next one down; grammars keep no
``maxLength`` over what llama.cpp compiles; ``max_tokens`` is always sent and bounded; a reply whose
only fault is a raw newline inside a string is read and recorded as a repair.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agents.providers import openai_provider
from agents.registry import make_agent
from tests.llm_loopback import LoopbackServer, Reply, schema_instance
from tests.test_llm_agent import observation, vote_request

SHAPES = json.loads((Path(__file__).parent / "data" / "local_servers.json").read_text(encoding="utf-8"))
SERVERS = ("llama_cpp", "ollama", "vllm")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")
    openai_provider._SERVER_MODES.clear()  # what one test's server answered says nothing of the next
    yield
    openai_provider._SERVER_MODES.clear()


def max_lengths(schema: Any) -> list[int]:
    if isinstance(schema, dict):
        own = [schema["maxLength"]] if isinstance(schema.get("maxLength"), int) else []
        return own + [n for v in schema.values() for n in max_lengths(v)]
    if isinstance(schema, list):
        return [n for v in schema for n in max_lengths(v)]
    return []


class Emulator:
    """A server of ``kind``: the recorded refusal for a response_format it lacks, else the recorded
    reply with an answer that fits the schema it was sent (the last one seen, in plain mode)."""

    def __init__(self, kind: str, *, formats: list[str] | None = None, raw_newline: bool = False):
        self.shape = SHAPES[kind]
        self.formats = formats if formats is not None else self.shape["formats"]
        self.raw_newline = raw_newline
        self.schema: Any = None
        self.modes: list[str] = []

    def __call__(self, body: dict[str, Any], headers: Any) -> Reply:
        fmt = body.get("response_format") or {"type": "text"}
        self.modes.append(fmt["type"])
        if fmt["type"] not in self.formats:
            return Reply(status=self.shape["refusal"]["status"], body=self.shape["refusal"]["body"])
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        if schema is not None:
            self.schema = schema
        answer = schema_instance(self.schema) if self.schema else {"action": None}
        text = json.dumps(answer)
        if self.raw_newline and "reasoning" in answer:
            text = text.replace('"reasoning": "ok"', '"reasoning": "line one\nline two"')
        if fmt["type"] == "text":
            text = f"Here is my answer:\n{text}"
        reply = json.loads(json.dumps(self.shape["reply"]))
        reply["choices"][0]["message"]["content"] = text
        return Reply(body=reply)


def decide(agent: Any, n: int = 1) -> list[Any]:
    async def main() -> list[Any]:
        return [await agent.decide(observation(), vote_request(rid=40 + i)) for i in range(n)]

    return asyncio.run(main())


@pytest.mark.parametrize("kind", SERVERS)
def test_local_seat_with_defaults_plays_against_each_server(kind):
    emulator = Emulator(kind)
    with LoopbackServer() as srv:
        srv.default = emulator  # type: ignore[assignment]
        agent = make_agent(f"local:smollm2@{srv.url}/v1", seat=5, seed=1)
        answers = decide(agent, 2)
        sent = [s.body for s in srv.seen]
    assert all(not a.extras.fallback and a.value in vote_request().legal.options for a in answers)
    for body in sent:
        assert 0 < body["max_tokens"] <= 4096 and "max_completion_tokens" not in body
        assert all(n <= SHAPES["llama_cpp"]["grammar_max_length_compiled"] for n in max_lengths(body))
    if kind == "llama_cpp":  # json_schema refused once (500), then json_object with the schema as a grammar
        assert emulator.modes == ["json_schema", "json_object", "json_object"]
        assert sent[1]["response_format"]["schema"]["required"][:2] == ["reasoning", "action"]
        assert answers[0].extras.usage.replies[0].structured == "json_object (json_schema refused (HTTP 500))"
        assert answers[1].extras.usage.replies[0].structured == "json_object"
        assert answers[0].extras.usage.calls == 1  # the refused mode is no re-ask and no retry
    else:  # json_schema taken at once
        assert emulator.modes == ["json_schema", "json_schema"]
        assert answers[0].extras.usage.replies[0].structured is None


@pytest.mark.parametrize("kind", SERVERS)
def test_openai_seat_with_a_base_url_falls_back_the_same_way(kind, monkeypatch):
    emulator = Emulator(kind)
    with LoopbackServer() as srv:
        srv.default = emulator  # type: ignore[assignment]
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        agent = make_agent("openai:smollm2", seat=5, seed=1)
        [answer] = decide(agent)
        body = srv.seen[-1].body
    assert not answer.extras.fallback
    # llama.cpp reads only max_tokens; unset, it is sized from the answer's fields (agents.providers.budget)
    assert 1024 < body["max_tokens"] <= 4096 and "max_completion_tokens" not in body
    assert emulator.modes[-1] == ("json_object" if kind == "llama_cpp" else "json_schema")


def test_a_server_with_no_json_mode_is_asked_in_plain_text():
    emulator = Emulator("vllm", formats=["text"])
    with LoopbackServer() as srv:
        srv.default = emulator  # type: ignore[assignment]
        [answer] = decide(make_agent(f"local:m@{srv.url}/v1", seat=5, seed=1))
    assert emulator.modes == ["json_schema", "json_object", "text"]
    assert not answer.extras.fallback
    assert answer.extras.usage.replies[0].structured.startswith("no response_format (json_schema refused (HTTP 400)")


def test_a_raw_newline_inside_a_string_is_a_repair_not_a_reask():
    emulator = Emulator("llama_cpp", raw_newline=True)
    with LoopbackServer() as srv:
        srv.default = emulator  # type: ignore[assignment]
        [answer] = decide(make_agent(f"local:smollm2@{srv.url}/v1", seat=5, seed=1))
    assert "\n" in answer.extras.attempts[0].raw
    assert not answer.extras.fallback and len(answer.extras.attempts) == 1
    assert answer.extras.attempts[0].repair == openai_provider.REPAIR_CONTROL_CHARS
    assert answer.reasoning == "line one\nline two"


def test_long_field_limits_stay_out_of_the_grammar_and_short_ones_stay_in():
    emulator = Emulator("llama_cpp")
    with LoopbackServer() as srv:
        srv.default = emulator  # type: ignore[assignment]
        decide(make_agent(f"local:smollm2@{srv.url}/v1", seat=5, seed=1, reasoning_max_chars=1500,
                          notes_max_chars=100))
        grammar = srv.seen[-1].body["response_format"]["schema"]["properties"]
    assert "maxLength" not in grammar["reasoning"]  # 1500 crashes llama.cpp's server
    assert grammar["notes"]["maxLength"] == 100


def test_a_server_error_that_is_not_a_refusal_is_not_a_fallback():
    """A 503 (overloaded) is retried by the wrapper in the same mode, never taken as 'no json_schema'."""
    with LoopbackServer() as srv:
        srv.queue(Reply(status=503, body={"error": {"message": "busy"}}))
        srv.default = Emulator("vllm")  # type: ignore[assignment]
        [answer] = decide(make_agent(f"local:m@{srv.url}/v1", seat=5, seed=1, backoff_base=0))
        modes = [(s.body.get("response_format") or {}).get("type") for s in srv.seen]
    assert modes == ["json_schema", "json_schema"] and not answer.extras.fallback
    assert openai_provider._SERVER_MODES == {}


def test_arena_play_with_a_local_server_and_options(tmp_path):
    from arena.cli.main import app

    emulator = Emulator("llama_cpp")
    with LoopbackServer() as srv:
        srv.default = emulator  # type: ignore[assignment]
        result = CliRunner().invoke(app, [
            "play", "-p", "cupid-tucheng-7", "-s", "3", "-q", "-o", str(tmp_path),
            "--agents", f"local:smollm2@{srv.url}/v1", "--option", "memory=summary", "--option", "max_tokens=300",
            "--option", "2:speech_max_chars=120"])
        bodies = [s.body for s in srv.seen]
    assert result.exit_code == 0, result.output
    assert "winner:" in result.output
    assert {b["max_tokens"] for b in bodies} == {300}
    header = json.loads(next(tmp_path.glob("*.jsonl")).read_text(encoding="utf-8").splitlines()[0])
    settings = [a["settings"] for a in header["agents"]]
    assert {s["memory"] for s in settings} == {"summary"}
    assert [s["speech_max_chars"] for s in settings][:3] == [800, 120, 800]


@pytest.mark.parametrize("args, message", [
    (["--option", "bogus=1"], "unknown option(s) for local: bogus"),
    (["--option", "max_tokens=lots"], "option max_tokens='lots': Input should be a valid integer"),
    (["--option", "memory"], "--option expects KEY=VALUE or SEAT:KEY=VALUE"),
    (["--option", "13:memory=summary"], "the seat must be a number from 1 to 12"),
])
def test_arena_play_option_errors_are_one_line_and_exit_2(args, message, tmp_path):
    from arena.cli.main import app

    result = CliRunner().invoke(app, ["play", "-q", "-o", str(tmp_path), "--agents",
                                      "local:m@http://127.0.0.1:9/v1", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_option_on_a_table_of_bots_is_refused(tmp_path):
    from arena.cli.main import app

    result = CliRunner().invoke(app, ["play", "-q", "-o", str(tmp_path), "--option", "memory=summary"])
    assert result.exit_code == 2 and "no seat at this table is a model" in result.output
