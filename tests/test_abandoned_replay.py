"""Abandoned games are reported as abandoned (#23): `arena replay` and `arena verify` on the arena's
own abandoned transcript say where it stopped (exit 4), not "MISMATCH ... tampered" (exit 1); an
edited abandoned transcript is still a mismatch, and so is a finished game marked abandoned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agents.bots import RandomBot
from arena.cli.main import app
from arena.cli.replay_cmd import EXIT_ABANDONED
from arena.engine import GameSetup
from arena.stopping import GameStopped, SeatUnreachable
from arena.transcript import TranscriptWriter, read_transcript
from tests.test_hostile_files import bot_game, edit_json

runner = CliRunner()


class StopsAt:
    """A seat that answers as a random bot until its ``n``-th question, then stops the game (an
    unreachable endpoint, a player who walked away)."""

    spec = "bot:random"

    def __init__(self, seat: int, n: int):
        self.bot, self.n, self.asked = RandomBot(seat, 7), n, 0

    async def decide(self, observation: Any, request: Any) -> Any:
        self.asked += 1
        if self.asked >= self.n:
            raise SeatUnreachable(request.seat, "http://127.0.0.1:9/v1", "connection refused")
        return self.bot.decide_sync(observation, request)


def abandoned_game(path: Path, n: int) -> Path:
    import asyncio

    from arena.referee import run_game

    agents = [StopsAt(s, n) if s == 3 else RandomBot(s, 7) for s in range(1, 13)]
    with TranscriptWriter(path) as writer:
        with pytest.raises(GameStopped):
            asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=5), agents, writer=writer,
                                 specs=["bot:random"] * 12))
    transcript = read_transcript(path)
    assert transcript.result is not None and transcript.result.abandoned
    return path


@pytest.mark.parametrize("n", [1, 4], ids=["at-its-first-question", "later"])
@pytest.mark.parametrize("command", ["replay", "verify"])
def test_the_arenas_own_abandoned_transcript_verifies_as_abandoned(tmp_path: Path, command: str, n: int) -> None:
    path = abandoned_game(tmp_path / "g.jsonl", n)
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == EXIT_ABANDONED, result.output
    phase = read_transcript(path).result.phase  # type: ignore[union-attr]
    assert result.output.startswith(f"ABANDONED at {phase}, before decision "), result.output
    assert "was answered" in result.output
    assert "MISMATCH" not in result.output


def test_an_edited_abandoned_transcript_is_still_a_mismatch(tmp_path: Path) -> None:
    path = abandoned_game(tmp_path / "g.jsonl", 4)
    edit_json(path, -1, lambda r: r.update(alive=r["alive"][:-1]))
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 1 and result.output.startswith("MISMATCH") and "result: recorded alive" in result.output


def test_a_finished_game_marked_abandoned_is_a_mismatch(tmp_path: Path) -> None:
    path = edit_json(bot_game(tmp_path / "g.jsonl"), -1, lambda r: r.update(abandoned=True))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1 and "recorded abandoned True, replayed False" in result.output, result.output


def test_a_finished_game_still_replays_ok(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(bot_game(tmp_path / "g.jsonl"))])
    assert result.exit_code == 0 and result.output.startswith("OK")


def test_verify_of_a_tournament_folder_names_its_abandoned_games(tmp_path: Path) -> None:
    import asyncio

    from arena.tournament import Index, IndexEntry, RunOptions, run_tournament
    from tests.test_eval_tournament import config

    out = tmp_path / "t"
    asyncio.run(run_tournament(config(tmp_path, deals=1), RunOptions(out=out, executor="async")))
    game_id = sorted(Index(out / "index.jsonl").state)[0]
    Index(out / "index.jsonl").write(IndexEntry(game_id=game_id, status="abandoned", time=1.0, error="seat 3: down"))
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 0 and f"1 abandoned, not rated ({game_id};" in result.output, result.output
