"""Registers the evaluator and tournament commands; ``arena.cli.main`` calls :func:`register`.

Each command lives in its own module (score, tournament, merge, fork) as a thin layer over a
library function that tests call directly.
"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from arena.cli import bench, fork, score, tournament

    app.command("score")(score.score_command)
    app.command("tournament")(tournament.tournament_command)
    app.command("merge")(tournament.merge_command)
    app.command("fork")(fork.fork_command)
    app.add_typer(bench.bench_app, name="bench")
