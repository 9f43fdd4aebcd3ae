"""Versioned JSONL transcripts: one header line, event and decision lines as they happen, one result line.

Every line is a pydantic model (``arena schema`` writes their JSON Schema). The writer flushes each
line as it is written, so a killed process leaves every completed line intact. The reader refuses
a newer schema version with a clear message and tolerates a torn last line (a crash mid-write).

Versions. The writer always writes :data:`SCHEMA_VERSION`; the reader reads every version up to it.
A change that lets a line hold something an older reader would reject (a new event type, a new
``Literal`` value, a new required field) bumps the version, so that older readers refuse the file
with the message below instead of failing on one line; older files are then migrated on reading
(none needed so far: every version only added to the one before).

- 1: the first format.
- 2: ``speech.kind`` may be ``interjection`` / ``interjection_reply`` (R138 ``idiot_after_reveal=
  may_interject``), with the decision kinds ``idiot_interject`` / ``interjection_reply``. Every
  version-1 file is a valid version-2 file.

Still version 2: ``thought`` events are no longer written (an answer's reasoning, notes and beliefs
are stored once, on its decision line, where every version has had them), and a decision line's
``latency_ms`` now comes from the agent (``AnswerExtras.latency_ms``). Nothing a version-2 reader
rejects was added, so the version stays; files with ``thought`` events still read, and
:func:`arena.replay.replay` passes over those events.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Iterator, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_serializer
from pydantic_core import PydanticSerializationError, to_json

from arena.events import Event, Visibility
from arena.provenance import BuildInfo

if TYPE_CHECKING:
    from arena.actions import Answer
    from arena.engine import DecisionRecord

SCHEMA_NAME = "werewolf-transcript"
SCHEMA_VERSION = 2


class TranscriptError(ValueError):
    """A transcript cannot be read; the message names the file and line."""


class SeatAgent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int
    spec: str
    label: str | None = None
    version: str | None = Field(default=None, description=(
        "what the agent's behaviour rests on beyond the code: a short hash of its prompt or speech templates, "
        "e.g. 'prompts:3f2a9c1b' (None: the agent has none, or predates the field)"))
    settings: dict[str, Any] | None = Field(default=None, description=(
        "the agent's non-secret options (model, temperature, max_tokens, memory, lang, ...); never a key"))


class ForkOrigin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    parent: str
    at_decision: int


class HeaderLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["header"] = "header"
    schema_name: str = SCHEMA_NAME
    schema_version: int = SCHEMA_VERSION
    game_id: str
    preset: str
    rules: dict[str, Any] = Field(description="scenario/caller switch overrides on top of the preset")
    switches: dict[str, Any] = Field(description="every switch in force")
    seed: int
    game_index: int = Field(default=0, description="position in a series, for switches that alternate per game")
    deal: list[str] | None = Field(default=None, description="a fixed deal, when one replaced the shuffle")
    center: list[str] | None = None
    first_kill_protected: list[int] | None = Field(default=None, description=(
        "seats spared the night-1 knife under first_kill_protection, from the series' earlier games; absent "
        "when none"))
    beliefs: dict[int, str] | None = Field(default=None, description=(
        "seats the referee asked for private beliefs outside their decisions, by mode (day_end, "
        "every_speech); absent when none"))
    night_order: dict[str, list[str]] | None = Field(default=None, description=(
        "the night steps called on night 1 (\"N1\") and on later nights (\"later\"), when the board's cards "
        "needed steps the switch night_order lacks, merged at their place in order_003 (R18); absent when "
        "the order is used as the switch names it"))
    agents: list[SeatAgent]
    lang: str = "en"
    package_version: str
    fork: ForkOrigin | None = None
    build: BuildInfo | None = Field(default=None, description=(
        "the commit and prompt templates a game with a language-model or human seat ran on; absent from bot "
        "games, whose transcripts stay the same bytes on every commit (see arena.provenance)"))

    @model_serializer(mode="wrap")
    def _omit_absent_build(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in ("build", "first_kill_protected", "beliefs", "night_order"):  # absent, not null: older bytes stay the same
                if data.get(name, False) is None:
                    del data[name]
        return data


class EventLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["event"] = "event"
    seq: int
    event: Event


class Attempt(BaseModel):
    """One try at a decision by an agent that re-asks (LLM agents): what came back and what was wrong."""

    model_config = ConfigDict(extra="forbid")

    raw: Any = None
    error: str | None = None
    truncated: bool = Field(default=False, description="the reply was cut off by the token limit (finish_reason length)")
    repair: str | None = Field(default=None, description="what was fixed to read the reply (written only when set)")


class DecisionLine(BaseModel):
    """A decision as asked and answered. Only the deciding seat may see it (its own prompt and reply)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["decision"] = "decision"
    id: int
    seat: int
    kind: str
    phase: str
    asked_in: str
    legal: dict[str, Any]
    default: Any = None
    answer: Any = Field(default=None, description="the value the agent finally gave")
    value: Any = Field(default=None, description="the value the referee applied")
    refused: bool = False
    error: str | None = None
    defaulted: bool = Field(default=False, description="the agent gave no usable answer; the default was used")
    visibility: Visibility
    agent: str | None = None
    attempts: list[Attempt] = Field(default_factory=list)
    prompt: Any = None
    raw_reply: Any = None
    reasoning: str | None = None
    notes: str | None = None
    beliefs: dict[int, float] | None = None
    memory: Any = None
    usage: dict[str, Any] | None = None
    latency_ms: float | None = None


class ResultLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["result"] = "result"
    winner: str
    reason: str
    phase: str
    roles: dict[int, str]
    alive: list[int]
    decisions: int
    refused: int
    abandoned: bool = False


Line = Annotated[Union[HeaderLine, EventLine, DecisionLine, ResultLine], Field(discriminator="type")]
LINE_ADAPTER: TypeAdapter[Line] = TypeAdapter(Line)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one transcript line."""
    schema = LINE_ADAPTER.json_schema()
    schema["title"] = f"{SCHEMA_NAME} line, version {SCHEMA_VERSION}"
    return schema


#: The most characters a recorded string written by an agent may hold (reasoning, notes, a raw
#: reply, an attempt, an error, a usage note). Longer ones are cut, and the cut says so in the line.
FIELD_CAP_CHARS = 8000
#: The same for the strings of a recorded prompt: the arena's own text, long in a long game.
PROMPT_CAP_CHARS = 256_000
#: Lists and objects keep this many items, and nesting this deep; the rest is cut with a note.
ITEMS_CAP = 1000
DEPTH_CAP = 32


_SURROGATE = re.compile("[\ud800-\udfff]")


def capped_text(text: str, limit: int = FIELD_CAP_CHARS) -> str:
    """``text`` cut to ``limit`` characters with a note saying so, and with any lone surrogate (what
    invalid UTF-8 becomes when decoded leniently, which no UTF-8 file can hold) made U+FFFD."""
    if not text.isascii() and _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]} …[{len(text) - limit:,} more characters cut]"


def capped_value(value: Any, limit: int = FIELD_CAP_CHARS, depth: int = 0) -> Any:
    """``value`` with every string, list and object cut to what a line may hold (see the caps above).
    A value with nothing to cut is returned as it is (the same object)."""
    if value is None or type(value) in (int, float, bool):
        return value
    if isinstance(value, str):
        return capped_text(value, limit)
    if isinstance(value, (dict, list, tuple)) and depth >= DEPTH_CAP:
        return "…[nested too deeply, cut]"
    if isinstance(value, dict):
        items = list(value.items())
        out = {(capped_text(k, 200) if isinstance(k, str) else k): capped_value(v, limit, depth + 1)
               for k, v in items[:ITEMS_CAP]}
        if len(items) > ITEMS_CAP:
            out["…"] = f"[{len(items) - ITEMS_CAP:,} more entries cut]"
        elif all(out.get(k) is v for k, v in items):
            return value
        return out
    if isinstance(value, (list, tuple)):
        kept = [capped_value(v, limit, depth + 1) for v in value[:ITEMS_CAP]]
        if len(value) > ITEMS_CAP:
            kept.append(f"…[{len(value) - ITEMS_CAP:,} more items cut]")
        elif all(a is b for a, b in zip(kept, value)):
            return value
        return kept
    return value


# ---- the bytes of the lines the writer assembles by hand -------------------------------------
# Event lines and the decision lines of bare answers are assembled from pieces (about four times
# faster than through the models), and the evaluator's fast reader recognises them by the same
# pieces without parsing them. Both take them from here, and tests/test_transcript_format.py holds
# them to the bytes the line models give, so writer, models and reader cannot drift apart.
EVENT_LINE_START = '{"type":"event","seq":'
DECISION_LINE_START = '{"type":"decision","id":'
#: What a decision line of a bare, valid answer holds between ``answer``/``value`` and ``visibility``.
PLAIN_DECISION_MIDDLE = ',"refused":false,"error":null,"defaulted":false,"visibility":{'
#: Everything after ``agent`` on such a line: nothing recorded beyond the choice.
PLAIN_DECISION_END = (',"attempts":[],"prompt":null,"raw_reply":null,"reasoning":null,"notes":null,"beliefs":null,'
                      '"memory":null,"usage":null,"latency_ms":null}')
#: How a decision line that records a model's usage shows it.
USAGE_MARK = '"usage":{'


def event_line_json(seq: int, event: Event) -> str:
    """An event line as JSON text: the bytes ``EventLine(seq=seq, event=event).model_dump_json()`` gives."""
    # The model's own serializer, called without model_dump_json's keyword handling (same bytes).
    return f'{EVENT_LINE_START}{seq},"event":{type(event).__pydantic_serializer__.to_json(event).decode()}}}'


def decision_usages(blob: bytes) -> Iterator[dict[str, Any]]:
    """The decision lines of a transcript's bytes that record a model's usage, parsed (the others are
    passed over unparsed: a bot game has none)."""
    if USAGE_MARK.encode() not in blob:
        return
    start, mark = b'{"type":"decision"', USAGE_MARK.encode()
    for raw in blob.splitlines():
        if raw.startswith(start) and mark in raw:
            try:
                line = json.loads(raw)
            except (ValueError, RecursionError):
                continue  # a torn or damaged line: the readers report it
            if isinstance(line, dict) and isinstance(line.get("usage"), dict) and type(line.get("seat")) is int:
                yield line


def usage_tokens(usage: dict[str, Any]) -> float | None:
    """The tokens a decision line's ``usage`` records (the agents' input/output, or provider names)."""
    if isinstance(usage.get("total_tokens"), (int, float)):
        return float(usage["total_tokens"])
    parts = [usage.get(k) for k in ("input", "output", "input_tokens", "output_tokens", "prompt_tokens",
                                    "completion_tokens")]
    nums = [float(p) for p in parts if isinstance(p, (int, float))]
    return sum(nums) if nums else None


def usage_cost(usage: dict[str, Any]) -> float | None:
    """The money a decision line's ``usage`` records, None when it was not priced."""
    for key in ("cost", "cost_usd"):
        if isinstance(usage.get(key), (int, float)):
            return float(usage[key])
    return None


