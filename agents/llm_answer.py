"""The structured answer an LLM seat gives: its JSON Schema (the legal set as enums) and a tolerant
reader for replies that come back as prose, fenced code, or slightly broken JSON.

The schema keeps to the subset every native structured-output mode accepts (OpenAI strict mode:
every property required, no extra properties); count limits (``minItems``...) are added as hints
that adapters without support strip. ``reasoning`` comes first so the model thinks before it acts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

from agents.providers.base import AnswerSchema

# Kinds that ask the seat, with its vote, for P(wolf) of every living seat (issue 4, "Memory and reasoning").
BELIEF_KINDS = frozenset({"vote", "pk_vote"})
SPEECH_TYPES = frozenset({"text"})
#: The key of a speech answer that also says whether the wolf self-destructs before it (agents.llm).
SELF_DESTRUCT_KEY = "self_destruct"
#: The key of a speech answer that lists the public claims the speech makes (#25 item 4): shown to
#: every player with the speech, so the claims of model seats need no parsing.
CLAIMS_KEY = "claims"
#: A wolf's standing instruction in any day answer: the seat before whose speech it self-destructs today.
DESTRUCT_BEFORE_KEY = "self_destruct_before"
CLAIM_KINDS = ("role", "check", "save", "guard", "badge_flow")
_NULLABLE_INT = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "array", "maxItems": 8,
    "description": ("the public claims your speech makes, each as said (a role you claim, a check you announce "
                    "with its night, a save, a guard, a badge flow), or []; shown to everyone with your speech"),
    "items": {"type": "object", "additionalProperties": False,
              "required": ["kind", "role", "seat", "result", "night", "then"],
              "properties": {"kind": {"type": "string", "enum": list(CLAIM_KINDS)},
                             "role": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                             "seat": _NULLABLE_INT,
                             "result": {"anyOf": [{"type": "string", "enum": ["good", "wolf"]}, {"type": "null"}]},
                             "night": _NULLABLE_INT, "then": _NULLABLE_INT}}}
ALIASES = ("choice", "target", "seat", "vote", "answer", "value", "speech", "decision")


class AnswerFormatError(ValueError):
    """The reply cannot be read as an answer. The message tells the model what to fix."""


def action_schema(legal: Any) -> dict[str, Any]:
    kind = getattr(legal, "type", None)
    if kind == "seat":
        if not legal.options:  # an empty enum is invalid JSON Schema for most providers
            return {"type": "null"}
        seats = {"type": "integer", "enum": list(legal.options)}
        return {"anyOf": [seats, {"type": "null"}]} if legal.allow_none else seats
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "seats":
        arr = {"type": "array", "items": {"type": "integer", "enum": list(legal.options)},
               "minItems": legal.min_count, "maxItems": legal.max_count,
               "description": f"{legal.min_count}..{legal.max_count} distinct seats"}
        return {"anyOf": [arr, {"type": "null"}]} if legal.allow_none else arr
    if kind == "option":
        options = list(legal.options)
        types = {type(o) for o in options}
        if types == {int}:
            return {"type": "integer", "enum": options}
        if types == {str}:
            return {"type": "string", "enum": options}
        return {"anyOf": [{"type": "integer", "enum": [o for o in options if isinstance(o, int)]},
                          {"type": "string", "enum": [o for o in options if isinstance(o, str)]}]}
    if kind == "speech_order":
        return {"type": "object", "properties": {
            "start": {"type": "integer", "enum": list(legal.starts)},
            "direction": {"type": "string", "enum": list(legal.directions)}},
            "required": ["start", "direction"], "additionalProperties": False}
    if kind == "text":
        return {"type": "string", "maxLength": int(getattr(legal, "max_chars", 2000) or 2000),
                "description": "your public speech"}
    # A legal set this agent does not know yet: a JSON text it parses itself.
    return {"type": "string", "description": "the answer as JSON text"}


def answer_schema(request: Any, *, belief_seats: list[int] | None = None, name: str = "answer",
                  reasoning_chars: int = 1500, notes_chars: int = 600, speech_chars: int | None = None,
                  self_destruct: bool = False, claims: bool = False,
                  destruct_before: list[int] | None = None) -> AnswerSchema:
    """``*_chars`` become ``maxLength`` hints: grammar-constrained local servers then always close
    their strings (a small model otherwise rambles until it runs out of tokens). ``self_destruct``:
    a wolf's own speech asked together with whether it self-destructs first (a boolean before the
    speech, so the model decides before it speaks)."""
    action = action_schema(request.legal)
    if speech_chars and action.get("type") == "string" and "maxLength" in action:
        action["maxLength"] = min(action["maxLength"], speech_chars)
    props: dict[str, Any] = {
        "reasoning": {"type": "string", "maxLength": reasoning_chars,
                      "description": "private reasoning, never shown to other players"},
    }
    if self_destruct:
        props[SELF_DESTRUCT_KEY] = {"type": "boolean",
                                    "description": "true: self-destruct now, and the speech is not given"}
    props.update({
        "action": action,
        "notes": {"type": "string", "maxLength": notes_chars,
                  "description": "a short private memo for your later decisions"},
    })
    if destruct_before is not None:  # a wolf's standing instruction (#25 item 7), see agents.llm
        props[DESTRUCT_BEFORE_KEY] = {"anyOf": [{"type": "integer", "enum": list(destruct_before)}, {"type": "null"}],
                                      "description": "self-destruct right before this seat's speech today, or null"}
    if claims and action.get("type") == "string":
        props[CLAIMS_KEY] = CLAIMS_SCHEMA
    if belief_seats:
        props["beliefs"] = {
            "type": "object",
            "description": "P(wolf) per living seat",
            "properties": {str(s): {"type": "number", "minimum": 0, "maximum": 1} for s in belief_seats},
            "required": [str(s) for s in belief_seats],
            "additionalProperties": False,
        }
    return AnswerSchema(name=name, json_schema={"type": "object", "properties": props,
                                                "required": list(props), "additionalProperties": False})


def read_claims(payload: dict[str, Any] | None, players: int) -> list[dict[str, Any]]:
    """The declared claims of a speech answer that make sense (a known kind, seats on the board, a role
    for a role claim, a seat for the rest); the others are left out, never guessed at."""
    items = (payload or {}).get(CLAIMS_KEY)
    out: list[dict[str, Any]] = []

    def seat(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= players else None

    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or item.get("kind") not in CLAIM_KINDS:
            continue
        claim = {"kind": item["kind"], "role": item.get("role") if isinstance(item.get("role"), str) else None,
                 "seat": seat(item.get("seat")),
                 "result": item.get("result") if item.get("result") in ("good", "wolf") else None,
                 "night": item.get("night") if isinstance(item.get("night"), int) and 0 < item["night"] < 100 else None,
                 "then": seat(item.get("then"))}
        if (claim["kind"] == "role") != bool(claim["role"]) or (claim["kind"] != "role" and claim["seat"] is None):
            continue
        if claim not in out:
            out.append(claim)
    return out[:8]


def read_summary(text: str, parsed: dict[str, Any] | None, max_chars: int) -> str:
    """A day summary's text: the ``summary`` field of the JSON answer, or the reply's prose."""
    value = (parsed or {}).get("summary") if parsed else None
    if value is None:
        try:
            obj = json.loads(text)
            value = obj.get("summary") if isinstance(obj, dict) else None
        except ValueError:
            value = text
    if not isinstance(value, str) or not value.strip():
        raise AnswerFormatError('write your summary as a non-empty string in "summary"')
    return value.strip()[:max_chars]


def belief_schema(seats: list[int], name: str = "beliefs") -> AnswerSchema:
    """The belief update's answer: P(wolf) for each of ``seats``, nothing else (no reasoning: it is cheap)."""
    return AnswerSchema(name=name, json_schema={"type": "object", "properties": {"beliefs": {
        "type": "object", "description": "P(wolf) per living seat",
        "properties": {str(s): {"type": "number", "minimum": 0, "maximum": 1} for s in seats},
        "required": [str(s) for s in seats], "additionalProperties": False}},
        "required": ["beliefs"], "additionalProperties": False})


