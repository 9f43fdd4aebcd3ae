"""What a speech claims, and who claims it: the one claim extractor of the arena.

The evaluator (claim metrics) and ``bot:heuristic`` (what it believes it heard) both read speeches
through :func:`parse_claims`. It tells the speaker's own claims ("I am the seer, 8 is a wolf",
我是预言家，8号查杀) from claims it reports of others ("5 claimed seer and called 8 a wolf",
5号起跳预言家，给了8号查杀), in English and Chinese.

How it reads a speech:

1. Sentences are split at . ! ? ; 。！？； and line breaks; a question states nothing.
2. A sentence is cut into clauses at commas and colons. Each clause has a *subject*: the speaker,
   unless a reporting frame names another seat ("5 claimed", "seat 5 says", 5号起跳, 5号说, and
   "he"/他 for the seat last named that way); a clause that starts with "I"/我 returns to the speaker.
   Consecutive clauses of one subject form a segment.
3. In a segment, role claims ("I am the seer", 我是预言家 / "claimed seer", 起跳预言家) and check
   claims are read. A check with a checking word ("I checked 5: wolf", 查杀, 金水, "my checks: ...")
   is a *check*; a bare "5 is a wolf" is a *loose* check, which counts only from a seat that claims
   seer. Hedged statements ("I think 5 is a wolf", 我觉得5号是狼), negations ("I am not the seer",
   我不是预言家, "I never said I am the seer") and hypotheticals ("if I were the seer", 如果我是预言家)
   claim nothing.

It is pattern matching, measured rather than trusted: ``benchmarks/claim_extractor.py`` prints its
precision and recall per claim type on the labelled speeches of ``tests/data/claims_labelled.jsonl``,
and docs/metrics.md records the figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# --- vocabulary ------------------------------------------------------------------------------------

ROLE_WORDS_EN = {
    "seer": "seer", "prophet": "seer", "witch": "witch", "hunter": "hunter", "guard": "guard",
    "bodyguard": "guard", "idiot": "idiot", "villager": "villager", "plain villager": "villager",
    "simple villager": "villager", "ordinary villager": "villager", "civilian": "villager",
    "werewolf": "werewolf", "wolf": "werewolf", "elder": "elder", "little girl": "little_girl",
    "traveler": "traveler", "traveller": "traveler", "cupid": "cupid", "thief": "thief",
    "scapegoat": "scapegoat", "maid": "maid", "white wolf king": "white_wolf_king",
    "black wolf king": "black_wolf_king", "wolf king": "black_wolf_king",
}
ROLE_WORDS_ZH = {
    "预言家": "seer", "女巫": "witch", "猎人": "hunter", "守卫": "guard", "白痴": "idiot", "平民": "villager",
    "村民": "villager", "民牌": "villager", "普通村民": "villager", "狼人": "werewolf", "长老": "elder",
    "小女孩": "little_girl", "旅者": "traveler", "旅行者": "traveler", "丘比特": "cupid", "盗贼": "thief",
    "替罪羊": "scapegoat", "女仆": "maid", "白狼王": "white_wolf_king", "黑狼王": "black_wolf_king",
    "狼王": "black_wolf_king", "民": "villager", "狼": "werewolf",
}
GOOD_WORDS = ("not a wolf", "not a werewolf", "gold water", "golden", "good", "innocent", "clean", "clear",
              "a good person", "a good guy", "a good player", "good guy", "on the good side", "villager side")
WOLF_WORDS = ("one of the wolves", "a werewolf", "werewolf", "a wolf", "wolf", "bad", "a kill", "kill")
RESULT_EN = {w: "good" for w in GOOD_WORDS} | {w: "wolf" for w in WOLF_WORDS}
RESULT_ZH = {"狼人": "wolf", "一匹狼": "wolf", "一只狼": "wolf", "狼": "wolf", "查杀": "wolf", "坏人": "wolf",
             "好人": "good", "金水": "good", "好身份": "good", "银水": "good", "不是狼": "good", "民": "good"}

_EN_ROLE = "|".join(sorted((re.escape(w) for w in ROLE_WORDS_EN), key=len, reverse=True))
_ZH_ROLE = "|".join(sorted(ROLE_WORDS_ZH, key=len, reverse=True))
_ZH_ROLE_STRICT = "|".join(sorted((w for w in ROLE_WORDS_ZH if len(w) > 1), key=len, reverse=True))
_EN_RESULT = "|".join(sorted((re.escape(w) for w in RESULT_EN), key=len, reverse=True))
_ZH_RESULT = "|".join(sorted(RESULT_ZH, key=len, reverse=True))
_SEAT = r"(?:seat|player|number|#)?\s*#?(\d{1,2})(?!\d)"
_ZH_SEAT = r"(\d{1,2})\s*号(?:玩家|位)?"

_ZH_NUMERALS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
                "十一": 11, "十二": 12}

# --- who is speaking ---------------------------------------------------------------------------------

_REPORT_VERBS_EN = (r"(?:has\s+|had\s+|just\s+|also\s+|then\s+|now\s+|openly\s+|first\s+|already\s+)*"
                    r"(?:claim(?:ed|s|ing)?|counter-?claim(?:ed|s|ing)?|said|says?|saying|told\s+us|tells\s+us|"
                    r"jump(?:ed|s|ing)?|announc(?:ed|es)|call(?:ed|s)|gave|gives?|declar(?:ed|es)|report(?:ed|s)|"
                    r"insist(?:ed|s)|accus(?:ed|es)|checked|checks|verified|label(?:l?ed|s)|nam(?:ed|es)|stated?|"
                    r"states|reveal(?:ed|s)|pretend(?:ed|s|ing)|came\s+out|comes\s+out|is\s+claiming|was\s+claiming)\b")
FRAME_EN = re.compile(rf"(?<![A-Za-z])(?:according\s+to\s+{_SEAT}|{_SEAT}(?:'s)?\s+{_REPORT_VERBS_EN}|"
                      rf"{_SEAT}'s\s+(?:claim|check|checks|story|result|gold\s+water))", re.I)
JOINT_FRAME_EN = re.compile(rf"(?:both\s+)?{_SEAT}\s+and\s+{_SEAT}\s+(?:both\s+|each\s+|have\s+|had\s+)*"
                            rf"(?:claimed|counter-?claimed|jumped|said)\s+(?:to\s+be\s+|as\s+)?(?:the\s+)?({_EN_ROLE})\b", re.I)
JOINT_FRAME_ZH = re.compile(rf"{_ZH_SEAT}(?:和|与|跟)(?:\s*){_ZH_SEAT}(?:都|也|同时)?(?:起跳了?|跳了?|对跳了?|悍跳了?|认了?|声称)(?:了)?"
                            rf"(?:是)?({_ZH_ROLE_STRICT})")
PRONOUN_FRAME_EN = re.compile(rf"\b(?:he|she)\s+{_REPORT_VERBS_EN}", re.I)
_ZH_REPORT = (r"(?:刚才|之前|昨天|今天|也|还|又|先|直接|首置位|前置位|后置位|第一个|上来就|开口就)*"
              r"(?:起跳了?|跳了?|悍跳了?|对跳了?|说了?|声称|自称|称|表示|认了?|报了?|给了?|发了?|验了?|查验了?|"
              r"查了(?!杀)|的查杀|的金水|的验人|拍了?|亮了?|穿了?|那张|这张|冒充了?|报的|是悍跳)")
FRAME_ZH = re.compile(rf"(?<![给验查对投和跟踩出保认救毒守杀向把被是打归像信与跟了])(?<!我的){_ZH_SEAT}{_ZH_REPORT}")
PRONOUN_FRAME_ZH = re.compile(rf"(?:他|她)(?:{_ZH_REPORT})")
FIRST_PERSON_EN = re.compile(r"^(?:(?:but|and|so|well|ok|okay|now|also|however|honestly|look|listen|still|yet|then)"
                             r"[\s,]+)*(?:I\b|I'm\b|I've\b|my\b|me\b)", re.I)
FIRST_PERSON_ZH = re.compile(r"^(?:但是|但|可是|而且|而|所以|然后|那么|另外|其实|不过|反正|总之|我说)?\s*(?:我|本人)")
#: "6 is my wolf check", 6号是我的查杀: the speaker's own result, whoever the clause started with
OWN_RESULT = re.compile(r"\bmy\s+(?:wolf\s+|good\s+|kill\s+)?(?:check|gold\s+water|result)|我的(?:查杀|金水|验人)", re.I)

# --- what is claimed ------------------------------------------------------------------------------

_EN_ADJ = r"(?:(?:the|a|an|your|our|real|true|actual|only|genuine|legit|one|just|simple|plain|ordinary)\s+)*"
SELF_ROLE_EN = [
    re.compile(rf"\bI(?:'m|\s+am|\s+really\s+am|\s+am\s+really)\s+{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"\bI(?:\s+|(?='))(?:claim|am\s+claiming|'m\s+claiming|hereby\s+claim|will\s+claim|declare\s+myself)\s+"
               rf"(?:to\s+be\s+)?{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"\bas\s+(?:the|a|an)\s+({_EN_ROLE}),?\s+I\b", re.I),
    re.compile(rf"\b({_EN_ROLE})\s+here\b", re.I),
    re.compile(rf"\bthe\s+({_EN_ROLE})\s+is\s+me\b", re.I),
    re.compile(rf"\bmy\s+(?:card|role|identity)\s+is\s+{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"\bI\s+(?:hold|have)\s+the\s+({_EN_ROLE})\s+card\b", re.I),
]
SELF_ROLE_ZH = [
    re.compile(rf"(?:我|本人)(?:才|就|只|也|真的|确实|其实|这边|这里|这张牌|的身份|的底牌)?(?:是|就是|才是)"
               rf"(?:真的?|一张|一个|一名|个|张)?({_ZH_ROLE})(?!的|给|查|验|发|刀|口|队|坑|人数|票|杀)"),
    re.compile(rf"(?:我|本人)(?:这里|这边|直接|先|就|要|来)?(?:起跳|跳|认|拍|亮)了?(?:真)?({_ZH_ROLE_STRICT})"),
    re.compile(rf"({_ZH_ROLE_STRICT})(?:牌)?(?:是我|在我这|在我手)"),
    re.compile(rf"(?:作为|身为)(?:一[张个名])?(?:真)?({_ZH_ROLE_STRICT})"),
    re.compile(rf"^(?:这里|这边|直接|先)?(?:起跳|跳|悍跳)了?({_ZH_ROLE_STRICT})"),
    re.compile(rf"^\s*({_ZH_ROLE_STRICT}|平民)一张"),
    re.compile(rf"(?:^|[，,])\s*(?:也|还|同时)是(?:一张|一个|个)?({_ZH_ROLE_STRICT})(?!的)"),
]
REPORTED_ROLE_EN = [
    re.compile(rf"(?:claim(?:ed|s|ing)?(?:\s+is)?|counter-?claim(?:ed|s|ing)?|jump(?:ed|s|ing)?|announc(?:ed|es)|"
               rf"declar(?:ed|es)|said|says?|stated?|states|reveal(?:ed|s)|pretend(?:ed|s|ing)|came\s+out|comes\s+out)"
               rf"\s+(?:to\s+be\s+|as\s+|that\s+)?(?:(?:he|she)(?:'s|\s+is|\s+was)\s+)?{_EN_ADJ}({_EN_ROLE})\b", re.I),
]
FAKE_ROLE_EN = re.compile(rf"{_SEAT}\s+(?:is|was)\s+(?:a|the)\s+(?:fake|false|lying|bogus)\s+({_EN_ROLE})\b", re.I)
FAKE_ROLE_EN_2 = re.compile(rf"\b(?:fake|false)\s+({_EN_ROLE})\s+{_SEAT}", re.I)
REPORTED_ROLE_ZH = [
    re.compile(rf"(?:起跳|跳|悍跳|对跳|声称|自称|称|说|认|拍|亮|报|冒充)(?:了|的)?(?:自己|他|她)?(?:的?身份)?(?:是)?(?:真|假)?(?:的)?"
               rf"({_ZH_ROLE_STRICT})"),
]
FAKE_ROLE_ZH = re.compile(rf"{_ZH_SEAT}(?:是|就是|肯定是)(?:悍跳的?|假的?|冒充的?|狼人悍跳的?|一个|一张)+({_ZH_ROLE_STRICT})"
                          rf"|{_ZH_SEAT}(?:是|就是|肯定是)(?:一[匹只张])?悍跳(?:的)?狼")

CHECK_WORD_EN = re.compile(r"\b(?:check(?:ed|s)?|verif(?:y|ied)|inspect(?:ed)?|result|results|gold\s+water|"
                           r"looked\s+at|my\s+seer)\b", re.I)
CHECK_WORD_ZH = re.compile(r"验|查杀|金水|查了|查验|银水")
HEDGE_EN = re.compile(r"\b(?:think|thinks|believe|suspect|suspicious|maybe|perhaps|probably|might|could|seems?|"
                      r"looks?|feel|guess|likely|possibly|lean|leaning|read|vibe|doubt|afraid|wonder|hunch|smell)\b"
                      r"|\bif\b|\bwhether\b", re.I)
HEDGE_ZH = re.compile(r"觉得|怀疑|可能|像|感觉|应该|估计|大概|也许|或许|猜|盘|倾向|认为|好像|似乎|如果|假如|要是|万一|不排除|嫌疑|踩")
NEGATION_EN = re.compile(r"\b(?:not|never|n't|no\s+longer|nobody|no\s+one|neither|nor)\b|n't\b", re.I)
NEGATION_ZH = re.compile(r"不(?!过)|没|并非|别|非")
HYPOTHETICAL_EN = re.compile(r"\b(?:if|suppose|supposing|imagine|pretend|would|were|whether|unless|assuming|"
                             r"in\s+case|hypothetically|as\s+if)\b", re.I)
HYPOTHETICAL_ZH = re.compile(r"如果|假如|要是|假设|万一|倘若|就算|即使|即便|假若|若是|哪怕")

# Checks: (pattern, seat group, result group).
CHECKS_EN = [
    # "I checked 5 last night: wolf", "checked seat 5 and he came back good"
    (re.compile(rf"\b(?:checked|check(?:ed)?\s+on|verified|inspected|looked\s+at|my\s+check\s+on|"
                rf"my\s+result\s+on|checked\s+out)\s+{_SEAT}\b[^.;!?]{{0,40}}?(?:\b(?:is|was|as|came\s+back|came\s+up|"
                rf"turned\s+out(?:\s+to\s+be)?|result(?:\s+is)?|and|he's|she's|he\s+is|she\s+is)\b|[:=\-–—,])\s*"
                rf"(?:as\s+)?({_EN_RESULT})\b", re.I), 1, 2),
    # "gave 8 a gold water", "gave 8 a kill"
    (re.compile(rf"\bgave\s+{_SEAT}\s+(?:a|my)\s+(gold\s+water|kill|wolf\s+check|good\s+check)\b", re.I), 1, 2),
    # "8 is my gold water", "8 is my wolf check"
    (re.compile(rf"{_SEAT}\s+(?:is|was)\s+(?:my|his|her)\s+(gold\s+water|kill|wolf\s+check|good\s+check|"
                rf"wolf|good)\b", re.I), 1, 2),
    # "gold water on 3", "kill on 8"
    (re.compile(rf"\b(gold\s+water|kill\s+check|wolf\s+check)\s+(?:on|to|for|is)\s+{_SEAT}\b", re.I), 2, 1),
    # "his check is 7 wolf", "my result on 4: good"
    (re.compile(rf"\b(?:check|result)\s+(?:is|was|on)\s+{_SEAT}\s*(?::|=|-|,|as|is|was)?\s*(?:a\s+)?({_EN_RESULT})\b",
                re.I), 1, 2),
    # "called 8 a wolf", "labelled 8 as good"
    (re.compile(rf"\b(?:call(?:ed|s)?|label(?:l?ed|s)|nam(?:ed|es)|mark(?:ed|s)?)\s+{_SEAT}\s+(?:as\s+)?({_EN_RESULT})\b",
                re.I), 1, 2),
]
LOOSE_EN = re.compile(rf"(?<![\d.])(?:seat\s+|player\s+|#)?(\d{{1,2}})(?!\d)\s*(?:(?:is|was|'s)\s+(?:definitely\s+|"
                      rf"certainly\s+|100%\s+)?|:\s*|=\s*|-\s*|—\s*|\s(?=(?:good|wolf|werewolf|innocent)\b))"
                      rf"({_EN_RESULT})\b", re.I)
PRONOUN_RESULT_EN = re.compile(rf"^\s*(?:and\s+|result:?\s*)?(?:he|she|they)\s*(?:is|was|'s|came\s+back|came\s+up|"
                               rf"turned\s+out\s+to\s+be)\s+({_EN_RESULT})\b", re.I)
CHECKS_ZH = [
    (re.compile(rf"(?:验了?|查验了?|查了|验的是|验人是?)\s*{_ZH_SEAT}[^。！？；]{{0,12}}?(?<![不没])(?:是|为|结果是?|身份是|，|,|：|:)\s*"
                rf"(?:一[匹只张])?({_ZH_RESULT})"), 1, 2),
    (re.compile(rf"{_ZH_SEAT}\s*(?:是|为)?\s*(?:我的|我给的|他的|她的)?\s*(查杀|金水|银水)"), 1, 2),
    (re.compile(rf"(查杀|金水)\s*(?:给了?|是|发给了?|发了?|在)?\s*{_ZH_SEAT}"), 2, 1),
    (re.compile(rf"(?:给了?|发了?)\s*{_ZH_SEAT}\s*(?:发了?|报了?)?\s*(?:一[个张])?(?:的)?(查杀|金水)"), 1, 2),
]
LOOSE_ZH = re.compile(rf"{_ZH_SEAT}\s*[，,：:]?\s*(?:是|为|就是|肯定是|一定是|必是)?\s*(?:一[匹只张])?"
                      rf"(狼人|狼|好人|好身份|坏人)(?!杀|坑|队|人数|刀|的|一起|在|都|会)|{_ZH_SEAT}\s*(?:不是狼)")
PRONOUN_RESULT_ZH = re.compile(rf"^\s*(?:他|她|结果)(?:是|为)?\s*(?:一[匹只张])?({_ZH_RESULT})")


@dataclass
class Claims:
    """The claims of one speech, split by who makes them."""

    #: roles the speaker claims, in order
    roles: list[str] = field(default_factory=list)
    #: (seat, "wolf" | "good") the speaker says with a checking word ("checked", 查杀, 金水): a seer's report
    checks: list[tuple[int, str]] = field(default_factory=list)
    #: "5 is a wolf" with no checking word and no hedge: a check only from someone who claims seer
    loose_checks: list[tuple[int, str]] = field(default_factory=list)
    #: (seat, role): another seat said to claim a role ("5 claimed seer", 5号起跳预言家, "5 is a fake seer")
    reported_roles: list[tuple[int, str]] = field(default_factory=list)
    #: (by seat, target, result): a check attributed to another seat ("5 called 8 a wolf", 5号给了8号查杀)
    reported_checks: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.roles or self.checks or self.loose_checks or self.reported_roles or self.reported_checks)

    def checks_given(self, seer_claimed_before: bool) -> list[tuple[int, str]]:
        """The speaker's check claims, given whether it claimed seer earlier."""
        if seer_claimed_before or "seer" in self.roles:
            return self.checks + [c for c in self.loose_checks if c not in self.checks]
        return list(self.checks)


