"""Benchmarks count prompt tokens with a real offline BPE vocabulary (bpe-openai ships cl100k_base and
o200k_base; nothing is downloaded), not characters / 4."""

from __future__ import annotations

import pytest

from agents.providers.mock import MockConfig, MockProvider, token_counter

pytest.importorskip("bpe_openai")


def test_real_vocabularies_count_offline():
    o200k, cl100k, chars4 = token_counter("o200k_base"), token_counter("cl100k_base"), token_counter("chars4")
    assert o200k("hello world") == 2 and cl100k("hello world") == 2
    zh = "你是3号玩家。3号投给12号，5号、7号弃票。"
    assert o200k(zh) != chars4(zh)  # characters / 4 is badly off on Chinese
    assert o200k("") == 0


def test_the_stand_in_reports_usage_in_the_configured_vocabulary():
    from agents.providers import ChatMessage, ContentPart

    text = "Seat 3 votes for seat 12. " * 40
    usage = {name: MockProvider("bench", MockConfig(tokenizer=name))._usage([ChatMessage(role="user", parts=(ContentPart(text=text),))], 0)
             for name in ("chars4", "o200k_base")}
    assert usage["o200k_base"].input == token_counter("o200k_base")(text)
    assert usage["chars4"].input == len(text) // 4
