"""Belief elicitation modes (off, votes, day_end, every_speech) as a per-seat setting: through the REAL
openai and anthropic SDKs against a loopback server, recorded privately, replayable, and a bad mode
named with the allowed ones."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.actions import IllegalAnswer, RateSeats
from arena.engine import GameSetup
from arena.referee import run_game
from arena.replay import replay
from arena.rules.beliefs import check_mode
from arena.transcript import TranscriptWriter
from tests.llm_loopback import LoopbackServer, Reply, anthropic_message, openai_completion, schema_instance

BELIEF_SYSTEM = "Between turns you keep a private estimate"


def answer_for(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema-true answer; a belief report rates seat n at n/20 (distinct, checkable numbers)."""
    value = schema_instance(schema)
    beliefs = (schema.get("properties") or {}).get("beliefs")
    if beliefs:
        value["beliefs"] = {k: round(int(k) / 20, 2) for k in beliefs["required"]}
    return value


def model(body: Any, headers: Any) -> Reply:
    """Answers OpenAI Chat Completions and Anthropic Messages alike, from the schema the SDK sent."""
    if "response_format" in body:
        fmt = body["response_format"]
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema") or {}
        return Reply(body=openai_completion(json.dumps(answer_for(schema)), prompt_tokens=300))
    fmt = (body.get("output_config") or {}).get("format") or {}
    schema = fmt.get("schema") or next((t["input_schema"] for t in body.get("tools") or []), {})
    return Reply(body=anthropic_message(text=json.dumps(answer_for(schema)), input_tokens=300))


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-beliefs-0123456789")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-beliefs-0123456789")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", "/nonexistent/keys.yaml")


MODES = {1: ("openai:gpt-4o-mini", "every_speech"), 2: ("anthropic:claude-sonnet-4-6", "every_speech"),
         3: ("openai:gpt-4o-mini", "day_end"), 4: ("anthropic:claude-sonnet-4-6", "day_end"),
         5: ("openai:gpt-4o-mini", "votes"), 6: ("anthropic:claude-sonnet-4-6", "off")}


