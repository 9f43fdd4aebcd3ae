"""The Chinese text reads the way a 狼人杀 table speaks (docs/zh-glossary.md): seats are "3号", never
"#3"; ballots read "3号投给12号"; lists use 、; a guard who protects nobody 空守; full-width ，。：？ between
Chinese characters; no English left in Chinese output beyond the JSON answer format.

Two layers: every string of every ``prompts/zh/*.yaml`` file is checked as written (so templates no game
reaches are held too), then a few heuristic-bot games in Chinese are rendered through every text path a
person or a model reads: the terminal narration, the replay page, the LLM prompt (full and summary memory:
system prompt, role card, event lines, state lines, question) and the human seat (its events, status,
question and choices). The glossary's quotes are checked against the seed documents themselves.
"""

from __future__ import annotations

import io
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from agents.heuristic import HeuristicBot
from agents.human import HumanAgent
from agents.llm_prompts import PromptBuilder
from arena.engine import GameSetup
from arena.events import Event, Speech
from arena.narration import PROMPTS_DIR, Narrator
from arena.observation import Observation
from arena.referee import play_sync
from arena.viewer import EventText

ROOT = Path(__file__).resolve().parent.parent
SEEDS_DIR = ROOT.parent / "shared" / "seeds"  # shared/ sits beside the checkout (CI lays a copy there)
CJK = "\u4e00-\u9fff"
#: "#3" written as a seat.
HASH_SEAT = re.compile(r"#\d")
#: ASCII punctuation touching a Chinese character: 3号, 5号 / 票数: / 吗? / (竞选) must be ，：？（）.
ASCII_PUNCT = re.compile(rf"[{CJK}][,:;?!()]|[,:;?!()][{CJK}]")
#: A space between a Chinese character and a seat or count ("刀了 3号", "守护 {target}").
CJK_SPACE_SEAT = re.compile(rf"[{CJK}] \d+号|[{CJK}] \{{[a-z_]*(seat|target|victim|wolves|lovers)[a-z_]*\}}")
WORD = re.compile(r"[A-Za-z][A-Za-z_]+")
#: English a Chinese prompt may hold: the JSON answer format the model must write (keys and literals), the
#: words the human seat may type (skip/pass, y/n), the replay page's key names, and the board id beside its
#: title on the page's subtitle (a board has no Chinese id).
ALLOWED_WORDS = {"reasoning", "action", "notes", "beliefs", "summary", "self_destruct_before", "claims", "declared", "true", "false", "null", "pass", "skip", "start",
                 "direction", "asc", "desc", "PK", "speech", "seat", "kind", "Home", "End", "JSON",
                 "self_destruct"}  # JSON keys and values the answer carries, as the model must write them


def _strings(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            if not str(key).startswith("_") and not str(key).endswith("_skip"):  # switches and event ids
                yield from _strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, f"{path}[{i}]")


#: Prompts never shown at a table: the model-judged claims reader scores finished games, and must name the
#: JSON keys, the card ids and the ways a speech may write a seat ("#5", "seat 5") as they are.
NOT_SHOWN_AT_A_TABLE = {"claims_reader.yaml"}


def zh_template_strings() -> list[tuple[str, str]]:
    out = []
    for file in sorted((PROMPTS_DIR / "zh").glob("*.yaml")):
        if file.name in NOT_SHOWN_AT_A_TABLE:
            continue
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        data.pop("patterns", None)  # bot_speech.yaml's regular expressions read any speech, not shown text
        for word_list in ("skip_words", "yes_words", "no_words", "asc_words", "desc_words", "self_destruct_words"):
            data.pop(word_list, None)  # what a human may type, in both languages
        out += [(f"{file.name}{path}", text) for path, text in _strings(data)]
    return out


def problems_in(where: str, text: str) -> list[str]:
    found = []
    for name, pattern in (("a #N seat", HASH_SEAT), ("ASCII punctuation between Chinese", ASCII_PUNCT),
                          ("a space before a seat", CJK_SPACE_SEAT)):
        for m in pattern.finditer(text):
            found.append(f"{where}: {name} {m.group(0)!r} in {text[max(0, m.start() - 30):m.end() + 30]!r}")
    return found


def english_in(where: str, text: str) -> list[str]:
    text = re.sub(r"\{[a-z_]+\}", "", text)  # placeholders
    text = re.sub(r"`[^`]*`", "", text)  # commands, flags and headers in backticks: typed as they are
    return [f"{where}: English word {w!r} in {text[:160]!r}" for w in WORD.findall(text) if w not in ALLOWED_WORDS]


# ---- every template as written ----------------------------------------------------------------

def test_every_zh_template_writes_seats_and_punctuation_the_chinese_way() -> None:
    problems = [p for where, text in zh_template_strings() for p in problems_in(where, text)]
    assert not problems, "\n".join(problems)


