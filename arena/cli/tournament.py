"""``arena tournament CONFIG.yaml [--resume] [--concurrency N] [--shard I/N] [--executor ...] [--watch GAME_ID]``
and ``arena merge``."""

from __future__ import annotations

import asyncio
import signal
from contextlib import contextmanager
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional

import typer

from arena.cli.common import friendly
from arena.stopping import Terminated, terminate_as_interrupt


class Executor(str, Enum):
    async_ = "async"
    process = "process"
    ray = "ray"


def _human_time(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


@friendly
def tournament_command(
    config: Path = typer.Argument(..., help="Tournament YAML: roster, boards, deals, seed, seating, out."),
    resume: bool = typer.Option(False, "--resume", help="Finish exactly the unfinished games of an interrupted run."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j",
                                              help="Games at once (default: the config's; with Ray, at least the "
                                                   "cluster's CPUs)."),
    shard: Optional[str] = typer.Option(None, "--shard", help="Play only shard I of N (e.g. 2/4); merge with `arena merge`."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output folder (default: the config's `out`)."),
    executor: Executor = typer.Option(Executor.async_, "--executor",
                                      help="async: one process, concurrent LLM calls; process: a worker process "
                                           "per concurrent game (CPU-bound bot games); ray: a Ray task per game on "
                                           "a cluster (extra [ray])."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address",
                                              help="Ray cluster to run on (default: $RAY_ADDRESS, else a running "
                                                   "local instance, else a new one)."),
    ray_cpus: float = typer.Option(1.0, "--ray-cpus-per-game", help="CPUs Ray reserves for each game (LLM games "
                                                                      "mostly wait: 0.25 packs four per CPU)."),
    watch: Optional[str] = typer.Option(None, "--watch",
                                        help="Show this game (its id, as in index.jsonl) live in the terminal; "
                                             "it is played first, in this process, while the others run as usual."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Live progress display."),
) -> None:
    """Run a tournament: a balanced schedule of games, each with its own transcript, resumable."""
    from rich.console import Console
    from rich.live import Live
    from rich.table import Table

    from arena.executors import ExecutorChoice
    from arena.tournament import (
        RunOptions,
        build_schedule,
        find_game,
        load_config,
        parse_shard,
        run_tournament,
        shard_of,
    )

    cfg = load_config(config)
    shard_t = parse_shard(shard)
    console = Console(stderr=True)
    watched = find_game(shard_of(build_schedule(cfg), shard_t), watch) if watch else None

    def view(p) -> Table:  # type: ignore[no-untyped-def]
        t = Table.grid(padding=(0, 2))
        finished = p.done + p.skipped
        bar_width = 30
        filled = int(bar_width * finished / p.total) if p.total else bar_width
        t.add_row(f"[bold]{cfg.name}[/]", "[green]" + "█" * filled + "[/]" + "░" * (bar_width - filled),
                  f"{finished}/{p.total} done", f"{p.running} running", f"[red]{p.failed} failed[/]",
                  f"{p.tokens:,.0f} tokens", f"${p.cost:,.4f}", f"ETA {_human_time(p.eta_seconds())}")
        return t

    options = RunOptions(out=out, resume=resume, shard=shard_t, concurrency=concurrency, watch=watch,
                         executor=ExecutorChoice(executor.value, ray_address=ray_address, ray_task_cpus=ray_cpus))

    async def go():  # type: ignore[no-untyped-def]
        if not progress:
            with watching(console, watched, cfg.lang) as on_watch_event:
                return await run_tournament(cfg, replace(options, on_watch_event=on_watch_event))
        with Live(console=console, refresh_per_second=4, transient=False) as live:
            # The game's table nests under the progress line (one display); see `watching`.
            with watching(console, watched, cfg.lang, outer=live) as on_watch_event:
                return await run_tournament(cfg, replace(options, on_watch_event=on_watch_event,
                                                         on_progress=lambda p: live.update(view(p))))

    # SIGTERM unwinds like Ctrl-C (games cancelled, Ray shut down, the hint below), never a bare kill.
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        result = asyncio.run(go())
    except KeyboardInterrupt as exc:
        console.print("interrupted: run again with --resume to finish the unfinished games")
        raise typer.Exit(128 + signal.SIGTERM if isinstance(exc, Terminated) else 130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    console.print(f"{result.played} played, {result.skipped} already done, {len(result.failed)} failed "
                  f"of {result.scheduled} in {result.seconds:.1f}s -> {result.out}")
    if result.flagged:
        console.print(f"flagged (too many fallback answers to trust): {', '.join(result.flagged[:10])}"
                      f"{' ...' if len(result.flagged) > 10 else ''} (see index.jsonl)")
    if result.stopped:
        console.print(f"stopped: {result.stopped}")
        console.print(f"{len(result.abandoned)} game(s) abandoned; fix the seat's endpoint or key, then --resume")
        raise typer.Exit(1)
    if result.abandoned:
        console.print(f"abandoned (not rated): {', '.join(result.abandoned[:10])}"
                      f"{' ...' if len(result.abandoned) > 10 else ''} (see index.jsonl; --resume replays them)")
    if result.failed or result.abandoned:
        if result.failed:
            console.print(f"failed: {', '.join(result.failed[:10])}{' ...' if len(result.failed) > 10 else ''} "
                          "(see index.jsonl; --resume retries them)")
        raise typer.Exit(1)


@contextmanager
def watching(console: Any, game: Any, lang: str, outer: Any = None) -> Iterator[Callable[[Any], None] | None]:
    """A live view of ``game`` (a ScheduledGame, or None for no view) on ``console``; yields its event callback.

    A spectator's view: god view on (``g`` toggles it). Under the progress display (``outer``) the
    view nests inside it (rich >= 14.1 draws nested live displays as one); an older rich refuses a
    second display, and then the progress line gives way to the game.
    """
    if game is None:
        yield None
        return
    from rich.errors import LiveError

    from arena.live import LiveView

    labels = dict(enumerate(game.labels, start=1))  # roster labels: who plays which seat

    def make() -> Any:
        return LiveView(lang=lang, god_view=True, players=len(game.specs), console=console, labels=labels)

    try:
        live_view = make()
    except LiveError:
        outer.stop()
        live_view = make()
    try:
        yield live_view.on_event
    finally:
        live_view.close()


@friendly
def merge_command(
    sources: List[Path] = typer.Argument(..., help="Output folders of the shards of one tournament."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for the merged tournament."),
) -> None:
    """Combine the shards of one tournament into one folder (each finished game once, one index)."""
    from arena.tournament import merge_outputs

    result = merge_outputs(sources, out)
    typer.echo(f"{result.games} games merged into {result.out} ({result.duplicates} duplicates skipped)")
    if result.missing:
        typer.echo(f"{len(result.missing)} scheduled games are still missing, e.g. {', '.join(result.missing[:5])}")
        raise typer.Exit(1)
