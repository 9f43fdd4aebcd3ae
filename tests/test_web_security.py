"""``arena serve`` under attack (issue #23): each test reruns one attack that worked before.

The server is Starlette's TestClient (Host ``testserver``, allowed by the test config); the
operator's browser is a client that opened the start-up URL and so holds the operator cookie; an
attacker is a client without it, or a request with another site's Origin or Host.
"""

from __future__ import annotations

import asyncio
import gc
import hmac
import json
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient, WebSocketDenialResponse  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from arena.web.app import create_app  # noqa: E402
from arena.web.guard import MAX_BODY_BYTES, BadJSON, host_name, loads_bounded  # noqa: E402
from arena.web.seats import ServeConfig  # noqa: E402
from tests.test_web import OPERATOR_TOKEN, create, operator_client, sign_in, token_of  # noqa: E402

PRESET = "std-12-guard"
HUMAN_TABLE = {"preset": PRESET, "pace": 0, "seats": ["human"] + ["bot:heuristic"] * 11}


@pytest.fixture()
def server(tmp_path: Path):
    """An operator's client and a stranger's, on one server."""
    with operator_client(tmp_path) as operator:
        sign_in(operator)
        stranger = TestClient(operator.app)
        stranger.portal = operator.portal  # the same running app (its lobby, its loop)
        yield operator, stranger


def tables(client: TestClient) -> dict[str, Any]:
    return client.app.state.lobby.rooms


# ---- 1. the operator owns the server ---------------------------------------------------------------

def test_a_cross_site_text_plain_post_makes_no_table(server: Any) -> None:
    """A page on another site posted text/plain (no CORS preflight) and got a table (201): now refused,
    with or without the operator's cookie (a SameSite=Strict cookie is not sent cross-site anyway)."""
    operator, stranger = server
    body = json.dumps({"preset": PRESET, "pace": 0})
    evil = {"content-type": "text/plain", "origin": "http://evil.example"}
    assert stranger.post("/api/tables", content=body, headers=evil).status_code == 401
    refused = operator.post("/api/tables", content=body, headers=evil)
    assert refused.status_code == 415 and "application/json" in refused.json()["error"]
    refused = operator.post("/api/tables", content=body,
                            headers={"content-type": "application/json", "origin": "http://evil.example"})
    assert refused.status_code == 403 and "another site" in refused.json()["error"]
    assert not tables(operator)
    same_site = operator.post("/api/tables", content=body,
                              headers={"content-type": "application/json", "origin": "http://testserver"})
    assert same_site.status_code == 201 and len(tables(operator)) == 1


def test_only_the_operator_lists_and_makes_tables(server: Any) -> None:
    operator, stranger = server
    for response in (stranger.get("/"), stranger.get("/api/tables"), stranger.get("/api/seats"),
                     stranger.post("/api/tables", json={"preset": PRESET})):
        assert response.status_code == 401, response.text
    assert "arena serve" in stranger.get("/").text  # the door says which link opens it
    wrong = stranger.get("/?token=" + OPERATOR_TOKEN[:-1] + "x", follow_redirects=False)
    assert wrong.status_code == 403 and "set-cookie" not in wrong.headers
    assert not tables(operator)
    bearer = stranger.post("/api/tables", json={"preset": PRESET, "pace": 0},
                           headers={"authorization": f"Bearer {OPERATOR_TOKEN}"})
    assert bearer.status_code == 201  # a script of the operator's sends the token as a header


def test_the_start_up_url_leaves_the_token_in_an_http_only_strict_cookie(tmp_path: Path) -> None:
    with operator_client(tmp_path) as client:
        moved = client.get(f"/?token={OPERATOR_TOKEN}", follow_redirects=False)
        assert moved.status_code == 303 and moved.headers["location"] == "/"  # the token leaves the address bar
        cookie = moved.headers["set-cookie"]
        assert OPERATOR_TOKEN in cookie and "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
        lobby = client.get("/")
        assert lobby.status_code == 200 and OPERATOR_TOKEN not in lobby.text


