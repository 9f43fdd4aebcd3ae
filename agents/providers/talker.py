"""``mock:talker``: a stand-in model that talks like a chat model at a Werewolf table (issues #25, #32).

Offline and seeded: every answer is drawn from a stream seeded by the seat's seed, the request id and
the kind of call, so a game plays the same under any memory strategy and any prompt template (the
prompt text is never read). What it knows comes through its side channel, :meth:`TalkerProvider.observe`:
the seat's own observation (its visible events, the same the referee gives the seat), handed over by
the LLM agent before each decision, as a real model gets those facts through its prompt.

Speeches are 300-600 characters (180-420 in Chinese), with role claims and checks in many phrasings
("Let me jump: seer.", "Kill on #2.", 「我报预言家」), counter-claims, a wolf's fake seer claim with
fake checks, the witch's 银水, guard claims, badge flows (警徽流), vote calls (「我今天这票出8号，好人
不要分票」, not a check), hedges, role words without a claim, reported speech of other seats' claims
and recaps, in the shapes of #32 (bullet lists, bold labels, markdown tables, arrows, emoji; in
Chinese also traditional characters, full-width digits, 十一号 and 12号位), each shape's share a
setting (``shapes``). What each speech means is kept in the table's ledger (:data:`PrefixCache.labels`,
speech text -> :class:`SpeechLabels`): the labels the recall audit and the claims tests read.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import yaml

from agents.providers.base import AnswerSchema
from agents.providers.mock import MockProvider
from arena.resources import data_dir
from arena.types import is_wolf_card

#: The formatting shapes of a speech and their default shares (issue #32); ``plain`` takes the rest.
DEFAULT_SHAPES: dict[str, float] = {"bullets": 0.15, "table": 0.08, "arrows": 0.1, "emoji": 0.1,
                                    "traditional": 0.1, "fullwidth": 0.1, "cn_numerals": 0.1}
SPEECH_CHARS = {"en": (300, 600), "zh": (180, 420)}
_TRAD = str.maketrans({"预": "預", "验": "驗", "杀": "殺", "号": "號", "发": "發", "银": "銀", "药": "藥", "报": "報",
                       "里": "裡", "这": "這", "说": "說", "们": "們", "对": "對", "该": "該", "为": "為", "个": "個",
                       "记": "記", "听": "聽", "给": "給", "卫": "衛", "护": "護", "晚": "晚", "没": "沒", "认": "認"})
_FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
_CN_DIGITS = "零一二三四五六七八九"


def cn_numeral(n: int) -> str:
    """11 -> 十一, 20 -> 二十, 7 -> 七 (seats go up to the twenties)."""
    if n < 10:
        return _CN_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("十" if tens == 1 else _CN_DIGITS[tens] + "十") + (_CN_DIGITS[ones] if ones else "")


@lru_cache(maxsize=2)
def phrase_book(lang: str) -> dict[str, Any]:
    return yaml.safe_load((data_dir("prompts") / lang / "mock_talker.yaml").read_text(encoding="utf-8")) or {}


@dataclass(frozen=True)
class Claim:
    """One public statement a speech makes. ``what``: role (``role``), check (``target``, ``result``,
    ``night``), save (the witch's 银水), guard, badge_flow (``target`` then ``then``) or vote_call.
    ``by``: the seat that made it (the speaker, or for reported speech the seat quoted)."""

    by: int
    what: str
    role: str | None = None
    target: int | None = None
    result: str | None = None
    night: int | None = None
    then: int | None = None
    conditional: bool = False

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and v is not False}


@dataclass
class SpeechLabels:
    """What one speech says: the speaker's own claims, and the claims of others it reports."""

    speaker: int
    phase: str
    kind: str
    lang: str
    shape: str
    own: list[Claim] = field(default_factory=list)
    reported: list[Claim] = field(default_factory=list)
    summary: bool = False  # a day summary the seat wrote for itself, not a speech

    def to_json(self) -> dict[str, Any]:
        return {"speaker": self.speaker, "phase": self.phase, "kind": self.kind, "lang": self.lang,
                "shape": self.shape, "own": [c.to_json() for c in self.own],
                "reported": [c.to_json() for c in self.reported]}


@dataclass
class _Seen:
    """The seat's own facts, folded from its observation."""

    role: str | None = None
    day: int = 1
    phase: str = "N1"
    alive: list[int] = field(default_factory=list)
    wolves: list[int] = field(default_factory=list)
    checks: list[tuple[int, int, str]] = field(default_factory=list)  # (night, seat, result)
    saves: list[tuple[int, int]] = field(default_factory=list)  # (night, seat)
    guards: list[tuple[int, int]] = field(default_factory=list)
    speeches: list[Any] = field(default_factory=list)  # the speech events seen


def fold(observation: Any) -> _Seen:
    view = observation.view()
    seen = _Seen(role=getattr(view.role, "value", view.role), phase=view.phase, alive=sorted(view.alive),
                 wolves=list(view.wolves))
    seen.day = int(view.phase[1:]) if view.phase[1:].isdigit() else 1
    for e in observation.events:
        t = e.type
        if t == "seer_result" and e.seat == observation.seat:
            seen.checks.append((int(e.phase[1:]), e.target, "wolf" if e.result == "wolf" or is_wolf_card(e.result)
                                else "good"))
        elif t == "witch_saved" and e.seat == observation.seat:
            seen.saves.append((int(e.phase[1:]), e.target))
        elif t == "guard_protected" and e.seat == observation.seat and e.target is not None:
            seen.guards.append((int(e.phase[1:]), e.target))
        elif t == "speech":
            seen.speeches.append(e)
    return seen


class TalkerProvider(MockProvider):
    """The talking stand-in. Non-speech answers are legal draws from the schema (as ``mock``), but
    from a stream of their own per request; speeches and day summaries are composed from the seat's
    observation (:meth:`observe`)."""

    name = "mock"

    def __init__(self, model: str = "talker", config: Any = None, cache: Any = None):
        super().__init__(model, config, cache)
        self.lang = "en"
        self._observation: Any = None
        self._request: Any = None
        self._asked: dict[tuple[int, str], int] = {}
        self._summarized: set[int] = set()  # the days whose summary this seat has written

    # ---- the side channel ------------------------------------------------------------------
    def observe(self, observation: Any, request: Any, lang: str) -> None:
        """The seat's observation and the question, before the agent's call (the seat's own facts)."""
        self._observation, self._request, self.lang = observation, request, lang

    @property
    def labels(self) -> dict[str, SpeechLabels]:
        return self.cache.labels

    # ---- answers ---------------------------------------------------------------------------
    def _answer(self, schema: AnswerSchema | None) -> dict[str, Any]:
        request, observation = self._request, self._observation
        kind = schema.name if schema is not None else "answer"
        key = (getattr(request, "id", -1), kind)
        attempt = self._asked.get(key, 0)
        self._asked[key] = attempt + 1
        self._rng = random.Random(f"talker:{self.config.seed}:{key[0]}:{kind}:{attempt}")
        if schema is None or observation is None:
            return super()._answer(schema)
        props = schema.json_schema.get("properties") or {}
        if kind == "day_summary":  # the agent asks for the days that have ended, oldest first
            phase = observation.events[-1].phase if observation.events else ""
            ended = sorted({int(e.phase[1:]) for e in observation.events if e.phase.startswith("D")
                            and e.phase[1:].isdigit() and e.phase != phase} - self._summarized)
            day = ended[0] if ended else 1
            self._summarized.add(day)
            return {name: self.day_summary(observation, day, sub) if name == "summary" else self.sample(sub, name)
                    for name, sub in props.items()}
        answer = super()._answer(schema)
        if "self_destruct" in answer:
            answer["self_destruct"] = self._rng.random() < 0.03
        action = props.get("action") or {}
        if request is not None and str(request.kind) == "witch_save" and isinstance(answer.get("action"), bool):
            answer["action"] = self._rng.random() < 0.7  # a witch mostly saves (and has a 银水 to tell)
        speech = getattr(request.legal, "type", None) == "text" or "self_destruct" in props  # or asked with the offer
        if action.get("type") == "string" and speech and not answer.get("self_destruct"):
            text, labels = self.speech(observation, request, int(action.get("maxLength", 2000)))
            answer["action"] = text
            self.labels[text] = labels
            if "claims" in props:  # it declares what it claims (agents.llm appends them to the speech)
                answer["claims"] = [{"kind": c.what, "role": c.role, "seat": c.target, "result": c.result,
                                     "night": c.night, "then": c.then} for c in labels.own if c.what != "vote_call"]
        elif isinstance(answer.get("action"), int) and request is not None and request.kind in ("vote", "pk_vote"):
            called = self.called_today(observation)
            options = (action.get("enum") or next((o.get("enum") for o in action.get("anyOf", []) if o.get("enum")), None)
                       or [])
            if called in options:
                answer["action"] = called
        return answer

    def called_today(self, observation: Any) -> int | None:
        """The seat this seat called a vote on in its latest speech today, if any."""
        day = observation.events[-1].phase if observation.events else ""
        for e in reversed(observation.events):
            if e.phase != day:
                break
            said = spoken(self.labels, e.text) if e.type == "speech" and e.seat == observation.seat else None
            if said is not None:
                calls = [c.target for c in said.own if c.what == "vote_call"]
                if calls:
                    return calls[0]
        return None

    # ---- speech ----------------------------------------------------------------------------
    def _shape(self) -> str:
        shares = dict(DEFAULT_SHAPES)
        shares.update({str(k): v for k, v in self.config.shapes.items()})
        roll, acc = self._rng.random(), 0.0
        for name, share in shares.items():
            if self.lang != "zh" and name in ("traditional", "fullwidth", "cn_numerals"):
                continue
            acc += share
            if roll < acc:
                return name
        return "plain"

    def _plan(self, seen: _Seen, seat: int, kind: str) -> list[Claim]:
        """The seat's own claims for this speech, from its true facts (a wolf's fake ones for the fake seer)."""
        rng = self._rng
        role = seen.role or "villager"
        claims: list[Claim] = []
        others = [s for s in seen.alive if s != seat] or [seat]
        fake_seer = is_wolf_card(role) and seen.wolves and seat == min(seen.wolves) and (self.config.seed // 1000 % 3 != 0)
        if role == "seer" or fake_seer:
            claims.append(Claim(seat, "role", role="seer"))
            if role == "seer":
                for night, target, result in seen.checks:
                    claims.append(Claim(seat, "check", target=target, result=result, night=night))
            else:  # fake checks: a teammate or a random seat as good, a good seat as a wolf
                good = [s for s in others if s not in seen.wolves]
                for night in range(1, seen.day + 1 if seen.phase.startswith("D") else seen.day):
                    frand = random.Random(f"fake:{self.config.seed}:{night}")  # the same fake check every day
                    if good and frand.random() < 0.5:
                        claims.append(Claim(seat, "check", target=frand.choice(good), result="wolf", night=night))
                    else:
                        claims.append(Claim(seat, "check", target=frand.choice(others), result="good", night=night))
            if kind in ("campaign", "campaign_pk") and len(others) >= 2:
                a, b = rng.sample(others, 2)
                claims.append(Claim(seat, "badge_flow", target=a, then=b))
        elif role == "witch" and seen.saves and rng.random() < 0.6:
            claims.append(Claim(seat, "role", role="witch"))
            claims += [Claim(seat, "save", target=t, night=n) for n, t in seen.saves]
        elif role == "guard" and seen.guards and rng.random() < 0.4:
            claims.append(Claim(seat, "role", role="guard"))
            claims += [Claim(seat, "guard", target=t, night=n) for n, t in seen.guards[-3:]]
        elif role in ("hunter", "idiot") and rng.random() < 0.25:
            claims.append(Claim(seat, "role", role=role, conditional=kind == "last_words"))
        elif role == "villager" and rng.random() < 0.3:
            claims.append(Claim(seat, "role", role="villager"))
        elif is_wolf_card(role) and rng.random() < 0.3:
            claims.append(Claim(seat, "role", role="villager"))
        if kind not in ("campaign", "campaign_pk", "last_words") and others and rng.random() < 0.7:
            wolf_checks = [c.target for c in claims if c.what == "check" and c.result == "wolf" and c.target in others]
            pool = [s for s in others if s not in seen.wolves] if is_wolf_card(role) else others
            target = wolf_checks[-1] if wolf_checks else rng.choice(pool or others)
            claims.append(Claim(seat, "vote_call", target=target))
        return claims

    def _reported(self, seen: _Seen, seat: int) -> list[Claim]:
        """Claims of other seats this speech recaps: seer claims and role claims seen in their speeches."""
        out: list[Claim] = []
        for e in seen.speeches:
            labels = spoken(self.labels, e.text)
            if labels is None or e.seat == seat:
                continue
            for c in labels.own:
                if c.what in ("role", "check") and c not in out and not c.conditional:
                    out.append(c)
        if len(out) > 4:
            out = self._rng.sample(out, 4)
        return out

    def speech(self, observation: Any, request: Any, max_chars: int) -> tuple[str, SpeechLabels]:
        seen = fold(observation)
        rng = self._rng
        seat = observation.seat
        kind = str((request.context or {}).get("speech") or (
            "last_words" if str(request.kind) == "last_words" else "discussion"))
        book = phrase_book(self.lang)
        shape = self._shape()
        own = self._plan(seen, seat, kind)
        reported = self._reported(seen, seat)
        rival_seers = [c.by for c in reported if c.what == "role" and c.role == "seer"]
        names = book["roles"]
        res = book["res"]
        zh = self.lang == "zh"
        structured = shape in ("bullets", "table", "arrows", "emoji")
        parts: list[str] = []
        if kind == "last_words":
            parts.append(book["last_words"])
        parts.append(rng.choice(book["opening"]))
        checks = [c for c in own if c.what == "check"]
        for c in own:
            if c.what == "role":
                role_name = names.get(c.role or "", c.role)
                if c.conditional:
                    parts.append(book["conditional_claim"].format(role=role_name))
                elif shape == "bullets":
                    parts.append(book["role_bullet"].format(role=role_name))
                else:
                    parts.append(rng.choice(book["role_claim"].get(c.role, book["role_claim"]["villager"])))
                if c.role == "seer" and rival_seers:
                    parts.append(rng.choice(book["counter"]).format(n=rival_seers[0]))
        if checks:
            if shape == "table":
                parts.append(book["table_head"] + "\n" + "\n".join(
                    book["table_row"].format(night=c.night, n=c.target, res=res[c.result or "good"]) for c in checks))
            for c in checks if shape != "table" else ():
                fields = dict(n=c.target, night=c.night, res=res[c.result or "good"],
                              emoji=book["res_emoji"][c.result or "good"])
                if shape == "bullets":
                    parts.append(book["check_bullet"].format(**fields))
                elif shape in ("arrows", "emoji"):
                    parts.append(book["check_arrow"].format(**fields))
                else:
                    parts.append(rng.choice(book["check"][c.result or "good"]).format(**fields))
        for c in own:
            if c.what == "save":
                parts.append((book["save_bullet"] if shape == "bullets" else rng.choice(book["save"])).format(
                    n=c.target, night=c.night))
            elif c.what == "guard":
                parts.append((book["guard_bullet"] if shape == "bullets" else rng.choice(book["guard"])).format(
                    n=c.target, night=c.night))
            elif c.what == "badge_flow":
                parts.append(rng.choice(book["badge_flow"]).format(n=c.target, t=c.then))
        for c in reported:
            if c.what == "check" and c.target is not None:
                parts.append(rng.choice(book["reported"]["seer_check"]).format(n=c.by, t=c.target, res=res[c.result or "good"]))
            elif c.what == "role":
                parts.append(rng.choice(book["reported"]["role"]).format(n=c.by, role=names.get(c.role or "", c.role)))
        low, high = SPEECH_CHARS["zh" if zh else "en"]
        high = min(high, max_chars)
        low = min(low, high)
        target = rng.randint(low, high)
        tail = [rng.choice(book["closing"])]
        calls = [c for c in own if c.what == "vote_call"]
        if calls:
            tail.insert(0, rng.choice(book["vote_call"]).format(n=calls[0].target))
        others = [s for s in seen.alive if s != seat] or [seat]
        sep = "\n" if structured else ("" if zh else " ")

        def text_of(body: list[str]) -> str:
            return self._dress(sep.join(body), shape)

        body = list(parts)
        fillers = 0
        while len(text_of(body + tail)) < target and fillers < 40:
            pick = rng.random()
            if pick < 0.65:
                body.append(rng.choice(book["reads"]).format(n=rng.choice(others)))
            elif pick < 0.85:
                body.append(rng.choice(book["hedges"]))
            else:
                body.append(rng.choice(book["role_words"]))
            fillers += 1
        while len(text_of(body + tail)) > high and len(body) > len(parts):
            body.pop()
        text = text_of(body + tail)
        if len(text) > max_chars:  # the legal limit: a claim may be cut, so the labels keep only what is left
            text = text[:max_chars]
        return text, SpeechLabels(speaker=seat, phase=seen.phase, kind=kind, lang=self.lang, shape=shape,
                                  own=[c for c in own], reported=reported)

    def _dress(self, text: str, shape: str) -> str:
        if shape == "traditional":
            return text.translate(_TRAD)
        if shape == "fullwidth":
            return text.translate(_FULLWIDTH)
        if shape == "cn_numerals":
            import re

            return re.sub(r"(\d+)号", lambda m: cn_numeral(int(m.group(1))) + "号", text)
        return text

    # ---- the day summary -------------------------------------------------------------------
    def day_summary(self, observation: Any, day: int, schema: dict[str, Any]) -> str:
        """The seat's own summary of day ``day``: every claim made in that day's speeches, with its day."""
        book = phrase_book(self.lang)
        lines = [book["summary_title"].format(day=day)]
        for e in observation.events:
            if e.type != "speech" or e.phase != f"D{day}":
                continue
            labels = spoken(self.labels, e.text)
            lines += [summary_item(book, c, day) for c in (labels.own if labels else ()) if c.what != "vote_call"]
        if len(lines) == 1:
            lines.append(book["summary_none"])
        text = ("" if self.lang == "zh" else " ").join(dict.fromkeys(lines))
        return text[: int(schema.get("maxLength", 4000))]


def spoken(labels: dict[str, SpeechLabels], text: str) -> SpeechLabels | None:
    """The labels of a speech as the referee recorded it: the talker's text, or that text with the line
    of declared claims the LLM agent appended (the last line, opened by 〔)."""
    found = labels.get(text)
    if found is None and (at := text.rfind("\n〔")) >= 0:
        found = labels.get(text[:at].rstrip())
    return found


def summary_item(book: dict[str, Any], c: Claim, day: int) -> str:
    """How the talker's day summary states one claim (the recall audit looks for these words)."""
    names, res = book["roles"], book["res"]
    if c.what == "role":
        return str(book["summary_claim"]).format(n=c.by, role=names.get(c.role or "", c.role), day=day)
    if c.what == "check":
        return str(book["summary_check"]).format(n=c.by, t=c.target, res=res[c.result or "good"], day=day)
    if c.what == "badge_flow":
        return str(book["summary_badge"]).format(n=c.by, t=c.target, m=c.then, day=day)
    return str(book["summary_save" if c.what == "save" else "summary_guard"]).format(
        n=c.by, t=c.target, night=c.night, day=day)


def labels_json(labels: SpeechLabels) -> str:
    return json.dumps(labels.to_json(), ensure_ascii=False)
