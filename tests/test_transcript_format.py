"""One owner per transcript format: the lines the writer assembles by hand are the bytes the line
models give, and the fast reader recognises them by the writer's own pieces. If any of the three
drifts (a field added to a model, a piece retyped), these tests fail."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from agents.registry import make_agent
from arena.engine import GameSetup
from arena.evaluate.load import _event_type, load_game
from arena.referee import play_sync
from arena.transcript import (
    DECISION_LINE_START,
    EVENT_LINE_START,
    PLAIN_DECISION_END,
    PLAIN_DECISION_MIDDLE,
    LINE_ADAPTER,
    DecisionLine,
    EventLine,
    TranscriptWriter,
)

ROOT = Path(__file__).resolve().parents[1]


def _game(tmp_path: Path, bot: str, seed: int) -> Path:
    path = tmp_path / f"{bot}-{seed}.jsonl"
    with TranscriptWriter(path) as writer:
        play_sync(GameSetup(preset="std-12-guard", seed=seed),
                  [make_agent(f"bot:{bot}", seat=s, seed=seed) for s in range(1, 13)], writer=writer,
                  specs=[f"bot:{bot}"] * 12)
    return path


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_hand_assembled_lines_are_the_models_bytes(tmp_path: Path, bot: str) -> None:
    for raw in _game(tmp_path, bot, 5).read_text(encoding="utf-8").splitlines():
        line = LINE_ADAPTER.validate_json(raw)
        assert line.model_dump_json() == raw, f"the writer and the model disagree on:\n{raw[:200]}"


def test_the_pieces_are_where_the_models_put_them() -> None:
    from arena.events import PUBLIC, Speech

    event = EventLine(seq=7, event=Speech(phase="D1", seat=2, kind="discussion", text="hi", visibility=PUBLIC))
    assert event.model_dump_json().startswith(EVENT_LINE_START + "7,")
    plain = DecisionLine(id=3, seat=2, kind="vote", phase="D1", asked_in="D1", legal={"type": "seat"}, answer=4,
                         value=4, visibility={"to": "seats", "seats": [2], "team": None}, agent="bot:x").model_dump_json()
    assert plain.startswith(DECISION_LINE_START + "3,")
    assert PLAIN_DECISION_MIDDLE in plain and plain.endswith(',"agent":"bot:x"' + PLAIN_DECISION_END)


def test_the_fast_reader_recognises_every_plain_line_by_the_writers_pieces(tmp_path: Path) -> None:
    path = _game(tmp_path, "heuristic", 8)
    game = load_game(path, event_types=frozenset(), full_decision_kinds=frozenset())
    full = load_game(path)
    decisions = [x for x in full.lines if x["type"] == "decision"]
    assert game.lines == [], "every event and every plain decision was recognised without parsing"
    assert sum(game.plain_decisions.values()) == len(decisions)
    for raw in path.read_bytes().splitlines()[1:-1]:
        if raw.startswith(EVENT_LINE_START.encode()):
            assert _event_type(raw) == LINE_ADAPTER.validate_json(raw).event.type.encode()


def test_no_module_but_the_transcript_spells_the_line_layout() -> None:
    """The layout strings live in arena/transcript.py only; elsewhere they are imported."""
    pieces = ['{"type":"event"', '{"type":"decision"', '"usage":{', '"attempts":[],"prompt":null']
    offenders = []
    for path in list((ROOT / "arena").rglob("*.py")) + list((ROOT / "agents").rglob("*.py")):
        if path.name == "transcript.py" and path.parent.name == "arena":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno}" for p in pieces if p in text]
    assert not offenders, f"transcript layout spelled outside arena/transcript.py: {offenders}"


def test_the_tournament_reads_usage_through_the_transcript_module() -> None:
    for name in ("tournament.py", "executors.py"):
        source = (ROOT / "arena" / name).read_text(encoding="utf-8")
        assert "arena.evaluate.metrics import _" not in source and "import _cost" not in source
    from arena.executors import usage_totals

    line = DecisionLine(id=1, seat=1, kind="vote", phase="D1", asked_in="D1", legal={}, visibility={"to": "all"},
                        usage={"input": 100, "output": 20, "cost_usd": 0.5}).model_dump_json()
    blob = io.BytesIO((line + "\n" + line + "\n").encode()).getvalue()
    assert usage_totals(blob) == (240.0, 1.0)