def test_the_operator_token_is_compared_in_constant_time(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    operator, stranger = server
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr("arena.web.guard.hmac.compare_digest", recording)
    stranger.get("/api/tables", headers={"authorization": "Bearer guess-guess-guess-guess"})
    assert compared and compared[-1] == (b"guess-guess-guess-guess", OPERATOR_TOKEN.encode())


def test_seat_invites_and_spectator_links_need_no_operator_token(server: Any) -> None:
    operator, stranger = server
    made = create(operator, **HUMAN_TABLE)
    assert stranger.get(made["seats"]["1"]).status_code == 200
    assert stranger.get(made["spectator"]).status_code == 200
    with stranger.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
        assert ws.receive_json()["view"] == "seat:1"
    with stranger.websocket_connect(f"/ws/{made['id']}") as ws:
        assert ws.receive_json()["view"] == "public"


def test_a_dns_rebinding_host_is_refused_for_pages_and_sockets(server: Any) -> None:
    """A page on rebind.evil.example whose name resolves to 127.0.0.1 sends that Host: it got the lobby."""
    operator, stranger = server
    made = create(operator, seed=1)
    for path in ("/", "/api/presets", "/api/tables", made["spectator"]):
        response = operator.get(path, headers={"host": "rebind.evil.example"})
        assert response.status_code == 421 and "--allow-host" in response.json()["error"], path
    assert operator.get("/api/presets", headers={"host": "testserver:8000"}).status_code == 200
    with pytest.raises(WebSocketDenialResponse) as refused:
        with stranger.websocket_connect(f"/ws/{made['id']}", headers={"host": "rebind.evil.example"}):
            pass
    assert refused.value.status_code == 421


def test_a_socket_from_another_sites_page_is_refused(server: Any) -> None:
    operator, stranger = server
    made = create(operator, seed=1)
    with pytest.raises(WebSocketDenialResponse) as refused:
        with stranger.websocket_connect(f"/ws/{made['id']}", headers={"origin": "http://evil.example"}):
            pass
    assert refused.value.status_code == 403
    with stranger.websocket_connect(f"/ws/{made['id']}", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "hello"


def test_host_names_are_read_strictly() -> None:
    assert host_name("127.0.0.1:8000") == "127.0.0.1" and host_name("[::1]:8000") == "::1"
    assert host_name("LocalHost") == "localhost"
    for bad in ("", "a b", "host:port", "[::1", "evil.example@127.0.0.1", "x:1:2"):
        assert host_name(bad) is None, bad


# ---- 2. seats come from the operator -----------------------------------------------------------------

def test_a_request_cannot_name_a_url_for_a_model_seat(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``local:MODEL@URL`` seat from a request sent the operator's key to that URL (9 of 9 requests)."""
    from tests.llm_loopback import LoopbackServer

    operator, _ = server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-operator-key-not-real")
    with LoopbackServer() as attacker:
        for spec in (f"local:stolen@{attacker.url}/v1", "openai:gpt-4o-mini", "mock:flaky"):
            response = operator.post("/api/tables", json={**HUMAN_TABLE, "seats": [spec] + ["bot:heuristic"] * 11})
            assert response.status_code == 400, response.text
            assert "seat 1" in response.json()["error"] and "--seat" in response.json()["error"]
        time.sleep(0.2)
        assert not attacker.seen
    assert not tables(operator)


def test_a_request_cannot_make_the_server_import_or_build_a_class(server: Any) -> None:
    """``langchain:subprocess:Popen`` from a request ran Popen's constructor ("missing 'args'")."""
    from tests import web_canary  # noqa: F401  (its module object, to look at after)

    operator, _ = server
    del sys.modules["tests.web_canary"]
    for spec in ("langchain:tests.web_canary:Canary", "langchain:subprocess:Popen"):
        response = operator.post("/api/tables", json={**HUMAN_TABLE, "seats": [spec] + ["bot:heuristic"] * 11})
        assert response.status_code == 400 and "cannot build" not in response.text
    assert "tests.web_canary" not in sys.modules and not web_canary.BUILT


def test_the_operator_offers_model_seats_by_name_and_only_those(tmp_path: Path) -> None:
    from arena.web.seats import ModelSeat, ServeConfigError

    seats = {"stand-in": ModelSeat(spec="mock:stand-in")}
    with operator_client(tmp_path, seats=seats) as client:
        sign_in(client)
        assert [c["name"] for c in client.get("/api/seats").json()] == ["bot:heuristic", "bot:random", "human",
                                                                         "stand-in"]
        made = create(client, **{**HUMAN_TABLE, "seats": ["human", "stand-in"] + ["bot:random"] * 10})
        listed = [t for t in client.get("/api/tables").json()["tables"] if t["id"] == made["id"]][0]
        assert listed["specs"][:2] == ["human", "stand-in"]
    with pytest.raises(ServeConfigError, match="'human' is taken"):
        create_app(tmp_path, config=ServeConfig(seats={"human": ModelSeat(spec="mock:x")}))
    with pytest.raises(ServeConfigError, match="'broken'"):
        create_app(tmp_path, config=ServeConfig(seats={"broken": ModelSeat(spec="nonsense:x")}))


# ---- 3. bounded resources ------------------------------------------------------------------------

def test_a_body_over_the_limit_is_refused_with_413(server: Any) -> None:
    """One 400 MiB POST took the server from 271 to 1,466 MB."""
    operator, _ = server
    big = b'{"preset": "' + b"x" * (MAX_BODY_BYTES + 1) + b'"}'
    declared = operator.post("/api/tables", content=big, headers={"content-type": "application/json"})
    assert declared.status_code == 413 and "64 KiB" in declared.json()["error"]

    def chunks():  # no Content-Length: the route stops reading at the limit
        for _ in range(100):
            yield b" " * 8192

    streamed = operator.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413 and "64 KiB" in streamed.json()["error"]
    assert not tables(operator)


def test_deeply_nested_json_is_refused_before_it_is_parsed(server: Any) -> None:
    operator, _ = server
    deep = operator.post("/api/tables", content=b"[" * 60_000, headers={"content-type": "application/json"})
    assert deep.status_code == 400 and "nested more than 32" in deep.json()["error"]
    with pytest.raises(BadJSON, match="nested"):
        loads_bounded("[" * 15_000)
    brackets_in_a_string = json.dumps({"a": "[" * 40 + '\\"' + "{" * 40})
    assert loads_bounded(brackets_in_a_string) == json.loads(brackets_in_a_string)


@pytest.mark.parametrize("message, code, words", [
    ("[" * 15_000, 1007, "nested more than 32"),  # under the 16,000 cap: RecursionError, no close frame
    ("{not json", 1007, "not JSON"),
    ("x" * 16_001, 1009, "too big"),
], ids=["deep", "not-json", "too-big"])
def test_a_bad_socket_message_closes_the_socket_with_the_reason(server: Any, message: str, code: int,
                                                               words: str) -> None:
    operator, stranger = server
    made = create(operator, **HUMAN_TABLE)
    with stranger.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
        ws.send_text(message)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
    assert closed.value.code == code and words in closed.value.reason


def test_the_number_of_tables_is_capped(tmp_path: Path) -> None:
    with operator_client(tmp_path, max_tables=2) as client:
        sign_in(client)
        create(client, **HUMAN_TABLE)
        create(client, **HUMAN_TABLE)
        refused = client.post("/api/tables", json=HUMAN_TABLE)
        assert refused.status_code == 429 and "2 tables" in refused.json()["error"]


def test_a_table_nobody_fills_expires_and_is_freed(tmp_path: Path) -> None:
    """2,000 tables with an open seat stayed forever (+174 MB)."""
    with operator_client(tmp_path, table_wait_seconds=0.3, max_tables=1) as client:
        sign_in(client)
        made = create(client, **HUMAN_TABLE)
        room = weakref.ref(tables(client)[made["id"]])
        with client.websocket_connect(f"/ws/{made['id']}") as spectator:
            messages = [spectator.receive_json()]
            while messages[-1]["type"] != "result":
                messages.append(spectator.receive_json())
        assert messages[-1]["status"] == "expired" and "within 0.3 s" in messages[-1]["error"]
        assert made["id"] not in tables(client)
        assert made["id"] not in json.dumps(client.get("/api/tables").json())
        assert client.get(made["seats"]["1"]).status_code == 404
        create(client, **HUMAN_TABLE)  # its place is free again
        gc.collect()
        assert room() is None, "the expired table is still held in memory"


def test_a_pace_0_bot_table_leaves_the_event_loop_to_the_rest(tmp_path: Path) -> None:
    """A bot table with pace 0 froze the whole server for 2.9 s: now the loop turns between decisions."""
    from arena.web.room import Room, TableSpec

    async def play() -> tuple[int, int]:
        room = Room(TableSpec(pace=0, seed=3), tmp_path)
        turns = 0

        async def lobby() -> None:  # stands for every other request the server has to answer
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        other = asyncio.ensure_future(lobby())
        await asyncio.sleep(0)
        before = turns
        room.start_if_ready()
        assert room.task is not None
        await room.task
        other.cancel()
        decisions = sum(1 for _ in room.log)
        return turns - before, decisions

    turns, events = asyncio.run(play())
    assert events > 100 and turns > 100, (turns, events)


# ---- the lobby's list: abandoned games are not "finished" -----------------------------------------------

def test_killed_and_abandoned_games_are_listed_as_abandoned(server: Any) -> None:
    operator, _ = server
    made = create(operator, seed=5)
    with operator.websocket_connect(f"/ws/{made['id']}") as ws:
        while ws.receive_json()["type"] != "result":
            pass
    played = tables(operator)[made["id"]].path
    lines = played.read_text(encoding="utf-8").splitlines()
    killed = played.with_name("std-12-guard-killed.jsonl")
    killed.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # kill -9: no result line
    stopped = played.with_name("std-12-guard-stopped.jsonl")
    result = json.loads(lines[-1])
    stopped.write_text("\n".join(lines[:-1] + [json.dumps({**result, "abandoned": True})]) + "\n", encoding="utf-8")
    listed = {g["name"]: g["status"] for g in operator.get("/api/tables").json()["finished"]}
    assert listed == {played.stem: "finished", killed.stem: "abandoned", stopped.stem: "abandoned"}


# ---- the command line ------------------------------------------------------------------------------

def test_arena_serve_takes_the_operator_token_seats_and_hosts(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from arena.cli.main import app

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda application, **kw: started.append(application))
    runner = CliRunner()
    made = runner.invoke(app, ["serve", "--out", str(tmp_path)])
    printed = made.output.split("?token=")[1].split()[0]
    assert made.exit_code == 0 and started[-1].state.operator_token == printed and len(printed) >= 40
    from_env = runner.invoke(app, ["serve", "--out", str(tmp_path), "--seat", "stand-in=mock:stand-in",
                                   "--allow-host", "arena.lan"], env={"ARENA_SERVE_TOKEN": "operator-token-from-env"})
    assert from_env.exit_code == 0, from_env.output
    assert started[-1].state.operator_token == "operator-token-from-env" and "stand-in" in from_env.output
    assert started[-1].state.lobby.choices.get("stand-in").spec == "mock:stand-in"
    config = tmp_path / "serve.yaml"
    config.write_text("seats:\n  lc: {spec: 'langchain:tests.web_canary:Canary'}\nmax_tables: 3\n", encoding="utf-8")
    operator_built = runner.invoke(app, ["serve", "--out", str(tmp_path), "--config", str(config)])
    assert operator_built.exit_code == 0, operator_built.output  # a class path from the operator's own config
    assert started[-1].state.lobby.config.max_tables == 3
    for args, words in [(["--token", "short"], "at least 16"), (["--seat", "nonsense"], "NAME=SPEC"),
                        (["--seat", "x=bot:nonsense"], "seat 'x'"), (["--max-tables", "0"], "max_tables"),
                        (["--config", str(tmp_path / "missing.yaml")], "cannot read")]:
        refused = runner.invoke(app, ["serve", "--out", str(tmp_path), *args])
        assert refused.exit_code == 2 and words in refused.output, (args, refused.output)
        assert "Traceback" not in refused.output
    config.write_text("seats:\n  x: {provider: local, model: m}\n", encoding="utf-8")
    refused = runner.invoke(app, ["serve", "--out", str(tmp_path), "--config", str(config)])
    assert refused.exit_code == 2 and "endpoint" in refused.output