# ---- decision lines ----------------------------------------------------------------------

# Serialising a line's parts costs more than the rest of a bot's decision, and most parts recur: a
# legal set is shared by many requests (it is immutable), a seat's visibility is the same on every
# line of that seat. Their JSON-ready forms are built once; callers treat them as read-only. (A
# kind is handed over as its plain string: pydantic-core serialises an enum member a third slower.)
_LEGAL_FORMS: dict[int, tuple[Any, dict[str, Any], str]] = {}


def _legal_forms(legal: Any) -> tuple[Any, dict[str, Any], str]:
    """(the legal set, its JSON-ready dict, its JSON text), made once per legal set."""
    entry = _LEGAL_FORMS.get(id(legal))
    if entry is not None and entry[0] is legal:
        return entry
    if len(_LEGAL_FORMS) > 4096:
        _LEGAL_FORMS.clear()
    form = legal.to_json()
    entry = _LEGAL_FORMS[id(legal)] = (legal, form, to_json(form).decode())  # holding the set keeps its id
    return entry


def _legal_json(legal: Any) -> dict[str, Any]:
    return _legal_forms(legal)[1]


@lru_cache(maxsize=256)
def _seat_only_json(seat: int) -> dict[str, Any]:
    return {"to": "seats", "seats": [seat], "team": None}


def decision_fields(record: "DecisionRecord", agent: Any, answer: "Answer | None") -> dict[str, Any]:
    """A decision line's fields, in :class:`DecisionLine`'s order (a test holds the two together)."""
    req = record.request
    extras = answer.extras if answer is not None else None
    kind = req.kind
    fields = {
        "type": "decision", "id": req.id, "seat": req.seat, "kind": kind._value_ if isinstance(kind, Enum) else kind,
        "phase": req.phase, "asked_in": req.asked_in, "legal": _legal_json(req.legal), "default": req.default,
        "answer": record.answer, "value": record.value, "refused": record.refused, "error": record.error,
        "defaulted": False, "visibility": _seat_only_json(req.seat),
        "agent": getattr(agent, "spec", None), "attempts": [], "prompt": None, "raw_reply": None,
        "reasoning": None, "notes": None, "beliefs": None, "memory": None, "usage": None, "latency_ms": None,
    }
    if answer is not None:
        fields["reasoning"], fields["notes"], fields["beliefs"] = answer.reasoning, answer.notes, answer.beliefs
    if extras is not None:  # a bot's answers carry none: their lines skip these look-ups
        fields["error"] = record.error or extras.error
        fields["defaulted"] = extras.defaulted
        fields["attempts"] = [a.model_dump() for a in extras.attempts]
        fields["prompt"], fields["raw_reply"], fields["memory"] = extras.prompt, extras.raw_reply, extras.memory
        fields["usage"] = extras.usage.to_json() if extras.usage is not None else None
        fields["latency_ms"] = extras.latency_ms
    return fields


