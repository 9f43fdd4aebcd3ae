"""The Executor protocol: run_tournament drives any executor (here one written by a user), and the
executors import neither the tournament driver nor the agents (no import circle)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

from arena.executors import GameJob, GameOutcome, ScheduledGame, play_scheduled, resolve_factory
from arena.tournament import TournamentConfig, run_tournament

ROOT = Path(__file__).resolve().parent.parent


class CountingExecutor:
    """A user's executor: plays in this process and counts what it was given."""

    def __init__(self, job: GameJob):
        self.job = job
        self.played: list[str] = []
        self.closed = False

    def slots(self) -> int:
        return 2

    async def play(self, game: ScheduledGame) -> GameOutcome:
        self.played.append(game.game_id)
        return await play_scheduled(game, self.job.out, resolve_factory(self.job.factory_path), self.job.lang)

    def close(self) -> None:
        self.closed = True


def test_run_tournament_drives_any_executor(tmp_path: Path):
    roster = [{"label": "h", "agent": "bot:heuristic"}, {"label": "r", "agent": "bot:random"}]
    cfg = TournamentConfig(name="x", roster=roster, boards=[{"preset": "std-12-guard"}], deals=1, seed=2,
                           seating="sides", out=str(tmp_path))
    runner = CountingExecutor(GameJob(out=tmp_path, factory_path="agents.registry:make_agent", lang="en"))
    result = asyncio.run(run_tournament(cfg, executor=runner))
    assert result.played == 2 and result.failed == [] and runner.closed
    assert sorted(runner.played) == sorted(p.name[:-len(".jsonl")] for p in (tmp_path / "games").glob("*.jsonl"))


def test_the_executors_import_neither_the_driver_nor_the_agents():
    for name in ("executors.py", "ray_executor.py", "ratelimit.py"):
        tree = ast.parse((ROOT / "arena" / name).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "arena.tournament" not in imported, name
        assert not any(m == "agents" or m.startswith("agents.") for m in imported), name
