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
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterator

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
              "village-aligned", "village aligned", "a villager", "on the village side", "a good player",
              "a good person", "a good guy", "a good player", "good guy", "on the good side", "villager side")
WOLF_WORDS = ("one of the wolves", "a werewolf", "werewolf", "a wolf", "wolf", "bad", "a kill", "kill")
RESULT_EN = {w: "good" for w in GOOD_WORDS} | {w: "wolf" for w in WOLF_WORDS}
RESULT_ZH = {"狼人": "wolf", "一匹狼": "wolf", "一只狼": "wolf", "狼": "wolf", "查杀": "wolf", "坏人": "wolf",
             "好人": "good", "金水": "good", "好身份": "good", "不是狼": "good", "民": "good"}

_EN_ROLE = "|".join(sorted((re.escape(w) for w in ROLE_WORDS_EN), key=len, reverse=True))
_ZH_ROLE = "|".join(sorted(ROLE_WORDS_ZH, key=len, reverse=True))
_ZH_ROLE_STRICT = "|".join(sorted((w for w in ROLE_WORDS_ZH if len(w) > 1), key=len, reverse=True))
_EN_RESULT = "|".join(sorted((re.escape(w) for w in RESULT_EN), key=len, reverse=True))
_ZH_RESULT = "|".join(sorted(RESULT_ZH, key=len, reverse=True))
_SEAT = r"(?:seat|player|number|#)?\s*#?(\d{1,2})(?!\d)"
_ZH_SEAT = r"(?<!\d)(\d{1,2})\s*号(?:玩家|位)?"

_ZH_NUMERALS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
                "十一": 11, "十二": 12, "十三": 13, "十四": 14, "十五": 15, "十六": 16, "十七": 17, "十八": 18}

# --- who is speaking ---------------------------------------------------------------------------------

_REPORT_VERBS_EN = (r"(?:has\s+|had\s+|just\s+|also\s+|then\s+|now\s+|openly\s+|first\s+|already\s+|originally\s+|"
                    r"initially\s+|earlier\s+|yesterday\s+|today\s+|later\s+)*"
                    r"(?:claim(?:ed|s|ing)?|counter-?claim(?:ed|s|ing)?|said|says?|saying|"
                    r"(?:told|tells)\s+(?:us|everyone|everybody|the\s+table|the\s+village|me|the\s+room)|"
                    r"opened\s+(?:with|by)|(?:was\s+|is\s+)?running\s+as|ran\s+as|runs\s+as|counter(?:ed|s)?(?=\s+with)|went(?=\s+(?:as\s+)?(?:the\s+)?[a-z])|"
                    r"(?:hard|soft|fake)-?claim(?:ed|s|ing)?|outed\s+(?:himself|herself|themselves)|are\s+claiming|"
                    r"put(?=\s+a\s)|puts(?=\s+a\s)|"
                    r"jump(?:ed|s|ing)?|announc(?:ed|es)|call(?:ed|s)|gave|gives?|declar(?:ed|es)|report(?:ed|s)|"
                    r"insist(?:ed|s)|accus(?:ed|es)|checked|checks|verified|label(?:l?ed|s)|nam(?:ed|es)|stated?|"
                    r"states|reveal(?:ed|s)|pretend(?:ed|s|ing)|came\s+out|comes\s+out|is\s+claiming|was\s+claiming)\b")
# a seat right after "on"/"at"/"of" is an object ("my check on #5 says wolf"), not a speaker
_NOT_AN_OBJECT = "(?<![#\\d])" + "".join(rf"(?<!\b{w}\s)(?<!\b{w})" for w in ("on", "at", "of", "to", "vote", "checked",
                                                                                 "check"))
FRAME_EN = re.compile(rf"(?<![A-Za-z])(?:according\s+to\s+{_SEAT}|(?<![#\d]){_SEAT},?\s+who\s+{_REPORT_VERBS_EN}|"
                      rf"{_NOT_AN_OBJECT}{_SEAT}(?:'s)?\s+{_REPORT_VERBS_EN}|"
                      rf"{_SEAT}'s\s+(?:(?:{_EN_ROLE})\s+)?(?:claim|check|checks|story|result|results|gold\s+water|"
                      rf"kill|wolf\s+check)|{_SEAT}\s+is\s+(?:our|the)\s+(?:only\s+)?(?:{_EN_ROLE})\s+(?:claim|claimant)\b)",
                      re.I)
JOINT_FRAME_EN = re.compile(rf"(?:both\s+)?{_SEAT}\s+and\s+{_SEAT}\s+(?:both\s+|each\s+|have\s+|had\s+|are\s+|were\s+)*"
                            rf"(?:claimed|counter-?claimed|jumped|said|claiming|claim)\s+(?:to\s+be\s+|as\s+)?"
                            rf"(?:they're\s+|they\s+are\s+|they\s+were\s+)?(?:the\s+|a\s+)?({_EN_ROLE})s?\b", re.I)
JOINT_FRAME_ZH = re.compile(rf"{_ZH_SEAT}(?:和|与|跟|、)(?:\s*){_ZH_SEAT}(?:都|也|同时)?(?:起跳了?|跳了?|对跳了?|悍跳了?|认了?|声称)(?:了)?"
                            rf"(?:是)?({_ZH_ROLE_STRICT})")
#: "he said", "his check", and a clause that opens on a bare report verb ("then said 9 is a wolf", 后来又说…)
PRONOUN_FRAME_EN = re.compile(rf"\b(?:he|she)\s+{_REPORT_VERBS_EN}|\b(?:his|her)\s+(?:only\s+|first\s+|second\s+)?"
                              rf"(?:check|checks|result|results|gold\s+water|kill|wolf\s+check)\b|"
                              rf"\b(?:his|her)\s+(?:{_EN_ROLE})\s+(?:counter-?)?claim\b|"
                              rf"^\W*(?:and\s+|then\s+|later\s+)?(?:also\s+)?(?:said|claimed|says|claims)\b|"
                              rf"\byou\s+(?:said|say|claimed|claim|told\s+us)\b", re.I)
# a few words may stand between the seat and the verb: 9号警上首置位起跳, 8号第一天说
_ZH_REPORT = (r"(?:刚才|之前|昨天|今天|也|还|又|先|直接|首置位|前置位|后置位|第一个|上来就|开口就|你)*"
              r"(?:[^\d，,。；;！？!?：:号我你他她的是\s“”\"「」]{0,6}?)"
              r"(?:起跳了?|跳了?|悍跳了?|对跳了?|说(?!明|服|不定|实话|得|过)了?|声称|自称|称|表示|认了?|报了?|给了?|"
              r"发了?|验了?|查验了?|告诉(?:大家|我们|所有人)|号称|声明|认下了?|"
              r"查了(?!杀)|的查杀|的金水|的验人|的遗言|的说法|的发言|遗言|拍了?|亮了?|穿了?|那张|这张|冒充了?|报的|是悍跳)")
_ZH_NOT_A_SUBJECT = r"(?<![给验查对投和跟踩出保认救毒守杀向把被是打归像信与跟了])(?<!我的)"
FRAME_ZH = re.compile(rf"{_ZH_NOT_A_SUBJECT}{_ZH_SEAT}{_ZH_REPORT}")
#: 5号预言家给了2号查杀, 站边9号预言家: a seat named with the role it claimed
SEAT_ROLE_ZH = re.compile(rf"(?<![给验查对投和跟踩出保认救毒守杀向把被打归像信与跟了])(?<!我的){_ZH_SEAT}(?:的|这张|那张)?(预言家|女巫|猎人|守卫|白痴)"
                          rf"(?=给|的|发|验|说|报|首|昨|查|金|我|[。，,；;]|\s*$)")
#: 2号起跳之后…: 起跳 with no role named is a seer claim
JUMPED_ZH = re.compile(rf"{_ZH_NOT_A_SUBJECT}{_ZH_SEAT}(?:首置位|前置位|后置位|警上|昨天|第一天)?(?:起跳|对跳|悍跳)了?(?=之后|以后|后|的时候|[，,。；;])")
#: 跳预言家的是5号和10号
JUMPED_ARE_ZH = re.compile(rf"(?:起跳|对跳|跳)({_ZH_ROLE_STRICT})的(?:是|有)((?:\s*\d{{1,2}}\s*号\s*(?:和|与|跟|、)?)+)")
#: …，女巫是6号，猎人是8号 after 跳预言家的是4号和12号: the same inventory of claims goes on
INVENTORY_MORE_ZH = re.compile(rf"[，,、]\s*({_ZH_ROLE_STRICT})(?:是|为)\s*(\d{{1,2}})\s*号(?=[，,、。；;]|\s*$)")
#: 只有一个预言家起跳，就是3号; 真预言家10号已经出来了; 5号和8号两个预言家; 11号你为什么说你是女巫
SEAT_CLAIMED_ZH = [
    re.compile(rf"({_ZH_ROLE_STRICT})(?:起跳|跳出来|出来)了?[，,]\s*(?:就是|是)\s*(\d{{1,2}})\s*号"),
    re.compile(rf"(?:真|假)?({_ZH_ROLE_STRICT})\s*(\d{{1,2}})\s*号(?:已经|也|刚才)?(?:跳出来|出来|起跳|站出来)了"),
    re.compile(rf"(\d{{1,2}})\s*号(?:和|与|跟|、)(\d{{1,2}})\s*号(?:这)?(?:两个|俩)({_ZH_ROLE_STRICT})"),
    re.compile(rf"(\d{{1,2}})\s*号你?(?:为什么|凭什么|怎么)(?:要)?(?:说|跳|报|认)(?:你|自己)?(?:是)?({_ZH_ROLE_STRICT})"),
]
CHECKED_BY_EN = re.compile(rf"{_SEAT},?\s+(?:who|whom)\s+{_SEAT}\s+(?:checked|called|named|labell?ed|verified)\s+"
                           rf"(?:as\s+)?({_EN_RESULT})\b", re.I)
