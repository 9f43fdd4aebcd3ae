"""Win reasons are an enum with localised words (python-chess's Termination): the transcript carries the id,
and no Chinese narration, result line, viewer text or prompt shows an id or English words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.llm_prompts import EventRenderer, prompt_book
from arena.cli.main import app
from arena.events import GameEnded, SheriffElected
from arena.narration import Narrator, templates
from arena.types import WinReason, Winner
from arena.viewer import EventText
from tests.helpers import random_game

LATIN = re.compile(r"[A-Za-z_]{2,}")
#: Every reason id an event can carry: a game's, an election's, an exile's, lost skills'.
OTHER_REASONS = ["elected", "unopposed", "elected_after_pk", "no_candidate", "all_withdrew", "nobody_may_vote", "tie",
                 "no_ballot", "second_tie", "second_tie_retry", "no_exile", "third_tie", "revote_limit", "exiled",
                 "idiot_revealed", "scapegoat", "elder_penalty", "fire_wolf"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_reason_has_words_in_every_language(lang: str) -> None:
    table = templates(lang)["reason"]
    missing = [r for r in [*(w.value for w in WinReason), *OTHER_REASONS] if not table.get(r)]
    assert not missing, f"{lang}: no words for {missing}"
    if lang == "zh":
        assert not [r for r, text in table.items() if LATIN.search(text.replace("PK", ""))]


def test_chinese_texts_of_a_game_end_hold_no_id_or_english() -> None:
    for reason in WinReason:
        e = GameEnded(phase="D3", winner=Winner.WOLVES, reason=reason)
        lines = [Narrator("zh").line(e), EventText("zh").line(e), EventText("zh").reason(e.reason),
                 EventRenderer(prompt_book("zh"), seat=1).line(e)]
        for line in lines:
            assert line and not LATIN.search(line), (reason, line)
    for reason in OTHER_REASONS[3:10]:
        e = SheriffElected(phase="D1", seat=None, reason=reason)
        for line in (Narrator("zh").line(e), EventText("zh").line(e), EventRenderer(prompt_book("zh"), seat=1).line(e)):
            assert line and not LATIN.search(line), (reason, line)


def test_a_game_records_the_reason_id() -> None:
    result, text = random_game("std-12-guard", 4, transcript=True)
    ended = [json.loads(x)["event"] for x in text.splitlines() if "\"game_ended\"" in x]
    assert ended and ended[-1]["reason"] in {w.value for w in WinReason}
    assert result.reason in {w.value for w in WinReason}


def test_older_transcripts_read_their_english_reason_as_the_id() -> None:
    e = GameEnded.model_validate({"phase": "D2", "type": "game_ended", "winner": "village",
                                  "reason": "no wolf or third party alive"})
    assert e.reason is WinReason.NO_WOLVES_OR_THIRD_PARTY


def test_the_chinese_result_line_is_chinese(tmp_path: Path) -> None:
    out = CliRunner().invoke(app, ["play", "-s", "7", "-l", "zh", "-a", "bot:random", "-q", "-o", str(tmp_path)])
    assert out.exit_code == 0, out.output
    (line,) = [x for x in out.output.splitlines() if x.startswith("胜方：")]
    words = line.split("·")[0]
    assert not LATIN.search(words), line