def test_no_english_left_in_zh_templates() -> None:
    problems = [p for where, text in zh_template_strings() for p in english_in(where, text)]
    assert not problems, "\n".join(problems)


def test_the_checks_catch_what_they_are_for() -> None:
    """The patterns above are what the other tests rely on: each must fire on its defect."""
    assert problems_in("x", "#3 投给 #12") and problems_in("x", "票数：1号: 9, 4号: 4")
    assert problems_in("x", "狼人刀了 3号。") and problems_in("x", "守护 {target}。")
    assert not problems_in("x", "3号投给12号（2票）。票数：1号9票、4号4票")
    assert english_in("x", "你是 seer。") and not english_in("x", '只回复 {"action": true}，不说就写 "pass"。')


# ---- what a game shows, through every renderer ------------------------------------------------

class RecordingBot(HeuristicBot):
    """A Chinese heuristic bot that also builds, for each question it is asked, the LLM prompt (full and
    summary memory) and the human seat's texts a Chinese seat would be shown there."""

    shown: list[tuple[str, str]]
    asked: dict[str, int]  # questions rendered so far per kind in this game: a few of each keep the test quick

    def decide_sync(self, observation: Observation, request: Any) -> Any:
        self.asked[request.kind] = self.asked.get(request.kind, 0) + 1
        if self.asked[request.kind] > 6:
            return super().decide_sync(observation, request)
        for memory in ("full", "summary"):
            built = PromptBuilder("zh", self.seat, memory=memory).build(observation, request)
            for message in built.messages:
                for part in message.parts:
                    self.shown.append((f"LLM {memory} prompt, {request.kind}", part.text))
        human = HumanAgent(self.seat, "zh", stdin=io.StringIO(), stdout=io.StringIO())
        human._events = observation.events
        view = observation.view()
        for label, text in (("status", human._status(view)), ("question", human._question_text(request)),
                            ("choices", human._choices_text(request))):
            self.shown.append((f"human seat {label}, {request.kind}", text))
        return super().decide_sync(observation, request)


#: Boards whose games reach the guard (空守), the sheriff, PK, the idiot, cupid, thief and the little girl.
GAMES = [("std-12-guard", 3), ("std-12-guard", 5), ("std-12-idiot", 2), ("cupid-thief-12", 4),
         ("test-mixed-12", 1)]


@lru_cache(maxsize=1)
def rendered() -> tuple[tuple[tuple[str, str], ...], tuple[Any, ...]]:
    """(where, text) of everything the games showed, and every event of them."""
    shown: list[tuple[str, str]] = []
    events: list[Event] = []
    for preset, seed in GAMES:
        setup = GameSetup(preset=preset, seed=seed)
        players = setup.resolve().players
        bots = []
        asked: dict[str, int] = {}
        for seat in range(1, players + 1):
            bot = RecordingBot(seat, seed, "zh")
            bot.shown, bot.asked = shown, asked
            bots.append(bot)
        result = play_sync(setup, bots, lang="zh")
        log = list(result.game.log)
        events += log
        narrator, page = Narrator("zh", god_view=True), EventText("zh")
        human = HumanAgent(1, "zh", stdin=io.StringIO(), stdout=io.StringIO())
        for e in log:
            for who, text in (("narration", narrator.line(e)), ("narration (all events)", narrator.text(e)),
                              ("replay page", page.line(e)), ("human seat 1", human._event_line(e))):
                if text:
                    shown.append((f"{who}, {e.type}", _without_speech(e, text)))
    return tuple(shown), tuple(events)


def _without_speech(e: Event, text: str) -> str:
    """A speech line without the speech itself (a player's words: checked below as bot speech)."""
    if isinstance(e, Speech) and e.text:
        return text.replace(e.text, "")
    return text


def _prompt_text(text: str) -> str:
    """A prompt without the players' speeches inside <speech>…</speech> (their words, not ours)."""
    return re.sub(r"(<speech[^>]*>).*?(</speech>)", r"\1\2", text, flags=re.S)


def test_everything_a_chinese_game_shows_writes_seats_and_punctuation_the_chinese_way() -> None:
    shown, _ = rendered()
    problems = sorted({p for where, text in shown for p in problems_in(where, _prompt_text(text))})
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_no_english_left_in_what_a_chinese_game_shows() -> None:
    shown, _ = rendered()
    problems = sorted({p for where, text in shown for p in english_in(where, _prompt_text(text))})
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_bot_speeches_in_chinese_are_chinese() -> None:
    _, events = rendered()
    speeches = [e.text for e in events if isinstance(e, Speech) and e.text]
    assert len(speeches) > 50
    problems = [p for text in speeches for p in problems_in("bot speech", text) + english_in("bot speech", text)]
    assert not problems, "\n".join(sorted(set(problems))[:40])


def _all_text(prefix: str) -> str:
    shown, _ = rendered()
    return "\n".join(text for where, text in shown if where.startswith(prefix))


