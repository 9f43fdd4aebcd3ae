"""``arena serve`` at the server level (Starlette's TestClient): lobby, seats, spectators, security.

Each human seat is played by a thread that answers every question its socket is asked; the
transcript the table writes is then the reference every message is checked against.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from agents.human import SELF_DESTRUCT_KINDS  # noqa: E402
from arena.observation import public_events, visible_events  # noqa: E402
from arena.transcript import read_transcript  # noqa: E402
from arena.viewer import build_view_data  # noqa: E402
from arena.web.app import create_app  # noqa: E402
from arena.web.seats import ModelSeat, ServeConfig  # noqa: E402

PRESET = "std-12-guard"
#: The operator's token of the test servers (a real server makes one, or takes --token / ARENA_SERVE_TOKEN).
OPERATOR_TOKEN = "test-operator-token-0123456789"


def simple_answer(ask: dict[str, Any]) -> Any:
    """A legal answer to any question: the default where there is one, else the first choice."""
    legal = ask["legal"]
    kind = legal["type"]
    if kind == "text":
        return f"I am quietly confident ({ask['kind']})."
    if ask["default"] is not None:
        return ask["default"]
    if kind == "seat":
        return legal["options"][0] if legal["options"] else None
    if kind == "bool":
        return False
    if kind == "seats":
        return legal["options"][: legal["min_count"]]
    if kind == "option":
        return legal["options"][0]
    if kind == "speech_order":
        return {"start": legal["starts"][0], "direction": "ascending"}
    raise AssertionError(f"unknown legal set {kind}")


def play_seat(ws: Any, answer: Callable[[dict[str, Any]], Any] = simple_answer) -> list[dict[str, Any]]:
    """Answer every question until the game's result; every message received, in order."""
    messages = []
    while True:
        message = ws.receive_json()
        messages.append(message)
        if message["type"] == "ask":
            ws.send_json({"type": "answer", "rid": message["rid"], "value": answer(message)})
        if message["type"] == "result":
            return messages


def events_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for m in messages if m["type"] == "events" for e in m["events"]]


def same_event(sent: dict[str, Any], event: Any) -> bool:
    """The page's form of an event carries the event's own fields unchanged."""
    fields = event.model_dump(mode="json")
    return all(sent.get(k) == v for k, v in fields.items())


def operator_client(out: Path, **config: Any) -> TestClient:
    """A test server (TestClient's Host is ``testserver``) whose client has opened the operator's start-up
    URL, as the operator's browser does: the token is in its cookie from then on."""
    app = create_app(out, token=OPERATOR_TOKEN, config=ServeConfig(allow_hosts=["testserver"], **config))
    return TestClient(app)


def sign_in(client: TestClient) -> None:
    assert client.get(f"/?token={OPERATOR_TOKEN}").status_code == 200


@pytest.fixture()
def client(tmp_path: Path):
    with operator_client(tmp_path) as c:
        sign_in(c)
        yield c


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("preset", PRESET)
    body.setdefault("pace", 0)
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def token_of(link: str) -> str:
    return link.rsplit("/", 1)[1]


def transcript_of(client: TestClient, table: str):
    room = client.app.state.lobby.rooms[table]
    return read_transcript(room.path)


def test_bot_table_streams_the_whole_game_in_god_view_and_is_listed_when_finished(client: TestClient) -> None:
    made = create(client, seed=3)
    assert made["seats"] == {}
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        messages = play_seat(ws)
    assert messages[0]["view"] == "god"
    log = [line.event for line in transcript_of(client, made["id"]).events]
    sent = events_of(messages)
    assert len(sent) == len(log) and all(same_event(s, e) for s, e in zip(sent, log))
    assert [s["seq"] for s in sent] == list(range(len(sent)))
    result = messages[-1]["result"]
    assert result["winner"] in ("village", "wolves") and result["seed"] == 3
    listed = client.get("/api/tables").json()
    name = f"{PRESET}-{made['id']}"
    (game,) = [g for g in listed["finished"] if g["name"] == name]
    assert game["replay"] == f"/games/{name}.html" and game["transcript"] == f"/games/{name}.jsonl"
    # listed once, with its board, winner, length and seats (by the names the lobby shows)
    assert game["status"] == "finished" and game["preset"] == PRESET and game["winner"] == result["winner"]
    assert game["phase"] == result["phase"] and game["seats"] == ["bot:heuristic"] * 12 and game["seconds"] > 0
    assert client.get(f"/games/{name}.html").status_code == 200
    assert client.get(f"/games/{name}.jsonl").text.startswith('{"type":"header"')
    del client.app.state.lobby.rooms[made["id"]]  # a table forgotten by the server: its link shows the replay
    moved = client.get(f"/watch/{made['id']}", follow_redirects=False)
    assert moved.status_code in (302, 307) and moved.headers["location"] == f"/games/{name}.html"


