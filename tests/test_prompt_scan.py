"""Prompt defects (#25 item 6): bot-driven games on every shipped board, each decision rendered as
the prompt an LLM seat would get (en and zh, full memory), scanned for Python's ``None`` in the text,
unfilled ``{placeholders}``, and a witch told that nobody was attacked while her legal set names
seats (「今晚被刀的是无人」 under 「今晚4号被刀了」). The bots decide, so the games (and their
transcripts) are the bots' own."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from agents.heuristic import HeuristicBot
from agents.llm_prompts import PromptBuilder, prompt_book
from arena.engine import GameSetup
from arena.referee import play_sync
from tests.helpers import playable_presets

LANGS = ("en", "zh")
PLACEHOLDER = re.compile(r"\{[a-z_][a-z0-9_]*\}")
# Not \b: a CJK character is a word character, so "None之一" has no boundary after "None".
PYTHON_NONE = re.compile(r"(?<![A-Za-z])None(?![A-Za-z])")
PYTHON_BOOL = re.compile(r"(?<![A-Za-z])(True|False)(?![A-Za-z])")
WITCH_SAVES = ("witch_save", "witch_original_save")
# Seed 1: advanced-seed003's witch meets a night with two victims (the test checks that it does).
SEEDS = (1,)


class PromptScanner:
    """A bot seat that also renders, for each of its decisions, the LLM prompt in both languages."""

    def __init__(self, bot: Any, seat: int, found: list[str], seen: Counter):
        self.bot = bot
        self.seat = seat
        self.found = found
        self.seen = seen
        self.builders = {lang: PromptBuilder(lang, seat) for lang in LANGS}
        self.deterministic = getattr(bot, "deterministic", True)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def decide_sync(self, observation: Any, request: Any) -> Any:  # the referee's path for bots
        if request.kind != "belief":
            for lang, builder in self.builders.items():
                text = "\n".join(m.text for m in builder.build(observation, request).messages)
                self.check(lang, observation, request, text)
        return self.bot.decide_sync(observation, request)

    def check(self, lang: str, observation: Any, request: Any, text: str) -> None:
        where = f"{observation.preset} {lang} seat {self.seat} {request.phase} {request.kind}"
        self.seen[(observation.preset, request.kind)] += 1
        question = text.splitlines()[-1]
        for pattern, what, scope in ((PYTHON_NONE, "Python's None", text), (PLACEHOLDER, "an unfilled placeholder", text),
                                     (PYTHON_BOOL, "Python's bool", question)):
            hit = pattern.search(scope)
            if hit:
                line = next(ln for ln in scope.splitlines() if hit.group(0) in ln)
                self.found.append(f"{where}: {what} {hit.group(0)!r} in: {line[:200]}")
        if request.kind in WITCH_SAVES:
            legal = [o for o in getattr(request.legal, "options", ()) if isinstance(o, int) and not isinstance(o, bool)]
            nobody = prompt_book(lang).events["nobody"]
            if legal and nobody in question:
                self.found.append(f"{where}: the question says {nobody!r} while the legal set is {legal}: {question[:200]}")
            if len(legal) > 1:
                self.seen[(observation.preset, "several victims")] += 1


def scan(preset: str, seed: int, seen: Counter) -> list[str]:
    found: list[str] = []
    setup = GameSetup(preset=preset, seed=seed)
    n = setup.resolve().players
    agents = [PromptScanner(HeuristicBot(s, seed), s, found, seen) for s in range(1, n + 1)]
    play_sync(setup, agents)
    return found


def test_no_prompt_of_any_shipped_board_shows_none_a_placeholder_or_a_contradicted_nobody():
    seen: Counter = Counter()
    problems = [p for preset in playable_presets() for seed in SEEDS for p in scan(preset, seed, seen)]
    assert not problems, f"{len(problems)} defects, first ones:\n" + "\n".join(problems[:12])
    assert seen[("advanced-seed003", "several victims")], "no seed gave the 003 witch two victims to scan"
    assert seen[("advanced-seed003", "aux_police_appoint")] or seen[("advanced-seed003", "aux_police")], (
        sorted(k for (b, k) in seen if b == "advanced-seed003"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_scanner_catches_each_defect(lang):
    """The scan fails on each kind of defect it looks for (so a passing scan means something)."""
    found: list[str] = []
    scanner = PromptScanner(None, 5, found, Counter())

    class Obs:
        preset = "advanced-seed003"

    class Req:
        kind, phase = "witch_save", "N2"

        class legal:  # noqa: N801 - a stand-in legal set
            options = (10, 23, False)

    nobody = prompt_book(lang).events["nobody"]
    scanner.check(lang, Obs, Req, f"rules\n当前辅警：None。\nleft {{victim}} here\nattacked {nobody}. Legal: 10, 23, False")
    assert [p.split(": ")[1].split(" ")[0] for p in found] == ["Python's", "an", "Python's", "the"]
