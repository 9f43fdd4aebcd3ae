"""Endpoints that fail: deadlines per decision and per game, a retry budget, a breaker per endpoint,
stopping at once on a refused key or a dead endpoint, the fallback-share flag, `arena play`'s
per-seat options, and an Anthropic 200 that is not a Messages reply (docs/reliability.md).

Every server here is a loopback one the test starts; timeouts are short so that the file stays fast.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.providers import ChatMessage, make_provider
from agents.providers.breaker import reset_breakers
from agents.providers.wrapper import CallPolicy, ManagedProvider
from agents.registry import make_agent
from arena.engine import GameSetup
from arena.referee import run_game
from arena.stopping import GameDeadline, SeatUnreachable
from arena.tournament import Index, RunOptions, TournamentConfig, run_tournament
from arena.transcript import TranscriptWriter, read_transcript
from tests.llm_loopback import LoopbackServer, Reply, anthropic_message, openai_completion
from tests.test_llm_agent import decide, observation, vote_request

ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-test-endpoint-failures-0123456789"
MESSAGES = [ChatMessage.of("user", "question")]
FAST = dict(timeout=2.0, backoff_base=0.01, backoff_max=0.05)


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(tmp_path / "no-keys.yaml"))
    reset_breakers()
    yield
    reset_breakers()


def refused_url() -> str:
    """A loopback port with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def vote_json() -> str:
    return json.dumps({"reasoning": "r", "action": 3, "notes": ""})


def play(agents, tmp_path: Path, **kw):
    path = tmp_path / "g.jsonl"
    with TranscriptWriter(path) as writer:
        try:
            asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=1), agents, writer=writer, **kw))
        except Exception as exc:
            return exc, path
    return None, path


# --- Anthropic: a 200 that is not a Messages reply -----------------------------------------------


def test_an_anthropic_200_with_an_html_body_is_retried_not_taken_as_an_empty_answer() -> None:
    html = Reply(status=200, body="<html><body>Sign in to the gateway</body></html>",
                 headers={"content-type": "text/html"})
    with LoopbackServer() as srv:
        srv.queue(html, Reply(body=anthropic_message(text="fine")))
        provider = make_provider("anthropic", "claude-test", base_url=srv.url, timeout=2.0)
        result = asyncio.run(ManagedProvider(provider, CallPolicy(**FAST)).call(MESSAGES))
    assert result.ok and result.reply.text == "fine"
    assert [t.kind for t in result.tries] == ["server", None], "the HTML page was retried"
    assert "not a Messages API response" in result.tries[0].error


# --- the wrapper: deadline, retry budget, breaker -------------------------------------------------


def test_a_dead_endpoint_costs_at_most_the_decision_deadline() -> None:
    with LoopbackServer() as srv:
        srv.queue(Reply(body=openai_completion(vote_json())))  # the seat has reached its endpoint once
        srv.default = Reply(body=openai_completion(vote_json()), delay=3.0)  # then it hangs
        agent = make_agent("openai:gpt-4o-mini", seat=5, base_url=srv.url + "/v1", timeout=0.5, max_retries=6,
                           backoff_base=0.01, decision_deadline=1.0, breaker_threshold=50)
        assert decide(agent, observation(), vote_request()).value == 3
        start = time.monotonic()
        answer = decide(agent, observation(), vote_request())
        elapsed = time.monotonic() - start
    assert answer.extras.fallback is True
    assert elapsed < 1.8, f"a decision took {elapsed:.1f}s past its 1s deadline"


def test_the_retry_budget_bounds_a_seats_retries_over_the_game() -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(status=500, body={"error": {"message": "down"}})
        provider = make_provider("openai", "gpt-4o-mini", base_url=srv.url + "/v1", timeout=2.0)
        managed = ManagedProvider(provider, CallPolicy(**FAST, max_retries=5, retry_budget=3, breaker_threshold=99))
        first = asyncio.run(managed.call(MESSAGES))
        second = asyncio.run(managed.call(MESSAGES))
    assert len(first.tries) == 4 and len(second.tries) == 1
    assert "retry budget of 3 is spent" in second.error


