"""Self-destruct is a standing action for a human wolf (R66-R67), in the terminal and in the browser:
the referee's offer before every day speech is answered at once by the player's standing choice, so a
human wolf is asked only real decisions; the command (terminal) or the button (browser) arms it, and
right before the seat's own speech the speech is asked with the self-destruct beside it."""

from __future__ import annotations

import asyncio
import io
from collections import Counter
from typing import Any

from agents.human import SELF_DESTRUCT_KINDS, HumanAgent
from agents.registry import make_agent
from arena.actions import ChooseBool, ChooseOption, ChooseSeat, ChooseSeats, DecisionRequest, Speak, SpeechOrderChoice
from arena.engine import GameSetup
from arena.referee import run_game

PRESET = "std-12-guard"
WOLF_SEAT = 5
#: seat 5 holds a werewolf card
DEAL = ["villager", "seer", "werewolf", "witch", "werewolf", "villager", "hunter", "werewolf", "guard",
        "villager", "werewolf", "villager"]


def typed_answer(request: DecisionRequest) -> str:
    """What a player who always takes the first choice types."""
    legal = request.legal
    if isinstance(legal, Speak):
        return "I am a plain villager."
    if isinstance(legal, ChooseBool):
        return "n"
    if isinstance(legal, ChooseSeat):
        return str(legal.options[0]) if legal.options else "skip"
    if isinstance(legal, ChooseSeats):
        return " ".join(str(s) for s in legal.options[: legal.min_count]) or "skip"
    if isinstance(legal, ChooseOption):
        return str(legal.options[0])
    if isinstance(legal, SpeechOrderChoice):
        return f"{legal.starts[0]} asc"
    raise AssertionError(legal)


class ScriptedPlayer(HumanAgent):
    """The terminal seat with its keyboard scripted: every question put on the screen is recorded, and
    answered by ``typed_answer``; ``first_day_line`` is typed at the first question of the day instead."""

    def __init__(self, seat: int, first_day_line: str | None = None, lang: str = "en", boom_as_speech: bool = False):
        super().__init__(seat, lang=lang, stdin=io.StringIO(""), stdout=io.StringIO())
        self.asked: list[DecisionRequest] = []
        self.first_day_line = first_day_line
        self.boom_as_speech = boom_as_speech
        self.offered_with_speech = False

    def _ask(self, request: DecisionRequest, view: Any, *, again: bool = False, extra: str = "") -> None:
        super()._ask(request, view, again=again, extra=extra)
        if not again:
            self.asked.append(request)
        self.offered_with_speech = bool(extra)

    async def _read_answer(self) -> str | None:
        request = self.asked[-1]
        if self.boom_as_speech and self.offered_with_speech:
            return "自爆" if self.lang == "zh" else "boom"
        if self.first_day_line and request.asked_in.startswith("D"):
            line, self.first_day_line = self.first_day_line, None
            return line
        return typed_answer(request)


def play_terminal(player: ScriptedPlayer, seed: int = 2):
    agents = [player if seat == WOLF_SEAT else make_agent("bot:heuristic", seat=seat, seed=seed)
              for seat in range(1, 13)]
    return asyncio.run(run_game(GameSetup(preset=PRESET, seed=seed, deal=DEAL), agents))


def test_the_terminal_wolf_is_asked_no_self_destruct_question_and_the_offers_are_answered_no() -> None:
    player = ScriptedPlayer(WOLF_SEAT)
    result = play_terminal(player)
    kinds = Counter(r.kind for r in player.asked)
    assert not set(kinds) & SELF_DESTRUCT_KINDS, kinds
    offers = [d for d in result.game.decisions if d.request.seat == WOLF_SEAT and d.request.kind in SELF_DESTRUCT_KINDS]
    assert offers, "the referee offered the wolf no self-destruct: the game this test needs did not happen"
    assert all(d.value is False and not d.refused for d in offers)  # answered at once: not armed
    screen = player.stdout.getvalue()
    assert "You may self-destruct during any speech today" in screen
    assert kinds["speech"] >= 1  # the own speech, asked in the offer's place


def test_the_terminal_command_arms_the_self_destruct_for_the_next_speech() -> None:
    player = ScriptedPlayer(WOLF_SEAT, first_day_line="boom")
    result = play_terminal(player)
    blown = [e for e in result.game.log if e.type == "self_destructed"]
    assert blown and blown[0].seat == WOLF_SEAT
    assert "Self-destruct armed" in player.stdout.getvalue()
    assert not any(r.kind in SELF_DESTRUCT_KINDS for r in player.asked)


