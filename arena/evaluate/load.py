"""Reading transcripts for scoring: fast, tolerant of torn tails, strict about schema versions.

Scoring thousands of games cannot afford a pydantic validation of every line (about 8 ms a game),
so the evaluator reads plain dicts with ``orjson`` when it is installed (``json`` otherwise) and
checks only what it relies on: the header's schema name and version, and the line types. Pass
``strict=True`` to validate every line with :func:`arena.transcript.read_transcript` instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from arena.transcript import SCHEMA_NAME, SCHEMA_VERSION, TranscriptError, read_transcript

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

    @property
    def complete(self) -> bool:
        return self.result is not None


def _check_header(path: str, data: Any) -> None:
    if not isinstance(data, dict) or data.get("type") != "header":
        raise TranscriptError(f"{path}:1: the first line must be the header")
    if data.get("schema_name") != SCHEMA_NAME:
        raise TranscriptError(f"{path}: not a {SCHEMA_NAME} file (schema_name={data.get('schema_name')!r})")
    version = data.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise TranscriptError(
            f"{path}: transcript schema version {version} is newer than this arena reads (up to {SCHEMA_VERSION})"
        )


# Fast paths for bot-sized workloads: most lines of a bot game are events the scorer ignores and
# decisions with nothing but a seat in them. Both are recognised from the raw bytes, so they are
# never turned into Python objects; anything the patterns do not recognise is parsed in full.
_EVENT_TYPE = re.compile(rb'^\{"type":"event","seq":\d+,"event":\{"phase":"[^"]*","visibility":\{[^{}]*\},"type":"([a-z_]+)"')
_DECISION_HEAD = re.compile(rb'^\{"type":"decision","id":\d+,"seat":(\d+),"kind":"([a-z_]+)"')
_PLAIN_DECISION_TAIL = re.compile(  # matched from the position of '"refused":false,'
    rb'"refused":false,"error":null,"defaulted":false,"visibility":\{[^{}]*\},"agent":(?:"[^"]*"|null),'
    rb'"attempts":\[\],"prompt":null,"raw_reply":null,"reasoning":null,"notes":null,"beliefs":null,'
    rb'"memory":null,"usage":null,"latency_ms":null\}$'
)
_PLAIN_END = b'"usage":null,"latency_ms":null}'


def load_game(path: str | Path, *, strict: bool = False, event_types: frozenset[str] | None = None,
              full_decision_kinds: frozenset[str] | None = None) -> RawGame:
    """Read one transcript.

    ``event_types``: keep only events of these types (None keeps all). ``full_decision_kinds``:
    decisions of other kinds that carry nothing beyond seat and kind (no error, reasoning, beliefs,
    usage or latency) come back as ``{"type": "decision", "seat": s, "plain": True}``, one shared
    read-only dict per seat (None parses every decision in full).
    """
    path = str(path)
    if strict:
        read_transcript(path)  # raises TranscriptError naming the first invalid line
    try:
        with open(path, "rb") as fh:
            blob = fh.read()
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read ({exc.strerror or exc})") from None
    raw_lines = blob.split(b"\n")
    ends_clean = blob.endswith(b"\n")
    if ends_clean:
        raw_lines.pop()
    keep_events = None if event_types is None else {t.encode() for t in event_types}
    full_kinds = None if full_decision_kinds is None else {k.encode() for k in full_decision_kinds}
    plain: dict[int, dict[str, Any]] = {}
    game: RawGame | None = None
    lines: list[dict[str, Any]] = []
    last = len(raw_lines)
    event_match, head_match, tail_match = _EVENT_TYPE.match, _DECISION_HEAD.match, _PLAIN_DECISION_TAIL.match
    for number, raw in enumerate(raw_lines, start=1):
        if not raw:
            continue
        if number != 1 and number != last:
            if raw.startswith(b'{"type":"decision"'):
                if full_kinds is not None and raw.endswith(_PLAIN_END):
                    m = head_match(raw)
                    if m is not None and m.group(2) not in full_kinds:
                        at = raw.rfind(b'"refused":false,')
                        if at > 0 and tail_match(raw, at) is not None:
                            seat = int(m.group(1))
                            entry = plain.get(seat)
                            if entry is None:
                                entry = plain[seat] = {"type": "decision", "seat": seat, "plain": True}
                            lines.append(entry)
                            continue
            elif keep_events is not None:
                m = event_match(raw)
                if m is not None and m.group(1) not in keep_events:
                    continue
        elif not raw.strip():
            continue
        try:
            data = _loads(raw)
        except ValueError:
            if number == last and not ends_clean:
                if game is not None:
                    game.torn_tail = True
                break
            raise TranscriptError(f"{path}:{number}: not JSON") from None
        if game is None:
            _check_header(path, data)
            game = RawGame(path=path, header=data, lines=lines)
            continue
        kind = data.get("type")
        if kind == "event" or kind == "decision":
            lines.append(data)
        elif kind == "result":
            game.result = data
        else:
            raise TranscriptError(f"{path}:{number}: unknown line type {kind!r}")
    if game is None:
        raise TranscriptError(f"{path}: empty transcript (no header line)")
    return game


def find_transcripts(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``*.jsonl`` transcript under the given files or folders, sorted, without duplicates.

    Tournament bookkeeping files (``index.jsonl``) are skipped.
    """
    found: set[Path] = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found.update(x for x in p.rglob("*.jsonl") if x.name != "index.jsonl")
        elif p.is_file():
            found.add(p)
        else:
            raise TranscriptError(f"{p}: no such file or folder")
    return sorted(found)


def iter_games(paths: Iterable[str | Path], *, strict: bool = False) -> Iterator[RawGame]:
    for path in find_transcripts(paths):
        yield load_game(path, strict=strict)
