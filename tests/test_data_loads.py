"""Each data file (prompts/, configs/) is read at most once per process, however many games run.

The heuristic bot once lost the cache on its speech book and re-parsed a YAML file on every speech
(a bot game went from ~20 ms to ~950 ms of CPU) while every test stayed green. This counts the reads
instead of timing anything, so it cannot flake: a second game must read no data file at all.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agents.heuristic import HeuristicBot
from arena.engine import GameSetup
from arena.referee import play_sync
from arena.resources import data_dir

DATA_ROOTS = tuple(data_dir(name).resolve() for name in ("prompts", "configs"))


def _bots(seed: int, lang: str) -> list[Any]:
    return [HeuristicBot(seat, seed, lang=lang) for seat in range(1, 13)]


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    reads: Counter[str] = Counter()
    real_text, real_bytes, real_open = Path.read_text, Path.read_bytes, Path.open

    def note(path: Path) -> None:
        resolved = path.resolve()
        if any(resolved.is_relative_to(root) for root in DATA_ROOTS):
            reads[str(resolved)] += 1

    def read_text(self: Path, *args: Any, **kwargs: Any) -> str:
        note(self)
        return real_text(self, *args, **kwargs)

    def read_bytes(self: Path) -> bytes:
        note(self)
        return real_bytes(self)

    def open_(self: Path, *args: Any, **kwargs: Any) -> Any:
        note(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(Path, "open", open_)
    return reads


def test_bot_games_read_each_data_file_at_most_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _count_reads(monkeypatch)
    (data_dir("configs") / "presets.yaml").read_text(encoding="utf-8")
    assert reads, "the counter saw no read: the test would pass whatever the bot does"
    reads.clear()
    for seed, lang in ((3, "en"), (4, "zh")):  # earlier tests in the process may have read them already
        play_sync(GameSetup(preset="std-12-guard", seed=seed), _bots(seed, lang))
    # A file may be read twice in a process: once parsed, once hashed for the transcript's versions.
    assert all(n <= 2 for n in reads.values()), {p: n for p, n in reads.items() if n > 2}
    reads.clear()
    for seed, lang in ((5, "en"), (6, "zh")):
        play_sync(GameSetup(preset="std-12-guard", seed=seed), _bots(seed, lang))
    assert not reads, f"later bot games read data files again: {dict(reads)}"
