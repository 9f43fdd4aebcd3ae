"""The Ray executor: games as Ray tasks on a local Ray instance that the test starts itself, feeding
the same index, resume and progress machinery as the process executor, with the same transcripts."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from arena.tournament import Index, Progress, RunOptions, TournamentConfig, TournamentError, run_tournament
from arena.transcript import read_transcript

ROOT = Path(__file__).resolve().parent.parent


def config(out: Path) -> TournamentConfig:
    # 3 deals x 2 mirrored games: 6 bot games.
    return TournamentConfig(
        name="ray", roster=[{"label": "heuristic", "agent": "bot:heuristic"}, {"label": "random", "agent": "bot:random"}],
        boards=[{"preset": "std-12-guard"}], deals=3, seed=11, seating="sides", out=str(out), concurrency=2)


@pytest.fixture(scope="module")
def ray_session() -> Iterator[object]:
    ray = pytest.importorskip("ray")
    started = time.monotonic()
    ray.init(
        address="local",  # a new instance of our own, never a cluster already running here
        num_cpus=2, include_dashboard=False, log_to_driver=False,
        _node_ip_address="127.0.0.1",  # loopback only: the test needs no network
        # Workers import this checkout's arena/agents, whatever else is installed.
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
    )
    print(f"ray.init: {time.monotonic() - started:.1f}s")
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.slow  # starts a local Ray cluster: half a minute on a busy machine
def test_ray_executor_matches_the_process_executor(ray_session: object, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from arena import ray_executor

    tasks: list[str] = []
    real_play = ray_executor.RayExecutor.play

    async def counting_play(self, game):  # type: ignore[no-untyped-def]
        tasks.append(game.game_id)
        return await real_play(self, game)

    monkeypatch.setattr(ray_executor.RayExecutor, "play", counting_play)
    cfg = config(tmp_path)
    seen: list[Progress] = []
    started = time.monotonic()
    by_ray = asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / "ray", executor="ray",
                                        on_progress=lambda p: seen.append(Progress(**vars(p))))))
    ray_seconds = time.monotonic() - started
    started = time.monotonic()
    by_processes = asyncio.run(run_tournament(cfg, RunOptions(out=tmp_path / "proc", executor="process")))
    print(f"6 games: ray {ray_seconds:.1f}s, processes {time.monotonic() - started:.1f}s")

    assert by_ray.failed == [] and by_processes.failed == []
    assert by_ray.played == by_processes.played == 6
    assert sorted(tasks) == sorted(Index(tmp_path / "ray" / "index.jsonl").state), "every game ran as a Ray task"
    # The index: every game done once, the same winners.
    ray_index, proc_index = Index(tmp_path / "ray" / "index.jsonl"), Index(tmp_path / "proc" / "index.jsonl")
    assert all(e.status == "done" for e in ray_index.state.values()) and set(ray_index.done_count.values()) == {1}
    assert {g: e.winner for g, e in ray_index.state.items()} == {g: e.winner for g, e in proc_index.state.items()}
    # Same seeds, same transcripts, byte for byte.
    ray_games = sorted((tmp_path / "ray" / "games").glob("*.jsonl"))
    assert [p.name for p in ray_games] == sorted(p.name for p in (tmp_path / "proc" / "games").glob("*.jsonl"))
    assert len(ray_games) == 6
    for path in ray_games:
        assert path.read_bytes() == (tmp_path / "proc" / "games" / path.name).read_bytes(), path.name
    assert not list((tmp_path / "ray" / "games").glob("*.part"))
    # The progress machinery saw every game start and finish.
    final = seen[-1]
    assert (final.total, final.done, final.running, final.failed) == (6, 6, 0, 0)
    assert max(p.running for p in seen) >= 1


@pytest.mark.slow  # starts a local Ray cluster: half a minute on a busy machine
def test_ray_executor_resumes_exactly_the_unfinished_games(ray_session: object, tmp_path: Path) -> None:
    cfg = config(tmp_path)
    out = tmp_path / "ray"
    asyncio.run(run_tournament(cfg, RunOptions(out=out, executor="ray")))
    games = sorted((out / "games").glob("*.jsonl"))
    kept = {p.name: p.read_bytes() for p in games}
    # A crash: one game never came back (its transcript and 'done' line lost), another was half-stored.
    lost, torn = games[1], games[4]
    lost.unlink()
    torn.rename(torn.with_name(torn.name + ".part"))
    lines = (out / "index.jsonl").read_text(encoding="utf-8").splitlines()
    dropped = {lost.stem, torn.stem}
    (out / "index.jsonl").write_text(
        "\n".join(line for line in lines if not ('"done"' in line and any(g in line for g in dropped))) + "\n",
        encoding="utf-8")

    result = asyncio.run(run_tournament(cfg, RunOptions(out=out, resume=True, executor="ray")))
    assert (result.played, result.skipped, result.discarded_parts, result.failed) == (2, 4, 1, [])
    assert {p.name: p.read_bytes() for p in (out / "games").glob("*.jsonl")} == kept
    index = Index(out / "index.jsonl")
    assert all(e.status == "done" for e in index.state.values()) and set(index.done_count.values()) == {1}
    for path in (out / "games").glob("*.jsonl"):
        assert read_transcript(path).complete


def test_ray_is_imported_only_for_the_ray_executor() -> None:
    code = ("import sys, asyncio\n"
            "import arena.tournament, arena.cli.tournament, arena.cli.main\n"
            "print('ray' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.strip() == "False"


def test_without_ray_the_executor_says_how_to_get_it() -> None:
    # Simulate a machine without the extra: `import ray` fails.
    code = ("import sys\nsys.modules['ray'] = None\n"
            "from arena.tournament import TournamentError\n"
            "try:\n    import arena.ray_executor\nexcept TournamentError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert "pip install 'werewolf-arena[ray]'" in out.stdout
    assert issubclass(TournamentError, Exception)


def test_an_unreachable_cluster_fails_fast() -> None:
    pytest.importorskip("ray")
    from arena.ray_executor import _check_reachable

    started = time.monotonic()
    with pytest.raises(TournamentError, match="cannot reach the Ray cluster at ray://127.0.0.1:9"):
        _check_reachable("ray://127.0.0.1:9")  # port 9 (discard): nobody listens
    assert time.monotonic() - started < 6
    _check_reachable("auto")  # left to Ray's own lookup


@pytest.mark.slow  # starts a local Ray cluster: half a minute on a busy machine
def test_games_on_ray_share_one_limiter_actor(ray_session: object, tmp_path: Path) -> None:
    """Every provider call of every Ray task takes its turn from the one limiter actor of the run."""
    from arena.executors import GameJob
    from arena.ray_executor import RayExecutor
    from arena.ratelimit import RateLimit

    cfg = TournamentConfig(
        name="ray-limits", roster=[{"label": "stand-in", "agent": "mock:x"}, {"label": "bot", "agent": "bot:heuristic"}],
        boards=[{"preset": "std-12-guard"}], deals=1, seed=5, seating="sides", out=str(tmp_path), concurrency=2)
    runner = RayExecutor(GameJob(out=tmp_path, factory_path="agents.registry:make_agent", lang="en"),
                         accounts={"mock": RateLimit(requests_per_minute=60000)})
    result = asyncio.run(run_tournament(cfg, RunOptions(executor=runner)))
    assert result.played == 2 and result.failed == []
    calls = 0
    for path in (tmp_path / "games").glob("*.jsonl"):
        for line in read_transcript(path).decisions:
            calls += (line.usage or {}).get("calls", 0)
    assert calls > 0 and runner.limited_calls == calls
