"""A tournament folder under hostile conditions: a second runner, a torn index line, a damaged
tournament.json (docs/reliability.md)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.durable import FolderLock, cut_torn_tail, write_atomic
from arena.tournament import Index, IndexEntry, RunOptions, TournamentConfig, TournamentError, run_tournament

ROOT = Path(__file__).resolve().parent.parent


def config(out: Path, **kw) -> TournamentConfig:
    base = dict(name="t", roster=[{"label": "h", "agent": "bot:heuristic"}, {"label": "r", "agent": "bot:random"}],
                boards=[{"preset": "std-tucheng-9"}], deals=1, seed=3, out=str(out), concurrency=1)
    base.update(kw)
    return TournamentConfig(**base)


def write_config(path: Path, out: Path) -> Path:
    path.write_text(yaml.safe_dump(config(out).model_dump(mode="json")), encoding="utf-8")
    return path


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


# --- one runner per folder ---------------------------------------------------------------------


def test_a_second_runner_on_a_busy_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FolderLock(out):  # another runner is at work in this folder
        with pytest.raises(TournamentError, match="in use by another runner"):
            asyncio.run(run_tournament(config(out), RunOptions(out=out)))
        assert not (out / "index.jsonl").exists(), "the refused runner touched nothing"
    result = asyncio.run(run_tournament(config(out), RunOptions(out=out)))  # the lock went with its holder
    assert result.played == 2 and not result.failed


def test_the_cli_names_the_busy_folder_and_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "t.yaml", out)
    with FolderLock(out):  # this test process plays the first runner
        proc = cli("tournament", str(cfg), "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert "in use by another runner" in proc.stderr and f"pid {os.getpid()}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_killed_runner_leaves_no_stale_lock(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = f"from arena.durable import FolderLock; import os; FolderLock({str(out)!r}).acquire(); os._exit(9)"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False, timeout=60)
    assert (out / ".lock").exists()
    with FolderLock(out):
        pass


# --- the index: a torn tail never swallows the next entry ---------------------------------------


def test_a_torn_index_tail_does_not_swallow_the_next_entry(tmp_path: Path) -> None:
    path = tmp_path / "index.jsonl"
    first = IndexEntry(game_id="g1", status="done", time=1.0, winner="village")
    path.write_text(first.model_dump_json() + "\n" + '{"game_id":"g2","status":"sta', encoding="utf-8")
    index = Index(path)
    assert set(index.state) == {"g1"}
    index.write(IndexEntry(game_id="g3", status="started", time=2.0))
    again = Index(path)
    assert again.state["g3"].status == "started", "the entry appended after a torn line was lost"
    assert again.state["g1"].winner == "village"
    assert path.read_text(encoding="utf-8").endswith("\n")


def test_cut_torn_tail_keeps_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "x"
    path.write_bytes(b"a\n" + b"b" * 100_000)  # a torn line longer than one read block
    assert cut_torn_tail(path) == 100_000 and path.read_bytes() == b"a\n"
    assert cut_torn_tail(path) == 0 and path.read_bytes() == b"a\n"
    path.write_bytes(b"no newline at all")
    cut_torn_tail(path)
    assert path.read_bytes() == b""
    assert cut_torn_tail(tmp_path / "missing") == 0


# --- tournament.json: written atomically, and a damaged one is a clear error ---------------------


def test_write_atomic_leaves_the_old_file_when_the_write_fails(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "tournament.json"
    write_atomic(path, '{"old": true}')

    def fail(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError):
        write_atomic(path, '{"new": true}')
    assert json.loads(path.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["tournament.json"], "no temporary file left behind"


@pytest.mark.parametrize("damage", ["", "{\"config\": {\"na", "[1, 2]", "\x00\x00"])
def test_resume_on_an_empty_or_damaged_tournament_json_is_a_clear_error(tmp_path: Path, damage: str) -> None:
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "t.yaml", out)
    asyncio.run(run_tournament(config(out), RunOptions(out=out)))
    (out / "tournament.json").write_text(damage, encoding="utf-8")
    proc = cli("tournament", str(cfg), "--resume", "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert "tournament.json is" in proc.stderr and "internal error" not in proc.stderr