def test_the_breaker_opens_per_endpoint_and_lets_a_trial_through_after_its_cooldown() -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(status=503, body={"error": {"message": "overloaded"}})
        policy = CallPolicy(**FAST, max_retries=10, breaker_threshold=3, breaker_cooldown=0.5)

        def seat() -> ManagedProvider:
            provider = make_provider("openai", "gpt-4o-mini", base_url=srv.url + "/v1", timeout=2.0)
            return ManagedProvider(provider, policy, cap_key=f"openai:{srv.url}/v1")

        first = asyncio.run(seat().call(MESSAGES))
        assert len(srv.seen) == 3 and first.error_kind == "breaker", "the fourth try was refused without a call"
        other = asyncio.run(seat().call(MESSAGES))  # another seat on the same endpoint
        assert len(srv.seen) == 3 and other.error_kind == "breaker" and len(other.tries) == 1
        time.sleep(0.6)
        srv.default = Reply(body=openai_completion("ok"))
        trial = asyncio.run(seat().call(MESSAGES))
        assert trial.ok and len(srv.seen) == 4


# --- stopping a game ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_refused_key_or_unknown_model_stops_the_game_at_once(tmp_path: Path, status: int) -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(status=status, body={"error": {"message": f"denied: {SECRET}"}})
        agents = [make_agent("openai:gpt-4o-mini", seat=s, base_url=srv.url + "/v1", **FAST) for s in range(1, 13)]
        stopped, path = play(agents, tmp_path)
        calls = len(srv.seen)
    assert isinstance(stopped, SeatUnreachable), stopped
    text = str(stopped)
    assert text.startswith(f"seat {stopped.seat}: openai:gpt-4o-mini at http://127.0.0.1:{srv.port}: HTTP {status}")
    assert SECRET not in text and "\n" not in text
    assert calls <= 12, f"{calls} calls after the endpoint refused the key"
    transcript = read_transcript(path)
    assert transcript.result is not None and transcript.result.abandoned


def test_an_endpoint_down_from_the_start_stops_the_game_within_seconds(tmp_path: Path) -> None:
    url = refused_url()
    agents = [make_agent("openai:gpt-4o-mini", seat=s, base_url=url, **FAST) for s in range(1, 13)]
    start = time.monotonic()
    stopped, path = play(agents, tmp_path)
    elapsed = time.monotonic() - start
    assert isinstance(stopped, SeatUnreachable) and "cannot reach" in stopped.error
    assert elapsed < 10, f"{elapsed:.1f}s to give up on a refused port"
    assert read_transcript(path).result.abandoned


def test_a_refused_port_is_given_up_in_about_a_second_with_the_default_backoff(tmp_path: Path) -> None:
    url = refused_url()
    agents = [make_agent("openai:gpt-4o-mini", seat=s, base_url=url) for s in range(1, 13)]  # default policy
    start = time.monotonic()
    stopped, _ = play(agents, tmp_path)
    elapsed = time.monotonic() - start
    assert isinstance(stopped, SeatUnreachable) and "never answered" in stopped.error
    assert elapsed < 4, f"{elapsed:.1f}s to give up on a port nobody listens on"


def test_a_game_past_its_deadline_is_abandoned(tmp_path: Path) -> None:
    agents = [make_agent("mock:slow", seat=s, seed=1, latency=0.2, latency_jitter=0.0) for s in range(1, 13)]
    start = time.monotonic()
    stopped, path = play(agents, tmp_path, deadline=1.0)
    assert isinstance(stopped, GameDeadline) and time.monotonic() - start < 5
    assert read_transcript(path).result.abandoned


# --- tournaments ----------------------------------------------------------------------------------


