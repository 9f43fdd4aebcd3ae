"""``arena tournament CONFIG.yaml [--resume] [--concurrency N] [--shard I/N]`` and ``arena merge``."""

from __future__ import annotations

import asyncio
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from arena.cli.common import friendly


class Executor(str, Enum):
    async_ = "async"
    process = "process"


def _human_time(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


@friendly
def tournament_command(
    config: Path = typer.Argument(..., help="Tournament YAML: roster, boards, deals, seed, seating, out."),
    resume: bool = typer.Option(False, "--resume", help="Finish exactly the unfinished games of an interrupted run."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", help="Games at once (default: config)."),
    shard: Optional[str] = typer.Option(None, "--shard", help="Play only shard I of N (e.g. 2/4); merge with `arena merge`."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output folder (default: the config's `out`)."),
    executor: Executor = typer.Option(Executor.async_, "--executor",
                                      help="async: one process, concurrent LLM calls; process: a worker process "
                                           "per concurrent game (CPU-bound bot games)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Live progress display."),
) -> None:
    """Run a tournament: a balanced schedule of games, each with its own transcript, resumable."""
    from rich.console import Console
    from rich.live import Live
    from rich.table import Table

    from arena.tournament import load_config, parse_shard, run_tournament

    cfg = load_config(config)
    shard_t = parse_shard(shard)
    console = Console(stderr=True)

    def view(p) -> Table:  # type: ignore[no-untyped-def]
        t = Table.grid(padding=(0, 2))
        finished = p.done + p.skipped
        bar_width = 30
        filled = int(bar_width * finished / p.total) if p.total else bar_width
        t.add_row(f"[bold]{cfg.name}[/]", "[green]" + "█" * filled + "[/]" + "░" * (bar_width - filled),
                  f"{finished}/{p.total} done", f"{p.running} running", f"[red]{p.failed} failed[/]",
                  f"{p.tokens:,.0f} tokens", f"${p.cost:,.4f}", f"ETA {_human_time(p.eta_seconds())}")
        return t

    async def go():  # type: ignore[no-untyped-def]
        if not progress:
            return await run_tournament(cfg, out=out, resume=resume, shard=shard_t, concurrency=concurrency,
                                        executor=executor.value)
        with Live(console=console, refresh_per_second=4, transient=False) as live:
            return await run_tournament(cfg, out=out, resume=resume, shard=shard_t, concurrency=concurrency,
                                        executor=executor.value, on_progress=lambda p: live.update(view(p)))

    try:
        result = asyncio.run(go())
    except KeyboardInterrupt:
        console.print("interrupted: run again with --resume to finish the unfinished games")
        raise typer.Exit(130) from None
    console.print(f"{result.played} played, {result.skipped} already done, {len(result.failed)} failed "
                  f"of {result.scheduled} in {result.seconds:.1f}s -> {result.out}")
    if result.failed:
        console.print(f"failed: {', '.join(result.failed[:10])}{' ...' if len(result.failed) > 10 else ''} "
                      "(see index.jsonl; --resume retries them)")
        raise typer.Exit(1)


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
