"""The speed regression net of .ci/run (benchmarks/regression.py, issue #27): the counts it gates on
are deterministic, and a figure past 1.5x its kept count fails with both numbers printed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "regression.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--figures", "random_game", *args], cwd=ROOT,
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_a_count_past_one_and_a_half_times_the_baseline_fails_and_prints_both(tmp_path):
    recorded = tmp_path / "baseline.json"
    assert run("--baseline", str(recorded), "--update").returncode == 0
    kept = json.loads(recorded.read_text())
    key = next(iter(kept))
    count = kept[key]["random_game"]["count"]
    again = run("--baseline", str(recorded))
    assert again.returncode == 0 and "1.00x the baseline" in again.stdout  # the same count, to the call
    kept[key]["random_game"]["count"] = count / 1.6
    recorded.write_text(json.dumps(kept))
    failed = run("--baseline", str(recorded))
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert f"{count:,.0f} calls per game" in failed.stdout and f"{count / 1.6:,.0f}" in failed.stdout
    assert "FAIL (limit 1.5x)" in failed.stdout


def test_the_repository_keeps_a_baseline_for_every_figure():
    kept = json.loads((ROOT / "benchmarks" / "baseline.json").read_text())
    assert all(set(figures) == {"heuristic_game", "random_game", "model_call"} for figures in kept.values())
