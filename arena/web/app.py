"""The Starlette application of ``arena serve``: lobby, table pages, replays and the WebSocket.

URLs:
- ``/``: the lobby (the operator's: ``/?token=OPERATOR_TOKEN`` once, then a cookie);
  ``/api/presets``, ``/api/seats``, ``/api/tables`` (GET lists, POST creates a table: operator only)
- ``/watch/{table}``: a spectator's page; ``/play/{table}/{token}``: a human seat's page
- ``/ws/{table}?token=...``: the page's connection (no token: a spectator)
- ``/games/{name}.html`` and ``/games/{name}.jsonl``: a finished game's replay page and transcript

The operator's token is the only way to make tables (and so to spend keys); a seat's token is the
only way to act for it; the lobby shows the seat tokens once, to the operator who made the table.
Who may reach what: :mod:`arena.web.guard` and docs/web.md's threat model.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from arena.narration import LANGS
from arena.web.guard import (MAX_BODY_BYTES, BadJSON, Guard, Operator, Words, allowed_hosts, field_name,
                             loads_bounded, new_token, refusal_words, refused, same_origin, web_labels)
from arena.web.room import ENDED, HUMAN, Room, TableError, TableSpec, Watcher
from arena.web.seats import SeatChoices, ServeConfig

ASSETS = Path(__file__).resolve().parent / "assets"
#: A message from a page larger than this closes its socket (1009; the longest speech is a few thousand
#: characters, and the page's box holds no more).
MAX_MESSAGE_CHARS = 16_000
#: Finished tables kept in memory for late spectators; older ones live on as transcripts only.
KEEP_FINISHED = 20
_GAME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


class TableLimit(TableError):
    """The server has as many tables waiting or playing as it takes."""


class Lobby:
    """Every table of this server, live and recently finished."""

    def __init__(self, out_dir: Path, config: ServeConfig | None = None, choices: SeatChoices | None = None):
        self.out_dir = out_dir
        self.config = config or ServeConfig()
        self.choices = choices or SeatChoices(self.config.seats)
        self.rooms: dict[str, Room] = {}
        self._expiry: dict[str, asyncio.TimerHandle] = {}
        self._game_status: dict[str, tuple[float, int, dict[str, Any]]] = {}

    def live(self) -> int:
        return sum(1 for r in self.rooms.values() if r.status in ("waiting", "running"))

    def create(self, spec: TableSpec) -> Room:
        if self.live() >= self.config.max_tables:
            raise TableLimit(refusal_words("table_limit", n=self.config.max_tables))
        room = Room(spec, self.out_dir, self.choices)
        self.rooms[room.id] = room
        room.start_if_ready()
        if room.status == "waiting":
            wait = self.config.table_wait_seconds
            self._expiry[room.id] = asyncio.get_running_loop().call_later(wait, self.expire, room.id)
        self._forget_old()
        return room

    def expire(self, table: str) -> None:
        """A table nobody filled in time is closed and forgotten: its agents and its place go."""
        self._expiry.pop(table, None)
        room = self.rooms.get(table)
        if room is not None and room.expire(self.config.table_wait_seconds):
            del self.rooms[table]

    def _forget_old(self) -> None:
        done = [r for r in self.rooms.values() if r.status in ENDED and not r.watchers]
        for room in done[:-KEEP_FINISHED] if len(done) > KEEP_FINISHED else []:
            del self.rooms[room.id]
        for table in [t for t in self._expiry if t not in self.rooms or self.rooms[t].status != "waiting"]:
            self._expiry.pop(table).cancel()

    def playing(self, name: str) -> bool:
        return any(r.path.name == name for r in self.rooms.values() if r.status in ("waiting", "running"))

    def finished_games(self) -> list[dict[str, Any]]:
        """The games of this server's folder, newest first, each once: its board, winner, length, seats
        (by the names the lobby shows: a model seat's spec may name the operator's endpoint) and links."""
        if not self.out_dir.is_dir():
            return []
        files = sorted(self.out_dir.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
        out = []
        self._game_status = {p.name: self._game_status[p.name] for p in files[:100] if p.name in self._game_status}
        seconds = {r.path.name: r.seconds for r in self.rooms.values() if r.seconds is not None}
        for path in files[:100]:
            if self.playing(path.name):
                continue  # a game being played is never served: its transcript holds every card
            stem = path.stem
            out.append({"name": stem, "replay": f"/games/{stem}.html", "transcript": f"/games/{stem}.jsonl",
                        **self.game_summary(path), "seconds": seconds.get(path.name)})
        return out

    def game_status(self, path: Path) -> str:
        return str(self.game_summary(path)["status"])

    def game_summary(self, path: Path) -> dict[str, Any]:
        """``status``: "finished", or "abandoned" for a game stopped before its end (a stopped server, an
        endpoint that refused, a kill: the last case leaves no result line); the board, winner, last phase
        and seats. Read from the file's head and tail, once per version of the file."""
        stat = path.stat()
        known = self._game_status.get(path.name)
        if known is not None and known[:2] == (stat.st_mtime, stat.st_size):
            return known[2]
        summary = game_summary_of(path)
        self._game_status[path.name] = (stat.st_mtime, stat.st_size, summary)
        return summary

    async def shutdown(self) -> None:
        for handle in self._expiry.values():
            handle.cancel()
        for room in self.rooms.values():
            room.stop()
        tasks = [r.task for r in self.rooms.values() if r.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def game_status_of(path: Path) -> str:
    """Whether a transcript ends with the result line of a game played to its end."""
    return str(game_summary_of(path)["status"])


def game_summary_of(path: Path) -> dict[str, Any]:
    """A transcript's status, board, winner, last phase and seat names, from its first and last lines."""
    with path.open("rb") as fh:
        head = fh.readline(256 * 1024)
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 64 * 1024))  # a result line is a few hundred bytes
        tail = fh.read().rstrip(b"\n").rpartition(b"\n")[2]
    try:
        last = loads_bounded(tail)
    except BadJSON:
        last = None
    try:
        header = loads_bounded(head)
    except BadJSON:
        header = None
    finished = isinstance(last, dict) and last.get("type") == "result" and not last.get("abandoned")
    summary: dict[str, Any] = {"status": "finished" if finished else "abandoned", "preset": None, "winner": None,
                               "phase": None, "seats": []}
    if isinstance(header, dict) and header.get("type") == "header":
        summary["preset"] = str(header.get("preset"))[:80]
        agents = header.get("agents")
        summary["seats"] = [seat_shown(a) for a in agents if isinstance(a, dict)] if isinstance(agents, list) else []
    if finished and isinstance(last, dict):
        summary["winner"], summary["phase"] = str(last.get("winner")), str(last.get("phase"))
    return summary


