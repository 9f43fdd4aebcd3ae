"""The Executor protocol: run_tournament drives any executor (here one written by a user), and the
executors import neither the tournament driver nor the agents (no import circle)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from arena.executors import ExecutorChoice, GameJob, GameOutcome, ScheduledGame, play_scheduled, resolve_factory
from arena.tournament import RunOptions, TournamentConfig, TournamentError, run_tournament

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
    result = asyncio.run(run_tournament(cfg, RunOptions(executor=runner)))
    assert result.played == 2 and result.failed == [] and runner.closed
    assert sorted(runner.played) == sorted(p.name[:-len(".jsonl")] for p in (tmp_path / "games").glob("*.jsonl"))


def test_the_executors_import_neither_the_driver_nor_the_agents():
    for name in ("executors.py", "ray_executor.py", "ratelimit.py"):
        tree = ast.parse((ROOT / "arena" / name).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "arena.tournament" not in imported, name
        assert not any(m == "agents" or m.startswith("agents.") for m in imported), name


def test_run_tournament_takes_one_options_object():
    import inspect

    params = inspect.signature(run_tournament).parameters
    assert list(params) == ["cfg", "options"]
    assert RunOptions(out="x").out == Path("x")  # a string folder is taken as a path


@pytest.mark.parametrize("bad, named", [
    ({"shard": (3, 2)}, "shard 3/2: need 1 <= I <= N"),
    ({"shard": (1,)}, "shard must be a pair (I, N)"),
    ({"concurrency": 0}, "concurrency must be a whole number of games >= 1, got 0"),
    ({"concurrency": 1.5}, "concurrency must be a whole number"),
    ({"executor": "threads"}, "unknown executor 'threads'; choose async, process, ray"),
    ({"executor": ExecutorChoice("cluster")}, "unknown executor 'cluster'"),
    ({"executor": ExecutorChoice("ray", ray_task_cpus=0)}, "ray_task_cpus must be > 0"),
    ({"executor": object()}, "an object with slots(), play() and close(); got object"),
    ({"factory_path": "agents.registry.make_agent"}, "factory_path must look like 'package.module:callable'"),
    ({"on_watch_event": print}, "on_watch_event is set but no game is watched"),
    ({"watch": ""}, "watch must be a game id"),
    ({"resume": "yes"}, "resume must be true or false"),
])
def test_bad_run_options_are_refused_by_name(bad: dict, named: str):
    with pytest.raises(TournamentError) as err:
        RunOptions(**bad)
    assert named in str(err.value) and str(err.value).startswith("run options: ")


def test_every_bad_run_option_is_named_at_once():
    with pytest.raises(TournamentError, match=r"shard .*; concurrency .*; unknown executor"):
        RunOptions(shard=(0, 1), concurrency=-1, executor="x")


def test_run_tournament_refuses_loose_options(tmp_path: Path):
    cfg = TournamentConfig(name="x", roster=[{"label": "r", "agent": "bot:random"}],
                           boards=[{"preset": "std-12-guard"}], deals=1, seed=2, seating="self", out=str(tmp_path))
    with pytest.raises(TournamentError, match="takes its options as RunOptions, got dict"):
        asyncio.run(run_tournament(cfg, {"resume": True}))  # type: ignore[arg-type]
