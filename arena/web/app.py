"""The Starlette application of ``arena serve``: lobby, table pages, replays and the WebSocket.

URLs:
- ``/``: the lobby; ``/api/presets``, ``/api/tables`` (GET lists, POST creates a table)
- ``/watch/{table}``: a spectator's page; ``/play/{table}/{token}``: a human seat's page
- ``/ws/{table}?token=...``: the page's connection (no token: a spectator)
- ``/games/{name}.html`` and ``/games/{name}.jsonl``: a finished game's replay page and transcript

A seat's token is the only way to act for it; the lobby shows it once, to whoever made the table.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from contextlib import asynccontextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, AsyncIterator

import yaml
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.narration import LANGS, PROMPTS_DIR
from arena.web.room import Room, TableError, TableSpec, Watcher

ASSETS = Path(__file__).resolve().parent / "assets"
#: A message from a page larger than this is refused (the longest speech is a few thousand characters).
MAX_MESSAGE_CHARS = 16_000
#: Finished tables kept in memory for late spectators; older ones live on as transcripts only.
KEEP_FINISHED = 20
_GAME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


@lru_cache(maxsize=4)
def web_labels(lang: str) -> dict[str, Any]:
    return yaml.safe_load((PROMPTS_DIR / lang / "web.yaml").read_text(encoding="utf-8"))


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


class Lobby:
    """Every table of this server, live and recently finished."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.rooms: dict[str, Room] = {}

    def create(self, spec: TableSpec) -> Room:
        room = Room(spec, self.out_dir)
        self.rooms[room.id] = room
        room.start_if_ready()
        self._forget_old()
        return room

    def _forget_old(self) -> None:
        done = [r for r in self.rooms.values() if r.status in ("finished", "failed") and not r.watchers]
        for room in done[:-KEEP_FINISHED] if len(done) > KEEP_FINISHED else []:
            del self.rooms[room.id]

    def playing(self, name: str) -> bool:
        return any(r.path.name == name for r in self.rooms.values() if r.status in ("waiting", "running"))

    def finished_games(self) -> list[dict[str, Any]]:
        if not self.out_dir.is_dir():
            return []
        files = sorted(self.out_dir.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
        out = []
        for path in files[:100]:
            if self.playing(path.name):
                continue  # a game being played is never served: its transcript holds every card
            stem = path.stem
            out.append({"name": stem, "replay": f"/games/{stem}.html", "transcript": f"/games/{stem}.jsonl"})
        return out

    async def shutdown(self) -> None:
        for room in self.rooms.values():
            room.stop()
        tasks = [r.task for r in self.rooms.values() if r.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def table_page(room: Room, watcher: Watcher) -> str:
    """The replay page's template, assets and labels, with an empty game the socket fills in."""
    from arena.viewer import page_labels, page_meta, render_html

    labels: dict[str, dict[str, Any]] = {}
    for code in LANGS:
        labels[code] = dict(page_labels(code))
        labels[code]["web"] = web_labels(code)
    data: dict[str, Any] = {
        "meta": page_meta(game_id=room.preset, preset=room.preset, seed="?", players=room.players, lang=room.lang,
                          transcript_lang=room.lang, package_version="",
                          agents=[{"seat": i + 1, "spec": spec, "label": None} for i, spec in enumerate(room.specs)],
                          complete=True, torn=False, source=""),
        "events": [], "decisions": [], "phases": [], "result": None,
        "views": {watcher.view: {"events": [], "decisions": [], "roles_at_end": True}},
        "labels": labels,
        "live": {"table": room.id, "view": watcher.view, "seat": watcher.seat},
    }
    html = render_html(data)
    panel = _asset("panel.html")
    html = html.replace('  <footer class="timeline">', panel + '\n  <footer class="timeline">', 1)
    extra = "<style>" + _asset("table.css") + "</style>\n<script>" + _asset("table.js") + "</script>\n</body>"
    head, _, tail = html.rpartition("</body>")
    return head + extra + tail


def create_app(out_dir: str | Path = "transcripts/web") -> Starlette:
    lobby = Lobby(Path(out_dir))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await lobby.shutdown()

    async def lobby_page(request: Request) -> Response:
        labels = {code: web_labels(code) for code in LANGS}
        html = _asset("lobby.html").replace("/*__LABELS__*/", _script_json(labels))
        return page(html)

    async def presets_api(request: Request) -> Response:
        from arena.config import presets

        return JSONResponse([{"id": p.id, "players": p.players, "title": {"en": p.title_en, "zh": p.title_zh}}
                             for p in presets().values()])

    async def tables_api(request: Request) -> Response:
        if request.method == "GET":
            return JSONResponse({"tables": [r.summary() for r in lobby.rooms.values()],
                                 "finished": lobby.finished_games()})
        try:
            body = await request.json()
            spec = TableSpec.model_validate(body)
            room = lobby.create(spec)
        except json.JSONDecodeError:
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "table"
            return JSONResponse({"error": f"{where}: {first['msg']}"}, status_code=400)
        except TableError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"id": room.id, "spectator": f"/watch/{room.id}",
                             "seats": {str(seat): f"/play/{room.id}/{token}" for token, seat in room.tokens.items()}},
                            status_code=201)

    def _room(request: Request) -> Room | None:
        return lobby.rooms.get(request.path_params["table"])

    async def watch_page(request: Request) -> Response:
        room = _room(request)
        if room is None:  # a table finished long ago lives on as its replay page
            table = request.path_params["table"]
            done = sorted(lobby.out_dir.glob(f"*-{table}.jsonl")) if _GAME_NAME.match(table) else []
            if done and not lobby.playing(done[0].name):
                return RedirectResponse(f"/games/{done[0].stem}.html")
            return _not_found("no such table")
        god = room.god_view_allowed and request.query_params.get("view") != "public"
        return page(table_page(room, Watcher(seat=None, god=god)))

    async def play_page(request: Request) -> Response:
        room = _room(request)
        seat = room.seat_of(request.path_params["token"]) if room is not None else None
        if room is None or seat is None:
            return _not_found("no such seat: the link is wrong or the table is gone")
        return page(table_page(room, Watcher(seat=seat)))

    async def game_file(request: Request) -> Response:
        name, kind = request.path_params["name"], request.path_params["kind"]
        path = lobby.out_dir / f"{name}.jsonl"
        if not _GAME_NAME.match(name) or lobby.playing(path.name) or not path.is_file():
            return _not_found("no such finished game")
        if kind == "jsonl":
            return FileResponse(path, media_type="application/x-ndjson")
        from arena.viewer import build_view_data, render_html

        return page(render_html(build_view_data(path)))

    async def socket(ws: WebSocket) -> None:
        room = lobby.rooms.get(ws.path_params["table"])
        token = ws.query_params.get("token")
        seat = room.seat_of(token) if room is not None else None
        await ws.accept()
        if room is None or (token and seat is None):
            await ws.send_json({"type": "error", "error": "no such table or seat"})
            await ws.close(code=4404)
            return
        god = seat is None and room.god_view_allowed and ws.query_params.get("view") != "public"
        watcher = Watcher(seat=seat, god=god)
        room.watchers += 1
        if seat is not None:
            room.connected(seat)
        lock = asyncio.Lock()  # the stream and the refusals share one socket

        async def send(message: dict[str, Any]) -> None:
            async with lock:
                await ws.send_json(message)

        sender = asyncio.ensure_future(room.stream(watcher, send))
        try:
            await _receive(ws, send, room, seat)
        finally:
            room.watchers -= 1
            if seat is not None:
                room.disconnected(seat)
            if not sender.done():
                sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)

    routes = [
        Route("/", lobby_page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),  # no icon; not an error either
        Route("/api/presets", presets_api),
        Route("/api/tables", tables_api, methods=["GET", "POST"]),
        Route("/watch/{table}", watch_page),
        Route("/play/{table}/{token}", play_page),
        Route("/games/{name}.{kind:str}", game_file),
        WebSocketRoute("/ws/{table}", socket),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.lobby = lobby
    return app


async def _receive(ws: WebSocket, send: Any, room: Room, seat: int | None) -> None:
    """Read a page's messages until it goes; every refusal is answered with the reason."""
    while True:
        try:
            text = await ws.receive_text()
        except (WebSocketDisconnect, RuntimeError):
            return
        if len(text) > MAX_MESSAGE_CHARS:
            await send({"type": "refused", "error": f"message too long (over {MAX_MESSAGE_CHARS} characters)"})
            continue
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            await send({"type": "refused", "error": "not JSON"})
            continue
        if not isinstance(message, dict) or message.get("type") != "answer":
            await send({"type": "refused", "error": "unknown message"})
            continue
        if seat is None:
            await send({"type": "refused", "rid": message.get("rid"), "error": "a spectator cannot act"})
            continue
        claimed = message.get("seat", seat)
        if claimed != seat:
            await send({"type": "refused", "rid": message.get("rid"),
                                "error": f"this link plays seat {seat} only"})
            continue
        error = room.answer(seat, message.get("rid"), message.get("value"))
        if error is not None:
            await send({"type": "refused", "rid": message.get("rid"), "error": error})


def page(html: str, status_code: int = 200) -> HTMLResponse:
    """An HTML page whose scripts run only if this response named them: a game text that ever reached
    the page as markup could not run (the pages put game text in with ``textContent`` anyway)."""
    nonce = secrets.token_urlsafe(16)
    # Bare <script> tags come only from the templates: every data block is written by
    # viewer.script_json, which escapes "<", so no game text can bring one in.
    html = html.replace("<script>", f'<script nonce="{nonce}">')
    policy = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; img-src 'self' data:; "
              "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    return HTMLResponse(html, status_code=status_code,
                        headers={"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff",
                                 "Referrer-Policy": "no-referrer"})


def _not_found(text: str) -> Response:
    return page(f"<!doctype html><meta charset=utf-8><title>404</title><p>{text}</p>", status_code=404)


def _script_json(data: Any) -> str:
    from arena.viewer import script_json

    return script_json(data)
