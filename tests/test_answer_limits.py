"""#25 item 8: answers are not cut off. max_tokens left unset is sized to the answer asked (its string
limits in the table's language, a reasoning model's thinking on top); a reply cut off by the token
limit is recorded as such on its attempt, and the report counts it apart from fallbacks."""

from __future__ import annotations

import asyncio
import json

from agents.llm import REASONING_TOKENS, LLMAgent, LLMAgentOptions, answer_tokens
from agents.llm_answer import answer_schema
from agents.providers.base import GenerateOptions, ProviderReply, Usage
from agents.providers.mock import MockConfig, MockProvider
from agents.providers.wrapper import CallPolicy, ManagedProvider
from arena.actions import DecisionRequest, Speak
from tests.test_llm_agent import observation, vote_request


def speech_request() -> DecisionRequest:
    return DecisionRequest(id=3, seat=5, kind="speech", phase="D1", asked_in="D1", legal=Speak(max_chars=800),
                           default="pass", context={"speech": "discussion"})


def test_the_limit_holds_the_longest_answer_in_chinese_and_a_reasoning_model_s_thinking():
    schema = answer_schema(speech_request(), speech_chars=800, claims=True)
    chars = sum(p.get("maxLength", 0) for p in schema.json_schema["properties"].values())
    zh, en = answer_tokens(schema, zh=True), answer_tokens(schema, zh=False)
    assert zh > chars > en > 1024  # a Chinese character is about a token: 1,024 could not hold 2,900 of them
    assert answer_tokens(schema, zh=False, reasoning=True) == en + REASONING_TOKENS


class CutOnce(MockProvider):
    """Replies once with a JSON cut off at the token limit, then with a whole answer."""

    async def generate(self, messages, *, schema, options):
        self.seen_max_tokens = options.max_tokens
        self.calls += 1
        if self.calls == 1:
            return ProviderReply(text='{"reasoning": "long', usage=Usage(input=10, output=5), finish_reason="length")
        text = json.dumps({"reasoning": "r", "action": 3, "notes": "", "beliefs": None})
        return ProviderReply(text=text, usage=Usage(input=10, output=5), finish_reason="stop")


def agent(provider: MockProvider, **generate) -> LLMAgent:
    managed = ManagedProvider(provider, CallPolicy(timeout=2, max_retries=0, backoff_base=0.0))
    return LLMAgent("mock:cut", 5, managed, options=LLMAgentOptions(beliefs="off", lang="zh"),
                    generate=GenerateOptions(**generate))


def test_a_cut_off_reply_is_recorded_as_such_and_the_limit_is_sized_unless_set():
    provider = CutOnce("cut", MockConfig())
    answer = asyncio.run(agent(provider).decide(observation(lang="zh"), vote_request()))
    first, second = answer.extras.attempts
    assert first.truncated and "cut off" in (first.error or "") and not second.truncated and answer.value == 3
    assert provider.seen_max_tokens > 1024  # sized for a Chinese answer
    fixed = CutOnce("cut", MockConfig())
    asyncio.run(agent(fixed, max_tokens=700).decide(observation(lang="zh"), vote_request()))
    assert fixed.seen_max_tokens == 700  # an explicit limit is the user's
