"""``arena serve``: the lobby and live tables in the browser (Starlette on uvicorn)."""

from __future__ import annotations

from pathlib import Path

import typer

from arena.cli.common import friendly

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@friendly
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
    out: Path = typer.Option(Path("transcripts/web"), "--out", "-o", help="Folder for the games' transcripts."),
) -> None:
    """Open the lobby in the browser: make tables of bots, models and people, watch them live."""
    try:
        import uvicorn

        from arena.web.app import create_app
    except ModuleNotFoundError as exc:
        typer.secho(f"error: `arena serve` needs {exc.name}: pip install 'werewolf-arena[web]'", err=True,
                    fg=typer.colors.RED)
        raise typer.Exit(2) from None
    if not 1 <= port <= 65535:
        raise typer.BadParameter(f"--port must be 1-65535, got {port}")
    if host not in LOOPBACK:
        typer.secho(f"warning: listening on {host}: anyone who can reach this address can open the lobby, "
                    "make tables and watch them (seat links stay secret)", err=True, fg=typer.colors.YELLOW)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"arena serve: lobby at http://{shown}:{port}/  (Ctrl-C stops; transcripts in {out})")
    uvicorn.run(create_app(out), host=host, port=port, log_level="warning", ws_max_size=64 * 1024)