def seat_shown(agent: dict[str, Any]) -> str:
    """The name a transcript's seat is listed by: a model seat's label (the operator's name for it), a
    built-in seat's spec, never another spec (it may name an endpoint)."""
    from arena.web.seats import BOT_SEATS

    label, spec = agent.get("label"), agent.get("spec")
    if isinstance(label, str) and label:
        return label[:40]
    return spec if spec in (*BOT_SEATS, HUMAN) else "model"


def table_page(room: Room, watcher: Watcher, *, operator: bool = False) -> str:
    """The replay page's template, assets and labels, with an empty game the socket fills in."""
    from arena.viewer import page_labels, page_meta, render_html

    labels: dict[str, dict[str, Any]] = {}
    for code in LANGS:
        labels[code] = dict(page_labels(code))
        labels[code]["web"] = web_labels(code)
    data: dict[str, Any] = {
        "meta": page_meta(game_id=room.preset, preset=room.preset, seed="?", players=room.players, lang=room.lang,
                          transcript_lang=room.lang, package_version="",
                          agents=[{"seat": i + 1, "spec": name, "label": None}
                                  for i, name in enumerate(room.seat_names)],
                          complete=True, torn=False, source=""),
        "events": [], "decisions": [], "phases": [], "result": None,
        "views": {watcher.view: {"events": [], "decisions": [], "roles_at_end": True}},
        "labels": labels,
        "live": {"table": room.id, "view": watcher.view, "seat": watcher.seat,
                 # the operator's own page may start the next game at the same settings (a new seed);
                 # the table is still made by POST /api/tables, which checks the operator's cookie
                 "again": room.spec.model_dump(mode="json", exclude={"seed"}) if operator else None},
    }
    html = render_html(data)
    panel = _asset("panel.html")
    html = html.replace('  <footer class="timeline">', panel + '\n  <footer class="timeline">', 1)
    extra = "<style>" + _asset("table.css") + "</style>\n<script>" + _asset("table.js") + "</script>\n</body>"
    head, _, tail = html.rpartition("</body>")
    return head + extra + tail