@pytest.mark.parametrize("prefix", ["narration", "replay page", "LLM full prompt", "human seat"])
def test_ballots_read_n_hao_tou_gei_m_hao(prefix: str) -> None:
    text = _all_text(prefix)
    assert re.search(r"\d+号投给\d+号", text), f"no '3号投给12号' ballot in the {prefix} text"
    assert not re.search(r"^\s*\d+号 ?(→|->) ?\d+号\s*$", text, re.M), "a ballot written with an arrow"


def test_summary_memory_groups_ballots_with_dun_hao() -> None:
    # the votes so far, grouped by target, are full memory's state line; summary memory keeps every
    # ballot as its own line of the record instead (#25: each fact once)
    assert re.search(r"\d+号(、\d+号)+投给\d+号", _all_text("LLM full prompt")), \
        "no '1号、2号投给3号' ballot group in the full memory's votes so far"
    assert re.search(r"⚖ \d+号投给\d+号", _all_text("LLM summary prompt")), "no ballot line in the summary memory"


@pytest.mark.parametrize("prefix", ["narration", "replay page", "LLM full prompt", "human seat"])
def test_seat_lists_use_dun_hao(prefix: str) -> None:
    text = _all_text(prefix)
    assert re.search(r"\d+号、\d+号", text), f"no '1号、2号' list in the {prefix} text"
    assert not re.search(r"(?<![给\d])\d+号[,，] ?\d+号", text), f"a seat list with commas in the {prefix} text"


def test_tallies_read_n_hao_k_piao() -> None:
    for prefix in ("narration", "replay page", "LLM full prompt"):
        assert re.search(r"\d+号\d+(\.\d+)?票", _all_text(prefix)), f"no '3号2票' tally in the {prefix} text"


def test_a_guard_who_protects_nobody_kong_shou() -> None:
    """The heuristic guard protects nobody on night 1 (同守同救 would kill the witch's save)."""
    assert "守卫（" in _all_text("narration") and "）空守。" in _all_text("narration")
    assert "）空守" in _all_text("replay page")
    assert "今晚你空守。" in _all_text("LLM full prompt")
    assert re.search(r"第1夜空守", _all_text("LLM full prompt"))  # the guard's own state line
    assert "守护无人" not in _all_text("narration") + _all_text("replay page")


def test_narration_header_names_the_board_in_chinese() -> None:
    text = _all_text("narration")
    assert "=== 12人预女猎守屠边局（444）：" in text and "std-12-guard" not in text


def test_seed_terms_are_used() -> None:
    narration, prompt = _all_text("narration"), _all_text("LLM full prompt")
    for term in ("上警", "退水", "平安夜", "出局", "遗言", "警长"):
        assert term in narration + prompt, term
    for term in ("同守同救", "刀口", "屠边", "警徽", "查验"):
        assert term in prompt, term


# ---- the glossary ---------------------------------------------------------------------------

GLOSSARY_ROW = re.compile(r"^\|\s*(?P<term>[^|]+?)\s*\|\s*(?P<means>[^|]+?)\s*\|\s*(?P<seed>\d{3})\s*\|\s*「(?P<quote>[^」]+)」\s*\|",
                          re.M)


def glossary_rows() -> list[dict[str, str]]:
    return [m.groupdict() for m in GLOSSARY_ROW.finditer((ROOT / "docs" / "zh-glossary.md").read_text(encoding="utf-8"))]


def test_glossary_quotes_are_in_the_seed_documents() -> None:
    if not SEEDS_DIR.is_dir():
        pytest.skip("the seed documents are not on this machine")
    rows = glossary_rows()
    assert len(rows) >= 25
    seeds = {p.name[:3]: p.read_text(encoding="utf-8") for p in SEEDS_DIR.glob("*.txt")}
    wrong = [f"{r['term']}: {r['seed']} has no 「{r['quote']}」" for r in rows if r["quote"] not in seeds.get(r["seed"], "")]
    assert not wrong, "\n".join(wrong)


def test_glossary_terms_are_the_ones_the_templates_use() -> None:
    templates = "\n".join(text for _, text in zh_template_strings())
    unused = [r["term"] for r in glossary_rows() if not any(t in templates for t in r["term"].split("/"))]
    assert not unused, f"glossary terms no zh template uses: {unused}"


def test_rules_show_writes_its_chinese_lines_the_chinese_way() -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    out = CliRunner().invoke(app, ["rules", "show", "cupid-thief-12"]).output
    zh_lines = [ln for ln in out.splitlines() if re.search(f"[{CJK}]", ln) and not ln.isascii()
                and re.match(rf"[{CJK}]", ln)]
    assert len(zh_lines) >= 3, out
    assert "角色：猎人×1、女巫×1" in out
    problems = [p for ln in zh_lines for p in problems_in("arena rules show", ln)]
    assert not problems, "\n".join(problems)