def play_mixed(folder: Path, url: str, seed: int = 5) -> Path:
    from agents.registry import make_agent

    agents: list[Any] = []
    specs: list[str] = []
    for seat in range(1, 13):
        spec, mode = MODES.get(seat, ("bot:heuristic", None))
        if mode is None:
            agents.append(make_agent(spec, seat=seat, seed=seed))
        else:
            base = url + "/v1" if spec.startswith("openai") else url
            agents.append(make_agent(spec, seat=seat, seed=seed, base_url=base, timeout=10, beliefs=mode))
        specs.append(spec)
    path = folder / "game.jsonl"
    with TranscriptWriter(path) as writer:
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents, writer=writer, specs=specs))
    return path


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_belief_modes_through_the_real_openai_and_anthropic_sdks(keys, tmp_path: Path) -> None:
    with LoopbackServer() as srv:
        srv.default = model  # type: ignore[assignment]
        path = play_mixed(tmp_path, srv.url)
        seen = list(srv.seen)
    lines = read(path)
    assert lines[0]["beliefs"] == {"1": "every_speech", "2": "every_speech", "3": "day_end", "4": "day_end"}
    decisions = [ln for ln in lines if ln["type"] == "decision"]
    beliefs_of = {s: [d for d in decisions if d["seat"] == s and d["kind"] == "belief"] for s in MODES}

    # The belief prompts went through both SDKs: a short prompt of its own, answered with beliefs only.
    belief_calls = [s for s in seen if BELIEF_SYSTEM in json.dumps(s.body)]
    assert any(s.path.endswith("/chat/completions") for s in belief_calls)
    assert any(s.path.endswith("/messages") for s in belief_calls)
    for call in belief_calls:
        text = json.dumps(call.body)
        assert '"beliefs"' in text and "speech" not in json.dumps(
            (call.body.get("response_format") or call.body.get("output_config") or {}))

    # every_speech: after each speech by another seat while the listener lives, its report comes
    # before the next speech; the speaker itself is not asked about its own speech.
    alive = set(range(1, 13))
    pending: dict[int, bool] = {}
    heard = {1: 0, 2: 0}  # speeches by another seat each listener heard alive: each owes one report
    for ln in lines:
        if ln["type"] == "event" and ln["event"]["type"] == "player_died":
            alive.discard(ln["event"]["seat"])
        if ln["type"] == "event" and ln["event"]["type"] == "speech":
            assert not any(pending.values()), f"a speech heard without a belief update: {pending}"
            speaker = ln["event"]["seat"]
            pending = {s: True for s in (1, 2) if s in alive and s != speaker}
            for s in pending:
                heard[s] += 1
        if ln["type"] == "decision" and ln["kind"] == "belief" and ln["seat"] in pending:
            pending[ln["seat"]] = False
    for seat in (1, 2):
        # at least one report per speech heard, and enough speeches that the check means something
        assert len(beliefs_of[seat]) >= heard[seat] >= 3, f"seat {seat}: {len(beliefs_of[seat])} updates, heard {heard[seat]}"
    # day_end: one report per day the seat lived through a discussion, and no more.
    for seat in (3, 4):
        days = [d["asked_in"] for d in beliefs_of[seat]]
        assert days and len(days) == len(set(days)) and all(p.startswith("D") for p in days), days
    # votes: beliefs ride on the votes; off: no beliefs at all.
    assert not beliefs_of[5] and any(d["beliefs"] for d in decisions if d["seat"] == 5 and d["kind"] == "vote")
    assert not beliefs_of[6] and not any(d["beliefs"] for d in decisions if d["seat"] == 6)
    # Bots are never asked.
    assert all(d["seat"] in MODES for d in decisions if d["kind"] == "belief")

    # Each report is a typed record: the answer is the beliefs, stored once as beliefs too, private.
    for d in beliefs_of[1] + beliefs_of[4]:
        assert d["value"] == d["beliefs"] and d["visibility"] == {"to": "seats", "seats": [d["seat"]], "team": None}
        assert {int(k): v for k, v in d["beliefs"].items()} == {int(k): int(k) / 20 for k in d["beliefs"]}
        assert d["usage"]["input"] == 300 and not d["defaulted"]
    # ... and only there: the engine makes no thought events (reasoning is stored once, docs/design.md).
    assert not [ln for ln in lines if ln["type"] == "event" and ln["event"]["type"] == "thought"]

    # A later update starts from the seat's own last report.
    assert [s for s in belief_calls if "Your last beliefs" in json.dumps(s.body)]
    # Cheap: an update carries the newest speech, not the whole history, so it is much shorter than
    # the same table's speech prompts.
    updates = [len(json.dumps(s.body)) for s in belief_calls]
    speeches = [len(json.dumps(s.body)) for s in seen if "your public speech" in json.dumps(s.body)]
    assert speeches and sum(updates) / len(updates) < 0.5 * sum(speeches) / len(speeches)
    assert replay(path).ok


def test_bad_modes_are_named_with_the_allowed_ones() -> None:
    assert check_mode("EVERY_SPEECH") == "every_speech" and check_mode(True) == "votes" and check_mode(False) == "off"
    with pytest.raises(ValueError, match="off, votes, day_end, every_speech"):
        check_mode("sometimes")
    from agents.registry import make_agent

    with pytest.raises(Exception, match="off, votes, day_end, every_speech"):
        make_agent("mock:stand-in", seat=1, beliefs="always")
    from arena.cli.main import app

    result = CliRunner().invoke(app, ["play", "--beliefs", "always", "-q"])
    assert result.exit_code == 2
    assert "off, votes, day_end, every_speech" in result.output


def test_a_report_is_checked_like_any_answer() -> None:
    legal = RateSeats(seats=(2, 3, 5))
    assert legal.check({"3": 0.25, 2: 1}) == {2: 1.0, 3: 0.25}
    assert legal.check(None) is None
    for bad in ({"4": 0.5}, {"3": 1.5}, {"3": "high"}, {}, [0.5]):
        with pytest.raises(IllegalAnswer):
            legal.check(bad)