#: 7号是5号预言家给的金水: a check the second seat gave the first
GIVEN_BY_ZH = re.compile(rf"{_ZH_SEAT}(?:是|为)\s*(\d{{1,2}})\s*号(?:预言家)?(?:给|发)?的(金水|查杀)")
PRONOUN_FRAME_ZH = re.compile(rf"(?:他|她)(?:{_ZH_REPORT})|^\W*(?:后来|然后|接着|之后|今天)?(?:又|还|也)?(?:说(?!明|服|不定|实话|得|过)|声称|表示)")
#: 1号是预言家，首夜验了3号…: the seat named as the seer is the subject of what follows (an endorsement, no claim)
SEAT_IS_ROLE_ZH = re.compile(rf"^\W*{_ZH_SEAT}(?:是|就是)(?:真)?(?:的)?(?:预言家)(?=[，,])")
_ROLE_NO_WOLF_EN = "|".join(sorted((re.escape(w) for w, r in ROLE_WORDS_EN.items() if r != "werewolf"),
                                   key=len, reverse=True))
FIRST_PERSON_EN = re.compile(r"^(?:(?:but|and|so|well|ok|okay|now|also|however|honestly|look|listen|still|yet|then)"
                             r"[\s,]+)*(?:I\b|I'm\b|I've\b|my\b|me\b)", re.I)
FIRST_PERSON_ZH = re.compile(r"^(?:但是|但|可是|而且|而|所以|然后|那么|另外|其实|不过|反正|总之|我说)?\s*(?:我|本人)")
#: "6 is my wolf check", 6号是我的查杀: the speaker's own result, whoever the clause started with
OWN_RESULT = re.compile(r"\bmy\s+(?:wolf\s+|good\s+|kill\s+)?(?:check|gold\s+water|result)|我的(?:查杀|金水|验人)", re.I)

# --- what is claimed ------------------------------------------------------------------------------

