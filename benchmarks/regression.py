"""The speed regression net that CI runs: Python function calls per bot game and per model call,
against the numbers kept in benchmarks/baseline.json. Fails past 1.5x, printing both.

    PYTHONPATH=. python benchmarks/regression.py            # check (exit 1 past the limit)
    PYTHONPATH=. python benchmarks/regression.py --update   # write the measured counts as the new baseline

Time is no use as a gate on a machine shared by many processes (CPU time moves 10-40% run to run);
a count of the interpreter's function calls (Python and C, from ``sys.setprofile``) does not move
at all for the same games with PYTHONHASHSEED=0, and a lost cache shows as a multiple of it (a YAML
file re-parsed per speech is thousands of calls each). Each figure is the second of two identical
games in a fresh process, so imports and one-time caches are not in it. CPU time of the same games
(untraced) is printed beside it, for information only.

Figures: ``heuristic_game`` (a std-12-guard game of bot:heuristic seats), ``random_game``
(bot:random seats: the referee, observations, transcript), ``model_call`` (a std-12-guard game of
``mock:`` seats, summary memory, divided by its model calls: the harness's cost per call). The
baseline is per Python minor version: another interpreter counts differently, and the check then
says so and passes (``--update`` records a baseline for it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASELINE = Path(__file__).resolve().parent / "baseline.json"
LIMIT = 1.5
SEED = 5

CHILD = r"""
import asyncio, io, json, sys, time
sys.setrecursionlimit(10000)
from arena.engine import GameSetup
from arena.referee import run_game
from arena.transcript import TranscriptWriter
from agents.registry import make_agent

figure = sys.argv[1]
seed = int(sys.argv[2])
SPEC = {"heuristic_game": "bot:heuristic", "random_game": "bot:random", "model_call": "mock:bench"}[figure]
OPTIONS = {"memory": "summary"} if figure == "model_call" else {}

def game():
    agents = [make_agent(SPEC, seat=s, seed=seed, **OPTIONS) for s in range(1, 13)]
    writer = TranscriptWriter(stream=io.StringIO())
    asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents, writer=writer))
    return sum(getattr(a, "calls", 0) for a in agents)

game()  # imports, config files, caches: paid before counting starts
calls = [0]
def count(frame, event, arg):
    if event == "call" or event == "c_call":
        calls[0] += 1
cpu = time.process_time()
untraced_calls = game()
cpu = time.process_time() - cpu
sys.setprofile(count)
model_calls = game()
sys.setprofile(None)
assert model_calls == untraced_calls, "the traced game differs from the untraced one"
per = max(model_calls, 1) if figure == "model_call" else 1
print(json.dumps({"count": calls[0] / per, "cpu_ms": cpu * 1000 / per, "model_calls": model_calls}))
"""

FIGURES = ("heuristic_game", "random_game", "model_call")


def measure(figure: str, tree: Path = ROOT) -> dict[str, Any]:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, figure, str(SEED)], env=env, cwd=tree,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{figure}: the measuring process failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def version_key() -> str:
    return f"python{sys.version_info.major}.{sys.version_info.minor}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write the measured counts as the baseline")
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="the file of kept counts")
    parser.add_argument("--tree", type=Path, default=ROOT, help="measure another checkout (e.g. an older commit)")
    parser.add_argument("--figures", default=",".join(FIGURES), help="comma-separated subset of " + ", ".join(FIGURES))
    args = parser.parse_args()
    figures = [f.strip() for f in args.figures.split(",") if f.strip()]
    unknown = sorted(set(figures) - set(FIGURES))
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    baseline: Path = args.baseline
    data = json.loads(baseline.read_text(encoding="utf-8")) if baseline.is_file() else {}
    kept = data.get(version_key(), {})
    failed = []
    started = time.perf_counter()
    measured: dict[str, Any] = {}
    for figure in figures:
        got = measure(figure, args.tree)
        measured[figure] = got
        base = kept.get(figure)
        unit = "per model call" if figure == "model_call" else "per game"
        if base is None:
            verdict = "no baseline"
        else:
            ratio = got["count"] / base["count"]
            verdict = f"{ratio:.2f}x the baseline {base['count']:,.0f}"
            if ratio > LIMIT:
                verdict += f"  FAIL (limit {LIMIT}x)"
                failed.append(figure)
        print(f"{figure:15s} {got['count']:>12,.0f} calls {unit} ({got['cpu_ms']:.2f} ms CPU, not gated)  {verdict}")
    print(f"({time.perf_counter() - started:.1f} s; counts of interpreter function calls, {version_key()}, seed {SEED})")
    if args.update:
        data[version_key()] = {**kept, **{f: {"count": round(m["count"], 1)} for f, m in measured.items()}}
        baseline.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {baseline}")
        return 0
    if not kept:
        print(f"no baseline for {version_key()} in {baseline}: nothing to compare (run with --update to record one)")
    if failed:
        print(f"regression: {', '.join(failed)} over {LIMIT}x the kept count", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