# --- reading -------------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    text = text.translate(str.maketrans("０１２３４５６７８９＃", "0123456789#"))
    text = re.sub(r"\bNo\.\s*(?=\d)", "#", text, flags=re.I)
    text = re.sub(r"(十[一二]|[一二两三四五六七八九十])(?=\s*号)", lambda m: str(_ZH_NUMERALS[m.group(1)]), text)
    return text


_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE = re.compile(r"[^.!?;。！？；\n]+(?:[.!?;。！？；\n]+|$)")
_CLAUSE_SPLIT = re.compile(r"(?<=[,，、:：])|(?=\s(?:but|while|whereas|although|though)\s)|(?=但是|可是|不过)")


def _sentences(text: str) -> list[str]:
    # "5.5" never happens in speech; a dot between digits is kept anyway, and so is "No. 5" (normalised).
    return [m.group(0) for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def _is_question(sentence: str) -> bool:
    s = sentence.rstrip()
    return s.endswith(("?", "？")) or bool(re.search(r"吗[。！？!?\s]*$|呢[？?]", s))


def _result(word: str) -> str | None:
    w = re.sub(r"\s+", " ", word.lower())
    return RESULT_EN.get(w) or RESULT_ZH.get(word) or {"gold water": "good", "kill": "wolf", "wolf check": "wolf",
                                                      "good check": "good", "kill check": "wolf"}.get(w)


def _role(word: str) -> str | None:
    return ROLE_WORDS_EN.get(re.sub(r"\s+", " ", word.lower())) or ROLE_WORDS_ZH.get(word)


def _blocked(before: str, zh: bool, *, hedge: bool = False) -> bool:
    """Does the text before a match (same clause) negate it, make it hypothetical or (optionally) hedge it?"""
    if zh:
        if HYPOTHETICAL_ZH.search(before) or NEGATION_ZH.search(before[-6:]):
            return True
        return hedge and bool(HEDGE_ZH.search(before))
    if HYPOTHETICAL_EN.search(before) or NEGATION_EN.search(before):
        return True
    return hedge and bool(HEDGE_EN.search(before))


def _clause_start(segment: str, pos: int) -> int:
    cut = max(segment.rfind(ch, 0, pos) for ch in ",，、:：")
    for word in (" but ", " and ", " so ", "但是", "而且", "所以", "，"):
        i = segment.rfind(word, 0, pos)
        if i > cut:
            cut = i
    return cut + 1


def _subjects(sentence: str, last_other: int | None, players: int) -> tuple[list[tuple[int | None, str]], int | None]:
    """Cut a sentence into (subject, text) segments: None is the speaker, an int another seat."""
    clauses = [c for c in _CLAUSE_SPLIT.split(sentence) if c]
    segments: list[tuple[int | None, str]] = []
    subject: int | None = None
    for clause in clauses:
        stripped = clause.strip()
        if FIRST_PERSON_EN.match(stripped) or FIRST_PERSON_ZH.match(stripped) or OWN_RESULT.search(stripped):
            subject = None
        # The earliest reporting frame in the clause switches the subject from there on.
        best: tuple[int, int] | None = None
        for rx in (FRAME_EN, FRAME_ZH):
            m = rx.search(clause)
            if m:
                seat = next((int(g) for g in m.groups() if g and g.isdigit()), None)
                if seat is not None and 1 <= seat <= players and (best is None or m.start() < best[0]):
                    best = (m.start(), seat)
        if best is None and last_other is not None:
            for rx in (PRONOUN_FRAME_EN, PRONOUN_FRAME_ZH):
                m = rx.search(clause)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), last_other)
        if best is not None:
            start, seat = best
            if clause[:start].strip():
                segments.append((subject, clause[:start]))
            subject = seat
            last_other = seat
            segments.append((subject, clause[start:]))
        else:
            segments.append((subject, clause))
    merged: list[tuple[int | None, str]] = []
    for subj, text in segments:
        if merged and merged[-1][0] == subj:
            merged[-1] = (subj, merged[-1][1] + text)
        else:
            merged.append((subj, text))
    return merged, last_other


