"""Every refusal the browser may show is worded in both languages, its detail too (issue #28): the
Guard's own (a foreign Host, a body over the limit), the lobby API's (no token, not JSON, a field out of
range, an unknown seat, too deep) and the socket's (a spectator, a closed question). The page shows its
language's ``error_text``; ``error`` stays the English one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from arena.web.guard import MAX_BODY_BYTES  # noqa: E402
from tests.test_web import PRESET, client, create, next_of, operator_client  # noqa: E402,F401

#: English words that a Chinese refusal quoted from the server before: none may be left in zh text.
ENGLISH_WORDS = re.compile(r"\b(the|is|not|must|seat|field|request|server|may|only|than)\b")


def both(body: dict[str, Any], zh_words: str, en_words: str) -> None:
    texts = body["error_text"]
    assert zh_words in texts["zh"], texts
    assert en_words.lower() in texts["en"].lower() and en_words.lower() in body["error"].lower(), texts
    assert not ENGLISH_WORDS.search(re.sub(r"`[^`]*`", "", texts["zh"])), texts["zh"]  # commands stay as typed


def test_the_guards_refusals_are_in_both_languages(client: TestClient) -> None:
    foreign = client.get("/api/tables", headers={"host": "evil.example"})
    assert foreign.status_code == 421
    both(foreign.json(), "不接受这个 `Host` 名称", "does not answer to that Host name")
    big = client.post("/api/tables", content=b"{}", headers={"content-type": "application/json",
                                                             "content-length": str(MAX_BODY_BYTES + 1)})
    assert big.status_code == 413
    both(big.json(), "超过 64 `KiB`", "larger than 64 KiB")


def test_the_lobby_apis_refusals_name_their_detail_in_chinese(client: TestClient, tmp_path: Path) -> None:
    with operator_client(tmp_path / "other") as stranger:  # no operator cookie
        denied = stranger.get("/api/tables")
    assert denied.status_code == 401
    both(denied.json(), "只有主持人", "only the operator")
    cases = [({"preset": PRESET, "seed": -1}, "种子：不能小于 0", "seed: must be at least 0"),
             ({"preset": PRESET, "colour": "red"}, "没有这个字段", "colour: no such field"),
             ({"preset": PRESET, "lang": "fr"}, "语言：只能是", "language: must be one of"),
             ({"preset": PRESET, "seats": ["human"] * 3}, "却给了 3 个座位设置", "3 seat specs were given"),
             ({"preset": PRESET, "seats": ["nobody"] * 12}, "1号座位：'nobody' 不是本服务器提供的座位",
              "'nobody' is not a seat this server offers")]
    for body, zh, en in cases:
        refused = client.post("/api/tables", json=body)
        assert refused.status_code == 400, refused.text
        both(refused.json(), zh, en)
    deep = client.post("/api/tables", content=b"[" * 100, headers={"content-type": "application/json"})
    both(deep.json(), "JSON 嵌套超过 32 层", "nested more than 32 levels")
    plain = client.post("/api/tables", content=b"{}", headers={"content-type": "text/plain"})
    assert plain.status_code == 415
    both(plain.json(), "JSON 格式", "JSON body")


def test_the_sockets_refusals_are_in_both_languages(client: TestClient) -> None:
    made = create(client, seats=["human"] + ["bot:heuristic"] * 11)
    with client.websocket_connect(f"/ws/{made['id']}") as spectator:
        spectator.send_json({"type": "answer", "rid": "x", "value": 1})
        both(next_of(spectator, "refused"), "观战者不能操作", "a spectator cannot act")
    token = made["seats"]["1"].rsplit("/", 1)[1]
    with client.websocket_connect(f"/ws/{made['id']}?token={token}") as seat:
        seat.send_json({"type": "answer", "rid": "stale", "value": 1})
        both(next_of(seat, "refused"), "这个问题已经结束", "no longer open")
        seat.send_json({"type": "self_destruct", "armed": "yes"})
        both(next_of(seat, "refused"), "`armed` 只能是 true 或 false", "armed must be true or false")
    with client.websocket_connect("/ws/no-such-table") as gone:
        both(next_of(gone, "error"), "没有这张牌桌", "no such table")
