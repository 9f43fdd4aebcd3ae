"""SIGTERM stops a tournament as Ctrl-C does (#23 point 9): the run unwinds, exits 143 with the
"--resume" hint, and --resume then finishes exactly the rest. With Ray, whose driver used to print
a C++ stack dump and exit 15, the same holds."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournament import Index

ROOT = Path(__file__).resolve().parent.parent
CONFIG = """name: sigterm
roster: [{{label: h, agent: "bot:heuristic"}}, {{label: r, agent: "bot:random"}}]
boards: [{{preset: std-12-guard}}]
deals: {deals}
seed: 3
seating: sides
out: {out}
concurrency: 2
"""


def start(tmp_path: Path, deals: int, *args: str) -> tuple[subprocess.Popen[str], Path, Path]:
    out = tmp_path / "out"
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG.format(deals=deals, out=out), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", str(config), "--no-progress", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out, config


def terminate_once_playing(proc: subprocess.Popen[str], out: Path, wait: float) -> tuple[int, str]:
    """SIGTERM once the first game is done (every worker is up by then: a process pool stopped while
    a worker is still starting gets a traceback from inside multiprocessing's forkserver)."""
    index = out / "index.jsonl"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and proc.poll() is None:
        if index.exists() and b'"done"' in index.read_bytes():
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the tournament ended before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    return proc.returncode, stderr


def assert_stopped_cleanly(code: int, stderr: str) -> None:
    assert code == 128 + signal.SIGTERM, stderr[-2000:]
    assert "run again with --resume" in stderr
    assert "SIGTERM received" not in stderr and "Traceback" not in stderr and "internal error" not in stderr


def test_sigterm_stops_a_tournament_with_the_resume_hint_and_resume_finishes_it(tmp_path: Path) -> None:
    proc, out, config = start(tmp_path, 16, "--executor", "process")
    assert_stopped_cleanly(*terminate_once_playing(proc, out, 60))
    assert sum(e.status == "done" for e in Index(out / "index.jsonl").state.values()) < 32
    resumed = subprocess.run([sys.executable, "-m", "arena", "tournament", str(config), "--no-progress", "--resume"],
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    # A game a worker finished as the run stopped is kept (its transcript is whole), not replayed.
    played, kept = map(int, re.search(r"(\d+) played, (\d+) already done", resumed.stderr).groups())  # type: ignore[union-attr]
    assert played > 0 and played + kept == 32
    verified = subprocess.run([sys.executable, "-m", "arena", "verify", str(out)], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
    assert verified.returncode == 0 and "OK: 32 games" in verified.stdout, verified.stdout + verified.stderr


@pytest.mark.slow  # starts a local Ray instance: ten to thirty seconds on a busy machine
def test_sigterm_under_ray_prints_no_stack_dump_and_gives_the_resume_hint(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    proc, out, _ = start(tmp_path, 30, "--executor", "ray", "--ray-address", "local")
    assert_stopped_cleanly(*terminate_once_playing(proc, out, 180))