def _checks_in(segment: str, zh: bool, players: int) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """(strict, loose) checks of a segment as (position, seat, result)."""
    strict: list[tuple[int, int, str]] = []
    loose: list[tuple[int, int, str]] = []
    for rx, seat_g, result_g in (CHECKS_ZH if zh else CHECKS_EN):
        for m in rx.finditer(segment):
            seat, result = int(m.group(seat_g)), _result(m.group(result_g))
            if result and 1 <= seat <= players and not _blocked(segment[_clause_start(segment, m.start()):m.start()], zh):
                strict.append((m.start(), seat, result))
    has_check_word = bool((CHECK_WORD_ZH if zh else CHECK_WORD_EN).search(segment))
    for m in (LOOSE_ZH if zh else LOOSE_EN).finditer(segment):
        groups = [g for g in m.groups() if g]
        seat = int(groups[0])
        result = _result(groups[1]) if len(groups) > 1 else "good"
        if not result or not 1 <= seat <= players:
            continue
        if any(s == seat for _, s, _ in strict):
            continue
        before = segment[_clause_start(segment, m.start()):m.start()]
        if zh and re.search(r"不是?\s*$", before):
            continue
        if _blocked(before, zh, hedge=True):
            continue
        (strict if has_check_word else loose).append((m.start(), seat, result))
    return strict, loose