def decision_line_json(record: "DecisionRecord", agent: Any, answer: "Answer | None") -> str:
    """A decision line as JSON text: the bytes ``DecisionLine`` would give (a test holds them together).

    Serialised from plain values by pydantic-core rather than through the model (same serializer,
    same float format, about four times faster than json.dumps); the reader still validates every
    line. A line with nothing but the choice (a bot's: no reasoning, metadata or latency) is
    assembled from pieces instead, most of them cached (``_plain_decision_line``)."""
    if answer is None or (answer.extras is None and answer.reasoning is None and answer.notes is None
                          and answer.beliefs is None):
        try:
            return _plain_decision_line(record, agent)
        except PydanticSerializationError:
            pass  # an odd value: the general path writes it as text
    fields = decision_fields(record, agent, answer)
    try:
        return to_json(fields).decode()
    except PydanticSerializationError:
        # A value pydantic-core cannot serialise (an agent's odd answer) is written as its str().
        # Asking for that fallback up front makes every line half again as slow.
        return to_json(fields, fallback=str).decode()


def _plain_decision_line(record: "DecisionRecord", agent: Any) -> str:
    req = record.request
    kind = req.kind
    return (f'{DECISION_LINE_START}{req.id},"seat":{req.seat},'
            f'"kind":{_text_json(kind._value_ if isinstance(kind, Enum) else kind)},'
            f'"phase":{_text_json(req.phase)},"asked_in":{_text_json(req.asked_in)},'
            f'"legal":{_legal_forms(req.legal)[2]},"default":{_value_json(req.default)},'
            f'"answer":{_value_json(record.answer)},"value":{_value_json(record.value)},'
            f'"refused":{"true" if record.refused else "false"},"error":{_value_json(record.error)},'
            + _plain_tail(req.seat, getattr(agent, "spec", None)))


def _value_json(value: Any) -> str:
    """JSON text of one value, as pydantic-core writes it (the common atoms without calling it)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    return to_json(value).decode()


@lru_cache(maxsize=1024)
def _text_json(text: str) -> str:
    """JSON text of a string that recurs (a kind, a phase)."""
    return to_json(text).decode()


@lru_cache(maxsize=1024)
def _plain_tail(seat: int, agent_spec: str | None) -> str:
    """Everything after ``error`` on the line of an answer that carries nothing but its choice."""
    return (f'"defaulted":false,"visibility":{to_json(_seat_only_json(seat)).decode()},'
            f'"agent":{_value_json(agent_spec)}' + PLAIN_DECISION_END)


class TranscriptWriter:
    """Appends lines to a JSONL file, one ``write``+``flush`` per line."""

    def __init__(self, path: str | Path | None = None, stream: IO[str] | None = None, mode: str = "w"):
        self.path = Path(path) if path is not None else None
        if stream is not None:
            self._fh: IO[str] | None = stream
            self._owns = False
        elif self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, mode, encoding="utf-8")
            self._owns = True
        else:
            self._fh = None
            self._owns = False
        self.lines_written = 0

    def write(self, line: BaseModel) -> None:
        self.write_json(line.model_dump_json())

    def write_json(self, text: str) -> None:
        """Write one already-serialised line and flush it, so a crash loses no completed line."""
        if self._fh is None:
            return
        self._fh.write(text + "\n")
        self._fh.flush()
        self.lines_written += 1

    def close(self) -> None:
        if self._fh is not None and self._owns:
            self._fh.close()
        self._fh = None

    def __enter__(self) -> "TranscriptWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Transcript(BaseModel):
    """A transcript read back into typed lines."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    path: str | None = None
    header: HeaderLine
    events: list[EventLine]
    decisions: list[DecisionLine]
    result: ResultLine | None = None
    torn_tail: bool = False
    decision_positions: list[int] = Field(
        default_factory=list, description="for each decision, the number of event lines written before it")

    @property
    def complete(self) -> bool:
        return self.result is not None


