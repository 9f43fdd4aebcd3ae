"""Reading transcripts for scoring: fast, tolerant of torn tails, strict about schema versions.

Scoring thousands of games cannot afford a pydantic validation of every line (about 8 ms a game),
so the evaluator reads plain dicts with ``orjson`` when it is installed (``json`` otherwise) and
checks only what it relies on: the header's schema name and version, and the line types. Pass
``strict=True`` to validate every line with :func:`arena.transcript.read_transcript` instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from arena.transcript import (
    DECISION_LINE_START,
    EVENT_LINE_START,
    MAX_LINE_BYTES,
    PLAIN_DECISION_END,
    PLAIN_DECISION_MIDDLE,
    TranscriptError,
    check_header,
    read_bounded,
    read_transcript,
)

# orjson's loads and json's both take bytes or str and give plain JSON values.
_loads: Callable[[bytes | str], Any]
try:
    import orjson

    _loads = orjson.loads
except ImportError:  # pragma: no cover - orjson is optional
    import json

    _loads = json.loads


@dataclass
class RawGame:
    """One transcript as plain dicts. ``lines`` holds events and decisions in file order."""

    path: str
    header: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    torn_tail: bool = False
    #: seat -> decisions left out of ``lines`` because they carry nothing but a valid answer
    #: (only when ``load_game`` was given ``full_decision_kinds``).
    plain_decisions: dict[int, int] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.result is not None


_check_header = check_header  # one header check for every reader (arena.transcript)


# Fast path for bot-sized workloads: most lines of a bot game are events the scorer ignores and
# decisions with nothing but a valid answer in them. Both are recognised from the raw bytes with a
# few C-level byte operations, so they are never turned into Python objects. The checks pin the
# exact layout the transcript writer produces (field order included); a line that does not match it
# exactly is parsed in full, so an unexpected layout costs speed, never correctness.
# The pieces come from the writer's own definitions (arena.transcript), never copied here.
_EVENT_PREFIX = EVENT_LINE_START.encode()
_DECISION_PREFIX = DECISION_LINE_START.encode()
_PLAIN_MIDDLE = PLAIN_DECISION_MIDDLE.encode()
_PLAIN_SUFFIX = PLAIN_DECISION_END.encode()


def _event_type(raw: bytes) -> bytes | None:
    """The event's type, read where the writer puts it: right after the visibility object."""
    v = raw.find(b',"visibility":{', 20, 90)
    if v < 0:
        return None
    close = raw.find(b"}", v + 15)
    if not raw.startswith(b',"type":"', close + 1):
        return None
    start = close + 10
    return raw[start:raw.find(b'"', start)]


def load_game(path: str | Path, *, strict: bool = False, event_types: Iterable[str] | None = None,
              full_decision_kinds: Iterable[str] | None = None) -> RawGame:
    """Read one transcript.

    ``event_types``: keep only events of these types (None keeps all). ``full_decision_kinds``:
    decisions of other kinds that carry nothing beyond a valid answer (no error, attempts,
    reasoning, beliefs, usage or latency) are only counted per seat in ``plain_decisions``
    (None parses every decision in full).
    """
    path = str(path)
    if strict:
        read_transcript(path)  # raises TranscriptError naming the first invalid line
    blob = read_bounded(path)
    raw_lines = blob.split(b"\n")
    ends_clean = blob.endswith(b"\n")
    if ends_clean:
        raw_lines.pop()
    while raw_lines and not raw_lines[0].strip():
        raw_lines.pop(0)
    if not raw_lines:
        raise TranscriptError(f"{path}: empty transcript (no header line)")
    try:
        header = _loads(raw_lines[0])
    except (ValueError, RecursionError):
        raise TranscriptError(f"{path}:1: not JSON") from None
    _check_header(path, header)
    game = RawGame(path=path, header=header)
    keep_events = _encoded(event_types)
    full_kinds = _encoded(full_decision_kinds)
    plain = game.plain_decisions
    keep: list[bytes] = []
    append = keep.append
    # The hot loop: plain decisions and ignored events are dropped with byte operations only.
    for raw in raw_lines[1:]:
        if full_kinds is not None and raw.endswith(_PLAIN_SUFFIX) and raw.startswith(_DECISION_PREFIX) \
                and _PLAIN_MIDDLE in raw:
            i = raw.find(b',"seat":', 24, 48)
            j = raw.find(b',"kind":"', i + 8, i + 24) if i > 0 else -1
            if j > 0 and raw[i + 8:j].isdigit() and raw[j + 9:raw.find(b'"', j + 9)] not in full_kinds:
                seat = int(raw[i + 8:j])
                plain[seat] = plain.get(seat, 0) + 1
                continue
        elif keep_events is not None and raw.startswith(_EVENT_PREFIX):
            kind = _event_type(raw)
            if kind is not None and kind not in keep_events:
                continue
        append(raw)
    lines = game.lines
    last = len(keep) - 1
    for number, raw in enumerate(keep):
        if not raw.strip():
            continue
        if len(raw) > MAX_LINE_BYTES:
            raise TranscriptError(f"{path}: a line of {len(raw):,} bytes, more than a line may hold")
        try:
            data = _loads(raw)
        except (ValueError, RecursionError):  # bad bytes, bad JSON, nesting deeper than the parser goes
            if number == last and not ends_clean:
                game.torn_tail = True  # killed mid-write: every line before it is intact
                break
            raise TranscriptError(f"{path}: a line is not JSON: {raw[:80]!r}") from None
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "event" or kind == "decision":
            lines.append(data)
        elif kind == "result":
            game.result = data
        else:
            raise TranscriptError(f"{path}: unknown line type {kind!r}")
    return game


@lru_cache(maxsize=16)
def _encoded_cached(values: frozenset[str]) -> frozenset[bytes]:
    return frozenset(v.encode() for v in values)


def _encoded(values: Iterable[str] | None) -> frozenset[bytes] | None:
    return None if values is None else _encoded_cached(frozenset(values))


def find_transcripts(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``*.jsonl`` transcript under the given files or folders, sorted, without duplicates.

    Tournament bookkeeping files (``index.jsonl``) are skipped.
    """
    return [Path(p) for p in transcript_files(paths)]


def transcript_files(paths: Iterable[str | Path]) -> list[str]:
    """:func:`find_transcripts` as strings, in the same order (Path order, by components): the
    evaluator holds the list while it reads, and a string weighs a third of a Path."""
    found: set[str] = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found.update(str(x) for x in p.rglob("*.jsonl") if x.name != "index.jsonl")
        elif p.is_file():
            found.add(str(p))
        else:
            raise TranscriptError(f"{p}: no such file or folder")
    return sorted(found, key=lambda s: Path(s).parts)


def iter_games(paths: Iterable[str | Path], *, strict: bool = False) -> Iterator[RawGame]:
    for path in find_transcripts(paths):
        yield load_game(path, strict=strict)
