"""``arena replay TRANSCRIPT``: re-run a transcript's answers and check the result is the same;
``arena verify PATH``: the same for a file, the recorded digests and seats for a tournament folder."""

from __future__ import annotations

from pathlib import Path

import typer

from arena.cli.common import friendly

#: ``arena replay`` / ``arena verify`` on a game that was abandoned (stopped before its end) and
#: replays identically up to where it stopped: sound, but not a finished game.
EXIT_ABANDONED = 4


@friendly
def replay_command(transcript: Path = typer.Argument(..., help="A transcript .jsonl file.")) -> None:
    """Replay the recorded answers through the referee; exit 0 when every event, every decision, the
    result line and the header's seats match, 1 on a difference or an incomplete game, 4 for an
    abandoned game that replays identically up to where it stopped."""
    from arena.replay import replay

    report = replay(transcript)
    if report.ok:
        typer.echo(f"OK: {report.events_compared} events identical; winner {report.winner}")
        return
    if report.identical and report.abandoned_at is not None:
        typer.secho(f"ABANDONED at {report.abandoned_at}: the game was stopped before its end; the "
                    f"{report.events_compared} events recorded replay identically", fg=typer.colors.YELLOW)
        raise typer.Exit(EXIT_ABANDONED)
    if report.identical and not report.complete:
        typer.secho(f"INCOMPLETE: {report.first_difference}; the {report.events_compared} events recorded replay "
                    "identically", fg=typer.colors.YELLOW)
        raise typer.Exit(1)
    typer.secho(f"MISMATCH: {report.first_difference or ''} (replayed winner {report.winner}, "
                f"recorded {report.recorded_winner})", fg=typer.colors.RED)
    raise typer.Exit(1)


@friendly
def verify_command(path: Path = typer.Argument(..., help="A transcript .jsonl file or a tournament folder.")) -> None:
    """A transcript: replay it (as `arena replay`). A tournament folder: check without replaying that every
    game the index calls done is there, unchanged since it was recorded (its digest), complete, and seats
    the agents and labels of the schedule. Exit 0 when all holds, 1 otherwise (a transcript: 4 when it is
    an abandoned game that replays identically, as `arena replay`)."""
    if path.is_dir():
        from arena.tournament import TournamentError, verify_tournament

        try:
            result = verify_tournament(path)
        except TournamentError as exc:
            typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
            raise typer.Exit(2) from None
        for problem in result.problems:
            typer.secho(problem, fg=typer.colors.RED)
        note = f" ({result.unhashed} recorded before digests were kept: not hash-checked)" if result.unhashed else ""
        if result.abandoned:
            shown = ", ".join(result.abandoned[:5]) + (" ..." if len(result.abandoned) > 5 else "")
            note += f"; {len(result.abandoned)} abandoned, not rated ({shown}; --resume replays them)"
        if result.problems:
            typer.secho(f"FAILED: {len(result.problems)} of {result.checked} games{note}", fg=typer.colors.RED)
            raise typer.Exit(1)
        typer.echo(f"OK: {result.checked} games unchanged and complete{note}")
        return
    replay_command(path)