#: Readers refuse a transcript or a line larger than this, with a message, instead of trying to hold
#: it: the writer caps every recorded field (:data:`FIELD_CAP_CHARS`), so a real game stays far below.
MAX_TRANSCRIPT_BYTES = 256 * 2**20
MAX_LINE_BYTES = 16 * 2**20


def read_bounded(path: str | Path) -> bytes:
    """A transcript's bytes, refused with a message when it cannot be read or is over the bound."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_TRANSCRIPT_BYTES:
                raise TranscriptError(f"{path}: {size:,} bytes, more than a transcript may hold "
                                      f"({MAX_TRANSCRIPT_BYTES:,}); not read")
            return fh.read(MAX_TRANSCRIPT_BYTES + 1)
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read ({exc.strerror or exc})") from None


def parse_line(path: str | Path, number: int, raw: bytes) -> Any:
    """One line's JSON, or :class:`TranscriptError` naming the line (bad bytes, nesting, size)."""
    if len(raw) > MAX_LINE_BYTES:
        raise TranscriptError(f"{path}:{number}: a line of {len(raw):,} bytes, more than a line may hold "
                              f"({MAX_LINE_BYTES:,})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{path}:{number}: not UTF-8 text (byte {exc.start} of the line)") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise TranscriptError(f"{path}:{number}: JSON nested too deeply") from None


def iter_lines(path: str | Path) -> Iterator[tuple[int, Line | None, str]]:
    """Yield (line number, parsed line or None for a torn last line, raw text)."""
    path = Path(path)
    blob = read_bounded(path)
    raw_lines = blob.split(b"\n")
    ends_clean = blob.endswith(b"\n")
    if ends_clean:
        raw_lines = raw_lines[:-1]
    for number, raw in enumerate(raw_lines, start=1):
        is_last = number == len(raw_lines)
        if not raw.strip():
            continue
        try:
            data = parse_line(path, number, raw)
        except (json.JSONDecodeError, TranscriptError) as exc:
            if is_last and not ends_clean:
                yield number, None, raw.decode("utf-8", "replace")  # torn by a crash mid-write
                return
            if isinstance(exc, TranscriptError):
                raise
            raise TranscriptError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if number == 1:
            check_header(path, data)
        try:
            yield number, LINE_ADAPTER.validate_python(data), raw.decode("utf-8")
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err.get("loc", ()))
            raise TranscriptError(f"{path}:{number}: {where}: {err.get('msg')}") from None
        except RecursionError:
            raise TranscriptError(f"{path}:{number}: JSON nested too deeply") from None


def transcript_digest(data: bytes) -> str:
    """The fingerprint of a finished transcript, ``sha256:<hex>`` of its bytes. A tournament records
    it in its index when the game is done, so any later edit of any line (or a damaged disk) is
    found by hashing the file, without a replay (``arena verify``)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def check_header(path: str | Path, data: Any) -> None:
    """Refuse a first line that is not our header, or a schema version this reader cannot read."""
    if not isinstance(data, dict) or data.get("type") != "header":
        raise TranscriptError(f"{path}:1: the first line must be the header")
    if data.get("schema_name") != SCHEMA_NAME:
        raise TranscriptError(f"{path}: not a {SCHEMA_NAME} file (schema_name={data.get('schema_name')!r})")
    if "schema_version" not in data:
        raise TranscriptError(f"{path}:1: the header has no schema_version")
    version = data["schema_version"]
    if type(version) is not int:
        raise TranscriptError(f"{path}:1: schema_version must be a whole number, got {version!r}")
    if version < 1:
        raise TranscriptError(f"{path}:1: schema_version {version} is not a version (they start at 1)")
    if version > SCHEMA_VERSION:
        raise TranscriptError(
            f"{path}: transcript schema version {version} is newer than this arena reads "
            f"(up to {SCHEMA_VERSION}); upgrade werewolf-arena to read it"
        )


def read_transcript(path: str | Path) -> Transcript:
    header: HeaderLine | None = None
    events: list[EventLine] = []
    decisions: list[DecisionLine] = []
    positions: list[int] = []
    result: ResultLine | None = None
    torn = False
    for _, line, _ in iter_lines(path):
        if line is None:
            torn = True
        elif isinstance(line, HeaderLine):
            header = line
        elif isinstance(line, EventLine):
            events.append(line)
        elif isinstance(line, DecisionLine):
            decisions.append(line)
            positions.append(len(events))
        elif isinstance(line, ResultLine):
            result = line
    if header is None:
        raise TranscriptError(f"{path}: empty transcript (no header line)")
    return Transcript(path=str(path), header=header, events=events, decisions=decisions, result=result, torn_tail=torn,
                      decision_positions=positions)