def _roles_in(segment: str, zh: bool, patterns: list[re.Pattern[str]]) -> list[tuple[int, str]]:
    found = []
    for rx in patterns:
        for m in rx.finditer(segment):
            role = _role(m.group(1))
            if role and not _blocked(segment[_clause_start(segment, m.start()):m.start()], zh):
                found.append((m.start(), role))
    return found


def _add(items: list, item: object) -> None:  # type: ignore[type-arg]
    if item not in items:
        items.append(item)


@lru_cache(maxsize=65536)  # every seat at the table reads the same speech: read it once (treat as read-only)
def parse_claims(text: str | None, players: int = 99) -> Claims:
    """The claims of one speech: the speaker's own and those it attributes to other seats."""
    out = Claims()
    if not text or len(text) < 3:
        return out
    text = _normalise(text)
    zh_text = bool(_CJK.search(text))
    last_other: int | None = None
    pending_check: int | None = None  # "I checked 5." waiting for "He is a wolf."
    reported_seer: set[int] = set()
    reported_loose: list[tuple[int, int, str]] = []
    for sentence in _sentences(text):
        question = _is_question(sentence)
        segments, last_other = _subjects(sentence, last_other, players)
        for subject, seg in segments:
            zh = zh_text and bool(_CJK.search(seg))
            for m in (FAKE_ROLE_ZH.finditer(seg) if zh else list(FAKE_ROLE_EN.finditer(seg)) + list(FAKE_ROLE_EN_2.finditer(seg))):
                groups = [g for g in m.groups() if g]
                seat = next(int(g) for g in groups if g.isdigit())
                role = next((_role(g) for g in groups if not g.isdigit()), "seer")  # 悍跳狼: a fake seer
                if role and seat != subject and 1 <= seat <= players:
                    _add(out.reported_roles, (seat, role))
                    if role == "seer":
                        reported_seer.add(seat)
            for m in (JOINT_FRAME_ZH if zh else JOINT_FRAME_EN).finditer(seg):
                role = _role(m.group(3))
                for g in (1, 2):
                    seat = int(m.group(g))
                    if role and 1 <= seat <= players and not question:
                        _add(out.reported_roles, (seat, role))
                        if role == "seer":
                            reported_seer.add(seat)
            if question:
                continue
            if subject is None:
                roles = _roles_in(seg, zh, SELF_ROLE_ZH if zh else SELF_ROLE_EN)
                for _, role in sorted(roles):
                    _add(out.roles, role)
                strict, loose = _checks_in(seg, zh, players)
                if pending_check is not None and not strict:
                    pronoun = (PRONOUN_RESULT_ZH if zh else PRONOUN_RESULT_EN).match(seg)
                    if pronoun and _result(pronoun.group(1)):
                        strict.append((pronoun.start(), pending_check, _result(pronoun.group(1)) or "good"))
                pending_check = None
                if not strict:
                    trailing = re.search(rf"\b(?:checked|verified|inspected)\s+{_SEAT}\s*$", seg.strip(" .,"), re.I) or \
                        re.search(rf"(?:验了?|查验了?|查了)\s*{_ZH_SEAT}\s*[。，,.]?\s*$", seg.strip())
                    if trailing:
                        pending_check = int(trailing.group(1))
                for _, seat, result in sorted(strict):
                    _add(out.checks, (seat, result))
                for _, seat, result in sorted(loose):
                    if (seat, result) not in out.checks:
                        _add(out.loose_checks, (seat, result))
            else:
                for _, role in sorted(_roles_in(seg, zh, REPORTED_ROLE_ZH if zh else REPORTED_ROLE_EN)):
                    _add(out.reported_roles, (subject, role))
                    if role == "seer":
                        reported_seer.add(subject)
                strict, loose = _checks_in(seg, zh, players)
                for _, seat, result in sorted(strict):
                    if seat != subject:
                        _add(out.reported_checks, (subject, seat, result))
                reported_loose += [(subject, seat, result) for _, seat, result in sorted(loose) if seat != subject]
    for item in reported_loose:
        if item[0] in reported_seer:
            _add(out.reported_checks, item)
    return out


MENTION_PATTERNS = [
    re.compile(r"\b(?:seat|player|no\.?)\s*#?(\d{1,2})\b", re.I),
    re.compile(r"#(\d{1,2})\b"),
    re.compile(r"(\d{1,2})\s*号"),
]


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
