"""The scorer's fast transcript reader agrees with the full one and survives torn files."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agents.registry import make_agent
from arena.engine import GameSetup
from arena.evaluate.load import load_game
from arena.evaluate.metrics import LEGAL_SET_KINDS, SCORED_EVENTS, Accumulator, finish_metrics, score_game
from arena.referee import run_game
from arena.transcript import TranscriptWriter


def bot_game(path: Path, seed: int) -> Path:
    specs = ["bot:heuristic", "bot:random"] * 6
    agents = [make_agent(s, seat=i + 1, seed=seed) for i, s in enumerate(specs)]
    with TranscriptWriter(path) as w:
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents, writer=w, specs=specs,
                             game_id=path.stem))
    return path


def test_fast_reader_scores_exactly_like_the_full_reader(tmp_path: Path) -> None:
    paths = [bot_game(tmp_path / f"g{seed}.jsonl", seed) for seed in range(6)]
    fast, full = Accumulator(), Accumulator()
    for path in paths:
        game = load_game(path, event_types=SCORED_EVENTS, full_decision_kinds=LEGAL_SET_KINDS)
        assert sum(game.plain_decisions.values()) > 0  # the fast path did skip something
        score_game(game, fast)
        score_game(load_game(path), full)
    assert [m.model_dump() for m in finish_metrics(fast)] == [m.model_dump() for m in finish_metrics(full)]
    assert fast.records == full.records


def test_torn_tail_is_tolerated(tmp_path: Path) -> None:
    path = bot_game(tmp_path / "g.jsonl", 3)
    blob = path.read_bytes()
    cut = tmp_path / "torn.jsonl"
    cut.write_bytes(blob[: len(blob) // 2])  # killed mid-write
    for kwargs in ({}, {"event_types": SCORED_EVENTS, "full_decision_kinds": LEGAL_SET_KINDS}):
        game = load_game(cut, **kwargs)
        assert game.result is None and not game.complete
    acc = Accumulator()
    score_game(load_game(cut), acc)
    assert acc.avail.incomplete == 1 and acc.avail.games == 0
