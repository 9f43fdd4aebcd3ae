"""Tournaments: balanced schedules, shards and merge, and resume after kills at random points."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.tournament import (
    Index,
    RunOptions,
    TournamentConfig,
    TournamentError,
    build_schedule,
    merge_outputs,
    parse_shard,
    run_tournament,
    shard_of,
)
from arena.transcript import read_transcript
from arena.types import is_wolf_card

ROOT = Path(__file__).resolve().parent.parent


def config(out: Path, **kw) -> TournamentConfig:
    base = dict(
        name="t", roster=[{"label": "heuristic", "agent": "bot:heuristic"}, {"label": "random", "agent": "bot:random"}],
        boards=[{"preset": "std-12-guard"}], deals=10, seed=7, seating="sides", out=str(out), concurrency=2,
    )
    base.update(kw)
    return TournamentConfig(**base)


def test_sides_schedule_mirrors_every_deal(tmp_path: Path) -> None:
    schedule = build_schedule(config(tmp_path))
    assert len(schedule) == 20 and len({g.game_id for g in schedule}) == 20
    groups: dict[str, list] = {}
    for g in schedule:
        groups.setdefault(g.group, []).append(g)
    for games in groups.values():
        a, b = games
        assert a.seed == b.seed and a.deal == b.deal
        for seat, card in enumerate(a.deal):
            # The mirror swaps the entries between the sides; the wolves are one entry, the village the other.
            assert a.labels[seat] != b.labels[seat]
            assert len({a.labels[s] for s, c in enumerate(a.deal) if is_wolf_card(c)}) == 1
    # Every entry holds every card exactly as often as the deck deals it.
    held: dict[str, Counter] = {}
    for g in schedule:
        for label, card in zip(g.labels, g.deal):
            held.setdefault(label, Counter())[card] += 1
    assert held["heuristic"] == held["random"]


def test_mixed_schedule_rotates_every_seat(tmp_path: Path) -> None:
    roster = [{"label": x, "agent": "bot:random"} for x in "abc"]
    schedule = build_schedule(config(tmp_path, roster=roster, seating="mixed", deals=2))
    assert len(schedule) == 6
    for d in range(2):
        block = [g for g in schedule if g.game_index == d]
        for seat in range(12):
            assert sorted(g.labels[seat] for g in block) == ["a", "b", "c"]
    self_play = build_schedule(config(tmp_path, seating="self", deals=3))
    assert len(self_play) == 6 and all(len(set(g.labels)) == 1 for g in self_play)


def test_shards_split_the_schedule_exactly(tmp_path: Path) -> None:
    schedule = build_schedule(config(tmp_path))
    shards = [shard_of(schedule, (i, 3)) for i in (1, 2, 3)]
    ids = [g.game_id for s in shards for g in s]
    assert sorted(ids) == sorted(g.game_id for g in schedule) and len(ids) == len(set(ids))
    assert parse_shard("2/3") == (2, 3)
    with pytest.raises(TournamentError):
        parse_shard("4/3")


def test_shards_then_merge(tmp_path: Path) -> None:
    cfg = config(tmp_path, deals=3)
    for i in (1, 2):
        result = asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / f"s{i}", shard=(i, 2))))
        assert not result.failed
    merged = merge_outputs([tmp_path / "s1", tmp_path / "s2"], tmp_path / "all")
    assert merged.games == 6 and merged.missing == [] and merged.duplicates == 0
    assert len(list((tmp_path / "all" / "games").glob("*.jsonl"))) == 6
    again = merge_outputs([tmp_path / "s1", tmp_path / "s2"], tmp_path / "all")  # idempotent
    assert again.games == 6 and again.duplicates == 6


def test_refuses_to_mix_tournaments(tmp_path: Path) -> None:
    asyncio.run(run_tournament(config(tmp_path, deals=1), RunOptions(out=tmp_path / "o")))
    with pytest.raises(TournamentError, match="different tournament"):
        asyncio.run(run_tournament(config(tmp_path, deals=2), RunOptions(out=tmp_path / "o", resume=True)))
    with pytest.raises(TournamentError, match="--resume"):
        asyncio.run(run_tournament(config(tmp_path, deals=1), RunOptions(out=tmp_path / "o")))


def test_every_agent_spec_and_board_is_checked_before_the_first_game(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo in a spec, a missing key, options the agent refuses, a board that cannot be played: one
    error naming the roster entry or the board, before any game is played or any file written."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(tmp_path / "no-keys.yaml"))
    random_entry = {"label": "random", "agent": "bot:random"}
    cases = [
        (dict(roster=[random_entry, {"label": "typo", "agent": "bot:heuristc"}]),
         "roster entry 'typo' (bot:heuristc): unknown bot 'heuristc'"),
        (dict(roster=[random_entry, {"label": "gpt", "agent": "openai:gpt-4o-mini"}]),
         "roster entry 'gpt' (openai:gpt-4o-mini): no OpenAI key"),
        (dict(boards=[{"preset": "std-12-guard"}, {"preset": "std-12-guard", "rules": {"witch_self_save": "sometimes"}}]),
         "boards[1]: rules for preset 'std-12-guard': witch_self_save"),
        (dict(boards=[{"preset": "no-such-board"}]), "boards[0]: unknown preset 'no-such-board'"),
    ]
    for i, (changes, message) in enumerate(cases):
        out = tmp_path / f"out{i}"
        with pytest.raises(TournamentError) as caught:
            asyncio.run(run_tournament(config(out, deals=1, **changes), RunOptions(out=out)))
        assert message in str(caught.value), (message, str(caught.value))
        assert not out.exists(), "the folder was touched before the check"


@pytest.mark.slow  # a fresh process per kill: half a minute and more on a busy machine
def test_killed_at_random_points_and_resumed(tmp_path: Path) -> None:
    """The issue's acceptance test: 20 games, killed (SIGKILL and Ctrl-C) at random points, resumed."""
    cfg_path = tmp_path / "t.yaml"
    out = tmp_path / "out"
    cfg_path.write_text(
        "name: kill\nroster:\n  - {label: heuristic, agent: 'bot:heuristic'}\n  - {label: random, agent: 'bot:random'}\n"
        f"boards:\n  - preset: std-12-guard\ndeals: 10\nseed: 3\nseating: sides\nout: {out}\nconcurrency: 2\n",
        encoding="utf-8")
    cmd = [sys.executable, "-m", "arena.cli.main", "tournament", str(cfg_path), "--resume", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rng = random.Random(2024)
    index_path = out / "index.jsonl"

    def done_games() -> int:
        if not index_path.exists():
            return 0
        return sum(1 for line in index_path.read_text(encoding="utf-8").splitlines() if '"status":"done"' in line)

    kills = 0
    for attempt in range(60):
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # Kill once a random number of further games is done, then a random moment later (mid-game,
        # mid-write, between games...), with SIGKILL or, every third time, Ctrl-C.
        target = done_games() + rng.randint(0, 3)
        deadline = time.monotonic() + 60
        while proc.poll() is None and done_games() < target and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.15))
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT if attempt % 3 == 2 else signal.SIGKILL)
            proc.wait()
            kills += 1
            continue
        assert proc.returncode == 0, proc.stderr.read().decode()
        break
    else:
        pytest.fail("the tournament never finished")
    print(f"{kills} kills before the tournament finished")
    assert kills >= 3, "too few kills landed: the test proved little"
    games = sorted((out / "games").glob("*.jsonl"))
    assert len(games) == 20
    assert not list((out / "games").glob("*.part"))
    for path in games:
        t = read_transcript(path)
        assert t.complete and not t.result.abandoned and not t.torn_tail
    index = Index(out / "index.jsonl")
    assert len(index.state) == 20 and all(e.status == "done" for e in index.state.values())
    assert set(index.done_count.values()) == {1}, "a finished game was played twice"