def test_every_seat_and_the_spectator_receive_exactly_what_the_log_lets_them_see(client: TestClient) -> None:
    """Twelve human seats and a spectator through a whole game: every event each connection got is
    checked against the transcript's visibility, and every question against the seat's decisions."""
    made = create(client, seats=["human"] * 12, seed=11)
    tokens = {int(seat): token_of(link) for seat, link in made["seats"].items()}
    assert sorted(tokens) == list(range(1, 13)) and len(set(tokens.values())) == 12
    received: dict[Any, list[dict[str, Any]]] = {}

    def run(key: Any, url: str) -> None:
        with client.websocket_connect(url) as ws:
            received[key] = play_seat(ws)

    threads = [threading.Thread(target=run, args=("spectator", f"/ws/{made['id']}?view=god"))]
    threads += [threading.Thread(target=run, args=(seat, f"/ws/{made['id']}?token={token}"))
                for seat, token in tokens.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert set(received) == {"spectator", *tokens}
    transcript = transcript_of(client, made["id"])
    log = [line.event for line in transcript.events]
    assert transcript.result is not None and not transcript.result.abandoned

    spectator = received["spectator"]
    assert spectator[0]["view"] == "public"  # humans at the table: no god view, even when asked for
    expected = public_events(log)
    assert len(expected) < len(log)
    sent = events_of(spectator)
    assert len(sent) == len(expected) and all(same_event(s, e) for s, e in zip(sent, expected))
    assert not [m for m in spectator if m["type"] == "ask"]

    for seat in tokens:
        messages = received[seat]
        assert messages[0]["view"] == f"seat:{seat}"
        expected = visible_events(log, seat)
        sent = events_of(messages)
        assert len(sent) == len(expected), seat
        assert all(same_event(s, e) for s, e in zip(sent, expected)), seat
        for event in sent:
            vis = event["visibility"]
            assert vis["to"] == "all" or (vis["to"] == "seats" and seat in vis["seats"]), (seat, event)
        asks = [m["kind"] for m in messages if m["type"] == "ask"]
        # self-destruct offers are answered by the standing choice, never asked (the own speech is asked
        # in the offer's place, and its speech decision then is not asked again)
        assert asks == [d.kind for d in transcript.decisions if d.seat == seat and d.kind not in SELF_DESTRUCT_KINDS], seat
        assert sent[-1]["type"] == "game_ended"  # the dead too watch their seat to the end

    # a player who is out keeps receiving his seat's view: speeches made after his death among them
    watched_after_death = 0
    for seat in set(range(1, 13)) - set(transcript.result.alive):
        sent = events_of(received[seat])
        death = next((i for i, e in enumerate(sent) if e["type"] == "deaths_announced" and seat in e["seats"]
                      or e["type"] == "exile_result" and e["seat"] == seat), None)
        if death is not None:
            watched_after_death += any(e["type"] == "speech" for e in sent[death + 1:])
    assert watched_after_death


def test_a_spectator_cannot_act_and_a_seat_token_acts_only_for_its_seat(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 10 + ["human"], seed=4, grace_seconds=0)
    t1, t12 = token_of(made["seats"]["1"]), token_of(made["seats"]["12"])
    base = f"/ws/{made['id']}"
    seat12: list[dict[str, Any]] = []

    def play_12() -> None:
        with client.websocket_connect(f"{base}?token={t12}") as ws:
            seat12.extend(play_seat(ws))

    player = threading.Thread(target=play_12)
    player.start()
    with client.websocket_connect(f"{base}?token={t1}") as ws1, \
            client.websocket_connect(f"{base}?token={t12}") as ws12, \
            client.websocket_connect(base) as spectator:
        ask1 = next_ask(ws1)
        spectator.send_json({"type": "answer", "rid": ask1["rid"], "value": simple_answer(ask1)})
        assert next_of(spectator, "refused")["error"] == "a spectator cannot act"
        # seat 12's link naming seat 1: refused; seat 12 quoting seat 1's question id: refused too
        ws12.send_json({"type": "answer", "seat": 1, "rid": ask1["rid"], "value": simple_answer(ask1)})
        assert "seat 12 only" in next_of(ws12, "refused")["error"]
        ws12.send_json({"type": "answer", "rid": ask1["rid"], "value": simple_answer(ask1)})
        assert "no longer open" in next_of(ws12, "refused")["error"]
        # the question is still open for seat 1, who answers it once; the same answer again is stale
        ws1.send_json({"type": "answer", "rid": ask1["rid"], "value": simple_answer(ask1)})
        assert next_of(ws1, "settled") == {"type": "settled", "rid": ask1["rid"], "why": "answered",
                                            "value": simple_answer(ask1)}
        ws1.send_json({"type": "answer", "rid": ask1["rid"], "value": simple_answer(ask1)})
        assert "no longer open" in next_of(ws1, "refused")["error"]
        ws1.send_json({"type": "answer", "rid": "guessed", "value": None})
        assert "no longer open" in next_of(ws1, "refused")["error"]
    player.join(timeout=60)
    assert seat12 and seat12[-1]["type"] == "result"
    first = [d for d in transcript_decisions(client, made["id"]) if d.seat == 1][0]
    assert first.kind == ask1["kind"] and not first.defaulted and first.value == simple_answer(ask1)


def test_a_bad_link_gets_nothing(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:random"] * 11)
    assert client.get(f"/play/{made['id']}/not-a-token").status_code == 404
    with client.websocket_connect(f"/ws/{made['id']}?token=not-a-token") as ws:
        assert ws.receive_json()["type"] == "error"
    assert client.get("/watch/nope").status_code == 404
    page = client.get(made["seats"]["1"]).text
    data = page_data(page)
    assert data["events"] == [] and list(data["views"]) == ["seat:1"] and data["meta"]["seed"] == "?"
    again = data["live"].pop("again")  # the operator's page: the next game at the same settings, never the seed
    assert data["live"] == {"table": made["id"], "view": "seat:1", "seat": 1}
    assert again["seats"] == ["human"] + ["bot:random"] * 11 and "seed" not in again
    client.cookies.clear()  # the same link in the browser of a player who is not the operator
    assert page_data(client.get(made["seats"]["1"]).text)["live"]["again"] is None


def page_data(page: str) -> dict[str, Any]:
    return json.loads(page.split('<script id="game-data" type="application/json">')[1].split("</script>")[0])


def test_the_live_page_hands_viewer_js_every_key_the_replay_page_does(client: TestClient) -> None:
    """viewer.js draws the live table and the replay from the same data: a meta key only the replay page had
    (the seat marker icons) once broke the live page. Both build their meta with arena.viewer.page_meta."""
    made = create(client, seed=3)
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        play_seat(ws)
    live = page_data(client.get(f"/watch/{made['id']}").text)
    replay = build_view_data(client.app.state.lobby.rooms[made["id"]].path)
    missing = set(replay["meta"]) - set(live["meta"])
    assert not missing, f"the live page's meta lacks {sorted(missing)}"
    assert not set(replay) - set(live), f"the live page's data lacks {sorted(set(replay) - set(live))}"
    assert live["meta"]["wolf_cards"] == replay["meta"]["wolf_cards"] and live["meta"]["marker_icon"]
    assert live["meta"]["marker_icon"] == replay["meta"]["marker_icon"]


def test_a_script_speech_is_sent_as_text_and_long_speeches_are_refused(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11, seed=2)
    token = token_of(made["seats"]["1"])
    script = "<script>window.pwned = 1</script><img src=x onerror=alert(1)>"
    seen_speech = []

    def answer(ask: dict[str, Any]) -> Any:
        return script if ask["legal"]["type"] == "text" else simple_answer(ask)

    with client.websocket_connect(f"/ws/{made['id']}?token={token}") as ws:
        while True:
            message = ws.receive_json()
            if message["type"] == "ask" and message["legal"]["type"] == "text" and not seen_speech:
                ws.send_json({"type": "answer", "rid": message["rid"], "value": "x" * (message["legal"]["max_chars"] + 1)})
                assert "too long" in next_of(ws, "refused")["error"]
                seen_speech.append(message)
            if message["type"] == "ask":
                ws.send_json({"type": "answer", "rid": message["rid"], "value": answer(message)})
            if message["type"] == "result":
                break
            if message["type"] == "events":
                seen_speech.extend(e for e in message["events"] if e["type"] == "speech" and e["seat"] == 1)
    speeches = [e for e in seen_speech if isinstance(e, dict) and e.get("type") == "speech"]
    assert speeches and all(e["text"] == script for e in speeches)
    # the page never holds game text in its HTML, and runs only the scripts its response names
    response = client.get(f"/watch/{made['id']}")
    page = response.text
    assert "pwned" not in page
    policy = response.headers["content-security-policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert page.count("<script") == page.count(f'<script nonce="{nonce}">') + page.count('type="application/json"')
    replay = client.get(f"/games/{PRESET}-{made['id']}.html").text
    assert "<script>window.pwned" not in replay and "\\u003cscript\\u003ewindow.pwned" in replay


def test_reconnecting_shows_the_same_question_and_it_is_answered_once(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11, seed=7)
    url = f"/ws/{made['id']}?token={token_of(made['seats']['1'])}"
    with client.websocket_connect(url) as ws:
        first = next_ask(ws)
    with client.websocket_connect(url) as ws:
        again = next_ask(ws)
        assert again["rid"] == first["rid"] and again["kind"] == first["kind"]
        ws.send_json({"type": "answer", "rid": again["rid"], "value": simple_answer(again)})
        messages = play_seat(ws)
    decisions = [d for d in transcript_decisions(client, made["id"]) if d.seat == 1
                 and d.kind not in SELF_DESTRUCT_KINDS]  # answered by the standing choice, never asked
    assert decisions[0].kind == first["kind"] and not decisions[0].defaulted
    asked = [m for m in messages if m["type"] == "ask"]
    assert first["rid"] not in {m["rid"] for m in asked}  # never asked a second time
    assert len(decisions) == 1 + len(asked)


def test_a_timed_out_decision_gets_its_default_recorded_as_such(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11, seed=7, action_seconds=0.3)
    with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
        ask = next_ask(ws)
        assert ask["seconds"] == 0.3 and 0 < ask["remaining"] <= 0.3
        settled = next_of(ws, "settled")  # nobody answers
        assert settled["rid"] == ask["rid"] and settled["why"] == "timeout"
        ws.send_json({"type": "answer", "rid": ask["rid"], "value": simple_answer(ask)})
        assert "no longer open" in next_of(ws, "refused")["error"]
        play_seat(ws)
    first = [d for d in transcript_decisions(client, made["id"]) if d.seat == 1][0]
    assert first.defaulted and "time limit" in (first.error or "") and first.value == ask["default"]


@pytest.mark.parametrize("timer", [True, False])
def test_speeches_are_timed_by_the_rules_limit_only_when_the_table_turns_the_timer_on(client: TestClient,
                                                                                     timer: bool) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11, seed=7, rules=["speech_seconds=flat_120"],
                  speech_timer=timer)
    with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
        while True:
            ask = next_ask(ws)
            if ask["legal"]["type"] == "text":
                assert ask["seconds"] == (120 if timer else None)
                break
            assert ask["seconds"] is None  # no action limit on this table
            ws.send_json({"type": "answer", "rid": ask["rid"], "value": simple_answer(ask)})


def test_a_player_gone_longer_than_the_grace_gets_defaults(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11, seed=7, grace_seconds=0.2)
    room = client.app.state.lobby.rooms[made["id"]]
    with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
        next_ask(ws)
    deadline = time.monotonic() + 60
    while room.status != "finished" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert room.status == "finished"
    mine = [d for d in transcript_decisions(client, made["id"]) if d.seat == 1]
    offers = [d for d in mine if d.kind in SELF_DESTRUCT_KINDS]  # the standing choice answers: not armed
    assert all(d.value is False for d in offers)
    asked = [d for d in mine if d.kind not in SELF_DESTRUCT_KINDS]
    assert asked and all(d.defaulted and "away longer than the grace" in (d.error or "") for d in asked)


def test_the_lobby_names_what_is_wrong(client: TestClient) -> None:
    bad = [({"preset": "nope"}, "unknown preset"), ({"seats": ["bot:heuristic"] * 3}, "has 12 seats"),
           ({"seats": ["bot:nonsense"] * 12}, "seat 1"), ({"rules": ["sheriff=maybe"]}, "sheriff"),
           ({"pace": -1}, "pace"), ({"colour": "red"}, "colour")]
    for body, words in bad:
        response = client.post("/api/tables", json={"preset": PRESET, **body})
        assert response.status_code == 400 and words in response.json()["error"], (body, response.text)
    assert client.post("/api/tables", content=b"{", headers={"content-type": "application/json"}).status_code == 400
    assert client.get("/").status_code == 200 and "/*__LABELS__*/" not in client.get("/").text
    presets = client.get("/api/presets").json()
    assert any(p["id"] == PRESET and p["players"] == 12 for p in presets)


def test_a_game_being_played_is_not_served_as_a_replay(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11)
    name = f"{PRESET}-{made['id']}"
    with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
        next_ask(ws)
        assert client.get(f"/games/{name}.jsonl").status_code == 404
        assert client.get(f"/games/{name}.html").status_code == 404
        assert name not in json.dumps(client.get("/api/tables").json()["finished"])
        tables = client.get("/api/tables").json()["tables"]
        mine = [t for t in tables if t["id"] == made["id"]][0]
        assert set(mine) == {"id", "preset", "lang", "players", "status", "specs", "humans", "waiting_for",
                             "watchers", "error", "result"} and mine["result"] is None
        assert made["seats"]["1"].rsplit("/", 1)[1] not in json.dumps(tables)
    assert client.get("/games/..%2Fsecret.jsonl").status_code == 404


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        message = ws.receive_json()
        if message["type"] == kind:
            return message
        assert message["type"] != "result", f"the game ended before a {kind!r} message"


def next_ask(ws: Any) -> dict[str, Any]:
    return next_of(ws, "ask")


def transcript_decisions(client: TestClient, table: str) -> list[Any]:
    room = client.app.state.lobby.rooms[table]
    deadline = time.monotonic() + 30
    while room.status in ("waiting", "running") and time.monotonic() < deadline:
        time.sleep(0.02)
    return list(read_transcript(room.path).decisions)


def test_arena_serve_prints_its_url_and_warns_off_loopback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from arena.cli.main import app

    started: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda application, **kw: started.append(kw))
    runner = CliRunner()
    result = runner.invoke(app, ["serve", "--port", "8765", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8765/?token=" in result.output and "warning" not in result.output
    assert started[-1]["host"] == "127.0.0.1" and started[-1]["port"] == 8765
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--out", str(tmp_path)])
    assert result.exit_code == 0 and "warning: listening on 0.0.0.0" in result.output
    warning = " ".join(result.output.split())
    assert "run model seats on this machine's API keys" in warning and "token" in warning
    result = runner.invoke(app, ["serve", "--port", "70000"])
    assert result.exit_code == 2 and "--port" in result.output


def test_bots_pause_for_what_the_table_saw_and_never_for_hidden_events(tmp_path: Path) -> None:
    """The reading pause must not grow with hidden events: its length would tell players they happened."""
    import asyncio

    from arena.events import Speech, WitchSaved, only
    from arena.web.room import Room, TableSpec

    slept: list[float] = []

    async def run() -> None:
        room = Room(TableSpec(pace=1.0), tmp_path)
        real_sleep = asyncio.sleep

        async def record(seconds: float) -> None:
            slept.append(seconds)
            await real_sleep(0)

        asyncio.sleep = record  # type: ignore[assignment]
        try:
            room._on_event(WitchSaved(phase="N1", visibility=only(4), seat=4, target=6))
            await room.pause()
            room._on_event(Speech(phase="D1", seat=2, kind="discussion", text="hello"))
            room._on_event(WitchSaved(phase="N1", visibility=only(4), seat=4, target=6))
            await room.pause()
        finally:
            asyncio.sleep = real_sleep  # type: ignore[assignment]

    asyncio.run(run())
    speech = Speech(phase="D1", seat=2, kind="discussion", text="hello")
    from arena.web.room import reading_seconds

    assert slept == [0.0, reading_seconds(speech)]


def test_a_person_plays_with_a_language_model_and_bots_at_one_table(tmp_path: Path) -> None:
    """A model seat the operator configured (an OpenAI-compatible server on loopback) is asked alongside
    the person and the bots; the lobby names it, the transcript records its spec and its name."""
    from tests.llm_loopback import LoopbackServer, Reply, openai_completion

    with LoopbackServer() as model:
        model.default = Reply(body=openai_completion('{"reasoning": "quiet", "action": "pass", "notes": ""}'))
        seats = {"loopback": ModelSeat(provider="local", model="loopback", endpoint=f"{model.url}/v1")}
        with operator_client(tmp_path, seats=seats) as client:
            sign_in(client)
            assert {"name": "loopback", "kind": "local"} in client.get("/api/seats").json()
            made = create(client, seats=["human", "loopback"] + ["bot:heuristic"] * 10, seed=9)
            with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats']['1'])}") as ws:
                messages = play_seat(ws)
            assert model.seen, "the model seat was never asked"
            path = client.app.state.lobby.rooms[made["id"]].path
    assert messages[-1]["result"]["winner"] in ("village", "wolves")
    transcript = read_transcript(path)
    assert transcript.header.agents[1].spec.startswith("local:loopback@")
    assert transcript.header.agents[1].label == "loopback"
    assert [d for d in transcript.decisions if d.seat == 2] and [d for d in transcript.decisions if d.seat == 1]
