"""The evaluator streams (#27 item 6): the same report, byte for byte, in memory that does not grow
with the number of games (beyond a few compact numbers per game).

The golden report (tests/data/eval_golden_report.json) was written by the evaluator before it
streamed, from the 28 bot games in tests/data/eval_golden_games.tar.gz (std-12-guard heuristic
against random, mirrored; cupid-tucheng-9 and std-12-idiot with three labels, mixed seating). Rewrite
it only for a deliberate change of the report: ``python tests/test_eval_streaming.py``.
"""

from __future__ import annotations

import gc
import json
import sys
import tarfile
import tracemalloc
from pathlib import Path

import pytest

pytest.importorskip("openskill")

from arena.evaluate.accumulate import Accumulator
from arena.evaluate.forks import ForkCollector
from arena.evaluate.report import _read_all, render_json, score

DATA = Path(__file__).parent / "data"
GAMES = DATA / "eval_golden_games.tar.gz"
GOLDEN = DATA / "eval_golden_report.json"


def _unpack(into: Path) -> Path:
    with tarfile.open(GAMES) as tar:
        tar.extractall(into, filter="data")
    return into / "games"


def _report_json(folder: Path) -> str:
    """The whole report as JSON, with what differs between runs but not between evaluators (the
    folder the games were unpacked to, the stage timings) put in a fixed form."""
    data = json.loads(render_json(score([folder])))
    data["seconds"] = {k: 0.0 for k in data["seconds"]}
    return json.dumps(data, indent=2, ensure_ascii=False).replace(str(folder), "GAMES") + "\n"


def test_report_is_byte_identical_to_the_one_before_streaming(tmp_path: Path) -> None:
    assert _report_json(_unpack(tmp_path)) == GOLDEN.read_text(encoding="utf-8")


def _copies(games: Path, into: Path, copies: int) -> Path:
    """``copies`` copies of every game, each its own game and deal (benchmarks/replicate_games.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from replicate_games import replicate

    replicate(games, into, copies * len(list(games.glob("*.jsonl"))))
    return into


def _retained_bytes(folder: Path) -> tuple[int, int]:
    """Bytes held by the accumulators after reading every transcript, and the peak while reading
    (tracemalloc: counted allocations, the same on every run)."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = (Accumulator(), ForkCollector(), Accumulator())
        _read_all([str(folder)], kept[0], [], False, kept[1], kept[2])
        return tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()


def test_memory_per_game_is_a_small_summary(tmp_path: Path) -> None:
    games = _unpack(tmp_path)
    small, large = _copies(games, tmp_path / "x4", 4), _copies(games, tmp_path / "x16", 16)
    _retained_bytes(small)  # warm the caches every run shares (claims reader, interned names)
    small_now, small_peak = _retained_bytes(small)
    large_now, large_peak = _retained_bytes(large)
    extra_games = 12 * 28
    # Before streaming: 2,677 bytes held and 3,012 of peak more per game (header dicts, pydantic
    # records, lists of boxed numbers, a list per cluster); after: about 1,640 (typed arrays of
    # per-game cluster sums, a slotted record, the path).
    assert (large_now - small_now) / extra_games < 2000
    assert (large_peak - small_peak) / extra_games < 2000


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.write_text(_report_json(_unpack(Path(tmp))), encoding="utf-8")
    print(f"wrote {GOLDEN}", file=sys.stderr)