# --- --watch GAME_ID: one game live, in this process, while the others run as usual ------------


def test_watch_shows_one_game_live_while_the_others_run(tmp_path: Path) -> None:
    import io
    import threading

    from rich.console import Console

    from arena.live import LiveView

    cfg = config(tmp_path, deals=3)
    watched = build_schedule(cfg)[3].game_id
    buffer = io.StringIO()
    # A terminal-like console into a string: every frame the view draws lands in the buffer.
    view = LiveView(lang="en", god_view=True, players=12, pace=0, keys=False,
                    console=Console(file=buffer, width=140, force_terminal=True, color_system=None))
    events: list = []
    where: set[tuple[int, bool]] = set()

    def on_event(event) -> None:  # type: ignore[no-untyped-def]
        events.append(event)
        where.add((os.getpid(), threading.current_thread() is threading.main_thread()))
        view.on_event(event)

    result = asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / "w", executor="process", watch=watched,
                                        on_watch_event=on_event)))
    view.close()
    assert result.failed == [] and result.played == 6
    index = Index(tmp_path / "w" / "index.jsonl")
    assert all(e.status == "done" for e in index.state.values())
    started = [line for line in (tmp_path / "w" / "index.jsonl").read_text().splitlines() if '"started"' in line]
    assert watched in started[0], "the watched game starts first"
    # In this process, off the event loop's thread (its pacing must not stall the other games).
    assert where == {(os.getpid(), False)}
    # Every event of the watched game reached the view, in order, and the view drew them.
    transcript = read_transcript(tmp_path / "w" / "games" / f"{watched}.jsonl")
    assert [e.model_dump() for e in events] == [line.event.model_dump() for line in transcript.events]
    shown = buffer.getvalue()
    speeches = [line.event.text for line in transcript.events if line.event.type == "speech"]
    assert speeches and all(text.splitlines()[0][:60] in shown for text in speeches)
    assert "God view" in shown and "Game over" in shown
    # Watching changes nothing: the same game unwatched is byte-identical.
    asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / "plain")))
    for path in (tmp_path / "plain" / "games").glob("*.jsonl"):
        assert path.read_bytes() == (tmp_path / "w" / "games" / path.name).read_bytes()


