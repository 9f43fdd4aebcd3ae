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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Annotated, Any, Iterator, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_serializer

from arena.events import Event, Visibility
from arena.provenance import BuildInfo

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
            for name in ("build", "first_kill_protected"):  # absent, not null: older bytes stay the same
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


def iter_lines(path: str | Path) -> Iterator[tuple[int, Line | None, str]]:
    """Yield (line number, parsed line or None for a torn last line, raw text)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read ({exc.strerror or exc})") from None
    raw_lines = text.split("\n")
    ends_clean = text.endswith("\n")
    if ends_clean:
        raw_lines = raw_lines[:-1]
    for number, raw in enumerate(raw_lines, start=1):
        is_last = number == len(raw_lines)
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            if is_last and not ends_clean:
                yield number, None, raw  # torn by a crash mid-write: everything before it is intact
                return
            raise TranscriptError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if number == 1:
            check_header(path, data)
        try:
            yield number, LINE_ADAPTER.validate_python(data), raw
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err.get("loc", ()))
            raise TranscriptError(f"{path}:{number}: {where}: {err.get('msg')}") from None


def check_header(path: str | Path, data: Any) -> None:
    """Refuse a first line that is not our header, or a schema version newer than this reader."""
    if not isinstance(data, dict) or data.get("type") != "header":
        raise TranscriptError(f"{path}:1: the first line must be the header")
    if data.get("schema_name") != SCHEMA_NAME:
        raise TranscriptError(f"{path}: not a {SCHEMA_NAME} file (schema_name={data.get('schema_name')!r})")
    version = data.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
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
