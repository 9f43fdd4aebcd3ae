"""Answers are not cut off (#25 item 8): ``max_tokens`` is sized from the answer's own limits (field
lengths x tokens per character of the table's language) and the model's kind (reasoning models get
headroom, the Responses limit covers their reasoning); a seat's own ``max_tokens`` wins. A reply cut
off by length is recorded as such on its attempt (``truncated``) and counted apart from other
fallbacks (``cut_off_fallback_rate``). Each SDK path through a loopback server."""

from __future__ import annotations

import asyncio
import json

import pytest

from agents.llm_answer import answer_schema
from agents.providers.budget import TOKENS_PER_CHAR, sized_max_tokens
from agents.providers.mock import token_counter
from agents.registry import make_agent
from arena.actions import DecisionRequest, Speak
from tests.llm_loopback import LoopbackServer, Reply, anthropic_message, openai_completion, openai_response
from tests.test_llm_agent import observation, vote_request

CUT = '{"reasoning": "seat 3 has been'  # a reply the limit stopped mid-string
GOOD = json.dumps({"reasoning": "r", "action": 3, "notes": "", "beliefs": {}})


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-length-0123456789")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-length-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")


def speech_request(seat: int = 5) -> DecisionRequest:
    return DecisionRequest(id=41, seat=seat, kind="speech", phase="D1", asked_in="D1", legal=Speak(max_chars=2000),
                           default="pass", context={"speech": "discussion"})


def _chinese_text(chars: int) -> str:
    """Table Chinese of ``chars`` characters: the seats' role cards, repeated."""
    import re

    from agents.llm_prompts import PROMPTS_DIR

    text = re.sub(r"[{][^}]*[}]|\s", "", (PROMPTS_DIR / "zh" / "llm_roles.yaml").read_text(encoding="utf-8"))
    return (text * (chars // len(text) + 1))[:chars]


def test_the_default_limit_holds_every_field_at_its_longest_in_chinese():
    schema = answer_schema(speech_request(), reasoning_chars=1500, notes_chars=600, speech_chars=800).json_schema
    zh, en = sized_max_tokens(schema, "zh"), sized_max_tokens(schema, "en")
    # The figure: the allowed fields come to ~2,350 tokens in Chinese (o200k), more in cl100k.
    longest = _chinese_text(1500 + 600 + 800)
    assert zh >= max(token_counter(v)(longest) for v in ("o200k_base", "cl100k_base")) > 1024
    assert 1024 <= en < zh
    assert TOKENS_PER_CHAR["zh"] >= 1.2  # cl100k's Chinese rate with a margin


def test_reasoning_models_get_headroom_by_effort():
    schema = answer_schema(vote_request()).json_schema
    plain = sized_max_tokens(schema, "en")
    assert sized_max_tokens(schema, "en", reasoning=True, effort="low") > plain
    assert (sized_max_tokens(schema, "en", reasoning=True, effort="high")
            > sized_max_tokens(schema, "en", reasoning=True) > sized_max_tokens(schema, "en", reasoning=True, effort="low"))
    assert sized_max_tokens(schema, "en", reasoning=True, effort="none") == plain


def _agent(spec: str, url: str, **options):
    return make_agent(spec, seat=5, seed=1, base_url=url, timeout=5, max_repairs=1, **options)


def _decide(agent, obs, request):
    return asyncio.run(agent.decide(obs, request))


def test_chat_completions_sizes_and_records_a_length_cut_off():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion(CUT, finish_reason="length")),
                  Reply(body=openai_completion(CUT, finish_reason="length")))
        seat = _agent("openai:gpt-4o-mini", srv.url + "/v1", compatible=False)
        answer = _decide(seat, observation(lang="zh"), speech_request())
        bodies = [s.body for s in srv.seen]
    asked = answer_schema(speech_request(), speech_chars=800, claims=seat.options.declare_claims)
    sized = sized_max_tokens(asked.json_schema, "zh")
    assert [b["max_completion_tokens"] for b in bodies] == [sized, sized] and sized > 2350
    x = answer.extras
    assert x.fallback and [a.truncated for a in x.attempts] == [True, True]
    assert "cut off at the token limit (length)" in x.error
    assert [r.finish_reason for r in x.usage.replies] == ["length", "length"]


def test_a_seat_option_overrides_the_sized_limit_on_a_local_server():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion(GOOD)), Reply(body=openai_completion(GOOD)))
        _decide(_agent("local:smol@" + srv.url + "/v1", None, max_tokens=321), observation(), vote_request())
        _decide(_agent("local:smol@" + srv.url + "/v1", None), observation(), vote_request())
        bodies = [s.body for s in srv.seen]
    assert bodies[0]["max_tokens"] == 321
    assert bodies[1]["max_tokens"] > 1024 and bodies[1]["max_tokens"] % 256 == 0  # sized: every field fits


def test_responses_gives_a_reasoning_model_headroom_and_records_max_output_tokens():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_response(None, incomplete="max_output_tokens")),
                  Reply(body=openai_response(GOOD)))
        answer = _decide(_agent("openai:o4-mini", srv.url + "/v1", compatible=False), observation(), vote_request())
        body = srv.seen[0].body
    assert body["max_output_tokens"] >= 24576  # the answer plus medium effort's hidden reasoning
    x = answer.extras
    assert not x.fallback and answer.value == 3 and [a.truncated for a in x.attempts] == [True, False]
    assert x.attempts[0].error.startswith("your reply was cut off at the token limit (max_output_tokens)")


def test_anthropic_max_tokens_stop_is_recorded_and_a_fixed_thinking_budget_is_added_on_top():
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(text=CUT, stop_reason="max_tokens")),
                  Reply(body=anthropic_message(text=CUT, stop_reason="max_tokens")))
        answer = _decide(_agent("anthropic:claude-sonnet-4-6", srv.url), observation(lang="zh"), vote_request())
        plain = srv.seen[0].body["max_tokens"]
    assert plain >= 1024 and answer.extras.fallback and all(a.truncated for a in answer.extras.attempts)
    with LoopbackServer() as srv:
        srv.queue(Reply(body=anthropic_message(text=GOOD, thinking="hm")))
        _decide(_agent("anthropic:claude-sonnet-4-6", srv.url, thinking_budget=2048), observation(lang="zh"),
                vote_request())
        thinking = srv.seen[0].body["max_tokens"]
    assert thinking == plain + 2048


def test_the_report_counts_a_cut_off_fallback_apart_from_other_fallbacks():
    from arena.evaluate.families import last_reply_cut_off

    assert last_reply_cut_off([{"error": "cut", "truncated": True}, {"error": "cut", "truncated": True}])
    # A cut-off repaired by a later reply that was then illegal is an ordinary fallback.
    assert not last_reply_cut_off([{"error": "cut", "truncated": True}, {"error": "seat 42 is not legal"}])
    assert not last_reply_cut_off([]) and not last_reply_cut_off(None)
