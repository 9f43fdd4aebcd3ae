"""Transcripts: the format, per-line flushing, torn tails, version refusal, and the fast writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.bots import RandomBot
from arena.engine import GameSetup
from arena.referee import play_sync
from arena.transcript import (DecisionLine, EventLine, LINE_ADAPTER, SCHEMA_VERSION, TranscriptError,
                              TranscriptWriter, decision_fields, json_schema, read_transcript)


def write_game(path: Path, seed: int = 3) -> None:
    setup = GameSetup(preset="std-12-guard", seed=seed)
    with TranscriptWriter(path) as writer:
        play_sync(setup, [RandomBot(s, seed) for s in range(1, 13)], writer=writer)


def test_every_line_validates_against_the_models(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    kinds = [json.loads(line)["type"] for line in lines]
    assert kinds[0] == "header" and kinds[-1] == "result"
    assert {"event", "decision"} <= set(kinds)
    for line in lines:
        LINE_ADAPTER.validate_json(line)
    t = read_transcript(path)
    assert t.complete and t.header.schema_version == SCHEMA_VERSION
    assert [e.seq for e in t.events] == list(range(len(t.events)))


def test_fast_writer_matches_the_models(tmp_path: Path) -> None:
    """The writer serialises lines without building models; the bytes must be what the models give."""
    path = tmp_path / "g.jsonl"
    write_game(path, seed=11)
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = LINE_ADAPTER.validate_json(raw)
        if isinstance(line, (EventLine, DecisionLine)):
            assert line.model_dump_json() == raw
    # the field order of the fast decision writer is the model's order
    from arena.actions import ChooseBool, DecisionRequest
    from arena.engine import DecisionRecord

    req = DecisionRequest(id=1, seat=2, kind="vote", phase="D1", asked_in="D1", legal=ChooseBool())
    fields = decision_fields(DecisionRecord(req, True, True, False, None), RandomBot(2, 0), None)
    assert list(fields) == list(DecisionLine.model_fields)


def test_a_crash_leaves_every_completed_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path)
    text = path.read_text(encoding="utf-8")
    torn = text[: len(text) - 40]  # the process died in the middle of the last lines
    path.write_text(torn, encoding="utf-8")
    t = read_transcript(path)
    assert t.torn_tail and not t.complete
    assert len(t.events) + len(t.decisions) == torn.count("\n") - 1


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["schema_version"] = SCHEMA_VERSION + 1
    path.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match="newer than this arena reads"):
        read_transcript(path)


def test_older_schema_versions_still_read(tmp_path: Path) -> None:
    """Version 2 only added values (R138's interjection speeches): a version-1 file reads unchanged."""
    path = tmp_path / "g.jsonl"
    write_game(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["schema_version"] = 1
    path.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n", encoding="utf-8")
    t = read_transcript(path)
    assert t.complete and t.header.schema_version == 1


def test_interjection_speeches_are_in_the_schema(tmp_path: Path) -> None:
    """R138 may_interject: a game with interjections writes lines the models (and ``arena schema``) accept."""
    from agents.heuristic import HeuristicBot

    path = tmp_path / "g.jsonl"
    kinds: set[str] = set()
    for seed in range(40):
        setup = GameSetup(preset="std-12-idiot", seed=seed, rules={"idiot_after_reveal": "may_interject"})
        with TranscriptWriter(path) as writer:
            play_sync(setup, [HeuristicBot(s, seed) for s in range(1, 13)], writer=writer)
        t = read_transcript(path)
        kinds |= {e.event.kind for e in t.events if e.event.type == "speech"}
        if "interjection" in kinds:
            break
    assert "interjection" in kinds
    schema = json.dumps(json_schema())
    assert '"interjection"' in schema and '"interjection_reply"' in schema


def test_garbage_in_the_middle_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = "{oops"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"g.jsonl:6: not JSON"):
        read_transcript(path)


def test_flushed_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    writer = TranscriptWriter(path)
    from arena.transcript import HeaderLine

    writer.write(HeaderLine(game_id="x", preset="std-12-guard", rules={}, switches={}, seed=1, agents=[],
                            package_version="0"))
    assert path.read_text(encoding="utf-8").count("\n") == 1  # on disk before close
    writer.close()


def test_json_schema_describes_every_line_type() -> None:
    schema = json.dumps(json_schema())
    for name in ("HeaderLine", "EventLine", "DecisionLine", "ResultLine", "BallotCast", "Visibility"):
        assert name in schema


def test_a_plain_decision_line_is_assembled_to_the_same_bytes() -> None:
    """A bot's decision line is assembled from cached pieces; it must equal the general serialisation
    for every kind of value an answer, a default or an error can hold."""
    from pydantic_core import to_json

    from arena.actions import (YES_OR_NO, Answer, AnswerExtras, ChooseOption, DecisionRequest, Speak,
                               SpeechOrderChoice, choose_seat)
    from arena.engine import DecisionRecord
    from arena.transcript import _plain_decision_line, decision_line_json
    from arena.types import Kind

    class Spec:
        def __init__(self, spec: str | None):
            self.spec = spec

    values = [None, True, False, 0, 7, -3, 1.5, 2.0, "pass", 'say "hi"\n\\ 狼人杀 \u2028', [1, 2], [],
              {"start": 3, "direction": "ascending"}, {"nested": [None, 1.25, "x"]}]
    legals = [YES_OR_NO, choose_seat((1, 2, 3)), choose_seat((4,), allow_none=False),
              ChooseOption(options=(0, 1, False)), Speak(max_chars=600, seconds=None), SpeechOrderChoice(starts=(2, 12))]
    request_id = 0
    for kind in (Kind.VOTE, "custom_kind"):
        for legal in legals:
            for value in values:
                for error in (None, 'not "legal": 中'):
                    request_id += 1
                    req = DecisionRequest(id=request_id, seat=request_id % 12 + 1, kind=kind, phase="D2", asked_in="N2",
                                          legal=legal, default=value)
                    record = DecisionRecord(req, value, value, error is not None, error)
                    for agent in (Spec("bot:random"), Spec(None), object()):
                        expected = to_json(decision_fields(record, agent, None)).decode()
                        assert _plain_decision_line(record, agent) == expected
                        assert decision_line_json(record, agent, None) == expected
                    # an answer whose extras are empty but present is written as it is, not as null
                    for extras in ({"reasoning": ""}, {"notes": ""}, {"beliefs": {}}, {"extras": AnswerExtras()}):
                        answer = Answer(value=value, **extras)
                        expected = to_json(decision_fields(record, None, answer)).decode()
                        assert decision_line_json(record, None, answer) == expected
