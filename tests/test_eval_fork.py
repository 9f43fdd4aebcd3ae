"""Counterfactual forks: replay to a decision, play on, name the parent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.registry import make_agent
from arena.engine import GameSetup
from arena.fork import ForkError, fork_game
from arena.referee import run_game
from arena.transcript import TranscriptWriter, read_transcript

SPECS = ["bot:heuristic"] * 6 + ["bot:random"] * 6


@pytest.fixture()
def parent(tmp_path: Path) -> Path:
    path = tmp_path / "parent.jsonl"
    agents = [make_agent(s, seat=i + 1, seed=11) for i, s in enumerate(SPECS)]
    with TranscriptWriter(path) as w:
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=11), agents, writer=w, specs=SPECS, game_id="parent"))
    return path


def test_fork_at_the_start_with_the_same_agents_is_the_parent(parent: Path, tmp_path: Path) -> None:
    result = asyncio.run(fork_game(parent, 1, make_agent, out=tmp_path / "forks"))
    child, original = read_transcript(result.path), read_transcript(parent)
    assert child.header.fork is not None and child.header.fork.parent == "parent" and child.header.fork.at_decision == 1
    assert [e.model_dump() for e in child.events] == [e.model_dump() for e in original.events]
    assert result.winner == result.parent_winner


def test_fork_replays_the_prefix_then_plays_on(parent: Path, tmp_path: Path) -> None:
    original = read_transcript(parent)
    at = len(original.decisions) // 2
    result = asyncio.run(fork_game(parent, at, make_agent, specs=["bot:random"] * 12, out=tmp_path))
    child = read_transcript(result.path)
    before = [(d.id, d.seat, d.kind, d.answer) for d in original.decisions if d.id < at]
    assert [(d.id, d.seat, d.kind, d.answer) for d in child.decisions if d.id < at] == before
    assert child.complete and child.header.agents[0].spec == "bot:random"
    assert Path(result.path).name.startswith("parent-fork")
    assert not list(tmp_path.glob("*.part"))


def test_fork_rejects_a_decision_out_of_range(parent: Path) -> None:
    with pytest.raises(ForkError, match="numbered"):
        asyncio.run(fork_game(parent, 10**6, make_agent))