_EN_ADJ = r"(?:(?:the|a|an|your|our|real|true|actual|only|genuine|legit|one|just|simple|plain|ordinary|vanilla)\s+)*"
SELF_ROLE_EN = [
    re.compile(rf"\bI(?:'m|\s+am|\s+really\s+am|\s+am\s+really|'m\s+actually|\s+am\s+actually)\s+{_EN_ADJ}({_EN_ROLE})\b"
               rf"(?!\s+hunt)", re.I),
    re.compile(rf"\bI(?:\s+|(?='))(?:claim|am\s+claiming|'m\s+claiming|hereby\s+claim|will\s+claim|declare\s+myself)\s+"
               rf"(?:to\s+be\s+)?{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"\bas\s+(?:the|a|an)\s+({_EN_ROLE}),?\s+I\b", re.I),
    re.compile(rf"\b({_EN_ROLE})\s+here\b", re.I),
    re.compile(rf"\bthe\s+({_EN_ROLE})\s+is\s+me\b", re.I),
    re.compile(rf"\bmy\s+(?:actual\s+|real\s+|true\s+)?(?:card|role|identity)\s+is\s+{_EN_ADJ}({_EN_ROLE})\b", re.I),
    # "Coming out as the seer now.", "My night results, as the seer:", "Last words: I was the hunter."
    re.compile(rf"^\W*(?:I'm\s+|I\s+am\s+)?coming\s+out\s+as\s+{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"[,;]\s*as\s+(?:the\s+|a\s+|an\s+)({_EN_ROLE})\s*[:,]", re.I),
    re.compile(rf"^\W*last\s+words?\s*[:,—–-]\s*I\s+was\s+{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"\bI\s+(?:hold|have)\s+the\s+({_EN_ROLE})\s+card\b", re.I),
    # "Let me jump: seer.", "I have to come out now as the seer.", "I'll claim: hunter."
    re.compile(rf"\b(?:let\s+me|I'll|I\s+will|I\s+have\s+to|I\s+must|I'm\s+going\s+to|I\s+need\s+to|time\s+to|"
               rf"I\s+hereby)\s+(?:jump|claim|come\s+out|reveal|hard-?claim)\s*(?:now\s+)?(?:as\s+)?[:\-—–]?\s*(?:as\s+)?"
               rf"{_EN_ADJ}({_EN_ROLE})\b", re.I),
    # "Claim: Seer", "Role: Guard", "I am: the guard", "Claiming seer.", "Seer claim."
    re.compile(rf"(?:^|[,;]\s)\W*(?:claim|claiming|role|my\s+role|identity|my\s+identity|card|my\s+card|I\s+am|I'm)\s*[:\-—–]\s*"
               rf"{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"^\W*(?:claiming|I'm\s+claiming|jumping|I'm\s+jumping)\s+{_EN_ADJ}({_EN_ROLE})\b", re.I),
    re.compile(rf"^\W*({_EN_ROLE})\s+claim\b(?!\s+(?:from|by|of)\b)", re.I),
    re.compile(rf"^\W*as\s+(?:the\s+|a\s+|an\s+)?({_EN_ROLE})\s*[,:]", re.I),
    re.compile(rf"\b(?:speak|speaking|talking|my\s+read|my\s+view|my\s+take)\s+as\s+(?:the\s+|a\s+|an\s+)?({_EN_ROLE})\b",
               re.I),
    # "#5 is not the seer, I am."
    re.compile(rf"(?:seat\s+|player\s+|#)?\d{{1,2}}\s+(?:is\s+not|isn't)\s+the\s+({_EN_ROLE})\s*[,;—–-]\s*I\s+am\b", re.I),
    re.compile(r"\bmy\s+(seer)\s+(?:log|record|results|checks|history|report)\b", re.I),
    # "If I die tonight, know that I was the witch.": a claim made for after one's death
    re.compile(rf"\bif\s+I\s+(?:die|get\s+killed|am\s+killed|get\s+knifed|am\s+knifed|get\s+exiled|am\s+exiled|"
               rf"get\s+voted\s+out)\b[^.!?]*?\b(?:know|remember|note)\s+(?:that\s+)?I\s+(?:was|am)\s+{_EN_ADJ}({_EN_ROLE})\b",
               re.I),
]
SELF_ROLE_ZH = [
    re.compile(rf"(?:我|本人)(?:自己|这张牌|的牌|的身份|的底牌)?(?:才|就|只|也|真的|确实|其实|这边|这里|本身)?(?:是|就是|才是)"
               rf"(?:真的?|一张|一个|一名|个|张)?({_ZH_ROLE})(?!的|给|查|验|发|刀|口|队|坑|人数|票|杀)"),
    re.compile(rf"(?:我|本人)(?:这里|这边|直接|先|就|要|来)?(?:起跳|跳|认|拍|亮|报)了?(?:个|一下)?(?:身份)?[:：]?\s*(?:真)?"
               rf"({_ZH_ROLE_STRICT})"),
    re.compile(rf"^\W*(?:我的)?(?:身份|底牌)\s*[:：]\s*(?:是)?({_ZH_ROLE_STRICT})"),
    # 守卫在这里, 猎人牌，别乱投我, 预言家起跳, 我是闭眼好人，平民
    re.compile(rf"^\W*({_ZH_ROLE_STRICT})(?:在这里|在这|在此|就是我|牌(?=[，,。！!])|起跳)"),
    re.compile(r"我是(?:闭眼)?好人[，,]\s*(平民|村民|民牌)(?=[。，,；;！!]|\s*$)"),
    re.compile(rf"\d{{1,2}}\s*号不是({_ZH_ROLE_STRICT})[，,]\s*我才是"),
    re.compile(r"(?:(?:我|本人)(?:就|也|只)?|[，,]\s*(?:就|只)?)(?:是)?一张(民牌|平民|村民|民)(?![^，,。；;！!]{0,2}(?:的|吗))"),
    re.compile(rf"^\W*(?:本人|我)({_ZH_ROLE_STRICT})(?=[，,。\s]|$)"),
    re.compile(rf"({_ZH_ROLE_STRICT})(?:牌)?(?:是我|在我这|在我手)"),
    re.compile(rf"(?:作为|身为)(?:一[张个名])?(?:真)?({_ZH_ROLE_STRICT})"),
    re.compile(rf"^(?:这里|这边|直接|先)?(?:起跳|跳|悍跳)了?({_ZH_ROLE_STRICT})(?!的)"),
    re.compile(rf"^\s*({_ZH_ROLE_STRICT}|平民)一张"),
    re.compile(rf"(?:^|[，,])\s*(?:也|还|同时)是(?:一张|一个|个)?({_ZH_ROLE_STRICT})(?!的)"),
]
REPORTED_ROLE_EN = [
    re.compile(rf"\b(?:he|she)(?:'s|\s+is|\s+was)\s+(?:really\s+)?{_EN_ADJ}({_ROLE_NO_WOLF_EN})\b", re.I),
    re.compile(rf"(?:claim(?:ed|s|ing)?(?:\s+is)?|counter-?claim(?:ed|s|ing)?|jump(?:ed|s|ing)?|announc(?:ed|es)|"
               rf"(?:told|tells)\s+(?:us|everyone|everybody|the\s+table|the\s+village|me|the\s+room)|running\s+as|ran\s+as|runs\s+as|went|"
               rf"(?:hard|soft|fake)-?claim(?:ed|s|ing)?|outed\s+(?:himself|herself|themselves)\s+as|"
               rf"call(?:ed|s)\s+(?:himself|herself|themselves)|"
               rf"declar(?:ed|es)|said|says?|stated?|states|reveal(?:ed|s)|pretend(?:ed|s|ing)|came\s+out|comes\s+out)"
               rf"\s+(?:to\s+be\s+|as\s+|that\s+)?(?:(?:he|she|you|they)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\s+)?{_EN_ADJ}"
               rf"({_ROLE_NO_WOLF_EN})\b", re.I),
    re.compile(rf"\b(?:story|claim|role|identity)\s*[:\-—–]\s*{_EN_ADJ}({_ROLE_NO_WOLF_EN})\b", re.I),
    re.compile(rf"\b(?:his|her|their)\s+({_ROLE_NO_WOLF_EN})\s+(?:counter-?)?claim\b", re.I),
]
FAKE_ROLE_EN = re.compile(rf"{_SEAT}\s+(?:is|was)\s+(?:a|the)\s+(?:fake|false|lying|bogus)\s+({_EN_ROLE})\b", re.I)
FAKE_ROLE_EN_2 = re.compile(rf"\b(?:fake|false)\s+({_EN_ROLE})\s+{_SEAT}", re.I)
#: "I'm the real seer and #3 is the fake one"
FAKE_ONE_EN = re.compile(rf"\breal\s+({_ROLE_NO_WOLF_EN})\b[^.;!?]*?{_SEAT}\s+(?:is|was)\s+the\s+(?:fake|false|lying|bogus)"
                         rf"(?:\s+one)?\b", re.I)
#: "#3's seer claim", "the seer claim from #10"
CLAIM_OF_EN = re.compile(rf"{_SEAT}'s\s+({_ROLE_NO_WOLF_EN})\s+claim\b|\b({_ROLE_NO_WOLF_EN})\s+claim\s+(?:from|by|of)\s+{_SEAT}|"
                         rf"{_SEAT}'s\s+claim\s+of\s+(?:the\s+)?({_ROLE_NO_WOLF_EN})\b|"
                         rf"{_SEAT}\s+is\s+(?:our|the)\s+(?:only\s+)?({_ROLE_NO_WOLF_EN})\s+(?:claim|claimant)\b|"
                         rf"{_SEAT},?\s+your\s+(?:counter-?)?claim\s+(?:of|as|to\s+be)\s+(?:the\s+|a\s+)?({_ROLE_NO_WOLF_EN})\b|"
                         rf"{_SEAT},?\s+your\s+({_ROLE_NO_WOLF_EN})\s+(?:counter-?)?claim\b", re.I)
#: "I don't know who the seer is. #3 claims it": the role last spoken of
CLAIMED_IT_EN = re.compile(r"\b(?:claim(?:s|ed)?|counter-?claim(?:s|ed)?)\s+it\b", re.I)
_ROLE_SPOKEN_EN = re.compile(rf"\b({_ROLE_NO_WOLF_EN})\b", re.I)
#: "#9 is the seer (he claimed it …)", "#4 is the seer — he said so himself": a claim, not only a belief
SAID_SO_EN = re.compile(rf"{_SEAT}\s+is\s+the\s+({_ROLE_NO_WOLF_EN})\s*(?:[(—–,-]|\s-)\s*(?:as\s+)?(?:he|she|they)\s+"
                        rf"(?:said\s+so|claimed\s+it|claimed\s+so|told\s+us)", re.I)
REPORTED_ROLE_ZH = [
    re.compile(rf"(?:^|[，,])\W*(?:他|她)(?:自己)?(?:说)?(?:是|才是)(?:真的?)?({_ZH_ROLE_STRICT})(?!的|给|查|验|发)"),
    re.compile(rf"(?:起跳|跳|悍跳|对跳|声称|自称|号称|声明|称|说|认下|认|拍|亮|报|冒充|告诉(?:大家|我们|所有人))(?:了|的)?(?:说)?"
               rf"(?:个|一个|一张)?(?:自己|他|她|你)?(?:的?身份)?(?:是)?(?:真|假)?(?:的)?"
               rf"({_ZH_ROLE_STRICT})"),
]
FAKE_ROLE_ZH = re.compile(rf"{_ZH_SEAT}(?:是|就是|肯定是)(?:悍跳的?|假的?|冒充的?|狼人悍跳的?|一个|一张)+({_ZH_ROLE_STRICT})"
                          rf"|{_ZH_SEAT}(?:是|就是|肯定是)(?:一[匹只张])?悍跳(?:的)?狼")

CHECK_WORD_EN = re.compile(r"\b(?:check(?:ed|s)?|verif(?:y|ied)|inspect(?:ed)?|result|results|gold\s+water|"
                           r"looked\s+at|my\s+seer)\b", re.I)
CHECK_WORD_ZH = re.compile(r"验|查杀|金水|查了|查验")
HEDGE_EN = re.compile(r"\b(?:think|thinks|believe|suspect|suspicious|maybe|perhaps|probably|might|could|seems?|"
                      r"looks?|feel|guess|likely|possibly|lean|leaning|read|vibe|doubt|afraid|wonder|hunch|smell)\b"
                      r"|\bif\b|\bwhether\b", re.I)
HEDGE_ZH = re.compile(r"觉得|怀疑|可能|像|感觉|应该|估计|大概|也许|或许|猜|盘|倾向|认为|好像|似乎|如果|假如|要是|万一|不排除|嫌疑|踩")
NEGATION_EN = re.compile(r"\b(?:not|never|n't|no\s+longer|nobody|no\s+one|neither|nor|without)\b|n't\b", re.I)
NEGATION_ZH = re.compile(r"不(?!过)|没|并非|别|非")
HYPOTHETICAL_EN = re.compile(r"\b(?:if|suppose|supposing|imagine|pretend|would|were|whether|unless|assuming|"
                             r"(?:will|would|might|may|going\s+to)\s+(?:say|claim|tell|call|accuse)|"
                             r"in\s+case|hypothetically|as\s+if)\b", re.I)
HYPOTHETICAL_ZH = re.compile(r"如果|假如|要是|假设|万一|倘若|就算|即使|即便|假若|若是|哪怕")

# Checks: (pattern, seat group, result group).
CHECKS_EN = [
    # "I checked 5 last night: wolf", "checked seat 5 and he came back good"
    (re.compile(rf"\b(?:checked|check(?:ed)?\s+on|verified|inspected|investigated|looked\s+at|looked\s+into|"
                rf"peeked\s+at|my\s+(?:[\w-]+\s+){{0,3}}?check\s+on|my\s+(?:[\w-]+\s+){{0,3}}?result\s+on|checked\s+out)\s+"
                rf"{_SEAT}\b[^.;!?]{{0,40}}?(?:\b(?:is|was|as|came\s+back(?:\s+as)?|came\s+up|got|got\s+back|found|says|said|"
                rf"turned\s+out(?:\s+to\s+be)?|result(?:\s+is|\s+was)?|and|he's|she's|he\s+is|she\s+is)\b|[:=\-–—,])\s*"
                rf"(?:as\s+)?({_EN_RESULT})\b", re.I), 1, 2),
    # "gave 8 a gold water", "gave 8 a kill"
    (re.compile(rf"\b(?:gave|given)\s+{_SEAT}\s+(?:a|my)\s+(gold\s+water|kill|wolf\s+check|good\s+check)\b", re.I), 1, 2),
    # "8 is my gold water", "8 is my wolf check"
    (re.compile(rf"{_SEAT}\s+(?:is|was)\s+(?:my|his|her)\s+(gold\s+water|kill|wolf\s+check|good\s+check|"
                rf"wolf|good)\b(?!\s+(?:read|reads|vibe|feel|suspect|lean|guess|pick|target|call|candidate))", re.I), 1, 2),
    # "gold water on 3", "kill on 8"
    (re.compile(rf"\b(gold\s+water|kill\s+check|wolf\s+check|kill|gold)\s+(?:on|to|for|is)\s+{_SEAT}\b", re.I), 2, 1),
    # "my wolf is #8"
    (re.compile(rf"\bmy\s+(wolf|gold\s+water|kill|wolf\s+check|good\s+check)(?:\s+(?:from|of|on)\s+(?:the\s+)?[\w-]+"
                rf"(?:\s+night)?)?\s+(?:is|was)\s+{_SEAT}\b", re.I), 2, 1),
    # "Seat 3 — checked — werewolf"
    (re.compile(rf"{_SEAT}\s*[—–\-:]\s*checked\s*[—–\-:]\s*({_EN_RESULT})\b", re.I), 1, 2),
    # "wolf check, #6. Gold water, #2."
    (re.compile(rf"(?:^|(?<=[:;.])|(?<=[:;.]\s))\s*\b(wolf\s+check|gold\s+water|kill)\s*[,:]\s*{_SEAT}\b", re.I), 2, 1),
    # "I found a wolf last night: #8"
    (re.compile(rf"\bI\s+found\s+(?:a|my|one)\s+(wolf|werewolf)\b[^.;!?]{{0,25}}?(?:[:—–\-]|\bin|\bon|\bat)\s*{_SEAT}\b",
                re.I), 2, 1),
    # "#5 is the wolf I checked"
    (re.compile(rf"{_SEAT}\s+(?:is|was)\s+(?:the|a|my)\s+(wolf|werewolf|good\s+one|good\s+guy|good\s+player)\s+I\s+"
                rf"(?:checked|verified|investigated|inspected|found)\b", re.I), 1, 2),
    # "named #4 as his wolf check", "#1 as a wolf check"
    (re.compile(rf"{_SEAT}\s+as\s+(?:a|an|his|her|my|the)\s+(wolf\s+check|good\s+check|gold\s+water|kill)\b", re.I), 1, 2),
    # "his check is 7 wolf", "my result on 4: good"
    (re.compile(rf"\b(?:check|result)\s+(?:is|was|on)\s+{_SEAT}\s*(?::|=|-|,?\s*who(?:\s+is|'s)|,|as|is|was)?\s*(?:a\s+)?"
                rf"({_EN_RESULT})\b",
                re.I), 1, 2),
    # "called 8 a wolf", "labelled 8 as good"
    (re.compile(rf"\b(?:call(?:ed|s)?|label(?:l?ed|s)|nam(?:ed|es)|mark(?:ed|s)?)\s+{_SEAT}\s+(?:as\s+)?({_EN_RESULT})\b",
                re.I), 1, 2),
    # "gave #2 as good"
    (re.compile(rf"\bgave\s+{_SEAT}\s+as\s+(?:a\s+)?(good|wolf|werewolf)\b", re.I), 1, 2),
    # "My night-one check, #6, came back as a werewolf."
    (re.compile(rf"\b(?:check|result)\s*[,:—–-]\s*{_SEAT}\s*[,—–-]?\s*(?:(?:came\s+back|was|is|turned\s+out)(?:\s+as|\s+to\s+be)?"
                rf"\s+|result\s*(?:[:=]|is|was)\s*)({_EN_RESULT})\b", re.I), 1, 2),
    # "#6 claimed seer and cleared #12"
    (re.compile(rf"\b(cleared)\s+{_SEAT}\b", re.I), 2, 1),
    # "My second was #4, a good player."
    (re.compile(rf"\bmy\s+(?:first|second|third|fourth|last|latest|other)(?:\s+one|\s+check)?\s+(?:is|was)\s+{_SEAT}"
                rf"(?:\s+(?:himself|herself))?\s*"
                rf"(?:[,:=—–-]|,?\s*who(?:\s+is|'s)|\s+as|\s+and\s+(?:he|she)(?:\s+is|'s))\s*({_EN_RESULT})\b", re.I), 1, 2),
]
#: "two gold waters: 4 and 11", "my wolf checks are #3 and #9"
CHECK_LIST_EN = re.compile(rf"\b(?:my|two|three|both)\s+(gold\s+waters|wolf\s+checks|kills|good\s+checks)\s*(?:[:：]|are|were)\s*"
                           rf"((?:(?:seat\s+|player\s+|#)?\d{{1,2}}(?:\s*,\s*|\s+and\s+|\s*$|(?=\W)))+)", re.I)
#: "gave 8 a kill", "kill on 8", "called 8 a wolf", "#4 as a wolf check": a check only with "I"/"my" before
#: it or from a seer claim, since a speaker says them of others' checks as often as of its own
WEAK_CHECKS_EN = frozenset(CHECKS_EN[i][0] for i in (1, 3, 6, 9, 11, 12, 14))
#: "5 called 8 a wolf": another seat's check only if the speech says that seat claims seer
WEAK_REPORTED_EN = frozenset(CHECKS_EN[i][0] for i in (11,))
LOOSE_EN = re.compile(rf"(?<![\d.])(?:seat\s+|player\s+|#)?(\d{{1,2}})(?!\d)\s*(?:,?\s*(?:is|was|'s)\s+(?:definitely\s+|"
                      rf"certainly\s+|100%\s+|also\s+)?|came\s+back\s+(?:as\s+)?|:\s*|=\s*|-\s*|—\s*|–\s*|"
                      rf"\s+(?=(?:good|wolf|werewolf|innocent|clean)\b))"
                      rf"({_EN_RESULT})\b", re.I)
PRONOUN_RESULT_EN = re.compile(rf"^\s*(?:(?:the\s+)?result\s*(?:[:=]|is|was)\s*|(?:and\s+)?(?:he|she|they|it)\s*(?:is|was|'s|"
                               rf"came\s+back(?:\s+as)?|came\s+up|turned\s+out\s+to\s+be)\s+)({_EN_RESULT})\b", re.I)
CHECKS_ZH = [
    (re.compile(rf"(?:验了?|查验了?|查了|验的是|验的|验人是?)\s*[:：]?\s*{_ZH_SEAT}[^。！？；]{{0,12}}?(?<![不没])(?:是|为|结果是?|身份是|，|,|：|:|—+|-+)\s*"
                rf"(?:一[匹只张])?({_ZH_RESULT})"), 1, 2),
    (re.compile(rf"{_ZH_SEAT}\s*[=:：，,]?\s*(?:是|为)?\s*(?:我的|我给的|他的|她的)?\s*(查杀|金水)"), 1, 2),
    (re.compile(rf"(查杀|金水)(?:\s*(?:给了?|给的是|给的|是|发给了?|发了?|在)\s*)?{_ZH_SEAT}"), 2, 1),
    # 11号是我验出来的狼
    (re.compile(rf"{_ZH_SEAT}\s*(?:是|为)\s*(?:我|他|她)(?:第[一二三四五六七八九十]+[晚夜天]|首夜|昨晚|昨天晚上)?验(?:出来)?的\s*"
                rf"(狼人|狼|好人|金水|查杀)"), 1, 2),
    (re.compile(rf"(?:给了?|发了?)\s*{_ZH_SEAT}\s*(?:发了?|报了?)?\s*(?:一[个张])?(?:的是|的)?(查杀|金水)"), 1, 2),
]
LOOSE_ZH = re.compile(rf"{_ZH_SEAT}\s*(?:[=：:]\s*)?(?:是|为|就是|肯定是|一定是|必是)?\s*(?:一[匹只张])?"
                      rf"(狼人|狼|好人|好身份|坏人)(?!杀|坑|队|人数|刀|的|一起|在|都|会|不|要|别|请|们)"
                      rf"|{_ZH_SEAT}\s*[，,]\s*(?:是)?(狼人|好人|坏人)(?=\s*[。，,；;！!]|\s*$)|{_ZH_SEAT}\s*(?:不是狼)")
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


# --- speech as chat models format it ---------------------------------------------------------------
# Models answer "give your speech" with bullet lists, bold labels, tables, arrows, emoji and quotes of
# other seats. ``_restructure`` rewrites those shapes into the plain sentences the patterns below read,
# and lifts quoted speech out so it is credited to the seat quoted, never to the speaker.

#: traditional characters of the claim vocabulary, read as simplified
_TRAD = str.maketrans("預驗殺號獵衛給對說報結總們這個為請歸藥銀過還發認聽邊場後開槍沒與從來時會裡裏問題應該話讓隊嗎癡護長賊盜僕輪齊夠變壞雙遊戲亂選實經兩獨關點裝騙當氣覺們", "预验杀号猎卫给对说报结总们这个为请归药银过还发认听边场后开枪没与从来时会里里问题应该话让队吗痴护长贼盗仆轮齐够变坏双游戏乱选实经两独关点装骗当气觉们")
_EMOJI_GOOD = "✅✔☑🟢👍😇"
_EMOJI_WOLF = "❌✖🐺🔴🩸👎😈"
_EMOJI_ANY = re.compile(r"[\u2600-\u27bf\U0001F300-\U0001FAFF\uFE0F\u200d]")
_RESULT_WORD = re.compile(r"\b(?:good|wolf|werewolf|clean|innocent|village|kill|gold)\b|金水|查杀|好人|狼|坏人", re.I)
_NIGHT_WORDS = {"1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six"}
_ZH_NIGHT_WORDS = {"1": "一", "2": "二", "3": "三", "4": "四", "5": "五", "6": "六"}
_BULLET = re.compile(r"^\s*(?:[-*•·▪►]+|\d{1,2}[.)、．]|[（(]\d{1,2}[)）])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_ROLE_NO_WOLF_EN = "|".join(sorted((re.escape(w) for w, r in ROLE_WORDS_EN.items() if r != "werewolf"),
                                   key=len, reverse=True))
_ROLE_NO_WOLF_ZH = "|".join(sorted((w for w, r in ROLE_WORDS_ZH.items() if r != "werewolf" and len(w) > 1),
                                   key=len, reverse=True))
#: "- #2: claims Seer, N1 check #9 → good", "| #1 | Seer | #4 good |", "- 3号：预言家，3号→7号 金水"
_RECAP_EN = re.compile(rf"^\s*(?:seat\s+|player\s+)?#?(\d{{1,2}})\s*(?:[:|→\-–—=]|->|\s)\s*"
                       rf"(?:(?:claims?|claimed|counter-?claims?|counter-?claimed|says?|said|jumped|jumps)\s+)?"
                       rf"(?:the\s+|a\s+|an\s+)?({_ROLE_NO_WOLF_EN})\b(.*)$", re.I)
_RECAP_ZH = re.compile(rf"^\s*(\d{{1,2}})\s*号(?:位|玩家)?\s*[:：|→\-—=]\s*"
                       rf"(?:起跳|对跳|悍跳|跳|声称|自称|认|报)?了?(?:是)?({_ROLE_NO_WOLF_ZH})(.*)$")
#: a quote of speech: "…", “…”, 「…」, 『…』
_QUOTE = re.compile(r'"([^"\n]{3,400})"|“([^”\n]{3,400})”|「([^」\n]{3,400})」|『([^』\n]{3,400})』')
_QUOTE_FIRST_PERSON = re.compile(r"\bI\b|\bI'm\b|\bmy\b|\bme\b|我", re.I)
_QUOTE_CLAIM = re.compile(rf"\b(?:{_ROLE_NO_WOLF_EN})\b|\b(?:checked|check|gold\s+water|kill)\b|预言家|女巫|猎人|守卫|查杀|金水|验",
                          re.I)
_ATTRIBUTION_BEFORE = re.compile(r"(?:seat\s+|player\s+|#)?(\d{1,2})(?:\s*号(?:位|玩家)?)?(?![\d])"
                                 r"([^\"“「『#\d]{0,60})$", re.I)
_ATTRIBUTION_AFTER = re.compile(r"^\s*[—–\-,，]*\s*(?:that's|that\s+is|this\s+is|is)\s+what\s+(?:seat\s+|player\s+|#)?"
                                r"(\d{1,2})\b|^\s*[—–\-,，]*\s*(?:是|这是)?(\d{1,2})号(?:说的|的原话|原话)", re.I)
_ATTRIBUTION_VERB = re.compile(r"said|says|say|saying|told|tells|opened|claimed|claims|wrote|announced|declared|"
                               r"quote|went|put\s+it|spoke|words|说|讲|原话|表示|声称|发言|那段|这段", re.I)


def _emoji_line(line: str, zh: bool) -> str:
    """✅ / ❌ / 🐺 as the result they stand for, unless the words beside it (same clause) say it."""
    good, wolf = ("好人", "狼人") if zh else ("good", "wolf")

    def worded(text: str, pos: int) -> bool:
        start = max(text.rfind(ch, 0, pos) for ch in ",.;，。；|") + 1
        ends = [i for i in (text.find(ch, pos) for ch in ",.;，。；|") if i != -1]
        return bool(_RESULT_WORD.search(_EMOJI_ANY.sub("", text[start:min(ends) if ends else len(text)])))

    def result(ch: str, text: str, pos: int) -> str:
        if worded(text, pos):  # the words say it: an emoji only separates ("✅ 4号 金水 ❌ 11号 查杀")
            return "，" if zh else " "
        return f" {good} " if ch in _EMOJI_GOOD else f" {wolf} " if ch in _EMOJI_WOLF else " "

    # a result before its seat ("🐺 #10", "✅ 4号") goes after it
    seat = r"((?:seat\s+|player\s+|#)?\d{1,2}(?:\s*号)?)"
    line = re.sub(rf"([{_EMOJI_GOOD}{_EMOJI_WOLF}])\uFE0F?\s*{seat}",
                  lambda m: m.group(0) if worded(line, m.start()) else f"{m.group(2)}{result(m.group(1), line, m.start())}",
                  line, flags=re.I)
    line = "".join(result(ch, line, i) if ch in _EMOJI_GOOD or ch in _EMOJI_WOLF else ch for i, ch in enumerate(line))
    return _EMOJI_ANY.sub(" ", line)


def _recap_line(line: str, zh: bool) -> str | None:
    """A line that opens with a seat and the role it claimed, rewritten as a reported claim."""
    m = (_RECAP_ZH if zh else _RECAP_EN).match(line)
    if not m:
        return None
    seat, role, rest = m.group(1), m.group(2), m.group(3)
    other = re.match(r"^\s*[,;，；]\s*(.*)$", rest)
    if other and (FRAME_ZH if zh else FRAME_EN).match(other.group(1)):
        return (f"{seat}号声称是{role}。" if zh else f"#{seat} claimed {role}. ") + other.group(1)
    rest = re.sub(rf"(?:seat\s+|player\s+|#)?{seat}\s*(?:号)?\s*(?:→|->|=>)", " ", rest, flags=re.I)
    rest = re.sub(r"→|->|=>", ": ", rest).strip(" \t,，;；:：|—–-")
    if zh:
        return f"{seat}号声称是{role}。" + (f"{seat}号说{rest}。" if rest else "")
    return f"#{seat} claimed {role}. " + (f"#{seat} said {rest}." if rest else "")


def _table(rows: list[list[str]], zh: bool) -> list[str]:
    """A markdown table as sentences: a seer's check table, a table of seats' claims, or plain rows."""
    header = [c.strip().lower() for c in rows[0]]

    def col(rx: str) -> int | None:
        return next((i for i, c in enumerate(header) if re.search(rx, c)), None)

    claim_col = col(r"claim|role|identity|身份|跳|声称")
    seat_col = col(r"seat|player|target|checked|座位|玩家|号位|验人|查验|对象")
    result_col = col(r"result|结果|check|查验结果")
    out: list[str] = []
    for row in rows[1:]:
        cells = [_emoji_line(c, zh).strip() for c in row]

        def cell(i: int | None) -> str:
            return cells[i] if i is not None and i < len(cells) else ""
        if claim_col is not None and seat_col is not None:
            others = [c for i, c in enumerate(cells) if i not in (claim_col, seat_col) and c.strip("—–- ")]
            line = (f"{cell(seat_col)}：{cell(claim_col)}，" if zh else f"{cell(seat_col)}: {cell(claim_col)}, ") + \
                ("，" if zh else ", ").join(others)
            out.append(_recap_line(line, zh) or line)
        elif seat_col is not None and result_col is not None and result_col != seat_col:
            if zh:
                out.append(f"我验了{cell(seat_col)}，是{cell(result_col)}。")
            else:
                out.append(f"I checked {cell(seat_col)}: {cell(result_col)}.")
        else:
            out.append(("，" if zh else ", ").join(c for c in cells if c) + ("。" if zh else "."))
    return out


def _lift_quotes(text: str) -> tuple[str, list[tuple[int, str]]]:
    """Quoted speech out of the text: (text without it, [(seat quoted, quoted text)]).

    A quote with a first-person word is speech: it is credited to the seat named just before it
    ("#5 opened with: "…"", 5号说："…"") or just after ("— that's what #1 said"), and dropped when no
    seat is named (never the speaker's own). A quote without one ("gold water") is kept as text."""
    quoted: list[tuple[int, str]] = []
    out: list[str] = []
    last = 0
    for m in _QUOTE.finditer(text):
        inner = next(g for g in m.groups() if g is not None)
        out.append(text[last:m.start()])
        last = m.end()
        line_before = text[:m.start()].rsplit("\n", 1)[-1]
        seat: int | None = None
        before = _ATTRIBUTION_BEFORE.search(line_before[-80:])
        quoting = before is not None and re.search(r"\bquot(?:e|ing)\s*$", line_before[:before.start()][-80:].strip() + " ")
        if before and (_ATTRIBUTION_VERB.search(before.group(2)) or before.group(2).strip() in (":", "：") or quoting):
            seat = int(before.group(1))
        else:
            after = _ATTRIBUTION_AFTER.match(text[m.end():m.end() + 60])
            if after:
                seat = int(after.group(1) or after.group(2))
        if seat is not None and (_QUOTE_FIRST_PERSON.search(inner) or _QUOTE_CLAIM.search(inner)):
            quoted.append((seat, inner))
        elif not _QUOTE_FIRST_PERSON.search(inner):
            out.append(inner)  # a phrase in quotes ("gold water"), no speech: kept as text
            continue
        out.append(" ")
    out.append(text[last:])
    return "".join(out), quoted


def _restructure(text: str) -> tuple[str, list[tuple[int, str]]]:
    """Chat-model formatting as plain sentences, and the quoted speech of other seats lifted out."""
    zh = bool(_CJK.search(text))
    if zh:
        text = text.translate(_TRAD)
    text = re.sub(r"\*\*|__|`|^#{1,6}\s+", "", text, flags=re.M)
    text = re.sub(r"(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])", "", text)
    text, quoted = _lift_quotes(text)
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                if not _TABLE_RULE.match(lines[i].replace("|", "", 1)):
                    rows.append([c for c in lines[i].strip().strip("|").split("|")])
                i += 1
            if len(rows) > 1:
                out.extend(_table(rows, zh))
            continue
        line = _BULLET.sub("", line)
        line = _night_words(line, zh)
        line = _emoji_line(line, zh)
        line = _inline_claims(line)
        recap = _recap_line(line, zh)
        if recap is not None:
            line = recap
        else:
            line = re.sub(r"\s*(?:→|->|=>|⇒)\s*", ": ", line)
        out.append(line)
        i += 1
    return "\n".join(out), quoted


_CLAIMED_APPOSITION = re.compile(rf"\bthe\s+(?:(?:claimed|self-proclaimed|self-claimed|so-called|alleged)\s+"
                                 rf"({_ROLE_NO_WOLF_EN})|({_ROLE_NO_WOLF_EN})\s+claimant),?\s+((?:seat\s+|player\s+|#)\d{{1,2}}),",
                                 re.I)
#: "#7, our claimed hunter,", "#10 (claimed seer)"
_CLAIMED_AFTER = re.compile(rf"((?:seat\s+|player\s+|#)\d{{1,2}})(?:,\s+(?:our|the|a)\s+(?:claimed|self-proclaimed|so-called)\s+"
                            rf"({_ROLE_NO_WOLF_EN}),|\s*\(\s*(?:claimed|claims|claiming)\s+(?:the\s+)?({_ROLE_NO_WOLF_EN})\s*\))",
                            re.I)
_SHORT_CHECK = {"gold": "gold water", "gold water": "gold water", "good": "good check", "clean": "good check",
                "kill": "kill", "wolf": "wolf check", "wolf check": "wolf check"}
_PAREN_CHECK = re.compile(rf"((?:seat\s+|player\s+|#)\d{{1,2}})(?:\s+({_ROLE_NO_WOLF_EN}))?\s*\(\s*"
                          rf"(gold\s+water|gold|good|clean|kill|wolf\s+check|wolf)\s+(?:on|to|for)\s+"
                          rf"((?:seat\s+|player\s+|#)\d{{1,2}})\s*\)", re.I)


_CLAIMANT_AFTER = re.compile(rf"((?:seat\s+|player\s+|#)\d{{1,2}}),\s+the\s+(?:(?:first|second|other|only)\s+)?"
                             rf"(?:({_ROLE_NO_WOLF_EN})\s+)?claimant,", re.I)


_SEAT_TOKEN = r"(?:seat\s+|player\s+|#)\d{1,2}"
#: "Two seer claims: #3 (gold on #6) and #9 (wolf on #3)", "One witch claim: #6", "the seer claimants are #5 and #10"
_CLAIM_LIST = re.compile(rf"\b(?:(?:the\s+)?(?:one|two|three|four|both|only)\s+|the\s+)?({_ROLE_NO_WOLF_EN})\s+"
                         rf"(?:claims?|claimants?|claimers?)\s*(?:[:：]|\b(?:are|were|is|was)\b)\s*"
                         rf"((?:{_SEAT_TOKEN}(?:\s*\([^()]*\))?(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)?)+)", re.I)
_LIST_ITEM = re.compile(rf"({_SEAT_TOKEN})(\s*\([^()]*\))?", re.I)
#: "…, #7, had claimed guard", "the real seer, #10, already checked #3": the seat is the subject
_APPOSED_SEAT = re.compile(rf"(?:(?<=,\s)|(?<=[—–]\s))({_SEAT_TOKEN}),\s+(?=(?:(?:already|also|then|had|has|just|first|"
                           rf"originally|earlier)\s+)*(?:claimed|said|checked|told|gave|called)\b)|"
                           rf"({_SEAT_TOKEN}),\s+(?=(?:already|also|then|had|has|just|originally|earlier)\s+"
                           rf"(?:claimed|said|checked|told|gave|called)\b)", re.I)
#: "#3 — the self-proclaimed seer —"
_DASHED_CLAIM = re.compile(rf"({_SEAT_TOKEN})\s*[—–]\s*the\s+(?:self-proclaimed|claimed|so-called|alleged|self-claimed)\s+"
                           rf"({_ROLE_NO_WOLF_EN})\s*[—–]", re.I)
#: "#6 witch" beside "#4 seer (gold on #6)" in one list
_BARE_SEAT_ROLE = re.compile(rf"(?:^|(?<=[,;:]\s)|(?<=[,;:]))\s*({_SEAT_TOKEN})\s+"
                             rf"(seer|witch|hunter|guard|idiot|bodyguard|prophet)(?=\s*[,.;]|\s*$)", re.I)


def _claim_list(m: re.Match[str]) -> str:
    role = m.group(1)
    items = [f"{seat} {role}{paren}" if paren else f"{seat} claimed {role};"
             for seat, paren in _LIST_ITEM.findall(m.group(2))]
    return " ".join(items) + " "


def _inline_claims(line: str) -> str:
    """ "the claimed witch, #5, saved 11" and "#4 seer (gold on #6)" as reported claims."""
    line = _CLAIM_LIST.sub(_claim_list, line)
    line = _DASHED_CLAIM.sub(lambda m: f"{m.group(1)} (claimed {m.group(2)})", line)
    if _PAREN_CHECK.search(line) and any(mm.group(2) for mm in _PAREN_CHECK.finditer(line)):
        line = _BARE_SEAT_ROLE.sub(lambda m: f" {m.group(1)} claimed {m.group(2)}", line)
    line = _CLAIMANT_AFTER.sub(lambda m: f"{m.group(1)} (claimed {m.group(2)})" if m.group(2) else m.group(1), line)
    line = re.sub(r"\b(gold\s+water|wolf\s+check|kill)\s*\(\s*((?:seat\s+|player\s+|#)\d{1,2})\s*\)", r"\1 on \2", line,
                  flags=re.I)
    line = re.sub(r"((?:seat\s+|player\s+|#)\d{1,2}),\s+(who\s)", r"\1 \2", line, flags=re.I)
    line = _CLAIMED_APPOSITION.sub(lambda m: f"{m.group(3)} claimed {m.group(1) or m.group(2)}, and {m.group(3)} then",
                                   line)
    line = _CLAIMED_AFTER.sub(lambda m: f"{m.group(1)} claimed {m.group(2) or m.group(3)}, and {m.group(1)} then", line)
    line = _APPOSED_SEAT.sub(lambda m: f"{m.group(1) or m.group(2)} ", line)

    def paren(m: re.Match[str]) -> str:
        role = f" claimed {m.group(2)} and" if m.group(2) else ""
        check = _SHORT_CHECK[" ".join(m.group(3).lower().split())]
        return f"{m.group(1)}{role} gave {m.group(4)} a {check};"
    return _PAREN_CHECK.sub(paren, line)


def _night_words(line: str, zh: bool) -> str:
    """N1, night 1, 第1晚 in words, so that a night number is never read as a seat."""
    line = re.sub(r"\b(?:N|night\s*|Night\s*)([1-6])\b", lambda m: f"night {_NIGHT_WORDS[m.group(1)]}", line)
    line = re.sub(r"\b(?:D|day\s*|Day\s*)([1-6])\b", lambda m: f"day {_NIGHT_WORDS[m.group(1)]}", line)
    if zh:
        line = re.sub(r"第([1-6])(夜|晚|天|轮)", lambda m: f"第{_ZH_NIGHT_WORDS[m.group(1)]}{m.group(2)}", line)
    line = re.sub(r"\(\s*(good|wolf|werewolf|clean|village-aligned)\s*\)", r": \1", line, flags=re.I)
    line = re.sub(r"\(\s*(好人|狼人|金水|查杀|狼)\s*\)", r"，\1，", line)
    return line


# --- reading -------------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    text = text.translate(str.maketrans("０１２３４５６７８９＃：，（）", "0123456789#：，()"))
    if _CJK.search(text):
        text = text.translate(_TRAD)
    text = re.sub(r"\bNo\.\s*(?=\d)", "#", text, flags=re.I)
    text = re.sub(r"(十[一二三四五六七八]|[一二两三四五六七八九十])(?=\s*号)", lambda m: str(_ZH_NUMERALS[m.group(1)]), text)
    return text


_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE = re.compile(r"[^.!?;。！？；\n]+(?:[.!?;。！？；\n]+|$)")
_CLAUSE_SPLIT = re.compile(r"(?<=[,，、:：])|(?<=\s[—–]\s)|(?=\s(?:but|while|whereas|although|though)\s)|(?=但是|可是|不过)")


#: a retraction of what came before in the speech: "I lied", 是假的, 开玩笑 (the text is cut after it)
ROLE_RETRACT_AFTER = re.compile(r"\bI\s+lied\b|\bforget\s+(?:what|that)\s+I\b|\bscratch\s+that\b|\bI\s+was\s+lying\b|\bthat\s+was\s+(?:a\s+)?(?:lie|joke|bluff)\b|"
                                r"\bjust\s+kidding\b|\bI\s+was\s+(?:joking|bluffing)\b|\bnot\s+really\b|"
                                r"是假的|骗(?:狼|人|你们|大家)?的?|开玩笑的?|开个玩笑|改口|不装了|假跳|诈身份|乱说的|瞎说的|胡说的", re.I)
#: a correction that replaces what came before: "I'm actually a villager", 我其实是 (cut before it)
ROLE_RETRACT_BEFORE = re.compile(r"\bI(?:'m|\s+am)\s+actually\b|\bactually,?\s+I(?:'m|\s+am)\b|我其实是|其实我是|我实际上是")
CHECK_RETRACT = re.compile(r"\bI\s+misspoke\b|\bI\s+made\s+a\s+mistake\b|\bI\s+meant\b|说错了|口误|报错了|乱说|瞎说|胡说|"
                           r"不算数|别当真|不要当真|诈身份|是假的", re.I)
#: "Oh sure, and I'm the seer too", 呵呵，那我也是女巫好了: a role said in mockery claims nothing
SARCASM = re.compile(r"^\W*(?:oh\s+)?(?:sure|yeah\s+right|oh\s+yeah|oh\s+right)\b|king\s+of\s+england|"
                     r"everyone'?s\s+(?:a|the)\s+seer|呵呵|哈哈|大家都是|也是\S{1,4}好了", re.I)
_BARE_ROLE_EN = re.compile(rf"^\W*({_EN_ROLE})(?:\s*,\s*(?:day|night)\s+\w+)?\W*$", re.I)


def _sentences(text: str) -> list[str]:
    # "5.5" never happens in speech; a dot between digits is kept anyway, and so is "No. 5" (normalised).
    out: list[str] = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        while True:  # a retraction ends a sentence, so that it applies to what came before it only
            cut = ROLE_RETRACT_AFTER.search(sentence)
            before = ROLE_RETRACT_BEFORE.search(sentence, 1)
            if before and (cut is None or before.start() < cut.end()):
                if sentence[:before.start()].strip():
                    out.append(sentence[:before.start()])
                sentence = sentence[before.start():]
                if not ROLE_RETRACT_AFTER.search(sentence):
                    break
                continue
            if cut is None or cut.end() >= len(sentence.rstrip()):
                break
            out.append(sentence[:cut.end()])
            sentence = sentence[cut.end():]
        if sentence.strip():
            out.append(sentence)
    return out


def _is_question(sentence: str) -> bool:
    s = sentence.rstrip()
    return s.endswith(("?", "？")) or bool(re.search(r"吗[。！？!?\s]*$|呢[？?]", s))


def _result(word: str) -> str | None:
    w = re.sub(r"\s+", " ", word.lower())
    return RESULT_EN.get(w) or RESULT_ZH.get(word) or {"gold water": "good", "kill": "wolf", "wolf check": "wolf", "cleared": "good",
                                                      "good check": "good", "kill check": "wolf", "gold": "good",
                                                      "good one": "good", "good guy": "good"}.get(w)


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
    cut = max(segment.rfind(ch, 0, pos) for ch in ",，、:：—–")
    for word in (" but ", " and ", " so ", "但是", "而且", "所以", "，"):
        i = segment.rfind(word, 0, pos)
        if i > cut:
            cut = i
    return cut + 1


#: the subject of "he checked 6" when no seat was named before: someone else, but not known who
UNKNOWN_SEAT = 0


def _subjects(sentence: str, last_other: int | None, players: int,
              fallback: int | None = None) -> tuple[list[tuple[int | None, str]], int | None]:
    """Cut a sentence into (subject, text) segments: None is the speaker, an int another seat
    (UNKNOWN_SEAT: a "he"/他 with no seat named before; ``fallback`` is the one seat the sentence
    before named, if it named just one)."""
    clauses = [c for c in _CLAUSE_SPLIT.split(sentence) if c]
    segments: list[tuple[int | None, str]] = []
    subject: int | None = None
    seen: int | None = None  # the last seat named in this sentence so far ("Hey #7 — you said …")
    alone: int | None = None  # the seat the clause before consisted of ("#4 — said he's the idiot")
    for clause in clauses:
        stripped = clause.strip()
        if FIRST_PERSON_EN.match(stripped) or FIRST_PERSON_ZH.match(stripped) or OWN_RESULT.search(stripped):
            subject = None
        # The earliest reporting frame in the clause switches the subject from there on.
        best: tuple[int, int] | None = None
        for rx in (FRAME_EN, FRAME_ZH, SEAT_ROLE_ZH, SEAT_IS_ROLE_ZH):
            m = rx.search(clause)
            if m:
                seat = next((int(g) for g in m.groups() if g and g.isdigit()), None)
                if seat is not None and 1 <= seat <= players and (best is None or m.start() < best[0]):
                    best = (m.start(), seat)
        if best is None:
            for rx in (PRONOUN_FRAME_EN, PRONOUN_FRAME_ZH):
                m = rx.search(clause)
                if m and (best is None or m.start() < best[0]):
                    # the seat named last before the pronoun, in this clause or an earlier one of the sentence
                    here = [int(g) for g in re.findall(r"(?:#|seat\s+|player\s+)(\d{1,2})\b|(?<!\d)(\d{1,2})\s*号",
                                                       clause[:m.start()], re.I) for g in g if g]  # type: ignore[misc]
                    near = here[-1] if here and 1 <= here[-1] <= players else None
                    bare_verb = not re.match(r"(?:he|she|his|her|you)\b", m.group(0).strip(), re.I)
                    if m.group(0).lower().startswith("you"):
                        order: tuple[int | None, ...] = (seen, last_other)
                    elif bare_verb:  # "#4 — said he's the idiot": the seat that stood alone just before
                        order = (alone, last_other, seen)
                    else:
                        order = (last_other, seen, near)
                    best = (m.start(), next((s for s in (*order, fallback) if s is not None), UNKNOWN_SEAT))
        if best is not None:
            start, seat = best
            if clause[:start].strip():
                segments.append((subject, clause[:start]))
            # "#7 claimed seer and #11 claimed seer later": each frame in the clause starts its own subject
            cuts = [(start, seat)] + [(m.start(), int(next(g for g in m.groups() if g and g.isdigit())))
                                      for m in FRAME_EN.finditer(clause, start + 1)
                                      if re.search(r"\b(?:and|while|whereas|then)\s+$", clause[:m.start()], re.I)]
            cuts = [(a, b) for a, b in cuts if 1 <= b <= players]
            for (cut_start, cut_seat), nxt in zip(cuts, [c[0] for c in cuts[1:]] + [len(clause)]):
                subject = cut_seat
                if cut_seat != UNKNOWN_SEAT:
                    last_other = cut_seat
                segments.append((subject, clause[cut_start:nxt]))
        else:
            segments.append((subject, clause))
        named = [int(g) for g in re.findall(r"(?:#|seat\s+|player\s+)(\d{1,2})\b|(\d{1,2})\s*号", clause, re.I)
                 for g in g if g]  # type: ignore[misc]
        if named and 1 <= named[-1] <= players:
            seen = named[-1]
        lone = re.fullmatch(r"\W*(?:seat\s+|player\s+|#)(\d{1,2})\s*[—–:,-]*\s*", clause, re.I)
        alone = int(lone.group(1)) if lone and 1 <= int(lone.group(1)) <= players else None
    merged: list[tuple[int | None, str]] = []
    for subj, text in segments:
        if merged and merged[-1][0] == subj:
            merged[-1] = (subj, merged[-1][1] + text)
        else:
            merged.append((subj, text))
    return merged, last_other


NEGATED_CHECK_WORD = re.compile(r"不是验人|不是查杀|不是金水|没有验|没验|not\s+a\s+check|no\s+check|isn't\s+a\s+check|"
                                r"not\s+checks?\b", re.I)
FUTURE_CHECK = re.compile(r"\btonight\s+I\b|\btomorrow\b|\bwill\s+check|\bI'll\s+check|\bgoing\s+to\s+check|\bbadge\s+flow|"
                          r"\bplan\b|今晚验|明晚|明天验|警徽流|先验|再验|准备验|打算验|想验", re.I)
VOTE_BEFORE_ZH = re.compile(r"(?:出|投|投给|归票|票给|票出|踩|打|推)\s*$")


def _checks_in(segment: str, zh: bool, players: int, *, own: bool = True
               ) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """(strict, loose) checks of a segment as (position, seat, result); ``own``: the speaker's segment."""
    strict: list[tuple[int, int, str]] = []
    loose: list[tuple[int, int, str]] = []
    for rx, seat_g, result_g in (CHECKS_ZH if zh else CHECKS_EN):
        for m in rx.finditer(segment):
            seat, result = int(m.group(seat_g)), _result(m.group(result_g))
            before = segment[_clause_start(segment, m.start()):m.start()]
            if result and 1 <= seat <= players and not _blocked(before, zh) and not FUTURE_CHECK.search(before):
                weak = (own and not zh and rx in WEAK_CHECKS_EN and not re.search(r"\b(?:I|my)\b", before, re.I)) or \
                    (not own and rx in WEAK_REPORTED_EN)
                (loose if weak else strict).append((m.start(), seat, result))
    for m in ([] if zh else CHECK_LIST_EN.finditer(segment)):
        before = segment[_clause_start(segment, m.start()):m.start()]
        result = _result(re.sub(r"s$", "", m.group(1).lower()))
        if result and not _blocked(before, zh) and not FUTURE_CHECK.search(before):
            for seat_text in re.findall(r"\d{1,2}", m.group(2)):
                if 1 <= int(seat_text) <= players:
                    strict.append((m.start(), int(seat_text), result))
    has_check_word = bool((CHECK_WORD_ZH if zh else CHECK_WORD_EN).search(NEGATED_CHECK_WORD.sub("", segment)))
    for m in (LOOSE_ZH if zh else LOOSE_EN).finditer(segment):
        groups = [g for g in m.groups() if g]
        seat = int(groups[0])
        result = _result(groups[1]) if len(groups) > 1 else "good"
        if not result or not 1 <= seat <= players:
            continue
        if any(s == seat for _, s, _ in strict):
            continue
        before = segment[_clause_start(segment, m.start()):m.start()]
        if zh and (re.search(r"不是?\s*$", before) or VOTE_BEFORE_ZH.search(before)):
            continue
        if FUTURE_CHECK.search(before):
            continue
        if _blocked(before, zh, hedge=True) or (HEDGE_ZH if zh else HEDGE_EN).search(segment[:m.start()]):
            continue
        (strict if has_check_word else loose).append((m.start(), seat, result))
    return strict, loose


#: 我是狼他也会发: "even if I were a wolf he would" — a concession, no claim
_CONCESSIVE_AFTER_ZH = re.compile(r"^[^，,。；;！？!?]{0,3}(?:也|都)会")
_NOT_MEANT_AFTER = re.compile(r"^[\s,—–\-]*(?:is|was)\s+what\b|^[\s,]*right\s*\?", re.I)


def _roles_in(segment: str, zh: bool, patterns: list[re.Pattern[str]], after: str = "") -> list[tuple[int, str]]:
    """Roles the patterns find in a segment; ``after``: the rest of the sentence past the segment."""
    found = []
    for rx in patterns:
        for m in rx.finditer(segment):
            role = _role(next(g for g in m.groups() if g))
            if _NOT_MEANT_AFTER.match(segment[m.end():]) or (zh and _CONCESSIVE_AFTER_ZH.match(segment[m.end():] + after)):
                continue
            if role and not _blocked(segment[_clause_start(segment, m.start()):m.start()], zh):
                found.append((m.start(), role))
    return found


def _add(items: list, item: object) -> None:  # type: ignore[type-arg]
    if item not in items:
        items.append(item)


def _question_tail(sentence: str) -> tuple[str, bool]:
    """A question states nothing, but the clauses before its last one may: "#6 says so, but #6 also said
    he's the witch, so how would he know?" keeps the claim; the asking clause goes."""
    if not _is_question(sentence):
        return sentence, False
    cut = max(sentence.rstrip().rfind(ch, 0, len(sentence.rstrip()) - 1) for ch in ",，:：")
    return (sentence[:cut + 1] if cut > 0 else ""), True


@lru_cache(maxsize=65536)  # every seat at the table reads the same speech: read it once (treat as read-only)
def parse_claims(text: str | None, players: int = 99) -> Claims:
    """The claims of one speech: the speaker's own and those it attributes to other seats."""
    out = Claims()
    if not text or len(text) < 3:
        return out
    text, quoted = _restructure(_normalise(text))
    role: str | None
    result: str | None
    for seat, inner in quoted:  # a quoted seat's own words: its claims, never the speaker's
        if not 1 <= seat <= players:
            continue
        said = parse_claims(inner, players)
        for role in said.roles:
            _add(out.reported_roles, (seat, role))
        for target, result in said.checks_given(False):
            if target != seat:
                _add(out.reported_checks, (seat, target, result))
    zh_text = bool(_CJK.search(text))
    last_other: int | None = None
    pending_check: int | None = None  # "I checked 5." waiting for "He is a wolf."
    reported_seer: set[int] = {seat for seat, role in out.reported_roles if role == "seer"}
    reported_loose: list[tuple[int, int, str]] = []
    fake_seer: list[int] = []
    fallback: int | None = None
    heard = ""  # the speech read so far: "#3 claims it" names the role last spoken of

    def report_role(seat: int, role: str) -> None:
        _add(out.reported_roles, (seat, role))
        if role == "seer":
            reported_seer.add(seat)
    for sentence in _sentences(text):
        if ROLE_RETRACT_BEFORE.match(sentence.strip()):
            out.roles.clear()
        whole = sentence
        sentence, question = _question_tail(sentence)
        sarcastic = bool(SARCASM.search(sentence))
        bare = _BARE_ROLE_EN.match(sentence)  # "Seer." alone on its line
        bare_role = _role(bare.group(1)) if bare and not question else None
        if bare_role and bare_role != "werewolf":
            _add(out.roles, bare_role)
        # whole-sentence shapes: "#10, who #3 checked as a wolf", 7号是5号预言家给的金水, 跳预言家的是5号和10号
        for m in list(CHECKED_BY_EN.finditer(sentence)) + list(GIVEN_BY_ZH.finditer(sentence)):
            target, by, result = int(m.group(1)), int(m.group(2)), _result(m.group(3))
            if result and target != by and 1 <= by <= players and 1 <= target <= players:
                _add(out.reported_checks, (by, target, result))
        for m in list(JOINT_FRAME_EN.finditer(sentence)) + list(JOINT_FRAME_ZH.finditer(sentence)):
            role = _role(m.group(3))
            for g in (1, 2):
                seat = int(m.group(g))
                if role and 1 <= seat <= players:
                    report_role(seat, role)
        seat_roles = [(int(m.group(2)), _role(m.group(1))) for m in FAKE_ONE_EN.finditer(sentence)] + \
            [(int(m.group(1)), _role(m.group(2))) for m in SAID_SO_EN.finditer(sentence)]
        for seat, role in seat_roles:
            if role and 1 <= seat <= players:
                report_role(seat, role)
        for m in JUMPED_ZH.finditer(sentence):
            if 1 <= int(m.group(1)) <= players:
                report_role(int(m.group(1)), "seer")
        for rx in SEAT_CLAIMED_ZH:
            for m in rx.finditer(whole):
                role = next(_role(g) for g in m.groups() if not g.isdigit())
                for seat_text in (g for g in m.groups() if g.isdigit()):
                    if role and 1 <= int(seat_text) <= players:
                        report_role(int(seat_text), role)
        for m in JUMPED_ARE_ZH.finditer(sentence):
            for more in INVENTORY_MORE_ZH.finditer(sentence, m.end()):
                role = _role(more.group(1))
                if role and 1 <= int(more.group(2)) <= players:
                    _add(out.reported_roles, (int(more.group(2)), role))
            role = _role(m.group(1))
            for seat_text in re.findall(r"\d{1,2}", m.group(2)):
                if role and 1 <= int(seat_text) <= players:
                    report_role(int(seat_text), role)
        segments, last_other = _subjects(sentence, last_other, players, fallback)
        named = {int(g) for g in re.findall(r"(?:#|seat\s+|player\s+)(\d{1,2})\b|(\d{1,2})\s*号", whole, re.I)
                 for g in g if g}  # type: ignore[misc]
        if named:  # a sentence that names no seat keeps the one named before it
            fallback = next(iter(named)) if len(named) == 1 and 1 <= next(iter(named)) <= players else None
        for subject, seg in segments:
            zh = zh_text and bool(_CJK.search(seg))
            heard_before, heard = heard, heard + seg
            for m in (SEAT_ROLE_ZH.finditer(seg) if zh else CLAIM_OF_EN.finditer(seg)):
                groups = [g for g in m.groups() if g]
                seat = next(int(g) for g in groups if g.isdigit())
                role = next((_role(g) for g in groups if not g.isdigit()), None)
                if role and 1 <= seat <= players:
                    report_role(seat, role)

            for m in (FAKE_ROLE_ZH.finditer(seg) if zh else list(FAKE_ROLE_EN.finditer(seg)) + list(FAKE_ROLE_EN_2.finditer(seg))):
                groups = [g for g in m.groups() if g]
                seat = next(int(g) for g in groups if g.isdigit())
                role = next((_role(g) for g in groups if not g.isdigit()), None)
                if role is None:  # 悍跳狼: a fake seer, unless the speech says which role the seat faked
                    fake_seer.append(seat)
                    continue
                if 1 <= seat <= players:
                    report_role(seat, role)
            if subject == UNKNOWN_SEAT or (question and subject is None):
                continue  # in a question only the statements it reports of others stand
            if subject is None:
                rest = sentence[sentence.find(seg) + len(seg):] if seg in sentence else ""
                roles = [] if sarcastic else _roles_in(seg, zh, SELF_ROLE_ZH if zh else SELF_ROLE_EN, rest)
                for _, role in sorted(roles):
                    _add(out.roles, role)
                strict, loose = _checks_in(seg, zh, players)
                if pending_check is not None and not strict:
                    pronoun = (PRONOUN_RESULT_ZH if zh else PRONOUN_RESULT_EN).match(seg)
                    if pronoun and _result(pronoun.group(1)):
                        strict.append((pronoun.start(), pending_check, _result(pronoun.group(1)) or "good"))
                pending_check = None
                if not strict:
                    trailing = re.search(rf"\b(?:checked|verified|inspected|investigated)\s+{_SEAT}(?:\s+(?:last\s+night|"
                                         rf"yesterday|on\s+(?:the\s+)?(?:first\s+)?night(?:\s+\w+)?|first))?\s*$",
                                         seg.strip(" .,"), re.I) or \
                        re.search(rf"^\W*night\s+(?:one|two|three|four|five|six)\s*[:,—–-]\s*{_SEAT}\s*$", seg.strip(" .,"),
                                  re.I) or \
                        re.search(rf"(?:验了?|查验了?|查了)\s*{_ZH_SEAT}\s*[。，,.]?\s*$", seg.strip())
                    if trailing:
                        pending_check = int(trailing.group(1))
                for _, seat, result in sorted(strict):
                    _add(out.checks, (seat, result))
                for _, seat, result in sorted(loose):
                    if (seat, result) not in out.checks:
                        _add(out.loose_checks, (seat, result))
            else:
                # only where the seat is named ("#3 claims it"), not through "he"
                claimed_it = None if zh or not re.match(rf"\W*{_SEAT}", seg, re.I) else CLAIMED_IT_EN.search(seg)
                if claimed_it and not _blocked(seg[:claimed_it.start()], zh):
                    spoken = [_role(w) for w in _ROLE_SPOKEN_EN.findall(heard_before)]
                    if spoken and spoken[-1]:
                        report_role(subject, spoken[-1])
                for _, role in sorted(_roles_in(seg, zh, REPORTED_ROLE_ZH if zh else REPORTED_ROLE_EN)):
                    report_role(subject, role)
                strict, loose = _checks_in(seg, zh, players, own=False)
                for _, seat, result in sorted(strict):
                    if seat != subject:
                        _add(out.reported_checks, (subject, seat, result))
                reported_loose += [(subject, seat, result) for _, seat, result in sorted(loose) if seat != subject]
        if ROLE_RETRACT_AFTER.search(whole):
            out.roles.clear()
        if CHECK_RETRACT.search(whole):
            out.checks.clear()
            out.loose_checks.clear()
    for seat in fake_seer:
        if 1 <= seat <= players and not any(s == seat for s, _ in out.reported_roles):
            report_role(seat, "seer")
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


# --- which reader the evaluator uses ------------------------------------------------------------------
#: the reader the claim metrics use: the rule-based ``parse_claims`` unless ``using_reader`` says
#: otherwise (``arena score --claims-reader model``). The bots and the LLM prompts' claims line always
#: use ``parse_claims``: it is offline, deterministic and the same for every seat.
ClaimsReaderFn = Callable[[str, int], Claims]
REGEX_READER = "regex (arena/evaluate/claims.py)"
_ACTIVE_READER: ContextVar[tuple[ClaimsReaderFn, str] | None] = ContextVar("claims_reader", default=None)


def read_claims(text: str, players: int) -> Claims:
    """The claims of one speech through the active reader (the rule-based one by default)."""
    active = _ACTIVE_READER.get()
    return parse_claims(text, players) if active is None else active[0](text, players)


def active_reader_name() -> str:
    active = _ACTIVE_READER.get()
    return REGEX_READER if active is None else active[1]


@contextmanager
def using_reader(reader: ClaimsReaderFn, name: str) -> Iterator[None]:
    """Read claims with ``reader`` (described by ``name`` in the report) inside the block."""
    token = _ACTIVE_READER.set((reader, name))
    try:
        yield
    finally:
        _ACTIVE_READER.reset(token)
