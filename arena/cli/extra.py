"""Commands added by modules beyond the core CLI; ``arena.cli.main`` calls :func:`register`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from arena.cli import view_cmd

    app.command("view")(view_cmd.view_command)
