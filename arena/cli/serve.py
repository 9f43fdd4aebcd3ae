"""``arena serve``: the lobby and live tables in the browser (Starlette on uvicorn)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from arena.cli.common import friendly

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@friendly
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
    out: Path = typer.Option(Path("transcripts/web"), "--out", "-o", help="Folder for the games' transcripts."),
    token: Optional[str] = typer.Option(
        None, "--token", envvar="ARENA_SERVE_TOKEN", show_envvar=True,
        help="The operator's token (makes tables, spends keys); unset: a new one, printed in the start-up URL."),
    config: Optional[Path] = typer.Option(
        None, "--config", help="Server config (YAML): the model seats offered, allowed hosts, limits."),
    seat: list[str] = typer.Option(
        [], "--seat", help="A model seat the lobby offers, NAME=SPEC (gpt=openai:gpt-4o-mini); repeatable."),
    allow_host: list[str] = typer.Option(
        [], "--allow-host", help="Another Host name the server answers to (a LAN name, a proxy's); repeatable."),
    max_tables: Optional[int] = typer.Option(None, "--max-tables", help="Tables waiting or playing at once (20)."),
    table_wait: Optional[float] = typer.Option(
        None, "--table-wait", help="Seconds a table may wait for its people before it is closed (1800)."),
) -> None:
    """Open the lobby in the browser: make tables of bots, models and people, watch them live."""
    try:
        import uvicorn

        from arena.web.app import create_app
    except ModuleNotFoundError as exc:
        typer.secho(f"error: `arena serve` needs {exc.name}: pip install 'werewolf-arena[web]'", err=True,
                    fg=typer.colors.RED)
        raise typer.Exit(2) from None
    from pydantic import ValidationError

    from arena.web.guard import check_token_text, new_token
    from arena.web.seats import ServeConfig, ServeConfigError, load_serve_config, parse_seat_option

    if not 1 <= port <= 65535:
        raise typer.BadParameter(f"--port must be 1-65535, got {port}")
    try:
        settings = load_serve_config(config) if config is not None else ServeConfig()
        seats = dict(settings.seats)
        for value in seat:
            name, model_seat = parse_seat_option(value)
            seats[name] = model_seat
        changes: dict[str, object] = {"seats": seats, "allow_hosts": [*settings.allow_hosts, *allow_host]}
        if max_tables is not None:
            changes["max_tables"] = max_tables
        if table_wait is not None:
            changes["table_wait_seconds"] = table_wait
        settings = ServeConfig.model_validate({**settings.model_dump(), **changes})
        operator_token = check_token_text(token) if token is not None else new_token()
        application = create_app(out, token=operator_token, config=settings, host=host)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        typer.secho(f"error: {where}: {err.get('msg')}", err=True, fg=typer.colors.RED)
        raise typer.Exit(2) from None
    except (ServeConfigError, ValueError) as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        raise typer.Exit(2) from None
    if host not in LOOPBACK:
        names = ", ".join(settings.allow_hosts) or "none yet"
        reach = (f"Browsers must reach it by a name given with --allow-host ({names})" if host in ("0.0.0.0", "::")
                 else f"Browsers reach it as {host} or a name given with --allow-host ({names})")
        typer.secho(f"warning: listening on {host}: anyone who can reach this address and has the operator's token "
                    "can make tables and run model seats on this machine's API keys; the token in the URL below "
                    "is the only guard, so keep it to yourself (seat and spectator links let their holders play "
                    f"or watch one table). Plain HTTP: anyone who can read the traffic can read the token. {reach}.",
                    err=True, fg=typer.colors.YELLOW)
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    offered = ", ".join(c.name for c in application.state.lobby.choices.configured())
    typer.echo(f"arena serve: the lobby is at http://{shown}:{port}/?token={operator_token}\n"
               f"  (the operator's link: it lets whoever has it make tables; Ctrl-C stops; transcripts in {out}; "
               f"model seats offered: {offered or 'none (add them with --seat NAME=SPEC or --config)'})")
    uvicorn.run(application, host=host, port=port, log_level="warning", ws_max_size=64 * 1024)