def create_app(out_dir: str | Path = "transcripts/web", *, token: str | None = None,
               config: ServeConfig | None = None, host: str = "127.0.0.1") -> Starlette:
    """The application. ``token``: the operator's (None: a new one, in ``app.state.operator_token``);
    ``config``: the seats offered and the limits; ``host``: the address served, a Host it answers to."""
    config = config or ServeConfig()
    choices = SeatChoices(config.seats)
    choices.check()
    lobby = Lobby(Path(out_dir), config, choices)
    operator = Operator(token or new_token())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await lobby.shutdown()

    async def lobby_page(request: Request) -> Response:
        offered = request.query_params.get("token")
        if offered is not None:  # the start-up URL: keep the token in a cookie, take it out of the address
            if not operator.matches(offered):
                return _operator_only(403)
            moved = RedirectResponse("/", status_code=303)
            moved.set_cookie(Operator.cookie_name(request.scope), operator.token, httponly=True, samesite="strict",
                             secure=request.url.scheme == "https")
            return moved
        if not operator.allows(request):
            return _operator_only(401)
        from arena.viewer import viewer_labels

        labels = {code: {**web_labels(code), "spec_names": viewer_labels(code)["spec_names"]} for code in LANGS}
        html = _asset("lobby.html").replace("/*__LABELS__*/", _script_json(labels))
        return page(html)

    def operator_refused(request: Request) -> Response | None:
        if not operator.allows(request):
            return refused(401, refusal_words("operator"))
        return None

    async def seats_api(request: Request) -> Response:
        return operator_refused(request) or JSONResponse(lobby.choices.listing())

    async def presets_api(request: Request) -> Response:
        from arena.config import presets

        return JSONResponse([{"id": p.id, "players": p.players, "title": {"en": p.title_en, "zh": p.title_zh}}
                             for p in presets().values()])

    async def tables_api(request: Request) -> Response:
        denied = operator_refused(request)
        if denied is not None:
            return denied
        if request.method == "GET":
            return JSONResponse({"tables": [r.summary() for r in lobby.rooms.values()],
                                 "finished": lobby.finished_games()})
        # A page on another site can post text/plain without asking first (no CORS preflight), and
        # carries its own Origin: neither is taken.
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return refused(415, refusal_words("json_body"))
        if not same_origin(request.headers):
            return refused(403, refusal_words("foreign_page"))
        try:
            body = loads_bounded(await read_body(request))
            spec = TableSpec.model_validate(body)
            room = lobby.create(spec)
        except BodyTooLarge as exc:
            return refused(413, exc.args[0])
        except BadJSON as exc:
            return refused(400, refusal_words("body_is", detail=exc.args[0]))
        except ValidationError as exc:
            return refused(400, invalid_field(exc.errors()[0]))
        except TableError as exc:  # a TableLimit too (429)
            return refused(429 if isinstance(exc, TableLimit) else 400, exc.args[0])
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
        return page(table_page(room, Watcher(seat=None, god=god), operator=operator.allows(request)))

    async def play_page(request: Request) -> Response:
        room = _room(request)
        seat = room.seat_of(request.path_params["token"]) if room is not None else None
        if room is None or seat is None:
            return _not_found("no such seat: the link is wrong or the table is gone")
        return page(table_page(room, Watcher(seat=seat), operator=operator.allows(request)))

    async def game_file(request: Request) -> Response:
        name, kind = request.path_params["name"], request.path_params["kind"]
        path = lobby.out_dir / f"{name}.jsonl"
        if not _GAME_NAME.match(name) or lobby.playing(path.name) or not path.is_file():
            return _not_found("no such finished game")
        if kind == "jsonl":
            return FileResponse(path, media_type="application/x-ndjson")
        from arena.viewer import build_view_data, render_html

        # a long game's page takes a while to build: off the event loop, which the tables share
        return page(await asyncio.to_thread(lambda: render_html(build_view_data(path))))

    async def socket(ws: WebSocket) -> None:
        room = lobby.rooms.get(ws.path_params["table"])
        token = ws.query_params.get("token")
        seat = room.seat_of(token) if room is not None else None
        await ws.accept()
        if room is None or (token and seat is None):
            missing = refusal_words("no_table")
            await ws.send_json({"type": "error", "error": str(missing), "error_text": missing.texts})
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

        async def close(code: int, reason: str) -> None:
            async with lock:
                await ws.close(code=code, reason=reason)

        sender = asyncio.ensure_future(room.stream(watcher, send))
        try:
            await _receive(ws, send, close, room, seat)
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
        Route("/api/seats", seats_api),
        Route("/api/tables", tables_api, methods=["GET", "POST"]),
        Route("/watch/{table}", watch_page),
        Route("/play/{table}/{token}", play_page),
        Route("/games/{name}.{kind:str}", game_file),
        WebSocketRoute("/ws/{table}", socket),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(Guard, allowed_hosts=allowed_hosts(host, config.allow_hosts))
    app.state.lobby = lobby
    app.state.operator_token = operator.token
    return app