# ---- reading replies ------------------------------------------------------------------------

#: Replies longer than this are not parsed: the longest useful answer (reasoning, a speech, notes,
#: beliefs) is a few thousand characters, and a model that sends a megabyte is told to be brief.
MAX_REPLY_CHARS = 100_000
#: JSON nested deeper than this is refused before parsing (json's recursive decoder would raise
#: RecursionError a few hundred levels down; an answer needs three).
MAX_JSON_DEPTH = 32


def _fenced_blocks(text: str) -> list[str]:
    """The bodies of the ```json fenced blocks, found with str.find (one linear pass; a regex with a
    lazy body rescans the rest of the text from every unclosed fence)."""
    blocks: list[str] = []
    pos = 0
    while True:
        open_at = text.find("```", pos)
        if open_at < 0:
            return blocks
        body = open_at + 3
        if text.startswith(("json", "JSON"), body):
            body += 4
        close_at = text.find("```", body)
        if close_at < 0:
            return blocks
        blocks.append(text[body:close_at].strip())
        pos = close_at + 3


def _outside_strings(text: str, brackets: str) -> Iterator[tuple[int, str]]:
    """(index, bracket) for each of ``brackets`` that is not inside a JSON string. A quote opens a
    string only inside a bracket, so a stray quote in prose does not hide the object after it."""
    depth, in_str, esc = 0, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"' and depth > 0:
            in_str = True
        elif ch in brackets:
            depth += 1 if ch in "[{" else -1 if depth > 0 else 0
            yield i, ch


