"""The evaluator's config card names, per roster entry, the templates and settings its agents played
with, as the referee recorded them in transcript headers, and never a key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agents.heuristic import BOT_VERSION, speech_version
from agents.llm import prompt_version
from agents.providers.base import ProviderConfigError
from agents.registry import make_agent
from arena.engine import GameSetup
from arena.evaluate.ratings import RatingConfig
from arena.evaluate.report import render, score
from arena.referee import run_game
from arena.transcript import SCHEMA_VERSION, TranscriptWriter, read_transcript
from test_eval_metrics import game1

SECRET = "sk-test-config-card-0123456789abcdef"


def _mixed_game(path: Path, seed: int = 3) -> None:
    """Seven seats: odd ones an LLM stand-in (``mock:``), even ones the heuristic bot."""
    agents, specs, labels = [], [], []
    for seat in range(1, 8):
        if seat % 2:
            spec, label = "mock:cardtest", "llm-a"
            agents.append(make_agent(spec, seat=seat, seed=seed, temperature=0.4, max_tokens=300, memory="summary"))
        else:
            spec, label = "bot:heuristic", "heuristic"
            agents.append(make_agent(spec, seat=seat, seed=seed))
        specs.append(spec)
        labels.append(label)
    with TranscriptWriter(path) as writer:
        asyncio.run(run_game(GameSetup(preset="cupid-tucheng-7", seed=seed), agents, writer=writer,
                             specs=specs, labels=labels, game_id=f"card-{seed}"))


@pytest.fixture()
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET + "-ant")
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")


def test_header_records_versions_and_settings_but_no_secret(tmp_path: Path, secret_env: None) -> None:
    path = tmp_path / "game.jsonl"
    _mixed_game(path)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and "sk-test" not in text
    header = read_transcript(path).header
    assert header.schema_version == SCHEMA_VERSION
    llm = [a for a in header.agents if a.spec.startswith("mock:")]
    bots = [a for a in header.agents if a.spec == "bot:heuristic"]
    assert len(llm) == 4 and len(bots) == 3
    for a in llm:
        # no lang option: the seat renders from the game's language's templates
        assert a.version == prompt_version("en") and a.version.startswith("prompts:") and len(a.version) == 16
        assert a.settings is not None
        assert a.settings["model"] == "cardtest" and a.settings["provider"] == "mock"
        assert a.settings["temperature"] == 0.4 and a.settings["max_tokens"] == 300
        assert a.settings["memory"] == "summary"
        assert not {"api_key", "key", "base_url"} & set(a.settings)
    assert len({json.dumps(a.settings, sort_keys=True) for a in llm}) == 1  # nothing per seat in them
    for a in bots:
        assert a.version == f"{BOT_VERSION} {speech_version()}" and a.settings == {"lang": "en"}


def test_prompt_version_is_stable_and_follows_the_language() -> None:
    assert prompt_version("en") == prompt_version("en")
    assert prompt_version("en") != prompt_version("zh")
    agent = make_agent("mock:x", seat=1, lang="zh")
    assert agent.prompt_version("en") == prompt_version("zh")  # an explicit lang option wins


def test_settings_keep_only_the_host_of_a_base_url(secret_env: None) -> None:
    # The settings keep the scheme and host only; a URL with a user name, password or query key is
    # refused before any agent is built (tests/test_credentials.py).
    pytest.importorskip("openai")
    agent = make_agent("openai:gpt-4o-mini", seat=1, base_url="https://llm.example.org:8443/v1/tenant-7?region=eu")
    settings = agent.settings
    assert settings["endpoint"] == "https://llm.example.org:8443"
    for url in (f"https://user:{SECRET}@llm.example.org:8443/v1", f"https://llm.example.org:8443/v1?key={SECRET}"):
        with pytest.raises(ProviderConfigError):
            make_agent("openai:gpt-4o-mini", seat=1, base_url=url)


def test_config_card_shows_roster_versions_and_settings(tmp_path: Path, secret_env: None) -> None:
    _mixed_game(tmp_path / "a.jsonl", seed=3)
    _mixed_game(tmp_path / "b.jsonl", seed=4)
    game1(tmp_path)  # an older header: no versions, no settings
    report = score([tmp_path], rating=RatingConfig(n_resamples=10))
    card = report.config
    assert card is not None
    roster = {r.name: r for r in card.roster}
    assert roster["llm-a"].specs == ["mock:cardtest"]
    assert roster["llm-a"].prompt_versions == {prompt_version("en"): 8}
    assert len(roster["llm-a"].settings) == 1 and roster["llm-a"].settings[0]["temperature"] == 0.4
    assert roster["heuristic"].prompt_versions == {f"{BOT_VERSION} {speech_version()}": 6}
    old = [r for r in card.roster if r.name not in ("llm-a", "heuristic")]
    assert old and all(r.prompt_versions == {"not recorded": r.seat_games} and not r.settings for r in old)
    assert card.prompt_versions[prompt_version("en")] == 8
    md = render(report, "md")
    card_md = md.split("## Config card")[1].split("## Leaderboard")[0]
    assert prompt_version("en") in card_md and speech_version() in card_md
    assert "temperature=0.4" in card_md and "max_tokens=300" in card_md and "memory=summary" in card_md
    assert "not recorded" in card_md
    for fmt in ("md", "json", "html"):
        assert SECRET not in render(report, fmt)
    assert prompt_version("en") in render(report, "html")