def test_cli_beliefs_applies_to_every_model_seat(tmp_path: Path) -> None:
    from arena.cli.main import app

    result = CliRunner().invoke(app, ["play", "--agents", ",".join(["mock:stand-in"] * 2 + ["bot:heuristic"] * 10),
                                      "--beliefs", "day_end", "-s", "4", "-q", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = read(next(tmp_path.glob("*.jsonl")))
    assert lines[0]["beliefs"] == {"1": "day_end", "2": "day_end"}
    assert {d["seat"] for d in lines if d["type"] == "decision" and d["kind"] == "belief"} == {1, 2}


def test_tournament_and_bench_seats_take_a_belief_mode(tmp_path: Path) -> None:
    """A roster entry's options set its seats' mode (a bad one is refused before any game, naming the
    modes); a bench suite sets the mode of the agent it rates."""
    from arena.bench import BenchSuite, bench_tournament
    from arena.tournament import RunOptions, TournamentConfig, TournamentError, run_tournament

    def config(mode: str) -> TournamentConfig:
        return TournamentConfig(name="b", roster=[{"label": "m", "agent": "mock:stand-in", "options": {"beliefs": mode}},
                                                  {"label": "h", "agent": "bot:heuristic"}],
                                boards=[{"preset": "std-tucheng-9"}], deals=1, seed=3, out=str(tmp_path),
                                concurrency=1, seating="sides")

    with pytest.raises(TournamentError, match="off, votes, day_end, every_speech"):
        asyncio.run(run_tournament(config("loud"), RunOptions(out=tmp_path / "bad")))
    asyncio.run(run_tournament(config("every_speech"), RunOptions(out=tmp_path / "ok")))
    games = sorted((tmp_path / "ok" / "games").glob("*.jsonl"))
    assert games
    for game in games:
        lines = read(game)
        model_seats = {a["seat"] for a in lines[0]["agents"] if a["spec"].startswith("mock:")}
        assert {int(s) for s in lines[0]["beliefs"]} == model_seats
        assert {d["seat"] for d in lines if d["type"] == "decision" and d["kind"] == "belief"} <= model_seats
    suite = BenchSuite(name="s", version="1", boards=[{"preset": "std-tucheng-9"}], deals=1, seed=1,
                       belief_mode="day_end", reference=[{"label": "h", "agent": "bot:heuristic"}], headline=["win_rate"])
    entry = bench_tournament(suite, "mock:stand-in", "m").roster[-1]
    assert entry.options["beliefs"] == "day_end"
    on = bench_tournament(suite.model_copy(update={"belief_mode": "on"}), "mock:stand-in", "m").roster[-1]
    assert on.options["beliefs"] == "votes"


def test_day_end_reports_once_a_day_also_when_a_self_destruct_ends_the_day(tmp_path: Path) -> None:
    """Stand-in wolves self-destruct often: such a day still gets its one report per living seat."""
    from agents.registry import make_agent

    agents = [make_agent("mock:bench", seat=s, seed=0, beliefs="day_end") for s in range(1, 13)]
    path = tmp_path / "g.jsonl"
    with TranscriptWriter(path) as writer:
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=0), agents, writer=writer))
    lines = read(path)
    reports: dict[str, list[int]] = {}
    for d in lines:
        if d["type"] == "decision" and d["kind"] == "belief":
            reports.setdefault(d["asked_in"], []).append(d["seat"])
    cut_short = {ln["event"]["phase"] for ln in lines if ln["type"] == "event" and ln["event"]["type"] == "self_destructed"}
    voted = {d["asked_in"] for d in lines if d["type"] == "decision" and d["kind"] == "vote"}
    assert cut_short - voted, "no day ended early in this game"
    last = lines[-1]["phase"]  # a self-destruct that ends the game leaves no day to report on
    for day in (cut_short | voted) - {last}:
        assert reports.get(day) and len(reports[day]) == len(set(reports[day])), (day, reports.get(day))
    assert replay(path).ok
