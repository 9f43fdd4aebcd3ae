"""The terminal seat's smaller lines (issue #28), in both languages: an auto-answered question is named,
no "a sheriff speaks last" on a day without a sheriff, the wolves' final show is not worded like a
proposal, a dead seat in the live view says so once, and the result line nests no parentheses."""

from __future__ import annotations

import re

import pytest

from arena.actions import ChooseOption
from tests.test_human import _ask, _request, _watch
from tests.test_standing_self_destruct import ScriptedPlayer, play_terminal


@pytest.mark.parametrize("lang, question", [("en", "#6 was knifed tonight. Use your antidote?"),
                                            ("zh", "6号今晚被刀。用解药救吗？")])
def test_an_auto_answered_question_is_named(lang: str, question: str) -> None:
    from agents.human import question_text

    request = _request("witch_save", ChooseOption(options=(False,)), False, victim=6)
    value, out = _ask(request, [], lang=lang)
    assert value is False and question_text(lang, request) in out
    assert ("answered for you" if lang == "en" else "已自动作答") in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_sheriff_speaks_last_without_a_sheriff_and_the_final_knife_is_its_own_line(lang: str, monkeypatch) -> None:
    import tests.test_standing_self_destruct as harness

    player = ScriptedPlayer(5, lang=lang)
    real = harness.GameSetup
    monkeypatch.setattr(harness, "GameSetup", lambda **kw: real(**kw, rules={"sheriff": False}))
    play_terminal(player)
    screen = player.stdout.getvalue()
    order_lines = [ln for ln in screen.splitlines() if ln.startswith(("Speaking order today", "今天的发言顺序"))]
    assert order_lines
    assert not [ln for ln in order_lines if "sheriff" in ln or "警长" in ln], order_lines
    finals = [ln for ln in screen.splitlines() if "shows the final knife" in ln or "号亮刀" in ln]
    proposals = [ln for ln in screen.splitlines() if "proposes" in ln or "提议刀" in ln]
    assert finals and proposals and all(ln.lstrip("> ").startswith("🐺") for ln in finals + proposals)
    assert ("must match, or no kill" if lang == "en" else "须一致，否则空刀") in screen  # with the final show's choices


def test_a_dead_seat_in_the_live_view_is_marked_once() -> None:
    frames, result = _watch(god_view=True)
    last = frames.split("Game over")[0][-20000:]
    assert "✝ dead" in last
    cells = re.findall(r"✝[^\n│]*", last)
    assert not [c for c in cells if c.strip() == "✝"], "a death marker beside '✝ dead'"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_result_line_nests_no_parentheses(lang: str) -> None:
    from arena.narration import Narrator

    narrator = Narrator(lang, god_view=False, seat=1)
    for reason in ("side_kill_gods", "town_kill", "no_wolves_or_third_party"):
        line = narrator.t["result_line"].format(winner_id="wolves", winner="狼人", reason=narrator.reason(reason),
                                                seed=3, path="x.jsonl")
        depth = deepest = 0
        for ch in line:
            depth += ch in "(（"
            depth -= ch in ")）"
            deepest = max(deepest, depth)
        assert deepest <= 1, line


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("watched", [False, True])
def test_the_terminal_prints_the_role_card_the_browser_shows_at_the_reveal(lang: str, watched: bool) -> None:
    """The card's lines come from agents/role_card.py, the browser's function: the models' words for the
    card (llm_roles.yaml), the board's rules for it, the knife's unanimity and the terminal's self-destruct
    word; printed once, before the first question (at the reveal itself when ``arena play`` wires
    ``watch`` and gives the table's switches)."""
    import asyncio

    import tests.test_standing_self_destruct as harness
    from agents.human import human_templates
    from agents.llm_prompts import prompt_book
    from agents.registry import make_agent
    from arena.config import resolve_rules

    player = ScriptedPlayer(harness.WOLF_SEAT, lang=lang)
    if watched:
        player.switches = resolve_rules(harness.PRESET, {}).switches.model_dump(mode="json")
        agents = [player if seat == harness.WOLF_SEAT else make_agent("bot:heuristic", seat=seat, seed=2)
                  for seat in range(1, 13)]
        asyncio.run(harness.run_game(harness.GameSetup(preset=harness.PRESET, seed=2, deal=harness.DEAL), agents,
                                     on_event=player.watch))
    else:
        play_terminal(player)
    screen = player.stdout.getvalue()
    words = human_templates(lang)
    assert screen.count(words["role_card"]) == 1
    card = screen.split(words["role_card"], 1)[1]
    assert prompt_book(lang).roles["roles"]["werewolf"].strip().splitlines()[0] in card
    assert words["role_card_knife"] in card and words["role_card_self_destruct"] in card
    if watched:  # at the reveal: before the first night's narration goes on
        assert screen.index(words["role_card"]) < screen.index(words["welcome"].split("{")[0]) + 400