def test_a_tournament_stops_on_an_unreachable_seat_and_records_the_game_abandoned(tmp_path: Path) -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(status=401, body={"error": {"message": "bad key"}})
        cfg = TournamentConfig(name="t", roster=[
            {"label": "m", "agent": "openai:gpt-4o-mini", "options": {"base_url": srv.url + "/v1", **FAST}},
            {"label": "b", "agent": "bot:random"}], boards=[{"preset": "std-12-guard"}], deals=3, seed=1,
            out=str(tmp_path / "out"), concurrency=1)
        result = asyncio.run(run_tournament(cfg))
    assert result.stopped and "HTTP 401" in result.stopped and "openai:gpt-4o-mini at" in result.stopped
    assert result.played == 0 and len(result.abandoned) == 1, "nothing played after the stop"
    index = Index(tmp_path / "out" / "index.jsonl")
    assert [e.status for e in index.state.values()].count("abandoned") == 1
    assert not any(e.status == "done" for e in index.state.values())


def test_games_with_too_many_fallbacks_are_flagged(tmp_path: Path) -> None:
    always_prose = {"fault_rate": 1.0, "faults": ["prose"], "max_repairs": 0}
    cfg = TournamentConfig(name="t", roster=[{"label": "p", "agent": "mock:prose", "options": always_prose},
                                             {"label": "b", "agent": "bot:random"}],
                           boards=[{"preset": "std-tucheng-9"}], deals=1, seed=2, out=str(tmp_path / "out"),
                           concurrency=2)
    result = asyncio.run(run_tournament(cfg))
    assert result.played == 2 and sorted(result.flagged) == sorted(Index(tmp_path / "out" / "index.jsonl").state)
    entry = next(iter(Index(tmp_path / "out" / "index.jsonl").state.values()))
    assert entry.fallback_share == 1.0 and "fell back" in entry.flagged
    clean = asyncio.run(run_tournament(cfg.model_copy(update={"roster": [cfg.roster[1], cfg.roster[1].model_copy(
        update={"label": "c"})]}), RunOptions(out=tmp_path / "bots")))
    assert clean.flagged == []


# --- arena play -----------------------------------------------------------------------------------


def test_arena_play_stops_with_one_line_naming_seat_endpoint_and_error(tmp_path: Path) -> None:
    with LoopbackServer() as srv:
        srv.default = Reply(status=401, body={"error": {"message": "Incorrect API key provided"}})
        env = {**os.environ, "OPENAI_BASE_URL": srv.url + "/v1", "WEREWOLF_ARENA_KEYS": str(tmp_path / "none")}
        proc = subprocess.run([sys.executable, "-m", "arena", "play", "--agents", "openai:gpt-4o-mini", "--quiet",
                               "--seed", "1", "--timeout", "3", "--retries", "0", "--timeout", "2=1.5",
                               "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, env=env,
                              timeout=120)
        calls = len(srv.seen)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: seat ")
    assert f"openai:gpt-4o-mini at http://127.0.0.1:{srv.port}: HTTP 401" in lines[0]
    assert "Incorrect API key" in lines[0] and SECRET not in proc.stderr
    assert calls <= 12
    transcript = read_transcript(next(tmp_path.glob("*.jsonl")))
    assert transcript.result.abandoned
    settings = {a.seat: a.settings for a in transcript.header.agents}
    assert settings[1]["timeout"] == 3.0 and settings[2]["timeout"] == 1.5 and settings[1]["max_retries"] == 0


def test_per_seat_options_refuse_bad_values_and_bot_seats() -> None:
    from arena.cli.play import per_seat_options
    from arena.config import ConfigError

    specs = ["openai:m", "bot:random", "openai:m"]
    assert per_seat_options(3, specs, timeout=["10", "3=2"], max_retries=["1"]) == [
        {"timeout": 10.0, "max_retries": 1}, {}, {"timeout": 2.0, "max_retries": 1}]
    for bad in (dict(timeout=["2=5"]), dict(timeout=["9=5"]), dict(timeout=["x"]), dict(timeout=["0"]),
                dict(max_retries=["-1"])):
        with pytest.raises(ConfigError):
            per_seat_options(3, specs, **bad)