def test_watch_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    cfg_path = tmp_path / "t.yaml"
    cfg_path.write_text(
        "name: cli\nroster:\n  - {label: heuristic, agent: 'bot:heuristic'}\n  - {label: random, agent: 'bot:random'}\n"
        f"boards:\n  - preset: std-12-guard\ndeals: 1\nseed: 5\nout: {tmp_path / 'out'}\nconcurrency: 2\n",
        encoding="utf-8")
    runner = CliRunner()
    bad = runner.invoke(app, ["tournament", str(cfg_path), "--watch", "nope"])
    assert bad.exit_code == 2 and "no game 'nope'" in bad.output and "cli-b0-d0000-heuristic-v-random" in bad.output
    assert not (tmp_path / "out").exists(), "a bad --watch touches nothing"
    # With the progress display on, the game's view nests under it (one display, no LiveError).
    ok = runner.invoke(app, ["tournament", str(cfg_path), "--watch", "cli-b0-d0000-random-v-heuristic"],
                       env={"ARENA_LIVE_PACE": "0"})
    assert ok.exit_code == 0, ok.output
    assert "Game over" in ok.output and "2 played" in ok.output
    again = runner.invoke(app, ["tournament", str(cfg_path), "--resume", "--watch", "cli-b0-d0000-random-v-heuristic"])
    assert again.exit_code == 2 and "already finished" in again.output


def test_first_kill_protection_chains_a_boards_deals(tmp_path: Path) -> None:
    """004 §C-conduct 5: under first_kill_protection each deal's game spares last deal's first kill (the
    same seat of the same board and seating variant) from the night-1 knife; a chained board is not sharded."""
    from arena.rules.first_kill import earlier_game_of

    cfg = config(tmp_path, deals=4, boards=[{"preset": "std-12-guard", "rules": {"first_kill_protection": True}}],
                 concurrency=3)
    result = asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / "o")))
    assert not result.failed
    checked = 0
    for variant in ("heuristic-v-random", "random-v-heuristic"):
        previous = None
        for path in sorted((tmp_path / "o" / "games").glob(f"*-{variant}.jsonl")):
            t = read_transcript(path)
            facts = earlier_game_of(line.event for line in t.events)
            protected = t.header.first_kill_protected or []
            assert protected == (previous.n1_victims if previous else []), path.name
            assert not set(facts.n1_victims) & set(protected)
            checked += bool(protected)
            previous = facts
    assert checked, "no game of the series had a first kill to protect"
    with pytest.raises(TournamentError, match="cannot be split into shards"):
        asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / "s", shard=(1, 2))))
    assert not (tmp_path / "s").exists()
