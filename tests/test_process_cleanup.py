"""Killing only the main process of a process-pool tournament leaves nothing running
(docs/reliability.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def descendants(pid: int) -> set[int]:
    tree = children_of()
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


@pytest.mark.slow  # a real CLI tournament with a process pool: ~30 s on a loaded 2-core machine
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_killing_the_main_process_stops_the_forkserver_and_every_worker(tmp_path: Path) -> None:
    cfg = {"name": "k", "roster": [{"label": "h", "agent": "bot:heuristic"}, {"label": "r", "agent": "bot:random"}],
           "boards": [{"preset": "std-12-guard"}], "deals": 60, "seed": 1, "out": str(tmp_path / "out"),
           "concurrency": 2}
    (tmp_path / "k.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    main = subprocess.Popen([sys.executable, "-m", "arena", "tournament", str(tmp_path / "k.yaml"),
                             "--executor", "process", "--no-progress"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    family: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            family = descendants(main.pid)
            # the forkserver, the resource tracker and two workers under the forkserver
            if len(family) >= 4 and list((tmp_path / "out" / "games").glob("*.jsonl")):
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"the pool never started ({len(family)} child processes)")
        family = descendants(main.pid)
        os.kill(main.pid, signal.SIGKILL)
        main.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(running(p) for p in family):
            time.sleep(0.2)
        left = [p for p in family if running(p)]
        assert not left, f"still running after the main process was killed: {left}"
    finally:
        if main.poll() is None:
            main.kill()
        for pid in family:  # never leave a process of ours behind, even when the test fails
            if running(pid):
                os.kill(pid, signal.SIGKILL)