def test_the_terminal_command_as_the_own_speech_self_destructs_before_it_in_both_languages() -> None:
    for lang in ("en", "zh"):
        player = ScriptedPlayer(WOLF_SEAT, lang=lang, boom_as_speech=True)
        result = play_terminal(player)
        log = result.game.log
        blown = next(i for i, e in enumerate(log) if e.type == "self_destructed")
        assert log[blown].seat == WOLF_SEAT
        assert not any(e.type == "speech" and e.seat == WOLF_SEAT and e.phase == log[blown].phase
                       for e in log[:blown])
        screen = player.stdout.getvalue()
        assert ("输入「自爆」：不发言，直接自爆" if lang == "zh" else "type 'boom' to self-destruct instead") in screen


# ---- the browser ---------------------------------------------------------------------------------
def wolf_seed_list(seat: int, count: int) -> list[int]:
    """The first seeds whose deal gives ``seat`` a werewolf card (a web table is dealt by its seed)."""
    from arena.engine import Game

    seeds = (s for s in range(1, 1000) if Game(GameSetup(preset=PRESET, seed=s)).state.players[seat].card.value == "werewolf")
    return [next(seeds) for _ in range(count)]


def wolf_seed(seat: int) -> int:
    return wolf_seed_list(seat, 1)[0]


def web_table(tmp_path, seat: int):
    import pytest

    pytest.importorskip("starlette")
    from tests.test_web import create, operator_client, sign_in, token_of

    client = operator_client(tmp_path)
    client.__enter__()
    sign_in(client)
    seats = ["bot:heuristic"] * 12
    seats[seat - 1] = "human"
    made = create(client, seats=seats, seed=wolf_seed(seat))
    return client, made, f"/ws/{made['id']}?token={token_of(made['seats'][str(seat)])}"


def test_the_browser_wolf_is_asked_no_self_destruct_question(tmp_path) -> None:
    from tests.test_web import play_seat, transcript_decisions

    client, made, url = web_table(tmp_path, WOLF_SEAT)
    try:
        with client.websocket_connect(url) as ws:
            messages = play_seat(ws)
        asks = [m for m in messages if m["type"] == "ask"]
        kinds = Counter(m["kind"] for m in asks)
        assert not set(kinds) & SELF_DESTRUCT_KINDS, kinds
        offers = [d for d in transcript_decisions(client, made["id"]) if d.seat == WOLF_SEAT and d.kind in SELF_DESTRUCT_KINDS]
        assert offers and all(d.value is False for d in offers)
        standing = [m for m in messages if m["type"] == "standing"]
        assert any(m["self_destruct"]["eligible"] and m["self_destruct"]["day"] for m in standing)
        print(f"browser human wolf: {len(asks)} questions: {dict(kinds)}; {len(offers)} offers answered by the standing choice")
    finally:
        client.__exit__(None, None, None)


def test_the_browser_button_arms_the_self_destruct_and_at_the_own_speech_acts_at_once(tmp_path) -> None:
    from tests.test_web import simple_answer, transcript_of

    client, made, url = web_table(tmp_path, WOLF_SEAT)
    try:
        with client.websocket_connect(url) as ws:
            while True:
                message = ws.receive_json()
                if message["type"] == "ask":
                    if message.get("self_destruct"):  # the own speech, with the button beside it
                        ws.send_json({"type": "self_destruct", "armed": True})
                        continue
                    ws.send_json({"type": "answer", "rid": message["rid"], "value": simple_answer(message)})
                if message["type"] == "result":
                    break
        log = [line.event for line in transcript_of(client, made["id"]).events]
        blown = [i for i, e in enumerate(log) if e.type == "self_destructed"]
        assert blown and log[blown[0]].seat == WOLF_SEAT
        # at once: the seat never gave the speech the button was pressed at
        before = log[:blown[0]]
        last_speech = [e for e in before if e.type == "speech"]
        assert not last_speech or last_speech[-1].seat != WOLF_SEAT or last_speech[-1].phase != log[blown[0]].phase
    finally:
        client.__exit__(None, None, None)


def test_the_browser_refuses_a_self_destruct_at_night_or_from_a_good_card(tmp_path) -> None:
    from tests.test_web import next_ask

    client, made, url = web_table(tmp_path, WOLF_SEAT)
    try:
        with client.websocket_connect(url) as ws:
            next_ask(ws)  # N1: the wolves' proposal
            ws.send_json({"type": "self_destruct", "armed": True})
            while (message := ws.receive_json())["type"] != "refused":
                pass
            assert "only by day" in message["error"]
    finally:
        client.__exit__(None, None, None)