def _too_deep(text: str) -> bool:
    """Whether brackets outside strings nest deeper than MAX_JSON_DEPTH (a linear scan)."""
    depth = 0
    for _, ch in _outside_strings(text, "[]{}"):
        depth += 1 if ch in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False


def _balanced_objects(text: str) -> list[str]:
    """Every top-level ``{...}`` span, honouring strings (so a brace inside a speech is fine)."""
    spans, depth, start = [], 0, -1
    for i, ch in _outside_strings(text, "{}"):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start:i + 1])
    return spans


def _loads_lenient(candidate: str) -> Any:
    if _too_deep(candidate):
        return None
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    try:  # raw newlines or tabs inside strings: a grammar-constrained server lets them through
        return json.loads(candidate, strict=False)
    except json.JSONDecodeError:
        pass
    fixed = re.sub(r",\s*([}\]])", r"\1", candidate)                       # trailing commas
    fixed = re.sub(r"\bNone\b", "null", re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", fixed)))
    try:
        return json.loads(fixed)
    except json.JSONDecodeError:
        pass
    if "'" in fixed and '"' not in fixed:  # a Python-style dict
        try:
            return json.loads(fixed.replace("'", '"'))
        except json.JSONDecodeError:
            return None
    return None


def extract_json(text: str) -> dict[str, Any] | None:
    """The answer object in ``text``: the whole text, a fenced block, or the last object in prose
    that has an ``action`` (or any object, failing that)."""
    text = (text or "").strip()
    if not text:
        return None
    whole = _loads_lenient(text)
    if isinstance(whole, dict):
        return whole
    candidates = _fenced_blocks(text) + _balanced_objects(text)
    parsed = [p for p in (_loads_lenient(c) for c in candidates) if isinstance(p, dict)]
    with_action = [p for p in parsed if "action" in p]
    if with_action:
        return with_action[-1]
    return parsed[-1] if parsed else None


# Matched against the stripped reply: a pattern with ``\s*`` on both sides of an optional group
# backtracks quadratically over a long run of spaces.
_BARE = re.compile(r"(null|none|true|false|yes|no|\d{1,3})[.!]?", re.I)


def _too_deep_value(value: Any, depth: int = 0) -> bool:
    """Whether an already-parsed value nests deeper than MAX_JSON_DEPTH (an SDK parsed it for us)."""
    if depth > MAX_JSON_DEPTH:
        return True
    if isinstance(value, dict):
        return any(_too_deep_value(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_too_deep_value(v, depth + 1) for v in value)
    return False


@dataclass
class ReadAnswer:
    action: Any
    reasoning: str | None
    notes: str | None
    beliefs_raw: Any
    payload: dict[str, Any] | None = None  # the whole answer object (None for a bare reply)


def read_answer(text: str, parsed: dict[str, Any] | None, legal_type: str | None) -> ReadAnswer:
    """Pull the fields out of a reply; :class:`AnswerFormatError` says what is missing."""
    if not isinstance(parsed, dict) or _too_deep_value(parsed):
        parsed = None
    if not isinstance(parsed, dict) and len(text or "") > MAX_REPLY_CHARS:
        raise AnswerFormatError(f"the reply is {len(text):,} characters long; reply with one short JSON object "
                                f"(under {MAX_REPLY_CHARS:,} characters)")
    payload = parsed if isinstance(parsed, dict) else extract_json(text)
    if payload is None:
        bare = _BARE.fullmatch((text or "").strip())
        if bare and legal_type not in SPEECH_TYPES:
            token = bare.group(1).lower()
            value: Any = {"null": None, "none": None, "true": True, "yes": True, "false": False,
                          "no": False}.get(token, token)
            return ReadAnswer(action=value, reasoning=None, notes=None, beliefs_raw=None)
        raise AnswerFormatError("the reply contains no JSON object; reply with one JSON object with the keys "
                                "\"reasoning\", \"action\" and \"notes\"")
    if "action" in payload:
        action = payload["action"]
    else:
        alias = [k for k in ALIASES if k in payload]
        if len(alias) != 1:
            raise AnswerFormatError("the JSON object has no \"action\" key")
        action = payload[alias[0]]
    if legal_type not in SPEECH_TYPES and legal_type != "speech_order" and isinstance(action, str):
        decoded = _loads_lenient(action)  # "3" or "null" or "[1, 2]" given as a string
        if decoded is not None or action.strip().lower() == "null":
            action = decoded
    reasoning = payload.get("reasoning")
    notes = payload.get("notes")
    return ReadAnswer(action=action, reasoning=reasoning if isinstance(reasoning, str) else None,
                      notes=notes if isinstance(notes, str) else None, beliefs_raw=payload.get("beliefs"),
                      payload=payload)


def read_self_destruct(read: ReadAnswer) -> Any:
    """The raw ``self_destruct`` value of a speech answer that was asked for one;
    :class:`AnswerFormatError` when it is missing (the request's legal set checks the value)."""
    if read.payload is None or SELF_DESTRUCT_KEY not in read.payload:
        raise AnswerFormatError(f'the JSON object has no "{SELF_DESTRUCT_KEY}" key; add "{SELF_DESTRUCT_KEY}": '
                                'true (self-destruct now, no speech) or false (give the speech)')
    return read.payload[SELF_DESTRUCT_KEY]


def clean_beliefs(raw: Any, seats: list[int]) -> dict[int, float] | None:
    """Keep probabilities for the asked seats only, clamped to [0, 1]; anything else is dropped."""
    if not isinstance(raw, dict):
        return None
    out: dict[int, float] = {}
    for key, value in raw.items():
        try:
            seat = int(str(key).strip().lstrip("#"))
            p = float(value)
        except (TypeError, ValueError):
            continue
        if seat in seats and p == p:  # p == p drops NaN
            out[seat] = min(max(p, 0.0), 1.0)
    return dict(sorted(out.items())) or None


def read_beliefs(text: str, parsed: dict[str, Any] | None, seats: list[int]) -> dict[int, float]:
    """The belief update's reply: ``{"beliefs": {seat: p}}`` (or the bare mapping), probabilities clamped
    to [0, 1]; :class:`AnswerFormatError` when it holds no probability for any of ``seats``."""
    if not isinstance(parsed, dict) or _too_deep_value(parsed):
        parsed = None
    if parsed is None and len(text or "") > MAX_REPLY_CHARS:
        raise AnswerFormatError(f"the reply is {len(text):,} characters long; reply with one short JSON object")
    payload = parsed if parsed is not None else extract_json(text)
    if not isinstance(payload, dict):
        raise AnswerFormatError('the reply contains no JSON object; reply with {"beliefs": {"<seat>": <P(wolf)>}}')
    raw = payload.get("beliefs", payload)
    beliefs = clean_beliefs(raw, seats)
    if not beliefs:
        raise AnswerFormatError(f'the reply gives no P(wolf) for any of seats {seats}; reply with '
                                '{"beliefs": {"<seat>": <a number from 0 to 1>}}')
    return beliefs