class BodyTooLarge(ValueError):
    pass


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The body, read no further than ``limit`` bytes (the Guard refuses a declared length over it
    before the route runs; this catches a body sent without one)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(refusal_words("too_large", kib=limit // 1024))
        chunks.append(chunk)
    return b"".join(chunks)


async def _receive(ws: WebSocket, send: Any, close: Any, room: Room, seat: int | None) -> None:
    """Read a page's messages until it goes; every refusal is answered with the reason. A message that
    is not JSON, nests too deep or is too long is no page's: the socket is closed with the reason."""
    while True:
        try:
            frame = await ws.receive()
        except RuntimeError:  # the socket is gone
            return
        if frame["type"] == "websocket.disconnect":
            return
        text = frame.get("text")
        if text is None:
            await close(1003, "only text messages (JSON) are taken")
            return
        if len(text) > MAX_MESSAGE_CHARS:
            await close(1009, f"message too big (over {MAX_MESSAGE_CHARS} characters)")
            return
        try:
            message = loads_bounded(text)
        except BadJSON as exc:
            await close(1007, f"the message is {exc}"[:120])
            return
        if not isinstance(message, dict) or message.get("type") not in ("answer", "self_destruct"):
            await send({"type": "refused", "error": "unknown message"})  # the page ignores it: none of its own
            continue
        if seat is None:
            await send(refusal_message(message, refusal_words("spectator")))
            continue
        claimed = message.get("seat", seat)
        if claimed != seat:
            await send(refusal_message(message, refusal_words("other_seat", seat=seat)))
            continue
        if message["type"] == "self_destruct":  # the standing button: armed or not
            error = room.set_self_destruct(seat, message.get("armed"))
        else:
            error = room.answer(seat, message.get("rid"), message.get("value"))
        if error is not None:
            await send(refusal_message(message, error))


def refusal_message(message: dict[str, Any], error: str) -> dict[str, Any]:
    """A page's refused message: ``error`` in English, ``error_text`` in each language (the page shows its own)."""
    words = error if isinstance(error, Words) else Words({code: error for code in LANGS})
    return {"type": "refused", "rid": message.get("rid"), "error": str(words), "error_text": words.texts}


#: pydantic's error types the lobby words itself; any other is named by its field, pydantic's English quoted
_FIELD_ERRORS = {"missing": "field_missing", "extra_forbidden": "field_unknown", "literal_error": "field_choice",
                 "greater_than": "field_above", "greater_than_equal": "field_at_least", "less_than": "field_below",
                 "less_than_equal": "field_at_most", "too_long": "field_too_long"}


def invalid_field(error: Any) -> Words:
    """A table request's first invalid field, named and explained in each language."""
    where = field_name(".".join(str(x) for x in error["loc"]) or "table")
    ctx = error.get("ctx") or {}
    key = _FIELD_ERRORS.get(error["type"], "field_invalid")
    limit = next((ctx[k] for k in ("gt", "ge", "lt", "le", "max_length", "expected") if k in ctx), "")
    if key == "field_choice":  # pydantic's "'en' or 'zh'", in each language's list words
        limit = Words({code: str(limit).replace(" or ", str(web_labels(code)["or"])) for code in LANGS})
    return refusal_words(key, field=where, limit=limit, msg=error["msg"])


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


def _operator_only(status: int) -> Response:
    """The lobby's door for anyone without the operator's token: what to do, in both languages."""
    fields = {"command": "<code>arena serve</code>", "query": "<code>?token=…</code>"}
    texts = "".join(f"<p lang={code}>{web_labels(code)['operator_only'].format(**fields)}</p>" for code in LANGS)
    return page(f"<!doctype html><meta charset=utf-8><title>{status}</title>{texts}", status_code=status)


def _not_found(text: str) -> Response:
    return page(f"<!doctype html><meta charset=utf-8><title>404</title><p>{text}</p>", status_code=404)


def _script_json(data: Any) -> str:
    from arena.viewer import script_json

    return script_json(data)
