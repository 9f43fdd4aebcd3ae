"""What the seat page is told besides the game (issue #28), at the server level: the role card from the
models' own texts, the result's camps (won or lost), the lobby's finished games and its refusals in
both languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from agents.llm_prompts import prompt_book  # noqa: E402
from tests.test_standing_self_destruct import WOLF_SEAT, wolf_seed  # noqa: E402
from tests.test_web import client, create, play_seat, token_of  # noqa: E402,F401


def test_the_wolf_seat_gets_its_role_card_in_both_languages_and_the_result_says_its_camp(client) -> None:
    seats = ["bot:heuristic"] * 12
    seats[WOLF_SEAT - 1] = "human"
    made = create(client, seats=seats, seed=wolf_seed(WOLF_SEAT))
    with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats'][str(WOLF_SEAT)])}") as ws:
        messages = play_seat(ws)
    cards = [m["card"] for m in messages if m["type"] == "standing" and m["card"]]
    assert cards
    card = cards[-1]
    for lang, knife in (("en", "must match, or no kill"), ("zh", "须一致，否则空刀")):
        assert prompt_book(lang).roles["roles"]["werewolf"] in card[lang]  # the models' own words for the card
        assert knife in card[lang]
    assert "狼队（包括你）" in card["zh"] and "Your wolf team" in card["en"]
    result = messages[-1]["result"]
    assert result["camps"][str(WOLF_SEAT)] == "wolves" and set(result["camps"]) == {str(s) for s in range(1, 13)}


def test_a_finished_game_of_another_program_lists_no_spec_but_a_built_in_seat(client, tmp_path: Path) -> None:
    out = client.app.state.lobby.out_dir
    header = {"type": "header", "preset": "std-12-guard",
              "agents": [{"seat": 1, "spec": "local:qwen@http://10.0.0.5:8080/v1", "label": None},
                         {"seat": 2, "spec": "bot:random", "label": None}, {"seat": 3, "spec": "x", "label": "gpt-mini"}]}
    result = {"type": "result", "winner": "wolves", "phase": "D3", "abandoned": False}
    (out / "other-game.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(result) + "\n", encoding="utf-8")
    (game,) = [g for g in client.get("/api/tables").json()["finished"] if g["name"] == "other-game"]
    assert game["seats"] == ["model", "bot:random", "gpt-mini"] and game["winner"] == "wolves"
    assert "10.0.0.5" not in json.dumps(game)


def test_the_lobby_refuses_in_both_languages(client) -> None:
    response = client.post("/api/tables", json={"preset": "nope"})
    assert response.status_code == 400
    texts = response.json()["error_text"]
    assert texts["en"].startswith("The table cannot be made") and texts["zh"].startswith("无法创建牌桌")
    response = client.post("/api/tables", content="{}", headers={"content-type": "text/plain"})
    assert response.status_code == 415 and "JSON" in response.json()["error_text"]["zh"]
    client.cookies.clear()
    denied = client.get("/api/tables").json()
    assert denied["error_text"]["zh"].startswith("只有主持人")


def test_the_pages_name_cjk_fonts_and_the_docs_the_package_that_installs_one() -> None:
    root = Path(__file__).resolve().parent.parent
    docs = (root / "docs" / "web.md").read_text(encoding="utf-8")
    assert "apt-get install fonts-noto-cjk" in docs
    for page in ("arena/viewer_assets/viewer.css", "arena/web/assets/lobby.html"):
        text = (root / page).read_text(encoding="utf-8")
        assert '"Noto Sans CJK SC"' in text and '"WenQuanYi Zen Hei"' in text, page
