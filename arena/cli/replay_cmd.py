"""``arena replay TRANSCRIPT``: re-run a transcript's answers and check the result is the same."""

from __future__ import annotations

from pathlib import Path

import typer

from arena.cli.common import friendly


@friendly
def replay_command(transcript: Path = typer.Argument(..., help="A transcript .jsonl file.")) -> None:
    """Replay the recorded answers through the referee; exit 0 when events and result match."""
    from arena.replay import replay

    report = replay(transcript)
    if report.ok:
        typer.echo(f"OK: {report.events_compared} events identical; winner {report.winner}")
        return
    typer.secho(f"MISMATCH: {report.first_difference or ''} (replayed winner {report.winner}, "
                f"recorded {report.recorded_winner})", fg=typer.colors.RED)
    raise typer.Exit(1)
