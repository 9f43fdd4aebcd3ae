"""``arena view TRANSCRIPT``: write a self-contained HTML replay page of one game."""

from __future__ import annotations

from pathlib import Path

import typer

from arena.cli.common import friendly


@friendly
def view_command(
    transcript: Path = typer.Argument(..., help="A transcript .jsonl file."),
    out: Path = typer.Option(None, "--out", "-o", help="The page to write (default: the transcript's name, .html)."),
    lang: str = typer.Option(None, "--lang", "-l", help="Page language: en or zh (default: the transcript's)."),
) -> None:
    """Write a replay page: the table, speeches, votes, night actions, god view and every seat's view.

    The page is one HTML file with everything inlined; it opens offline in any browser.
    URL hash: #step=K&view=god|seat:N&lang=en|zh (K is an event index of the transcript).
    """
    from arena.narration import LANGS
    from arena.viewer import write_view

    if lang is not None and lang not in LANGS:
        raise typer.BadParameter(f"--lang must be one of {', '.join(LANGS)}, got {lang!r}")
    path = write_view(transcript, out, lang)
    typer.echo(f"wrote {path}")
