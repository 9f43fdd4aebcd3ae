"""What a speech claims, read from its text: role claims ("I am the seer", 我是预言家) and check claims
("I checked 5: wolf", 5号查杀, 金水3号), plus the seats a text mentions.

Speech is free text, so this is pattern matching in English and Chinese, tuned to how players (and
the prompts in ``prompts/``) phrase claims. It misses paraphrases and so undercounts claims; it is
built not to invent them (negations like "I am not the seer" do not match). Metrics that rest on
it say so in docs/metrics.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import yaml

from arena.resources import data_dir

PROMPTS_DIR = data_dir("prompts")

ROLE_WORDS_EN = {
    "seer": "seer", "prophet": "seer", "witch": "witch", "hunter": "hunter", "guard": "guard",
    "bodyguard": "guard", "idiot": "idiot", "villager": "villager", "werewolf": "werewolf", "wolf": "werewolf",
}
ROLE_WORDS_ZH = {
    "预言家": "seer", "女巫": "witch", "猎人": "hunter", "守卫": "guard", "白痴": "idiot",
    "平民": "villager", "村民": "villager", "民": "villager", "狼人": "werewolf", "狼": "werewolf",
}
RESULT_WORDS = {
    "wolf": "wolf", "werewolf": "wolf", "bad": "wolf", "查杀": "wolf", "狼": "wolf", "狼人": "wolf",
    "good": "good", "innocent": "good", "clear": "good", "gold": "good", "villager": "good", "金水": "good",
    "好人": "good", "not a wolf": "good",
}

_EN_ROLE = "|".join(sorted(ROLE_WORDS_EN, key=len, reverse=True))
_ZH_ROLE = "|".join(sorted(ROLE_WORDS_ZH, key=len, reverse=True))
_SEAT_EN = r"(?:seat|player|no\.?|#)?\s*#?(\d{1,2})"
_RESULT_EN = r"(not a wolf|wolf|werewolf|bad|good|innocent|clear|gold|villager)"

ROLE_CLAIM_PATTERNS = [
    re.compile(rf"\bI(?:'m| am)\s+(?:the\s+|a\s+|an\s+)?(?:real\s+|true\s+|actual\s+)?({_EN_ROLE})\b", re.I),
    re.compile(rf"\bas\s+(?:the\s+)?({_EN_ROLE}),?\s+I\b", re.I),
    re.compile(rf"\bI\s+(?:claim|am claiming)\s+(?:the\s+)?({_EN_ROLE})\b", re.I),
    re.compile(rf"我(?:是|就是|才是|真的是)(?:真)?({_ZH_ROLE})"),
    re.compile(rf"(?:起跳|跳|认)(预言家|女巫|猎人|守卫|白痴)"),
    re.compile(rf"(?:作为|身为)(?:真)?({_ZH_ROLE})"),
]

CHECK_PATTERNS_EN = [
    # "I checked seat 5: wolf", "checked 5 last night and 5 is good", "my check on 7 is a werewolf"
    re.compile(rf"\b(?:checked|check on|checked on|verified|inspected|my check(?: on)?)\s+{_SEAT_EN}\b"
               rf"[^.;!?\n]{{0,40}}?\b{_RESULT_EN}\b", re.I),
    # "5 is my check: wolf"
    re.compile(rf"\b{_SEAT_EN}\s+is\s+my\s+check[^.;!?\n]{{0,20}}?\b{_RESULT_EN}\b", re.I),
]
CHECK_PATTERNS_ZH = [
    # 5号查杀 / 5号是查杀 / 5号是我的金水
    re.compile(r"(\d{1,2})\s*号?\s*(?:是)?\s*(?:我的)?\s*(查杀|金水)"),
    # 查杀5号 / 金水给3号
    re.compile(r"(查杀|金水)\s*(?:给|是)?\s*(\d{1,2})\s*号"),
    # 验了5号，是狼 / 昨晚验5号是好人 / 查验5号，狼人
    re.compile(r"(?:验了?|查验了?|查了)\s*(\d{1,2})\s*号[，,。:：\s]*(?:他|她|结果)?\s*(?:是)?\s*(狼人|狼|好人|金水|查杀)"),
]

MENTION_PATTERNS = [
    re.compile(r"\b(?:seat|player|no\.?)\s*#?(\d{1,2})\b", re.I),
    re.compile(r"#(\d{1,2})\b"),
    re.compile(r"(\d{1,2})\s*号"),
]


@lru_cache(maxsize=1)
def book_patterns() -> dict[str, list[re.Pattern[str]]]:
    """The claim patterns of the bots' speech books (``prompts/<lang>/bot_speech.yaml``), all languages.

    The books pair every speech template with the patterns that read it back, so using them keeps
    the evaluator in step with what ``bot:heuristic`` says. Missing or unreadable books add nothing.
    """
    out: dict[str, list[re.Pattern[str]]] = {}
    for path in sorted(PROMPTS_DIR.glob("*/bot_speech.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            continue
        for key, regexes in (data.get("patterns") or {}).items():
            for rx in regexes or []:
                try:
                    out.setdefault(key, []).append(re.compile(rx, re.I))
                except re.error:
                    continue
    return out


BOOK_ROLE_KEYS = {"seer_claim": "seer", "witch_claim": "witch", "hunter_claim": "hunter", "guard_claim": "guard",
                  "idiot_claim": "idiot", "villager_claim": "villager"}


@dataclass
class Claims:
    roles: list[str] = field(default_factory=list)
    #: (seat, "wolf" | "good") said with a checking word ("checked", 查杀, 金水): a seer's report.
    checks: list[tuple[int, str]] = field(default_factory=list)
    #: "5 is a wolf" with no checking word: a check only from someone who claims seer.
    loose_checks: list[tuple[int, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.roles and not self.checks and not self.loose_checks

    def checks_given(self, seer_claimed_before: bool) -> list[tuple[int, str]]:
        """The check claims of this speech, given whether the speaker claimed seer earlier."""
        if seer_claimed_before or "seer" in self.roles:
            return self.checks + [c for c in self.loose_checks if c not in self.checks]
        return list(self.checks)


def _result(word: str) -> str | None:
    return RESULT_WORDS.get(word.lower()) or RESULT_WORDS.get(word)


def _cjk_only(pattern: re.Pattern[str]) -> bool:
    """True when a pattern needs non-ASCII text to match (a Chinese pattern), so ASCII text can skip it."""
    src = re.sub(r"\\.", "", pattern.pattern)  # drop escapes such as \d, \b
    return any(ord(ch) > 127 for ch in src) and not re.search(r"[A-Za-z]", src)


def _for_text(patterns: list[re.Pattern[str]], ascii_text: bool) -> list[re.Pattern[str]]:
    return [p for p in patterns if not (ascii_text and _cjk_only(p))]


@lru_cache(maxsize=None)
def _pattern_sets(ascii_text: bool) -> dict[str, list[re.Pattern[str]]]:
    """Every pattern list, without the Chinese-only patterns when the text is ASCII (most English speeches)."""
    book = book_patterns()
    sets = {
        "roles": _for_text(ROLE_CLAIM_PATTERNS, ascii_text),
        "checks": _for_text(CHECK_PATTERNS_EN + CHECK_PATTERNS_ZH[:1] + CHECK_PATTERNS_ZH[2:], ascii_text),
        "checks_rev": _for_text(CHECK_PATTERNS_ZH[1:2], ascii_text),
    }
    for key in list(BOOK_ROLE_KEYS) + ["check_wolf", "check_good"]:
        sets["book:" + key] = _for_text(book.get(key, []), ascii_text)
    return sets


@lru_cache(maxsize=65536)  # bots repeat their speeches verbatim; treat the result as read-only
def parse_claims(text: str | None, players: int = 99) -> Claims:
    """Role and check claims in one speech, in order of appearance, without repeats."""
    out = Claims()
    if not text:
        return out
    pats = _pattern_sets(text.isascii())
    found_roles: list[tuple[int, str]] = []
    for pattern in pats["roles"]:
        for m in pattern.finditer(text):
            word = m.group(1)
            role = ROLE_WORDS_EN.get(word.lower()) or ROLE_WORDS_ZH.get(word)
            if role:
                found_roles.append((m.start(), role))
    for key, role in BOOK_ROLE_KEYS.items():
        for pattern in pats["book:" + key]:
            m = pattern.search(text)
            if m:
                found_roles.append((m.start(), role))
    for _, role in sorted(found_roles):
        if role not in out.roles:
            out.roles.append(role)
    found_checks: list[tuple[int, int, str]] = []
    for pattern in pats["checks"]:
        for m in pattern.finditer(text):
            seat, word = int(m.group(1)), m.group(2)
            result = _result(word)
            if result and 1 <= seat <= players:
                found_checks.append((m.start(), seat, result))
    for pattern in pats["checks_rev"]:
        for m in pattern.finditer(text):
            word, seat = m.group(1), int(m.group(2))
            result = _result(word)
            if result and 1 <= seat <= players:
                found_checks.append((m.start(), seat, result))
    for _, seat, result in sorted(found_checks):
        if (seat, result) not in out.checks:
            out.checks.append((seat, result))
    loose: list[tuple[int, int, str]] = []
    for key, result in (("check_wolf", "wolf"), ("check_good", "good")):
        for pattern in pats["book:" + key]:
            for m in pattern.finditer(text):
                if m.groups() and m.group(1) and m.group(1).isdigit() and 1 <= int(m.group(1)) <= players:
                    loose.append((m.start(), int(m.group(1)), result))
    for _, seat, result in sorted(loose):
        if (seat, result) not in out.checks and (seat, result) not in out.loose_checks:
            out.loose_checks.append((seat, result))
    return out


def mentioned_seats(text: str | None, players: int = 99) -> set[int]:
    """Seat numbers a text names ("seat 5", "player 5", "#5", "5号")."""
    if not text:
        return set()
    seats: set[int] = set()
    for pattern in MENTION_PATTERNS:
        for m in pattern.finditer(text):
            seat = int(m.group(1))
            if 1 <= seat <= players:
                seats.add(seat)
    return seats
